package exec

// The conversion of COPY FROM fields into Arrow builders. Every column
// has the general conversion (the type's input or receive function, then
// the builder); the columns of the types bulk loads are made of (bigint,
// integer, text, jsonb, real[]) have a direct one that parses the field's bytes
// straight into the builder, without boxing the value or copying it into
// a string, and falls back to the general conversion for any field it
// does not take (so the errors and edge cases stay the input function's).

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// copyConverter converts chunks of COPY FROM rows into records. Each
// goroutine converting rows has its own.
type copyConverter struct {
	c     *sql.Copy
	rt    *Runtime
	split *copySplitter
	// conv converts a non-NULL field of each column into its builder.
	conv      []func(b array.Builder, f []byte) error
	floats    []float32
	jsonb     []byte // a jsonb field's printed form
	jsonbNorm types.JSONBNormalizer
	// left is the number of rows of the chunk from the current one on.
	left int
}

func newCopyConverter(rt *Runtime, c *sql.Copy) *copyConverter {
	v := &copyConverter{c: c, rt: rt, split: newCopySplitter(&c.Options, columnNames(c.Columns))}
	for _, col := range c.Columns {
		v.conv = append(v.conv, v.converter(col.T))
	}
	return v
}

// parallelInput reports whether the input and receive functions of type
// t may run on any goroutine: not those that look names up in the
// session's catalog (the reg* types) or check a domain.
func parallelInput(t types.T) bool {
	switch t.Family {
	case types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		return false
	case types.ArrayFamily:
		return t.Domain == "" && parallelInput(*t.Elem)
	}
	return t.Domain == ""
}

// chunk converts the rows of c into a record, with the CONTEXT of the
// row (and column) on an error.
func (v *copyConverter) chunk(c *copyChunk) (arrow.Record, error) {
	cols, opts, rel := v.c.Columns, &v.c.Options, v.c.Table.Name
	builders := make([]array.Builder, len(cols))
	for j, col := range cols {
		builders[j] = newBuilder(v.rt.mem(), col.T)
		builders[j].Reserve(len(c.ends))
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	start := 0
	for i, end := range c.ends {
		raw := c.data[start:end]
		start, v.left = end, len(c.ends)-i
		fields, err := v.split.row(raw)
		if err != nil {
			return nil, withWhere(err, rowWhere(rel, opts, c.lines[i], raw))
		}
		for j := range cols {
			if j == len(fields) {
				return nil, withWhere(v.split.missing(j), rowWhere(rel, opts, c.lines[i], raw))
			}
			f := fields[j]
			if f.null {
				builders[j].AppendNull()
				continue
			}
			if err := v.conv[j](builders[j], f.b); err != nil {
				return nil, withWhere(err, fieldWhere(rel, opts, c.lines[i], cols[j].Name, f))
			}
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	rec := array.NewRecord(schemaOf(cols), arrs, int64(len(c.ends)))
	releaseAll(arrs)
	return rec, nil
}

// converter returns the conversion of the fields of a column of type t.
func (v *copyConverter) converter(t types.T) func(b array.Builder, f []byte) error {
	binaryFormat := v.c.Options.Format == sql.CopyBinary
	general := func(b array.Builder, f []byte) error {
		var val any
		var err error
		if binaryFormat {
			val, err = receiveBinary(f, t)
		} else {
			val, err = castValue(v.rt.Fn, string(f), types.UnknownT, t, false)
		}
		if err != nil {
			return err
		}
		return appendValue(b, val, t)
	}
	if t.Domain != "" || t.Enum != nil {
		return general // an enum's label is checked against the enum
	}
	switch {
	case t.Family == types.Int8 && binaryFormat:
		return func(b array.Builder, f []byte) error {
			if len(f) != 8 {
				return general(b, f)
			}
			b.(*array.Int64Builder).Append(int64(binary.BigEndian.Uint64(f)))
			return nil
		}
	case t.Family == types.Int8:
		return func(b array.Builder, f []byte) error {
			n, ok := parseDecimal(f)
			if !ok {
				return general(b, f)
			}
			b.(*array.Int64Builder).Append(n)
			return nil
		}
	case t.Family == types.Int4 && binaryFormat:
		return func(b array.Builder, f []byte) error {
			if len(f) != 4 {
				return general(b, f)
			}
			b.(*array.Int32Builder).Append(int32(binary.BigEndian.Uint32(f)))
			return nil
		}
	case t.Family == types.Int4:
		return func(b array.Builder, f []byte) error {
			n, ok := parseDecimal(f)
			if !ok || n != int64(int32(n)) {
				return general(b, f)
			}
			b.(*array.Int32Builder).Append(int32(n))
			return nil
		}
	case t.Family == types.Text:
		// Text and CSV fields were checked to be valid text when split.
		return func(b array.Builder, f []byte) error {
			if binaryFormat && !validText(f) {
				return general(b, f)
			}
			b.(*array.StringBuilder).BinaryBuilder.Append(f)
			return nil
		}
	case t.Family == types.JSONB:
		// jsonb's printed form in one pass (JSONBNormalizer); the
		// documents it leaves go through jsonb's input function.
		return func(b array.Builder, f []byte) error {
			doc := f
			if binaryFormat {
				if len(f) == 0 || f[0] != 1 || !validText(f[1:]) {
					return general(b, f)
				}
				doc = f[1:]
			}
			out, ok := v.jsonbNorm.Append(v.jsonb[:0], doc)
			if !ok {
				return general(b, f)
			}
			v.jsonb = out
			b.(*array.StringBuilder).BinaryBuilder.Append(out)
			return nil
		}
	case t.Family == types.ArrayFamily && t.Elem.Family == types.Float4 && t.Dims <= 1:
		return func(b array.Builder, f []byte) error {
			var ok bool
			if binaryFormat {
				v.floats, ok = types.ReceiveFloat4s(v.floats[:0], f)
			} else {
				v.floats, ok = types.ParseFloat4s(v.floats[:0], f)
			}
			if !ok {
				return general(b, f)
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Float32Builder)
			if vb.Cap()-vb.Len() < len(v.floats) {
				// Room for the rest of the chunk's rows at this length, so
				// that the values are not copied as the builder grows.
				vb.Reserve(len(v.floats) * v.left)
			}
			vb.AppendValues(v.floats, nil)
			return nil
		}
	}
	return general
}

// parseDecimal parses f when it is a plain decimal integer of at most 18
// digits (optionally negative); anything else is left to the input
// function.
func parseDecimal(f []byte) (int64, bool) {
	neg := len(f) > 0 && f[0] == '-'
	if neg {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
