package functions

// to_jsonb(anyelement) and to_json(anyelement), and the datum-to-JSON
// conversion json_build_object, jsonb_agg and friends share: numbers stay
// numbers (NaN and infinities become strings), dates and timestamps are
// ISO 8601 strings, arrays become JSON arrays, json and jsonb values are
// embedded, everything else becomes its text output as a string.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

func init() {
	Register(
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
	)
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
	case types.Int2, types.Int4, types.Int8, types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.Float4, types.Float8, types.Numeric:
		s := types.FormatText(v, baseType(t))
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
	}
	return jsonQuote(outputText(ctx, v, t))
}

// jsonArrayText writes dimension dim of a starting at element off.
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
			b.WriteString(jsonArrayText(ctx, a, elem, dim+1, off+i*stride, sep))
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
	case types.Int2, types.Int4, types.Int8, types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.Float4, types.Float8:
		s := types.FormatText(v, baseType(t))
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
