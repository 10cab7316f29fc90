package functions

// json_to_record(json), jsonb_to_record(jsonb), json_to_recordset(json) and
// jsonb_to_recordset(jsonb): functions returning "record", whose columns
// the caller names and types in a column definition list (FROM
// jsonb_to_recordset(doc) AS x(id int, tags text[])). Each column takes the
// object's member of its name, as PostgreSQL's populate_record does: a
// missing member or JSON null is NULL; a json or jsonb column takes the
// member as JSON; an array column takes a JSON array element by element;
// any other column reads a JSON string's value, or another member's JSON
// text, with its type's input function (and type modifier).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	for _, f := range []struct {
		name string
		in   types.T
		set  bool
	}{
		{"json_to_record", types.JSONT, false},
		{"jsonb_to_record", types.JSONBT, false},
		{"json_to_recordset", types.JSONT, true},
		{"jsonb_to_recordset", types.JSONBT, true},
	} {
		RegisterSetReturning(&SetReturning{Name: f.name, Type: oneArg(f.in), NullCall: true,
			RecordRows: func(ctx *Context, args []any, out []types.Field) (NextRow, error) {
				if args[0] == nil {
					// NULL is no rows for a set, one row of NULLs for a
					// record, as in PostgreSQL.
					if f.set {
						return noRows, nil
					}
					done := false
					return func() ([]any, bool, error) {
						if done {
							return nil, false, nil
						}
						done = true
						return make([]any, len(out)), true, nil
					}, nil
				}
				doc, err := parseJSON(args[0].(string))
				if err != nil {
					return nil, err
				}
				objs := []*jnode{doc}
				if f.set {
					if doc.kind != jsonArray {
						return nil, notArrayOf(f.name, f.in, doc)
					}
					objs = doc.vals
				}
				for _, o := range objs {
					switch {
					case o.kind == jsonObject:
					case f.set:
						return nil, pgerr.New(pgerrcode.InvalidParameterValue, "argument of %s must be an array of objects", f.name)
					case o.kind == jsonArray:
						return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot call populate_composite on an array")
					default:
						return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot call populate_composite on a scalar")
					}
				}
				i := 0
				return func() ([]any, bool, error) {
					if i >= len(objs) {
						return nil, false, nil
					}
					o := objs[i]
					i++
					row := make([]any, len(out))
					for c, col := range out {
						v, err := recordValue(ctx, o.get(col.Name), col.T, f.in.Family == types.JSONB)
						if err != nil {
							return nil, false, err
						}
						row[c] = v
					}
					return row, true, nil
				}, nil
			}})
	}
}

// notArrayOf is the error of a recordset function fn (of a json or jsonb
// argument, in) given doc, which is not an array, worded as PostgreSQL's.
func notArrayOf(fn string, in types.T, doc *jnode) error {
	if in.Family == types.JSONB {
		return pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a non-array", fn)
	}
	if doc.kind == jsonObject {
		return pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on an object", fn)
	}
	return pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a scalar", fn)
}

// recordValue converts the JSON value v (nil: missing) to a column of
// type t; jsonb says the document was jsonb (its values print in jsonb's
// form).
func recordValue(ctx *Context, v *jnode, t types.T, jsonb bool) (any, error) {
	if v == nil || v.kind == jsonNull {
		return nil, nil
	}
	text := func(j *jnode) string {
		if jsonb {
			return jsonbText(j)
		}
		return jsonRaw(j)
	}
	var val any
	var err error
	switch {
	case t.Family == types.JSON:
		val = text(v)
	case t.Family == types.JSONB:
		val = jsonbText(canonJSONB(v))
	case t.IsArray() && t.Elem != nil && v.kind == jsonArray:
		elems := make([]any, len(v.vals))
		for i, e := range v.vals {
			if elems[i], err = recordValue(ctx, e, *t.Elem, jsonb); err != nil {
				return nil, err
			}
		}
		val = &types.Array{Elem: *t.Elem, Dims: []int{len(elems)}, Elems: elems}
	case v.kind == jsonString:
		val, err = types.ParseTextOpts(v.str, t, textOptions(ctx))
	default:
		val, err = types.ParseTextOpts(text(v), t, textOptions(ctx))
	}
	if err != nil {
		return nil, err
	}
	return types.ApplyTypmod(val, t, false)
}
