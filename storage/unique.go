package storage

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Unique and primary key enforcement: one in-memory hash index per
// constraint, mapping the encoded key of a committed row to its row ID. An
// entry may point at a row deleted since (entries are not removed on
// delete, as a delete only names row IDs); a lookup treats such a hit as a
// miss. Compaction, which sees the values, removes the entries of the rows
// it drops. The indexes are rebuilt from the data on Open.

// uniqueIndex is the committed index of one constraint.
type uniqueIndex struct {
	con constraint
	m   keyMap
}

// keyMap maps encoded keys (rowKey) to row IDs. A key that is one integer
// (appendKeyInt's nine bytes: every key of a one-column integer
// constraint, the usual primary key) is kept by its value, in less than
// half the memory of a string key and with no allocation per entry — a
// 10M-row table's primary key index is hundreds of megabytes less; every
// other key is kept as a string. The split is only a representation: the
// nine bytes and the value convert both ways, so the map behaves as one
// map of strings.
type keyMap struct {
	ints map[int64]int64
	strs map[string]int64
}

func newKeyMap() keyMap { return keyMap{ints: map[int64]int64{}, strs: map[string]int64{}} }

// intKey returns the integer of a one-integer key.
func intKey[K string | []byte](k K) (int64, bool) {
	if len(k) != 9 || k[0] != 'i' {
		return 0, false
	}
	var v uint64
	for i := 1; i < 9; i++ {
		v = v<<8 | uint64(k[i])
	}
	return int64(v), true
}

func (m keyMap) get(k string) (int64, bool) {
	if v, ok := intKey(k); ok {
		r, hit := m.ints[v]
		return r, hit
	}
	r, hit := m.strs[k]
	return r, hit
}

// getBytes is get of a key in a buffer, without copying it.
func (m keyMap) getBytes(k []byte) (int64, bool) {
	if v, ok := intKey(k); ok {
		r, hit := m.ints[v]
		return r, hit
	}
	r, hit := m.strs[string(k)]
	return r, hit
}

func (m keyMap) set(k string, row int64) {
	if v, ok := intKey(k); ok {
		m.ints[v] = row
		return
	}
	m.strs[k] = row
}

// setBytes is set of a key in a buffer: copied into a string only when
// it is not one integer.
func (m keyMap) setBytes(k []byte, row int64) {
	if v, ok := intKey(k); ok {
		m.ints[v] = row
		return
	}
	m.strs[string(k)] = row
}

func (m keyMap) del(k string) {
	if v, ok := intKey(k); ok {
		delete(m.ints, v)
		return
	}
	delete(m.strs, k)
}

// deleteRows removes the entries whose row gone reports.
func (m keyMap) deleteRows(gone func(row int64) bool) {
	maps.DeleteFunc(m.ints, func(_ int64, r int64) bool { return gone(r) })
	maps.DeleteFunc(m.strs, func(_ string, r int64) bool { return gone(r) })
}

func (m keyMap) len() int { return len(m.ints) + len(m.strs) }

// keyCols locates a constraint's columns in a row layout given by column
// IDs; ok is false if a column is missing.
func keyCols(con constraint, colIDs []int) ([]int, bool) {
	pos := make([]int, len(con.cols))
	for i, id := range con.cols {
		pos[i] = -1
		for j, c := range colIDs {
			if c == id {
				pos[i] = j
				break
			}
		}
		if pos[i] < 0 {
			return nil, false
		}
	}
	return pos, true
}

// rowKey encodes row i's key over the arrays at pos. ok is false when a key
// column is NULL (NULLs never conflict), unless nullsEqual (NULLS NOT
// DISTINCT): a NULL is then encoded as the one byte 'N', which no value's
// encoding starts with, and the key is a key like any other.
func rowKey(buf []byte, ts []types.T, cols []arrow.Array, pos []int, i int, nullsEqual bool) ([]byte, bool) {
	buf = buf[:0]
	for k, p := range pos {
		a := cols[p]
		if a.IsNull(i) {
			if !nullsEqual {
				return buf, false
			}
			buf = append(buf, 'N')
			continue
		}
		buf = appendKeyValue(buf, ts[k], a, i)
	}
	return buf, true
}

// appendKeyValue encodes a non-null value so that values equal in SQL
// encode equally: integers of any width as int64, floats as float64 with
// -0 = 0 and one NaN, numeric text normalised, char(n) without trailing
// blanks, jsonb by value (types.KeyBytes), intervals by their total
// length as PostgreSQL compares them.
func appendKeyValue(b []byte, t types.T, arr arrow.Array, i int) []byte {
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return append(b, 'b', 1)
		}
		return append(b, 'b', 0)
	case *array.Int16:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Int32:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Int64:
		return appendKeyInt(b, a.Value(i))
	case *array.Uint32:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Date32:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Time64:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Timestamp:
		return appendKeyInt(b, int64(a.Value(i)))
	case *array.Float32:
		return appendKeyFloat(b, float64(a.Value(i)))
	case *array.Float64:
		return appendKeyFloat(b, a.Value(i))
	case *array.String:
		s := a.Value(i)
		switch t.Family {
		case types.Numeric:
			s = normalizeNumeric(s)
		case types.Char:
			s = strings.TrimRight(s, " ")
		case types.JSONB:
			// By value, as jsonb's = compares: 1 and 1.0 are one key.
			return appendKeyBytes(b, 'j', string(types.KeyBytes(nil, s, t)))
		}
		return appendKeyBytes(b, 's', s)
	case *array.Binary:
		return appendKeyBytes(b, 'y', string(a.Value(i)))
	case *array.FixedSizeBinary:
		b = append(b, 'x')
		return append(b, a.Value(i)...)
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		const dayNanos = 86400 * 1e9
		total := new(big.Int).Mul(big.NewInt(int64(v.Months)), big.NewInt(30*dayNanos))
		total.Add(total, new(big.Int).Mul(big.NewInt(int64(v.Days)), big.NewInt(dayNanos)))
		total.Add(total, big.NewInt(v.Nanoseconds))
		return appendKeyBytes(b, 'v', total.String())
	case *array.List:
		elem := t
		if t.IsArray() && t.Elem != nil {
			elem = *t.Elem
			if t.Dims > 1 {
				elem = types.ArrayOf(elem, t.Dims-1)
			}
		}
		start, end := a.ValueOffsets(i)
		b = append(b, 'l')
		b = binary.AppendUvarint(b, uint64(end-start))
		child := a.ListValues()
		for k := start; k < end; k++ {
			if child.IsNull(int(k)) {
				b = append(b, 'n')
				continue
			}
			b = appendKeyValue(b, elem, child, int(k))
		}
		return b
	}
	return appendKeyBytes(b, '?', fmt.Sprint(arr.GetOneForMarshal(i)))
}

// intKeyValues returns the values of a column whose keys appendKeyValue
// encodes as one integer (appendKeyInt), as int64s: the column's own
// values for bigint, a copy for the narrower integers; ok is false for
// any other column (its rows' values at NULLs are undefined).
func intKeyValues(arr arrow.Array) ([]int64, bool) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Int64Values(), true
	case *array.Int32:
		return widen(a.Int32Values()), true
	case *array.Int16:
		return widen(a.Int16Values()), true
	}
	return nil, false
}

func widen[T int16 | int32](vs []T) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

func appendKeyInt(b []byte, v int64) []byte {
	b = append(b, 'i')
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

func appendKeyFloat(b []byte, v float64) []byte {
	switch {
	case v == 0:
		v = 0
	case math.IsNaN(v):
		v = math.NaN()
	}
	b = append(b, 'f')
	return binary.BigEndian.AppendUint64(b, math.Float64bits(v))
}

func appendKeyBytes(b []byte, tag byte, s string) []byte {
	b = append(b, tag)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// normalizeNumeric canonicalises decimal text: no leading zeros, no
// trailing fractional zeros, no sign on zero ("1.50" and "01.5" are equal).
func normalizeNumeric(s string) string {
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if strings.ContainsAny(s, "eE") || !strings.ContainsAny(s, "0123456789") {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) {
			if neg {
				f = -f
			}
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strings.ToLower(s)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

// uniqueViolation is the 23505 error for a duplicate key, with PostgreSQL's
// detail "Key (a, b)=(1, x) already exists.".
func uniqueViolation(def *catalog.TableDef, con constraint, cols []arrow.Array, pos []int, i int) *pgerr.Error {
	names, vals := keyText(def, con, cols, pos, i)
	return pgerr.New(pgerrcode.UniqueViolation, "duplicate key value violates unique constraint %q", con.name).
		WithDetail("Key (%s)=(%s) already exists.", names, vals).WithConstraint(def.Schema, def.Name, con.name)
}

// duplicateInData is the 23505 error for a constraint added over data that
// already repeats a key.
func duplicateInData(def *catalog.TableDef, con constraint, cols []arrow.Array, pos []int, i int) error {
	names, vals := keyText(def, con, cols, pos, i)
	return pgerr.New(pgerrcode.UniqueViolation, "could not create unique index %q", con.name).
		WithDetail("Key (%s)=(%s) is duplicated.", names, vals).WithConstraint(def.Schema, def.Name, con.name)
}

func keyText(def *catalog.TableDef, con constraint, cols []arrow.Array, pos []int, i int) (string, string) {
	var names, vals []string
	if con.key != nil {
		for k, t := range con.key.types {
			vals = append(vals, formatValue(t, cols[pos[k]], i))
		}
		return con.key.keyNames(), strings.Join(vals, ", ")
	}
	for k, id := range con.cols {
		name := fmt.Sprintf("column %d", id)
		var t types.T
		if _, c := def.ColumnByID(id); c != nil {
			name, t = c.Name, c.Type
		}
		names = append(names, name)
		vals = append(vals, formatValue(t, cols[pos[k]], i))
	}
	return strings.Join(names, ", "), strings.Join(vals, ", ")
}

// formatValue renders a value roughly as PostgreSQL's text output does,
// for error details.
func formatValue(t types.T, arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return "null"
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return "t"
		}
		return "f"
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Float32:
		return formatFloat(float64(a.Value(i)), 32)
	case *array.Float64:
		return formatFloat(a.Value(i), 64)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return `\x` + hex.EncodeToString(a.Value(i))
	case *array.FixedSizeBinary:
		v := a.Value(i)
		if len(v) == 16 {
			h := hex.EncodeToString(v)
			return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
		}
		return `\x` + hex.EncodeToString(v)
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Time64:
		d := time.Duration(a.Value(i)) * time.Microsecond
		return time.Unix(0, 0).UTC().Add(d).Format("15:04:05.999999")
	case *array.Timestamp:
		ts := time.UnixMicro(int64(a.Value(i))).UTC()
		if t.Family == types.TimestampTZ {
			return ts.Format("2006-01-02 15:04:05.999999") + "+00"
		}
		return ts.Format("2006-01-02 15:04:05.999999")
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return fmt.Sprintf("%d mons %d days %s", v.Months, v.Days, time.Duration(v.Nanoseconds))
	case *array.List:
		elem := t
		if t.IsArray() && t.Elem != nil {
			elem = *t.Elem
			if t.Dims > 1 {
				elem = types.ArrayOf(elem, t.Dims-1)
			}
		}
		start, end := a.ValueOffsets(i)
		parts := make([]string, 0, end-start)
		child := a.ListValues()
		for k := start; k < end; k++ {
			if child.IsNull(int(k)) {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, formatValue(elem, child, int(k)))
			}
		}
		if t.Family == types.Vector {
			return "[" + strings.Join(parts, ",") + "]"
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprint(arr.GetOneForMarshal(i))
}

func formatFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}
