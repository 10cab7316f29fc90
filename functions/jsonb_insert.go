package functions

// jsonb_insert(target, path, new_value [, insert_after]): target with
// new_value inserted at path, as PostgreSQL's setPath does for it. In an
// array the value goes before the element path names (after it with
// insert_after), at the start for an index before the first element and
// at the end for one past the last; in an object it becomes a new key,
// and an existing key is an error (jsonb_set replaces). A path that does
// not lead into target leaves it unchanged.

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	f := func(_ *Context, a []any) (any, error) {
		path := a[1].(*types.Array)
		if len(path.Dims) > 1 {
			return nil, pgerr.New(pgerrcode.ArraySubscriptError, "wrong number of array subscripts")
		}
		j, err := parseJSON(a[0].(string))
		if err != nil {
			return nil, err
		}
		if j.kind != jsonObject && j.kind != jsonArray {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot set path in scalar")
		}
		if len(path.Elems) == 0 {
			return a[0], nil
		}
		nv, err := parseJSON(a[2].(string))
		if err != nil {
			return nil, err
		}
		after := len(a) > 3 && a[3].(bool)
		r, err := jsonbInsertPath(j, path.Elems, 0, nv, after)
		if err != nil {
			return nil, err
		}
		return jsonbText(r), nil
	}
	Register(
		fn("jsonb_insert", targs(types.JSONBT, textArrayT, types.JSONBT), types.JSONBT, f),
		fn("jsonb_insert", targs(types.JSONBT, textArrayT, types.JSONBT, tBool), types.JSONBT, f),
	)
}

// jsonbInsertPath inserts nv into j at path[level:] (text elements, nil
// for NULL, which is an error only where the path is followed that far).
func jsonbInsertPath(j *jnode, path []any, level int, nv *jnode, after bool) (*jnode, error) {
	if path[level] == nil {
		return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "path element at position %d is null", level+1)
	}
	key := path[level].(string)
	last := level == len(path)-1
	switch j.kind {
	case jsonObject:
		keys, vals := canonObject(j)
		out := &jnode{kind: jsonObject, keys: keys, vals: append([]*jnode(nil), vals...)}
		for i, k := range keys {
			if k != key {
				continue
			}
			if last {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot replace existing key").
					WithHint("Try using the function jsonb_set to replace key value.")
			}
			v, err := jsonbInsertPath(vals[i], path, level+1, nv, after)
			if err != nil {
				return nil, err
			}
			out.vals[i] = v
			return out, nil
		}
		if last {
			out.keys = append(out.keys, key)
			out.vals = append(out.vals, nv)
		}
		return out, nil
	case jsonArray:
		idx, ok := parseJSONBIndex(key)
		if !ok {
			return nil, pgerr.New(pgerrcode.InvalidTextRepresentation,
				"path element at position %d is not an integer: \"%s\"", level+1, key)
		}
		n := len(j.vals)
		if idx < 0 {
			idx += n
		}
		switch {
		case idx < 0 || n == 0:
			if last {
				return &jnode{kind: jsonArray, vals: append([]*jnode{nv}, j.vals...)}, nil
			}
			return j, nil
		case idx >= n:
			if last {
				return &jnode{kind: jsonArray, vals: append(append([]*jnode(nil), j.vals...), nv)}, nil
			}
			return j, nil
		}
		out := &jnode{kind: jsonArray, vals: make([]*jnode, 0, n+1)}
		out.vals = append(out.vals, j.vals[:idx]...)
		switch {
		case !last:
			v, err := jsonbInsertPath(j.vals[idx], path, level+1, nv, after)
			if err != nil {
				return nil, err
			}
			out.vals = append(out.vals, v)
		case after:
			out.vals = append(out.vals, j.vals[idx], nv)
		default:
			out.vals = append(out.vals, nv, j.vals[idx])
		}
		out.vals = append(out.vals, j.vals[idx+1:]...)
		return out, nil
	}
	return j, nil
}

// parseJSONBIndex reads an array index of a path as PostgreSQL's strtoint
// does: leading white space and a sign allowed, nothing after the digits,
// within int4.
func parseJSONBIndex(s string) (int, bool) {
	i, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\v\f\r"), 10, 32)
	return int(i), err == nil
}
