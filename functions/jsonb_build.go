package functions

// jsonb_build_object / json_build_object(key, value, ...) and
// jsonb_build_array / json_build_array(value, ...), over arguments of any
// types.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	obj := func(name string, res types.T, jsonb bool) []*Overload {
		f := func(ctx *Context, a []any, ts []types.T) (any, error) {
			if len(a)%2 != 0 {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of %s() must consist of alternating keys and values.", name)
			}
			keys := make([]string, 0, len(a)/2)
			for i := 0; i < len(a); i += 2 {
				k, err := jsonKey(ctx, a[i], argType(ts, i, a[i]), i+1)
				if err != nil {
					return nil, err
				}
				keys = append(keys, k)
			}
			if jsonb {
				out := &jnode{kind: jsonObject}
				for i := 0; i < len(a); i += 2 {
					v, err := jsonbOf(ctx, a[i+1], argType(ts, i+1, a[i+1]))
					if err != nil {
						return nil, err
					}
					out.keys = append(out.keys, keys[i/2])
					out.vals = append(out.vals, v)
				}
				return jsonbText(out), nil
			}
			var b strings.Builder
			b.WriteByte('{')
			for i := 0; i < len(a); i += 2 {
				if i > 0 {
					b.WriteString(", ")
				}
				quoteJSON(&b, keys[i/2])
				b.WriteString(" : ")
				b.WriteString(jsonOf(ctx, a[i+1], argType(ts, i+1, a[i+1])))
			}
			b.WriteByte('}')
			return b.String(), nil
		}
		return []*Overload{
			withTypes(&Overload{Name: name, Result: res, NullCall: true}, f),
			withTypes(&Overload{Name: name, Args: targs(ArgAnyType), Variadic: true, Result: res, NullCall: true}, f),
		}
	}
	arr := func(name string, res types.T, jsonb bool) []*Overload {
		f := func(ctx *Context, a []any, ts []types.T) (any, error) {
			if jsonb {
				out := &jnode{kind: jsonArray}
				for i, v := range a {
					j, err := jsonbOf(ctx, v, argType(ts, i, v))
					if err != nil {
						return nil, err
					}
					out.vals = append(out.vals, j)
				}
				return jsonbText(out), nil
			}
			var b strings.Builder
			b.WriteByte('[')
			for i, v := range a {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(jsonOf(ctx, v, argType(ts, i, v)))
			}
			b.WriteByte(']')
			return b.String(), nil
		}
		return []*Overload{
			withTypes(&Overload{Name: name, Result: res, NullCall: true}, f),
			withTypes(&Overload{Name: name, Args: targs(ArgAnyType), Variadic: true, Result: res, NullCall: true}, f),
		}
	}
	Register(allStable(obj("jsonb_build_object", types.JSONBT, true)...)...)
	Register(allStable(obj("json_build_object", types.JSONT, false)...)...)
	Register(allStable(arr("jsonb_build_array", types.JSONBT, true)...)...)
	Register(allStable(arr("json_build_array", types.JSONT, false)...)...)
}

// jsonKey is an object key from a scalar datum; pos is the 1-based
// argument position for the NULL error.
func jsonKey(ctx *Context, v any, t types.T, pos int) (string, error) {
	if v == nil {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "argument %d: key must not be null", pos)
	}
	switch t.Family {
	case types.ArrayFamily, types.JSON, types.JSONB, types.Record:
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	case types.DateFamily, types.TimestampFamily, types.TimestampTZ:
		return jsonTimeText(ctx, v, t), nil
	case types.Bool:
		if v.(bool) {
			return "true", nil
		}
		return "false", nil
	}
	return outputText(ctx, v, t), nil
}
