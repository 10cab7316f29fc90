package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// Dictionary evaluation. The columns agents filter on hold a handful of
// values over many rows: metadata->>'repo', memory_type, status. A
// deterministic function whose only varying argument is such a column —
// metadata->>'repo' = $1, kind <> 'error', lower(status) LIKE 'fail%' —
// gives the same result for every row holding the same value, so it is
// computed once per distinct value and the results are spread over the
// rows through each row's value index. The column's dictionary (distinct
// values and per-row indexes) is built once per immutable batch and kept
// in the ExprCache next to the memoised expressions, so a filtered search
// compares a few strings and then scans int32 indexes instead of
// comparing 100k strings per query.

const (
	// dictMinRows is the batch size below which functions are evaluated
	// row by row: building and consulting a dictionary costs more than it
	// saves on small batches.
	dictMinRows = 1024
	// dictMaxValues bounds the distinct values of a dictionary-encoded
	// column (and at most an eighth of its rows may be distinct): past it
	// the column counts as high-cardinality and is evaluated row by row.
	dictMaxValues = 256
)

// dictionary is a string column encoded as its distinct values (NULL
// among them when the column has NULLs) and, per row, the index of the
// row's value.
type dictionary struct {
	values *array.String
	codes  []int32
}

// buildDictionary encodes a string column, or returns nil when it has too
// many distinct values.
func buildDictionary(mem memory.Allocator, arr *array.String) *dictionary {
	n := arr.Len()
	limit := min(dictMaxValues, n/8)
	codes := make([]int32, n)
	index := make(map[string]int32, 16)
	var distinct []string
	nullCode := int32(-1)
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			if nullCode < 0 {
				nullCode = int32(len(distinct))
				distinct = append(distinct, "")
			}
			codes[i] = nullCode
			continue
		}
		s := arr.Value(i)
		c, ok := index[s]
		if !ok {
			if len(distinct) == limit {
				return nil
			}
			c = int32(len(distinct))
			// s aliases the column's buffer; the map and the values
			// array below keep copies.
			s = string([]byte(s))
			index[s] = c
			distinct = append(distinct, s)
		}
		codes[i] = c
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for i, s := range distinct {
		if int32(i) == nullCode {
			b.AppendNull()
		} else {
			b.Append(s)
		}
	}
	return &dictionary{values: b.NewStringArray(), codes: codes}
}

// dictionaryArg returns the index of the one argument of e that reads the
// batch when e can be evaluated over a dictionary: a deterministic
// function whose other arguments read no column, and whose varying
// argument is a column or a memoised expression (both immutable for the
// batch's lifetime, so their dictionaries can be kept).
func dictionaryArg(e *sql.Call) (int, bool) {
	if e.Overload.Volatility == functions.Volatile {
		return 0, false
	}
	varying := -1
	for i, a := range e.Args {
		if !hasColumnRef(a) {
			continue
		}
		if varying >= 0 {
			return 0, false
		}
		varying = i
	}
	if varying < 0 {
		return 0, false
	}
	switch a := e.Args[varying].(type) {
	case *sql.ColumnRef:
	case *sql.Call:
		if _, ok := cacheableInput(a); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	return varying, true
}

// callOnDictionary applies ov to evaluated arguments whose varying one
// (args[varying], immutable) is dictionary-encodable: once per distinct
// value, spread over the n rows. ok is false when the argument has too
// many distinct values or the cache cannot hold its dictionary; the
// caller then applies ov row by row.
func (ev *evaluator) callOnDictionary(e *sql.Call, args []vec, varying, n int) (vec, bool, error) {
	col, isString := args[varying].arr.(*array.String)
	if !isString || n < dictMinRows {
		return vec{}, false, nil
	}
	for i, a := range args {
		if i != varying && !a.isConst() {
			return vec{}, false, nil
		}
	}
	dict := ev.rt.ExprCache.dictionary(ev.mem, col)
	if dict == nil {
		return vec{}, false, nil
	}
	defer dict.values.Release()
	onValues := append([]vec(nil), args...)
	onValues[varying] = vec{arr: dict.values, t: args[varying].t}
	res, err := ev.call(e.Overload, onValues, e.T, dict.values.Len())
	if err != nil || res.isConst() {
		return res, true, err
	}
	defer res.release()
	out, err := spreadByCodes(ev.mem, res.arr, dict.codes)
	if err != nil {
		return vec{}, true, err
	}
	return vec{arr: out, t: e.T}, true, nil
}

// spreadByCodes builds the column whose row i is per[codes[i]].
func spreadByCodes(mem memory.Allocator, per arrow.Array, codes []int32) (arrow.Array, error) {
	if b, ok := per.(*array.Boolean); ok {
		return spreadBools(mem, b, codes), nil
	}
	rows := make([]int, len(codes))
	for i, c := range codes {
		rows[i] = int(c)
	}
	return rowcopy.Take(mem, per, rows)
}

// spreadBools is spreadByCodes for a boolean result (a filter), built
// straight into bitmaps eight rows to a byte.
func spreadBools(mem memory.Allocator, per *array.Boolean, codes []int32) arrow.Array {
	n := len(codes)
	// trueBit and validBit are per distinct value: 1 when its result is
	// true (valid), else 0.
	var trueBit, validBit [dictMaxValues]byte
	hasNull := false
	for v := 0; v < per.Len(); v++ {
		if per.IsValid(v) {
			validBit[v] = 1
			if per.Value(v) {
				trueBit[v] = 1
			}
		} else {
			hasNull = true
		}
	}
	values := memory.NewResizableBuffer(mem)
	values.Resize(int(bitutil.BytesForBits(int64(n))))
	fillBits(values.Bytes(), codes, &trueBit)
	var validity *memory.Buffer
	nulls := 0
	if hasNull {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(values.Len())
		fillBits(validity.Bytes(), codes, &validBit)
		nulls = n - bitutil.CountSetBits(validity.Bytes(), 0, n)
	}
	out := array.NewBoolean(n, values, validity, nulls)
	values.Release()
	if validity != nil {
		validity.Release()
	}
	return out
}

// fillBits sets bit i of dst to bit[codes[i]], for every i.
func fillBits(dst []byte, codes []int32, bit *[dictMaxValues]byte) {
	i := 0
	for ; i+8 <= len(codes); i += 8 {
		c := codes[i : i+8 : i+8]
		dst[i/8] = bit[c[0]] | bit[c[1]]<<1 | bit[c[2]]<<2 | bit[c[3]]<<3 |
			bit[c[4]]<<4 | bit[c[5]]<<5 | bit[c[6]]<<6 | bit[c[7]]<<7
	}
	if i < len(codes) {
		var last byte
		for j, c := range codes[i:] {
			last |= bit[c] << j
		}
		dst[i/8] = last
	}
}
