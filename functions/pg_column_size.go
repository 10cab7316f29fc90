package functions

// pg_column_size(any): the bytes PostgreSQL takes to store a value, as
// monitoring queries and ORMs' size reports call it (sum(pg_column_size(col))).
// The sizes are PostgreSQL's datum layouts: fixed-width types their typlen;
// text, bytea, numeric, jsonb and arrays a varlena of their binary form.
// As in PostgreSQL a value read from a table (a column of the batch) counts
// a short varlena header (1 byte) where its data fits in 126 bytes, and a
// computed or constant value the 4-byte header; PostgreSQL's compression
// of long stored values (over about 2kB) is not modelled, so those count
// uncompressed.

import (
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	ov := &Overload{Name: "pg_column_size", Args: targs(ArgAnyType), Result: tInt4, Volatility: Stable}
	withTypes(ov, func(ctx *Context, a []any, ts []types.T) (any, error) {
		return int64(storedSize(ctx, a[0], argType(ts, 0, a[0]), false)), nil
	})
	ov.Kernel = func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		a := args[0]
		b := types.NewBuilder(mem(ctx), tInt4)
		defer b.Release()
		for i := 0; i < n; i++ {
			v := a.Const
			if a.Array != nil {
				v = nil
				if !a.Array.IsNull(i) {
					v = datumAt(a.Array, i, a.Type)
				}
			}
			if v == nil {
				b.AppendNull()
				continue
			}
			t := a.Type
			if t.Family == types.Unknown {
				t = types.TypeOfValue(v)
			}
			if err := types.AppendValue(b, int64(storedSize(ctx, v, t, a.Array != nil)), tInt4); err != nil {
				return nil, err
			}
		}
		return b.NewArray(), nil
	}
	typedKernels.Store(ov, struct{}{})
	Register(ov)
}

// varlenaHeader is the size of a varlena header: 1 byte for a stored
// value whose data fits a short header (VARATT_CAN_MAKE_SHORT), else 4.
func varlenaHeader(data int, stored bool) int {
	if stored && data+1 <= 127 {
		return 1
	}
	return 4
}

// storedSize is the stored size of v of type t; stored says whether it
// was read from a table.
func storedSize(ctx *Context, v any, t types.T, stored bool) int {
	if !datumFits(v, t) {
		t = types.TypeOfValue(v)
	}
	if l, _ := typeLenAlign(t); l > 0 {
		return l
	}
	var data int
	switch t.Family {
	case types.Bytea:
		data = len(v.([]byte))
	case types.Numeric:
		data = numericDataSize(outputText(ctx, v, t))
	case types.JSONB:
		data = jsonbDataSize(v.(string))
	case types.ArrayFamily, types.Vector:
		data = arrayDataSize(ctx, v.(*types.Array), t)
	case types.Record:
		return recordSize(ctx, v.([]any), t.Fields, stored)
	case types.Inet, types.CIDR:
		// family and bits, then the address's 4 or 16 bytes
		data = 2 + v.(types.InetValue).Size()
	case types.Char:
		s := outputText(ctx, v, t)
		data = len(s)
		if t.Mod > 0 {
			// char(n) is stored blank-padded to n characters.
			data += max(int(t.Mod)-utf8.RuneCountInString(s), 0)
		}
	default:
		data = len(outputText(ctx, v, t))
	}
	return varlenaHeader(data, stored) + data
}

// datumFits reports whether v has the Go type that stands for t's datums
// where storedSize reads them as such (a record field's declared type may
// not be the value's).
func datumFits(v any, t types.T) bool {
	switch v.(type) {
	case []byte:
		return t.Family == types.Bytea
	case *types.Array:
		return t.Family == types.ArrayFamily || t.Family == types.Vector
	case []any:
		return t.Family == types.Record
	case string:
		return t.Family != types.Bytea && t.Family != types.ArrayFamily && t.Family != types.Vector &&
			t.Family != types.Record && t.Family != types.Numeric
	}
	return true
}

// typeLenAlign is PostgreSQL's typlen (0 for a varlena) and typalign of t.
func typeLenAlign(t types.T) (length, align int) {
	switch t.Family {
	case types.Bool, types.InternalChar:
		return 1, 1
	case types.Int2:
		return 2, 2
	case types.Int4, types.Float4, types.DateFamily, types.Oid, types.RegClass, types.RegType,
		types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		return 4, 4
	case types.Int8, types.Float8, types.Time, types.TimestampFamily, types.TimestampTZ:
		return 8, 8
	case types.Interval:
		return 16, 8
	case types.UUID:
		return 16, 1
	case types.MacAddr:
		return 6, 4
	case types.MacAddr8:
		return 8, 4
	case types.Name:
		return 64, 1
	case types.Record:
		return 0, 8
	case types.ArrayFamily:
		if t.Elem != nil {
			if _, a := typeLenAlign(*t.Elem); a == 8 {
				return 0, 8
			}
		}
	}
	return 0, 4
}

// alignUp rounds n up to a multiple of a.
func alignUp(n, a int) int { return (n + a - 1) / a * a }

// numericDataSize is the size of a numeric's data after its varlena
// header, from its text form: a 2-byte header (4 bytes when the weight or
// display scale does not fit the short form) and 2 bytes for each base
// 10000 digit between the first and last nonzero ones.
func numericDataSize(s string) int {
	s = strings.TrimLeft(s, "+-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	ip, fp, _ := strings.Cut(mant, ".")
	if ip == "" && fp == "" || strings.ContainsAny(ip, "ni") {
		return 2 // NaN, Infinity
	}
	e := 0
	for i, c := range strings.TrimLeft(exp, "+-") {
		if i > 6 {
			break
		}
		e = e*10 + int(c-'0')
	}
	if strings.HasPrefix(exp, "-") {
		e = -e
	}
	dscale := max(len(fp)-e, 0)
	digits := ip + fp
	point := len(ip) + e // digits before the decimal point
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits = strings.Trim(digits, "0")
	if digits == "" {
		return 2
	}
	point -= lead
	group := func(pos int) int { // base-10000 weight of the digit at pos
		d := point - 1 - pos
		if d < 0 {
			return -((-d + 3) / 4)
		}
		return d / 4
	}
	weight := group(0)
	ndigits := weight - group(len(digits)-1) + 1
	hdr := 2
	if dscale > 0x3f || weight > 63 || weight < -64 {
		hdr = 4
	}
	return hdr + 2*ndigits
}

// jsonbDataSize is the size of jsonb's binary form (JsonbContainer) of
// the document s after its varlena header: a scalar is a one-element
// array; a container is a 4-byte header, a 4-byte entry for each element
// (two for each object member), then the keys and values, numerics and
// nested containers aligned to 4 bytes.
func jsonbDataSize(s string) int {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	off := 4 // the varlena header is counted in the alignment
	tok, err := d.Token()
	if err != nil {
		return len(s)
	}
	if dl, ok := tok.(json.Delim); ok {
		jsonbContainer(d, dl, &off)
	} else {
		off += 8
		jsonbScalar(tok, &off)
	}
	return off - 4
}

// jsonbContainer adds the container opened by dl (already read) to off.
func jsonbContainer(d *json.Decoder, dl json.Delim, off *int) {
	var keys []string
	var vals []any // json.Delim values are containers, read later
	type nested struct {
		d   json.Delim
		raw json.RawMessage
	}
	for d.More() {
		if dl == '{' {
			k, _ := d.Token()
			ks, _ := k.(string)
			keys = append(keys, ks)
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return
		}
		if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
			vals = append(vals, nested{json.Delim(raw[0]), raw})
		} else {
			vals = append(vals, raw)
		}
	}
	_, _ = d.Token() // the closing delimiter
	*off += 4 + 4*(len(keys)+len(vals))
	for _, k := range keys {
		*off += len(k)
	}
	for _, v := range vals {
		switch v := v.(type) {
		case nested:
			*off = alignUp(*off, 4)
			sub := json.NewDecoder(strings.NewReader(string(v.raw)))
			sub.UseNumber()
			_, _ = sub.Token()
			jsonbContainer(sub, v.d, off)
		case json.RawMessage:
			sub := json.NewDecoder(strings.NewReader(string(v)))
			sub.UseNumber()
			tok, err := sub.Token()
			if err != nil && err != io.EOF {
				continue
			}
			jsonbScalar(tok, off)
		}
	}
}

// jsonbScalar adds a scalar's data to off: a string's bytes, a number's
// numeric varlena (4-byte header) aligned to 4 bytes, nothing for true,
// false and null.
func jsonbScalar(tok json.Token, off *int) {
	switch v := tok.(type) {
	case string:
		*off += len(v)
	case json.Number:
		*off = alignUp(*off, 4) + 4 + numericDataSize(string(v))
	}
}

// arrayDataSize is the size of an array's data after its varlena header
// (ArrayType): ndim, data offset and element type (12 bytes), each
// dimension's length and lower bound, a NULL bitmap when an element is
// NULL, all aligned to 8 bytes, then the elements, each aligned to the
// element type's alignment. Elements are varlenas with 4-byte headers.
// pgvector's vector is its own layout: dim and unused (4 bytes) and a
// float4 for each element.
func arrayDataSize(ctx *Context, a *types.Array, t types.T) int {
	if t.Family == types.Vector {
		return 4 + 4*len(a.Elems)
	}
	et := a.Elem
	if et.Family == types.Unknown && t.Elem != nil {
		et = *t.Elem
	}
	if len(a.Elems) == 0 {
		return 12
	}
	hdr := 4 + 12 + 8*len(a.Dims)
	for _, e := range a.Elems {
		if e == nil {
			hdr += (len(a.Elems) + 7) / 8
			break
		}
	}
	n := alignUp(hdr, 8)
	elen, align := typeLenAlign(et)
	for _, e := range a.Elems {
		if e == nil {
			continue
		}
		if elen > 0 {
			n += elen
		} else {
			n += storedSize(ctx, e, et, false)
		}
		n = alignUp(n, align)
	}
	return n - 4
}

// recordSize is the size of a row value (a heap tuple): a 23-byte header
// and a NULL bitmap when a field is NULL, aligned to 8 bytes, then the
// fields, each aligned to its type's alignment (a short varlena is not
// aligned). The fields' types are those of the record type where it has
// them, else inferred from the values (an integer then counts as int8).
func recordSize(ctx *Context, fields []any, ft []types.Field, stored bool) int {
	hdr := 23
	for _, f := range fields {
		if f == nil {
			hdr += (len(fields) + 7) / 8
			break
		}
	}
	n := alignUp(hdr, 8)
	for i, f := range fields {
		if f == nil {
			continue
		}
		t := types.TypeOfValue(f)
		if i < len(ft) {
			t = ft[i].T
		}
		size := storedSize(ctx, f, t, stored)
		if l, align := typeLenAlign(t); l > 0 || size > 127 || !stored {
			n = alignUp(n, align)
		}
		n += size
	}
	return n
}
