package functions

// JSON operators: -> and ->> (object field or array element), #> and #>>
// (path), on json and jsonb; on jsonb also @> and <@ (containment), ? ?|
// ?& (key existence), || (concatenation), - (delete key or element) and
// #- (delete path).

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

var textArrayT = types.ArrayOf(types.TextT, 1)

func init() {
	for _, jt := range []types.T{types.JSONT, types.JSONBT} {
		jt := jt
		isB := jt.Family == types.JSONB
		out := func(j *jnode) any {
			if isB {
				return jsonbText(j)
			}
			return jsonRaw(j)
		}
		outText := func(j *jnode) any {
			switch j.kind {
			case jsonNull:
				return nil
			case jsonString:
				return j.str
			}
			return out(j).(string)
		}
		field := func(args []any) (*jnode, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			switch k := args[1].(type) {
			case string:
				if j.kind != jsonObject {
					return nil, nil
				}
				return j.get(k), nil
			case int64:
				if isB && j.kind != jsonObject && j.kind != jsonArray && (k == 0 || k == -1) {
					// jsonb keeps a scalar as a one-element array:
					// PostgreSQL's -> 0 and -> -1 find it.
					return j, nil
				}
				return arrayElem(j, k), nil
			}
			return nil, nil
		}
		// member is -> (text false) or ->> of doc's member key by the scan
		// (jsonField): null for SQL NULL; ok false when the parser must
		// answer. A json document with a \u0000 escape is left to the
		// parser, which refuses it as PostgreSQL does (jsonb cannot hold
		// one).
		member := func(doc, key string, text bool) (v string, null, ok bool) {
			if !isB && strings.Contains(doc, `\u0000`) {
				return "", false, false
			}
			raw, found, ok := jsonField(doc, key)
			switch {
			case !ok:
				return "", false, false
			case !found:
				return "", true, true
			case !text:
				return raw, false, true
			}
			return jsonFieldText(raw)
		}
		path := func(args []any) (*jnode, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			return jsonPath(j, args[1].(*types.Array)), nil
		}
		// -> and ->> with a member name: the scan first (member), the
		// parser when it does not answer; over a batch, a kernel that
		// reads each document where it stands in the column.
		byName := func(text bool, res types.T) *Overload {
			ov := &Overload{Name: "->", Args: []types.T{jt, types.TextT}, Result: res}
			if text {
				ov.Name = "->>"
			}
			ov.Eval = func(_ *Context, args []any) (any, error) {
				if v, null, ok := member(args[0].(string), args[1].(string), text); ok {
					if null {
						return nil, nil
					}
					return v, nil
				}
				j, err := field(args)
				if j == nil || err != nil {
					return nil, err
				}
				if text {
					return outText(j), nil
				}
				return out(j), nil
			}
			ov.Kernel = wrapKernel(ov, res, memberKernel(ov, member, text))
			return ov
		}
		Register(
			byName(false, jt),
			&Overload{Name: "->", Args: []types.T{jt, types.Int4T}, Result: jt, Eval: func(_ *Context, args []any) (any, error) {
				j, err := field(args)
				if j == nil || err != nil {
					return nil, err
				}
				return out(j), nil
			}},
			byName(true, types.TextT),
			&Overload{Name: "->>", Args: []types.T{jt, types.Int4T}, Result: types.TextT, Eval: func(_ *Context, args []any) (any, error) {
				j, err := field(args)
				if j == nil || err != nil {
					return nil, err
				}
				return outText(j), nil
			}},
			&Overload{Name: "#>", Args: []types.T{jt, textArrayT}, Result: jt, Eval: func(_ *Context, args []any) (any, error) {
				j, err := path(args)
				if j == nil || err != nil {
					return nil, err
				}
				return out(j), nil
			}},
			&Overload{Name: "#>>", Args: []types.T{jt, textArrayT}, Result: types.TextT, Eval: func(_ *Context, args []any) (any, error) {
				j, err := path(args)
				if j == nil || err != nil {
					return nil, err
				}
				return outText(j), nil
			}},
		)
	}
	B := types.JSONBT
	two := func(name string, r types.T, f func(a, b *jnode) (any, error)) *Overload {
		return &Overload{Name: name, Args: []types.T{B, B}, Result: r, Eval: func(_ *Context, args []any) (any, error) {
			a, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			b, err := parseJSON(args[1].(string))
			if err != nil {
				return nil, err
			}
			return f(a, b)
		}}
	}
	exists := func(name string, arg types.T, f func(j *jnode, keys []string) bool) *Overload {
		return &Overload{Name: name, Args: []types.T{B, arg}, Result: types.BoolT, Eval: func(_ *Context, args []any) (any, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			var keys []string
			switch k := args[1].(type) {
			case string:
				keys = []string{k}
			case *types.Array:
				for _, e := range k.Elems {
					if e != nil {
						keys = append(keys, e.(string))
					}
				}
			}
			return f(j, keys), nil
		}}
	}
	// ?| and ?&, also callable as the functions behind them
	// (jsonb_exists_any, jsonb_exists_all), as @> and <@ are
	// (jsonb_contains, jsonb_contained); jsonb_exists has its own file.
	hasAnyKey := func(j *jnode, keys []string) bool {
		for _, k := range keys {
			if jsonHasKey(j, k) {
				return true
			}
		}
		return false
	}
	hasAllKeys := func(j *jnode, keys []string) bool {
		for _, k := range keys {
			if !jsonHasKey(j, k) {
				return false
			}
		}
		return true
	}
	contains := two("@>", types.BoolT, func(a, b *jnode) (any, error) { return jsonbContains(a, b, true), nil })
	contains.Kernel = wrapKernel(contains, types.BoolT, jsonbContainsKernel(contains))
	Register(
		contains,
		two("<@", types.BoolT, func(a, b *jnode) (any, error) { return jsonbContains(b, a, true), nil }),
		two("||", B, func(a, b *jnode) (any, error) { return jsonbText(jsonbConcat(a, b)), nil }),
		exists("?", types.TextT, func(j *jnode, keys []string) bool { return jsonHasKey(j, keys[0]) }),
		exists("?|", textArrayT, hasAnyKey), exists("jsonb_exists_any", textArrayT, hasAnyKey),
		exists("?&", textArrayT, hasAllKeys), exists("jsonb_exists_all", textArrayT, hasAllKeys),
		two("jsonb_contains", types.BoolT, func(a, b *jnode) (any, error) { return jsonbContains(a, b, true), nil }),
		two("jsonb_contained", types.BoolT, func(a, b *jnode) (any, error) { return jsonbContains(b, a, true), nil }),
		&Overload{Name: "-", Args: []types.T{B, types.TextT}, Result: B, Eval: func(_ *Context, args []any) (any, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			return jsonbDelete(j, []string{args[1].(string)})
		}},
		&Overload{Name: "-", Args: []types.T{B, textArrayT}, Result: B, Eval: func(_ *Context, args []any) (any, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			var keys []string
			for _, e := range args[1].(*types.Array).Elems {
				if e != nil {
					keys = append(keys, e.(string))
				}
			}
			return jsonbDelete(j, keys)
		}},
		&Overload{Name: "-", Args: []types.T{B, types.Int4T}, Result: B, Eval: func(_ *Context, args []any) (any, error) {
			j, err := parseJSON(args[0].(string))
			if err != nil {
				return nil, err
			}
			switch j.kind {
			case jsonObject:
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot delete from object using integer index")
			case jsonArray:
			default:
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot delete from scalar")
			}
			i := args[1].(int64)
			n := int64(len(j.vals))
			if i < 0 {
				i += n
			}
			out := &jnode{kind: jsonArray}
			for k, v := range j.vals {
				if int64(k) != i {
					out.vals = append(out.vals, v)
				}
			}
			return jsonbText(out), nil
		}},
		&Overload{Name: "#-", Args: []types.T{B, textArrayT}, Result: B, Eval: func(_ *Context, args []any) (any, error) {
			return jsonbDeletePathOf(args[0].(string), args[1].(*types.Array))
		}},
	)
}

// jsonbDeletePathOf is jsonb #- path.
func jsonbDeletePathOf(doc string, path *types.Array) (any, error) {
	j, err := parseJSON(doc)
	if err != nil {
		return nil, err
	}
	if j.kind != jsonObject && j.kind != jsonArray {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot delete path in scalar")
	}
	p, err := pathStrings(path)
	if err != nil {
		return nil, err
	}
	r, err := jsonbDeletePath(j, p, 0)
	if err != nil {
		return nil, err
	}
	return jsonbText(r), nil
}

// arrayElem is element i of a JSON array (negative i counts from the end),
// or nil.
func arrayElem(j *jnode, i int64) *jnode {
	if j.kind != jsonArray {
		return nil
	}
	n := int64(len(j.vals))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil
	}
	return j.vals[i]
}

// jsonPath follows a #> path; nil when some step does not exist. A NULL
// path element gives nil.
func jsonPath(j *jnode, path *types.Array) *jnode {
	for _, e := range path.Elems {
		if e == nil || j == nil {
			return nil
		}
		k := e.(string)
		switch j.kind {
		case jsonObject:
			j = j.get(k)
		case jsonArray:
			i, err := strconv.ParseInt(strings.TrimSpace(k), 10, 64)
			if err != nil {
				return nil
			}
			j = arrayElem(j, i)
		default:
			return nil
		}
	}
	return j
}

// jsonHasKey is jsonb's ?: a top-level key, or a string element of a
// top-level array, or the string itself for a scalar string.
func jsonHasKey(j *jnode, k string) bool {
	switch j.kind {
	case jsonObject:
		return j.get(k) != nil
	case jsonArray:
		for _, v := range j.vals {
			if v.kind == jsonString && v.str == k {
				return true
			}
		}
	case jsonString:
		return j.str == k
	}
	return false
}

// jsonbConcat is jsonb ||: objects merge (right wins), arrays
// concatenate, a scalar or object joins an array as an element.
func jsonbConcat(a, b *jnode) *jnode {
	if a.kind == jsonObject && b.kind == jsonObject {
		out := &jnode{kind: jsonObject}
		out.keys = append(append(out.keys, a.keys...), b.keys...)
		out.vals = append(append(out.vals, a.vals...), b.vals...)
		return out
	}
	asArray := func(j *jnode) []*jnode {
		if j.kind == jsonArray {
			return j.vals
		}
		return []*jnode{j}
	}
	out := &jnode{kind: jsonArray}
	out.vals = append(append(out.vals, asArray(a)...), asArray(b)...)
	return out
}

// jsonbDelete is jsonb - text / text[]: remove keys from an object or
// matching strings from an array.
func jsonbDelete(j *jnode, keys []string) (any, error) {
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	switch j.kind {
	case jsonObject:
		out := &jnode{kind: jsonObject}
		for i, k := range j.keys {
			if !drop[k] {
				out.keys = append(out.keys, k)
				out.vals = append(out.vals, j.vals[i])
			}
		}
		return jsonbText(out), nil
	case jsonArray:
		out := &jnode{kind: jsonArray}
		for _, v := range j.vals {
			if !(v.kind == jsonString && drop[v.str]) {
				out.vals = append(out.vals, v)
			}
		}
		return jsonbText(out), nil
	}
	return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot delete from scalar")
}

// pathStrings turns a text[] path into strings; a NULL element is an
// error as in jsonb_set and #-.
func pathStrings(a *types.Array) ([]string, error) {
	p := make([]string, len(a.Elems))
	for i, e := range a.Elems {
		if e == nil {
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "path element at position %d is null", i+1)
		}
		p[i] = e.(string)
	}
	return p, nil
}

func jsonbDeletePath(j *jnode, path []string, level int) (*jnode, error) {
	if len(path) == 0 {
		return j, nil
	}
	switch j.kind {
	case jsonObject:
		keys, vals := canonObject(j)
		out := &jnode{kind: jsonObject}
		for i, k := range keys {
			v := vals[i]
			if k == path[0] {
				if len(path) == 1 {
					continue
				}
				var err error
				if v, err = jsonbDeletePath(v, path[1:], level+1); err != nil {
					return nil, err
				}
			}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, v)
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
		out := &jnode{kind: jsonArray}
		for i, v := range j.vals {
			if int64(i) == idx {
				if len(path) == 1 {
					continue
				}
				var err error
				if v, err = jsonbDeletePath(v, path[1:], level+1); err != nil {
					return nil, err
				}
			}
			out.vals = append(out.vals, v)
		}
		return out, nil
	}
	return j, nil
}
