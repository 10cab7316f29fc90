package functions

// to_jsonb(anyelement), to_json(anyelement), row_to_json(record [,
// pretty]) and array_to_json(anyarray [, pretty]), and the datum-to-JSON
// conversion json_build_object, jsonb_agg and friends share: numbers stay
// numbers (NaN and infinities become strings), dates and timestamps are
// ISO 8601 strings, arrays become JSON arrays, json and jsonb values are
// embedded, everything else becomes its text output as a string.

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

func init() {
	Register(allStable(
		withTypes(&Overload{Name: "to_jsonb", Args: targs(ArgAny), Result: types.JSONBT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				j, err := jsonbOf(ctx, a[0], argType(ts, 0, a[0]))
				if err != nil {
					return nil, err
				}
				return jsonbText(j), nil
			}),
		withTypes(&Overload{Name: "to_json", Args: targs(ArgAny), Result: types.JSONT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				return jsonOf(ctx, a[0], argType(ts, 0, a[0])), nil
			}),
		withTypes(&Overload{Name: "row_to_json", Args: targs(types.RecordT), Result: types.JSONT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				return jsonOf(ctx, a[0], argType(ts, 0, a[0])), nil
			}),
		withTypes(&Overload{Name: "row_to_json", Args: targs(types.RecordT, types.BoolT), Result: types.JSONT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				fields, ok := a[0].([]any)
				if !ok || !a[1].(bool) {
					return jsonOf(ctx, a[0], argType(ts, 0, a[0])), nil
				}
				return jsonRecordText(ctx, fields, argType(ts, 0, a[0]), ",\n "), nil
			}),
		withTypes(&Overload{Name: "array_to_json", Args: targs(ArgAnyArray), Result: types.JSONT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				return jsonOf(ctx, a[0], argType(ts, 0, a[0])), nil
			}),
		withTypes(&Overload{Name: "array_to_json", Args: targs(ArgAnyArray, types.BoolT), Result: types.JSONT},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				t := argType(ts, 0, a[0])
				arr, ok := a[0].(*types.Array)
				if !ok || !a[1].(bool) || t.Elem == nil {
					return jsonOf(ctx, a[0], t), nil
				}
				return jsonArrayText(ctx, arr, *t.Elem, 0, 0, ",\n "), nil
			}),
	)...)
}

// jsonTimeText is a date/time value as JSON writes it (ISO 8601 with T),
// without quotes.
func jsonTimeText(ctx *Context, v any, t types.T) string {
	switch t.Family {
	case types.TimestampFamily:
		if ts := int64(v.(types.Timestamp)); isInfTS(ts) {
			return types.FormatText(v, t)
		}
		return strings.Replace(types.FormatText(v, types.TimestampT), " ", "T", 1)
	case types.TimestampTZ:
		ts := int64(v.(types.Timestamp))
		if isInfTS(ts) {
			return types.FormatText(v, t)
		}
		loc := location(ctx)
		s := strings.Replace(types.FormatText(types.Timestamp(utcToWall(ts, loc)), types.TimestampT), " ", "T", 1)
		off := tzOffsetAt(ts, loc)
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		s += string(sign) + twoDigits(off/3600) + ":" + twoDigits(off/60%60)
		if off%60 != 0 {
			s += ":" + twoDigits(off%60)
		}
		return s
	}
	return types.FormatText(v, t)
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10%10), byte('0' + n%10)})
}

// isJSONNumber reports whether a number's text form is a valid JSON
// number (not NaN or Infinity).
func isJSONNumber(s string) bool {
	return s != "" && s != "NaN" && !strings.Contains(s, "Infinity")
}

// jsonOf is a datum as json text (PostgreSQL's datum_to_json): arrays as
// [1,2] without spaces, json embedded verbatim.
func jsonOf(ctx *Context, v any, t types.T) string {
	if v == nil {
		return "null"
	}
	switch t.Family {
	case types.Bool:
		if v.(bool) {
			return "true"
		}
		return "false"
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric:
		// Numbers are their output function's text (floats follow
		// extra_float_digits), unlike dates, which JSON always writes in
		// ISO 8601 (jsonTimeText).
		s := outputText(ctx, v, t)
		if isJSONNumber(s) {
			return s
		}
		return jsonQuote(s)
	case types.JSON, types.JSONB:
		return v.(string)
	case types.DateFamily, types.TimestampFamily, types.TimestampTZ:
		return jsonQuote(jsonTimeText(ctx, v, t))
	case types.ArrayFamily:
		a := v.(*types.Array)
		return jsonArrayText(ctx, a, *t.Elem, 0, 0, ",")
	case types.Record:
		if fields, ok := v.([]any); ok {
			return jsonRecordText(ctx, fields, t, ",")
		}
	}
	return jsonQuote(outputText(ctx, v, t))
}

// jsonRecordText is a record as a json object, fields separated by sep
// ("," or, for row_to_json's pretty form, ",\n ").
func jsonRecordText(ctx *Context, fields []any, t types.T, sep string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		name, ft := recordField(t, i, f)
		if i > 0 {
			b.WriteString(sep)
		}
		quoteJSON(&b, name)
		b.WriteByte(':')
		b.WriteString(jsonOf(ctx, fieldValue(f, ft), ft))
	}
	b.WriteByte('}')
	return b.String()
}

// recordField is the name and type of field i of a record of type t: the
// declared ones (a table's row), else PostgreSQL's f1, f2, ... and the
// value's own type.
func recordField(t types.T, i int, v any) (string, types.T) {
	if i < len(t.Fields) {
		return t.Fields[i].Name, t.Fields[i].T
	}
	ft := types.TypeOfValue(v)
	if ft.Family == types.Unknown {
		ft = types.TextT
	}
	return "f" + strconv.Itoa(i+1), ft
}

// fieldValue is a record field as a datum of its type: a record read back
// from a column keeps its fields as text.
func fieldValue(v any, t types.T) any {
	if s, ok := v.(string); ok && !t.IsString() {
		if d, err := types.ParseText(s, t); err == nil {
			return d
		}
	}
	return v
}

// jsonArrayText writes dimension dim of a starting at element off, its
// elements separated by sep ("," or, for array_to_json's pretty form,
// ",\n ", which only the outermost dimension has).
func jsonArrayText(ctx *Context, a *types.Array, elem types.T, dim, off int, sep string) string {
	if len(a.Dims) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteByte('[')
	stride := 1
	for _, d := range a.Dims[dim+1:] {
		stride *= d
	}
	for i := 0; i < a.Dims[dim]; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		if dim+1 < len(a.Dims) {
			b.WriteString(jsonArrayText(ctx, a, elem, dim+1, off+i*stride, ","))
		} else {
			b.WriteString(jsonOf(ctx, a.Elems[off+i], elem))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// jsonbOf is a datum as a jsonb value.
func jsonbOf(ctx *Context, v any, t types.T) (*jnode, error) {
	if v == nil {
		return &jnode{kind: jsonNull}, nil
	}
	switch t.Family {
	case types.Bool:
		return &jnode{kind: jsonBool, b: v.(bool)}, nil
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8:
		s := outputText(ctx, v, t)
		if !isJSONNumber(s) {
			return &jnode{kind: jsonString, str: s}, nil
		}
		if strings.ContainsAny(s, "eE") {
			// 1e+20: jsonb keeps numbers as numeric.
			d, _, err := apd.NewFromString(s)
			if err == nil {
				s = types.FormatText(normDec(d), types.NumericT)
			}
		}
		return &jnode{kind: jsonNumber, str: s}, nil
	case types.Numeric:
		s := types.FormatText(v, types.NumericT)
		if !isJSONNumber(s) {
			return &jnode{kind: jsonString, str: s}, nil
		}
		return &jnode{kind: jsonNumber, str: s}, nil
	case types.JSON, types.JSONB:
		return parseJSON(v.(string))
	case types.DateFamily, types.TimestampFamily, types.TimestampTZ:
		return &jnode{kind: jsonString, str: jsonTimeText(ctx, v, t)}, nil
	case types.ArrayFamily:
		a := v.(*types.Array)
		return jsonbArray(ctx, a, *t.Elem, 0, 0)
	case types.Record:
		if fields, ok := v.([]any); ok {
			out := &jnode{kind: jsonObject}
			for i, f := range fields {
				name, ft := recordField(t, i, f)
				j, err := jsonbOf(ctx, fieldValue(f, ft), ft)
				if err != nil {
					return nil, err
				}
				out.keys = append(out.keys, name)
				out.vals = append(out.vals, j)
			}
			return out, nil
		}
	}
	return &jnode{kind: jsonString, str: outputText(ctx, v, t)}, nil
}

func jsonbArray(ctx *Context, a *types.Array, elem types.T, dim, off int) (*jnode, error) {
	out := &jnode{kind: jsonArray}
	if len(a.Dims) == 0 {
		return out, nil
	}
	stride := 1
	for _, d := range a.Dims[dim+1:] {
		stride *= d
	}
	for i := 0; i < a.Dims[dim]; i++ {
		var e *jnode
		var err error
		if dim+1 < len(a.Dims) {
			e, err = jsonbArray(ctx, a, elem, dim+1, off+i*stride)
		} else {
			e, err = jsonbOf(ctx, a.Elems[off+i], elem)
		}
		if err != nil {
			return nil, err
		}
		out.vals = append(out.vals, e)
	}
	return out, nil
}
