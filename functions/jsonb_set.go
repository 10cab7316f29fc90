package functions

// jsonb_set(target, path, new_value [, create_if_missing]): replace (or
// add) the value at path.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	f := func(_ *Context, a []any) (any, error) {
		create := true
		if len(a) > 3 {
			create = a[3].(bool)
		}
		return jsonbSet(a[0].(string), a[1].(*types.Array), a[2].(string), create)
	}
	Register(
		fn("jsonb_set", targs(types.JSONBT, textArrayT, types.JSONBT), types.JSONBT, f),
		fn("jsonb_set", targs(types.JSONBT, textArrayT, types.JSONBT, tBool), types.JSONBT, f),
	)
}

// jsonbSet is jsonb_set(doc, path, value, create).
func jsonbSet(doc string, pathArg *types.Array, value string, create bool) (any, error) {
	j, err := parseJSON(doc)
	if err != nil {
		return nil, err
	}
	nv, err := parseJSON(value)
	if err != nil {
		return nil, err
	}
	if j.kind != jsonObject && j.kind != jsonArray {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot set path in scalar")
	}
	path, err := pathStrings(pathArg)
	if err != nil {
		return nil, err
	}
	if len(path) == 0 {
		// An empty path changes nothing (PostgreSQL returns the target).
		return jsonbText(j), nil
	}
	r, err := jsonbSetPath(j, path, 0, nv, create)
	if err != nil {
		return nil, err
	}
	return jsonbText(r), nil
}

func jsonbSetPath(j *jnode, path []string, level int, nv *jnode, create bool) (*jnode, error) {
	if len(path) == 0 {
		return nv, nil
	}
	switch j.kind {
	case jsonObject:
		keys, vals := canonObject(j)
		out := &jnode{kind: jsonObject, keys: keys, vals: append([]*jnode(nil), vals...)}
		for i, k := range keys {
			if k == path[0] {
				v, err := jsonbSetPath(vals[i], path[1:], level+1, nv, create)
				if err != nil {
					return nil, err
				}
				out.vals[i] = v
				return out, nil
			}
		}
		if create && len(path) == 1 {
			out.keys = append(out.keys, path[0])
			out.vals = append(out.vals, nv)
		}
		return out, nil
	case jsonArray:
		i, ok := parseJSONBIndex(path[0])
		idx := int64(i)
		if !ok {
			return nil, pgerr.New(pgerrcode.InvalidTextRepresentation,
				"path element at position %d is not an integer: \"%s\"", level+1, path[0])
		}
		n := int64(len(j.vals))
		if idx < 0 {
			idx += n
		}
		out := &jnode{kind: jsonArray, vals: append([]*jnode(nil), j.vals...)}
		switch {
		case idx >= 0 && idx < n:
			v, err := jsonbSetPath(j.vals[idx], path[1:], level+1, nv, create)
			if err != nil {
				return nil, err
			}
			out.vals[idx] = v
		case create && len(path) == 1 && idx < 0:
			out.vals = append([]*jnode{nv}, out.vals...)
		case create && len(path) == 1:
			out.vals = append(out.vals, nv)
		}
		return out, nil
	}
	return j, nil
}
