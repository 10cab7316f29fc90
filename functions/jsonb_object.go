package functions

// jsonb_object / json_object(text[]): an object from a one-dimensional
// array of alternating keys and values, or a two-dimensional one of
// [key, value] pairs; (keys text[], values text[]) from two arrays. Values
// are strings, NULL elements null; a NULL key is 22004, odd or
// mismatched arrays 2202E, as PostgreSQL's.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	textArray := types.ArrayOf(tText, 1)
	for _, jsonb := range []bool{true, false} {
		name, res := "json_object", types.JSONT
		if jsonb {
			name, res = "jsonb_object", types.JSONBT
		}
		Register(
			fn(name, targs(textArray), res, func(_ *Context, a []any) (any, error) {
				arr := a[0].(*types.Array)
				switch {
				case len(arr.Elems) == 0:
					return objectText(nil, nil, jsonb)
				case len(arr.Dims) == 1 && len(arr.Elems)%2 != 0:
					return nil, pgerr.New(pgerrcode.ArraySubscriptError, "array must have even number of elements")
				case len(arr.Dims) == 2 && arr.Dims[1] != 2:
					return nil, pgerr.New(pgerrcode.ArraySubscriptError, "array must have two columns")
				case len(arr.Dims) > 2:
					return nil, pgerr.New(pgerrcode.ArraySubscriptError, "wrong number of array subscripts")
				}
				var keys, vals []any
				for i := 0; i < len(arr.Elems); i += 2 {
					keys, vals = append(keys, arr.Elems[i]), append(vals, arr.Elems[i+1])
				}
				return objectText(keys, vals, jsonb)
			}),
			fn(name, targs(textArray, textArray), res, func(_ *Context, a []any) (any, error) {
				k, v := a[0].(*types.Array), a[1].(*types.Array)
				if len(k.Dims) > 1 || len(v.Dims) > 1 {
					return nil, pgerr.New(pgerrcode.ArraySubscriptError, "wrong number of array subscripts")
				}
				if len(k.Elems) != len(v.Elems) {
					return nil, pgerr.New(pgerrcode.ArraySubscriptError, "mismatched array dimensions")
				}
				return objectText(k.Elems, v.Elems, jsonb)
			}),
		)
	}
}

// objectText is the json (jsonb) text of the object of string values
// vals (NULL: null) under keys.
func objectText(keys, vals []any, jsonb bool) (any, error) {
	out := &jnode{kind: jsonObject}
	for i, k := range keys {
		if k == nil {
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "null value not allowed for object key")
		}
		v := &jnode{kind: jsonNull}
		if vals[i] != nil {
			v = &jnode{kind: jsonString, str: vals[i].(string)}
		}
		out.keys, out.vals = append(out.keys, k.(string)), append(out.vals, v)
	}
	if jsonb {
		return jsonbText(out), nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range out.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		quoteJSON(&b, k)
		b.WriteString(" : ")
		writeJSONB(&b, out.vals[i])
	}
	b.WriteByte('}')
	return b.String(), nil
}
