package functions

// jsonb_path_exists, jsonb_path_match, jsonb_path_query and its _array
// and _first forms, and the operators jsonb @? jsonpath and jsonb @@
// jsonpath: PostgreSQL 15's SQL/JSON path evaluation (jsonpath_exec.c)
// over jsonb, with lax and strict modes and silent error suppression.

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/jsonpath"
)

// pathResult is jsonpath_exec.c's JsonPathExecResult.
type pathResult uint8

const (
	pathOK pathResult = iota
	pathNotFound
	pathError
)

// pathBool is a predicate's three-valued result (JsonPathBool).
type pathBool uint8

const (
	pbFalse pathBool = iota
	pbTrue
	pbUnknown
)

// pathExec is one evaluation of a path over a document.
type pathExec struct {
	vars             *jnode
	root             *jnode
	current          *jnode
	lax              bool
	ignoreStructural bool
	throwErrors      bool
	arraySize        int // the innermost array's size, for last; -1 outside subscripts
	err              error
}

// fail records err: thrown (the evaluation stops) when errors are
// thrown, otherwise the item's result is an error that silent mode and
// predicates swallow.
func (c *pathExec) fail(code, format string, args ...any) pathResult {
	if c.throwErrors && c.err == nil {
		c.err = pgerr.New(code, format, args...)
	}
	return pathError
}

// found collects results; nil means only whether there is one matters.
type found struct{ vals []*jnode }

func (f *found) add(v *jnode) {
	if f != nil {
		f.vals = append(f.vals, v)
	}
}

func numNode(d *apd.Decimal) *jnode { return &jnode{kind: jsonNumber, str: d.Text('f')} }

func nodeNum(j *jnode) *apd.Decimal {
	d, _, err := apd.NewFromString(j.str)
	if err != nil {
		return new(apd.Decimal)
	}
	return d
}

// runPath evaluates p over doc (jsonb text) with vars (jsonb text or "");
// a thrown error is returned as err.
func runPath(doc string, p *jsonpath.Path, vars string, hasVars, throw bool, f *found) (pathResult, error) {
	root, err := parseJSONB(doc)
	if err != nil {
		return pathError, err
	}
	c := &pathExec{root: root, lax: p.Lax, ignoreStructural: p.Lax, throwErrors: throw, arraySize: -1}
	if hasVars {
		v, err := parseJSONB(vars)
		if err != nil {
			return pathError, err
		}
		if v.kind != jsonObject {
			return pathError, pgerr.New(pgerrcode.InvalidParameterValue, "\"vars\" argument is not an object").
				WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
		}
		c.vars = v
	}
	var res pathResult
	if !p.Lax && f == nil {
		// strict mode needs every result to see that there are no errors
		all := &found{}
		res = c.item(p.Root, root, all)
		if res != pathError && len(all.vals) == 0 {
			res = pathNotFound
		}
	} else {
		res = c.item(p.Root, root, f)
	}
	return res, c.err
}

func (c *pathExec) item(it *jsonpath.Item, v *jnode, f *found) pathResult {
	return c.itemUnwrap(it, v, f, c.lax)
}

// next continues with it's next step, or adds v to the results.
func (c *pathExec) next(it *jsonpath.Item, v *jnode, f *found) pathResult {
	if it.Next != nil {
		return c.item(it.Next, v, f)
	}
	f.add(v)
	return pathOK
}

// anyItem applies it (or collects, when it is nil) to the members of the
// array or object v from level on, as executeAnyItem.
func (c *pathExec) anyItem(it *jsonpath.Item, v *jnode, f *found, level, first, last uint32, ignoreStructural, unwrapNext bool) pathResult {
	res := pathNotFound
	if level > last {
		return res
	}
	for _, e := range v.vals {
		isContainer := e.kind == jsonArray || e.kind == jsonObject
		if level >= first || first == jsonpath.LastLevel && last == jsonpath.LastLevel && !isContainer {
			if it != nil {
				saved := c.ignoreStructural
				if ignoreStructural {
					c.ignoreStructural = true
				}
				res = c.itemUnwrap(it, e, f, unwrapNext)
				c.ignoreStructural = saved
				if res == pathError || res == pathOK && f == nil {
					break
				}
			} else if f != nil {
				f.add(e)
			} else {
				return pathOK
			}
		}
		if level < last && isContainer {
			res = c.anyItem(it, e, f, level+1, first, last, ignoreStructural, unwrapNext)
			if res == pathError || res == pathOK && f == nil {
				break
			}
		}
	}
	return res
}

// unwrapArray applies it to each element of the array v.
func (c *pathExec) unwrapArray(it *jsonpath.Item, v *jnode, f *found, unwrapElements bool) pathResult {
	return c.anyItem(it, v, f, 1, 1, 1, false, unwrapElements)
}

func (c *pathExec) itemUnwrap(it *jsonpath.Item, v *jnode, f *found, unwrap bool) pathResult {
	switch it.Kind {
	case jsonpath.And, jsonpath.Or, jsonpath.Not, jsonpath.IsUnknown, jsonpath.Equal, jsonpath.NotEqual,
		jsonpath.Less, jsonpath.Greater, jsonpath.LessOrEqual, jsonpath.GreaterOrEqual,
		jsonpath.Exists, jsonpath.StartsWith, jsonpath.LikeRegex:
		st := c.boolItem(it, v)
		if c.err != nil {
			return pathError
		}
		if it.Next == nil && f == nil {
			return pathOK
		}
		r := &jnode{kind: jsonNull}
		if st != pbUnknown {
			r = &jnode{kind: jsonBool, b: st == pbTrue}
		}
		return c.next(it, r, f)
	case jsonpath.Add, jsonpath.Sub, jsonpath.Mul, jsonpath.Div, jsonpath.Mod:
		return c.binaryArith(it, v, f)
	case jsonpath.Plus, jsonpath.Minus:
		return c.unaryArith(it, v, f)
	case jsonpath.Root:
		return c.next(it, c.root, f)
	case jsonpath.Current:
		return c.next(it, c.current, f)
	case jsonpath.Key:
		if v.kind == jsonObject {
			if m := v.get(it.Str); m != nil {
				return c.next(it, m, f)
			}
			if !c.ignoreStructural {
				return c.fail(pgerrcode.SQLJSONMemberNotFound, "JSON object does not contain key \"%s\"", it.Str)
			}
		} else if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		} else if !c.ignoreStructural {
			return c.fail(pgerrcode.SQLJSONMemberNotFound, "jsonpath member accessor can only be applied to an object")
		}
		return pathNotFound
	case jsonpath.AnyArray:
		if v.kind == jsonArray {
			return c.unwrapArray(it.Next, v, f, c.lax)
		}
		if c.lax {
			return c.next(it, v, f)
		}
		if !c.ignoreStructural {
			return c.fail(pgerrcode.SQLJSONArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array")
		}
		return pathNotFound
	case jsonpath.IndexArray:
		return c.indexArray(it, v, f)
	case jsonpath.Last:
		if c.arraySize < 0 {
			return c.fail(pgerrcode.InternalError, "evaluating jsonpath LAST outside of array subscript")
		}
		if it.Next == nil && f == nil {
			return pathOK
		}
		return c.next(it, numNode(apd.New(int64(c.arraySize-1), 0)), f)
	case jsonpath.AnyKey:
		if v.kind == jsonObject {
			return c.anyItem(it.Next, v, f, 1, 1, 1, false, c.lax)
		}
		if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		}
		if !c.ignoreStructural {
			return c.fail(pgerrcode.SQLJSONObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object")
		}
		return pathNotFound
	case jsonpath.Any:
		res := pathNotFound
		if it.First == 0 {
			saved := c.ignoreStructural
			c.ignoreStructural = true
			res = c.next(it, v, f)
			c.ignoreStructural = saved
			if res == pathOK && f == nil {
				return res
			}
		}
		if v.kind == jsonArray || v.kind == jsonObject {
			res = c.anyItem(it.Next, v, f, 1, it.First, it.Last, true, c.lax)
		}
		return res
	case jsonpath.Filter:
		if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		}
		saved := c.current
		c.current = v
		st := c.boolItem(it.Left, v)
		c.current = saved
		if c.err != nil {
			return pathError
		}
		if st != pbTrue {
			return pathNotFound
		}
		return c.next(it, v, f)
	case jsonpath.Null, jsonpath.Bool, jsonpath.Numeric, jsonpath.String, jsonpath.Variable:
		if it.Next == nil && f == nil && it.Kind != jsonpath.Variable {
			return pathOK
		}
		var lit *jnode
		switch it.Kind {
		case jsonpath.Null:
			lit = &jnode{kind: jsonNull}
		case jsonpath.Bool:
			lit = &jnode{kind: jsonBool, b: it.Bool}
		case jsonpath.Numeric:
			lit = numNode(it.Num)
		case jsonpath.String:
			lit = &jnode{kind: jsonString, str: it.Str}
		default:
			if c.vars != nil {
				lit = c.vars.get(it.Str)
			}
			if lit == nil {
				if c.err == nil {
					c.err = pgerr.New(pgerrcode.UndefinedObject, "could not find jsonpath variable \"%s\"", it.Str)
				}
				return pathError
			}
		}
		return c.next(it, lit, f)
	case jsonpath.Type:
		return c.next(it, &jnode{kind: jsonString, str: pathTypeName(v)}, f)
	case jsonpath.Size:
		size := len(v.vals)
		if v.kind != jsonArray {
			if !c.lax {
				if !c.ignoreStructural {
					return c.fail(pgerrcode.SQLJSONArrayNotFound, "jsonpath item method .%s() can only be applied to an array", it.Kind.OpName())
				}
				return pathNotFound
			}
			size = 1
		}
		return c.next(it, numNode(apd.New(int64(size), 0)), f)
	case jsonpath.Abs, jsonpath.Floor, jsonpath.Ceiling:
		if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		}
		if v.kind != jsonNumber {
			return c.fail(pgerrcode.NonNumericSQLJSONItem, "jsonpath item method .%s() can only be applied to a numeric value", it.Kind.OpName())
		}
		d, r := nodeNum(v), new(apd.Decimal)
		switch it.Kind {
		case jsonpath.Abs:
			r.Abs(d)
		case jsonpath.Floor:
			_, _ = apd.BaseContext.Floor(r, d)
		default:
			_, _ = apd.BaseContext.Ceil(r, d)
		}
		if r.IsZero() {
			r.Negative = false
		}
		if it.Next == nil && f == nil {
			return pathOK
		}
		return c.next(it, numNode(r), f)
	case jsonpath.Double:
		if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		}
		switch v.kind {
		case jsonNumber:
			x, err := strconv.ParseFloat(v.str, 64)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return c.fail(pgerrcode.NonNumericSQLJSONItem, "numeric argument of jsonpath item method .%s() is out of range for type double precision", it.Kind.OpName())
			}
			return c.next(it, v, f)
		case jsonString:
			x, err := parseFloat8(v.str)
			if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
				return c.fail(pgerrcode.NonNumericSQLJSONItem, "string argument of jsonpath item method .%s() is not a valid representation of a double precision number", it.Kind.OpName())
			}
			d, _, _ := apd.NewFromString(strconv.FormatFloat(x, 'g', 15, 64))
			return c.next(it, numNode(d), f)
		}
		return c.fail(pgerrcode.NonNumericSQLJSONItem, "jsonpath item method .%s() can only be applied to a string or numeric value", it.Kind.OpName())
	case jsonpath.KeyValue:
		return c.keyValue(it, v, f, unwrap)
	case jsonpath.Datetime:
		if unwrap && v.kind == jsonArray {
			return c.unwrapArray(it, v, f, false)
		}
		if v.kind != jsonString {
			return c.fail(pgerrcode.InvalidArgumentForSQLJSONDatetimeFunction, "jsonpath item method .%s() can only be applied to a string", it.Kind.OpName())
		}
		if c.err == nil {
			c.err = pgerr.New(pgerrcode.FeatureNotSupported, "jsonpath item method .datetime() is not supported")
		}
		return pathError
	}
	return c.fail(pgerrcode.InternalError, "unknown jsonpath item")
}

// parseFloat8 reads a double precision as float8in does (surrounding
// blanks allowed, Infinity and NaN spelled in any case).
func parseFloat8(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	case "nan":
		return math.NaN(), nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return math.Inf(1), nil
	}
	return x, err
}

// pathTypeName is .type()'s answer.
func pathTypeName(v *jnode) string {
	switch v.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean"
	case jsonNumber:
		return "number"
	case jsonString:
		return "string"
	case jsonArray:
		return "array"
	}
	return "object"
}

func (c *pathExec) indexArray(it *jsonpath.Item, v *jnode, f *found) pathResult {
	if v.kind != jsonArray && !c.lax {
		if !c.ignoreStructural {
			return c.fail(pgerrcode.SQLJSONArrayNotFound, "jsonpath array accessor can only be applied to an array")
		}
		return pathNotFound
	}
	singleton := v.kind != jsonArray
	size := len(v.vals)
	if singleton {
		size = 1
	}
	savedSize := c.arraySize
	c.arraySize = size
	defer func() { c.arraySize = savedSize }()
	res := pathNotFound
	for _, s := range it.Subs {
		from, r := c.arrayIndex(s.From, v)
		if r == pathError {
			return r
		}
		to := from
		if s.To != nil {
			if to, r = c.arrayIndex(s.To, v); r == pathError {
				return r
			}
		}
		if !c.ignoreStructural && (from < 0 || from > to || to >= size) {
			return c.fail(pgerrcode.InvalidSQLJSONSubscript, "jsonpath array subscript is out of bounds")
		}
		from = max(from, 0)
		to = min(to, size-1)
		res = pathNotFound
		for i := from; i <= to; i++ {
			e := v
			if !singleton {
				e = v.vals[i]
			}
			if it.Next == nil && f == nil {
				return pathOK
			}
			res = c.next(it, e, f)
			if res == pathError || res == pathOK && f == nil {
				return res
			}
		}
	}
	return res
}

// arrayIndex evaluates a subscript to an integer (getArrayIndex).
func (c *pathExec) arrayIndex(it *jsonpath.Item, v *jnode) (int, pathResult) {
	f := &found{}
	if r := c.item(it, v, f); r == pathError {
		return 0, r
	}
	if len(f.vals) != 1 || f.vals[0].kind != jsonNumber {
		return 0, c.fail(pgerrcode.InvalidSQLJSONSubscript, "jsonpath array subscript is not a single numeric value")
	}
	d := new(apd.Decimal)
	_, _ = apd.BaseContext.RoundToIntegralValue(d, truncDec(nodeNum(f.vals[0]), 0))
	n, err := d.Int64()
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, c.fail(pgerrcode.InvalidSQLJSONSubscript, "jsonpath array subscript is out of integer range")
	}
	return int(n), pathOK
}

// unwrapped evaluates it and, in lax mode, replaces arrays among its
// results by their elements (executeItemOptUnwrapResult).
func (c *pathExec) unwrapped(it *jsonpath.Item, v *jnode, unwrap bool) ([]*jnode, pathResult) {
	f := &found{}
	r := c.item(it, v, f)
	if r == pathError || !unwrap || !c.lax {
		return f.vals, r
	}
	var out []*jnode
	for _, e := range f.vals {
		if e.kind == jsonArray {
			out = append(out, e.vals...)
		} else {
			out = append(out, e)
		}
	}
	return out, r
}

// unwrappedNoThrow is unwrapped with errors suppressed.
func (c *pathExec) unwrappedNoThrow(it *jsonpath.Item, v *jnode, unwrap bool) ([]*jnode, pathResult) {
	saved := c.throwErrors
	c.throwErrors = false
	vals, r := c.unwrapped(it, v, unwrap)
	c.throwErrors = saved
	return vals, r
}

func (c *pathExec) binaryArith(it *jsonpath.Item, v *jnode, f *found) pathResult {
	l, r := c.unwrapped(it.Left, v, true)
	if r == pathError {
		return r
	}
	rv, r := c.unwrapped(it.Right, v, true)
	if r == pathError {
		return r
	}
	if len(l) != 1 || l[0].kind != jsonNumber {
		return c.fail(pgerrcode.SingletonSQLJSONItemRequired, "left operand of jsonpath operator %s is not a single numeric value", it.Kind.OpName())
	}
	if len(rv) != 1 || rv[0].kind != jsonNumber {
		return c.fail(pgerrcode.SingletonSQLJSONItemRequired, "right operand of jsonpath operator %s is not a single numeric value", it.Kind.OpName())
	}
	op := map[jsonpath.Kind]arithOp{jsonpath.Add: opAdd, jsonpath.Sub: opSub, jsonpath.Mul: opMul, jsonpath.Div: opDiv, jsonpath.Mod: opMod}[it.Kind]
	d, err := numericOp(op, nodeNum(l[0]), nodeNum(rv[0]))
	if err != nil {
		if c.throwErrors && c.err == nil {
			c.err = err
		}
		return pathError
	}
	if it.Next == nil && f == nil {
		return pathOK
	}
	return c.next(it, numNode(d), f)
}

func (c *pathExec) unaryArith(it *jsonpath.Item, v *jnode, f *found) pathResult {
	vals, r := c.unwrapped(it.Left, v, true)
	if r == pathError {
		return r
	}
	res := pathNotFound
	for _, e := range vals {
		if e.kind != jsonNumber {
			if f == nil && it.Next == nil {
				continue
			}
			return c.fail(pgerrcode.SQLJSONNumberNotFound, "operand of unary jsonpath operator %s is not a numeric value", it.Kind.OpName())
		}
		if f == nil && it.Next == nil {
			return pathOK
		}
		if it.Kind == jsonpath.Minus {
			d := new(apd.Decimal).Neg(nodeNum(e))
			if d.IsZero() {
				d.Negative = false
			}
			e = numNode(d)
		}
		r := c.next(it, e, f)
		if r == pathError {
			return r
		}
		if r == pathOK {
			if f == nil {
				return pathOK
			}
			res = pathOK
		}
	}
	return res
}

func (c *pathExec) keyValue(it *jsonpath.Item, v *jnode, f *found, unwrap bool) pathResult {
	if unwrap && v.kind == jsonArray {
		return c.unwrapArray(it, v, f, false)
	}
	if v.kind != jsonObject {
		return c.fail(pgerrcode.SQLJSONObjectNotFound, "jsonpath item method .%s() can only be applied to an object", it.Kind.OpName())
	}
	if len(v.keys) == 0 {
		return pathNotFound
	}
	if v != c.root {
		if c.err == nil {
			c.err = pgerr.New(pgerrcode.FeatureNotSupported, "jsonpath item method .keyvalue() is supported only on the root object")
		}
		return pathError
	}
	res := pathNotFound
	for i, k := range v.keys {
		kv := &jnode{kind: jsonObject, keys: []string{"id", "key", "value"},
			vals: []*jnode{{kind: jsonNumber, str: "0"}, {kind: jsonString, str: k}, v.vals[i]}}
		res = c.next(it, kv, f)
		if res == pathError || res == pathOK && f == nil {
			return res
		}
	}
	return res
}

// boolItem evaluates a predicate (executeBoolItem).
func (c *pathExec) boolItem(it *jsonpath.Item, v *jnode) pathBool {
	switch it.Kind {
	case jsonpath.And:
		l := c.boolItem(it.Left, v)
		if l == pbFalse {
			return pbFalse
		}
		r := c.boolItem(it.Right, v)
		if r == pbTrue {
			return l
		}
		return r
	case jsonpath.Or:
		l := c.boolItem(it.Left, v)
		if l == pbTrue {
			return pbTrue
		}
		r := c.boolItem(it.Right, v)
		if r == pbFalse {
			return l
		}
		return r
	case jsonpath.Not:
		switch c.boolItem(it.Left, v) {
		case pbUnknown:
			return pbUnknown
		case pbTrue:
			return pbFalse
		}
		return pbTrue
	case jsonpath.IsUnknown:
		if c.boolItem(it.Left, v) == pbUnknown {
			return pbTrue
		}
		return pbFalse
	case jsonpath.Equal, jsonpath.NotEqual, jsonpath.Less, jsonpath.Greater, jsonpath.LessOrEqual, jsonpath.GreaterOrEqual:
		return c.predicate(it.Left, it.Right, v, true, func(a, b *jnode) pathBool { return compareItems(it.Kind, a, b) })
	case jsonpath.StartsWith:
		return c.predicate(it.Left, it.Right, v, false, func(a, b *jnode) pathBool {
			if a.kind != jsonString || b.kind != jsonString {
				return pbUnknown
			}
			if strings.HasPrefix(a.str, b.str) {
				return pbTrue
			}
			return pbFalse
		})
	case jsonpath.LikeRegex:
		flags := ""
		if strings.Contains(it.Flags, "i") {
			flags += "i"
		}
		if strings.Contains(it.Flags, "q") {
			flags += "q"
		} else if !strings.Contains(it.Flags, "s") {
			flags += "p" // '.' does not match a newline
		}
		if strings.Contains(it.Flags, "m") && !strings.Contains(it.Flags, "q") {
			flags += "n"
		}
		re, err := compileRegex(it.Str, flags)
		if err != nil {
			if c.err == nil {
				c.err = err
			}
			return pbUnknown
		}
		return c.predicate(it.Left, nil, v, false, func(a, _ *jnode) pathBool {
			if a.kind != jsonString {
				return pbUnknown
			}
			if re.MatchString(a.str) {
				return pbTrue
			}
			return pbFalse
		})
	case jsonpath.Exists:
		if !c.lax {
			vals, r := c.unwrappedNoThrow(it.Left, v, false)
			if r == pathError {
				return pbUnknown
			}
			if len(vals) == 0 {
				return pbFalse
			}
			return pbTrue
		}
		saved := c.throwErrors
		c.throwErrors = false
		r := c.item(it.Left, v, nil)
		c.throwErrors = saved
		switch r {
		case pathError:
			return pbUnknown
		case pathOK:
			return pbTrue
		}
		return pbFalse
	}
	return pbUnknown
}

// predicate applies test to each pair of the operands' values
// (executePredicate): lax mode stops at the first true, strict mode at
// the first error.
func (c *pathExec) predicate(left, right *jsonpath.Item, v *jnode, unwrapRight bool, test func(a, b *jnode) pathBool) pathBool {
	lv, r := c.unwrappedNoThrow(left, v, true)
	if r == pathError {
		return pbUnknown
	}
	var rv []*jnode
	if right != nil {
		if rv, r = c.unwrappedNoThrow(right, v, unwrapRight); r == pathError {
			return pbUnknown
		}
	}
	errored, ok := false, false
	for _, a := range lv {
		rs := rv
		if right == nil {
			rs = []*jnode{nil}
		}
		for _, b := range rs {
			switch test(a, b) {
			case pbUnknown:
				if !c.lax {
					return pbUnknown
				}
				errored = true
			case pbTrue:
				if c.lax {
					return pbTrue
				}
				ok = true
			}
		}
	}
	if ok {
		return pbTrue
	}
	if errored {
		return pbUnknown
	}
	return pbFalse
}

// compareItems compares two values with op (compareItems): values of
// different types do not compare, except that null is unequal to all.
func compareItems(op jsonpath.Kind, a, b *jnode) pathBool {
	if a.kind != b.kind {
		if a.kind == jsonNull || b.kind == jsonNull {
			if op == jsonpath.NotEqual {
				return pbTrue
			}
			return pbFalse
		}
		return pbUnknown
	}
	cmp := 0
	switch a.kind {
	case jsonNull:
	case jsonBool:
		cmp = cmpBool(a.b, b.b)
	case jsonNumber:
		cmp = types.CompareNumeric(nodeNum(a), nodeNum(b))
	case jsonString:
		cmp = strings.Compare(a.str, b.str)
	default:
		return pbUnknown
	}
	var res bool
	switch op {
	case jsonpath.Equal:
		res = cmp == 0
	case jsonpath.NotEqual:
		res = cmp != 0
	case jsonpath.Less:
		res = cmp < 0
	case jsonpath.Greater:
		res = cmp > 0
	case jsonpath.LessOrEqual:
		res = cmp <= 0
	default:
		res = cmp >= 0
	}
	if res {
		return pbTrue
	}
	return pbFalse
}

// pathCall is one call's arguments: target, path and the optional vars
// and silent.
type pathCall struct {
	doc     string
	path    *jsonpath.Path
	vars    string
	hasVars bool
	silent  bool
}

func newPathCall(args []any) (pathCall, error) {
	p, err := jsonpath.Parse(args[1].(string))
	if err != nil {
		return pathCall{}, err
	}
	pc := pathCall{doc: args[0].(string), path: p}
	if len(args) > 2 {
		pc.vars, pc.hasVars = args[2].(string), true
	}
	if len(args) > 3 {
		pc.silent = args[3].(bool)
	}
	return pc, nil
}

// run evaluates the call, collecting results when f is not nil.
func (pc pathCall) run(f *found) (pathResult, error) {
	return runPath(pc.doc, pc.path, pc.vars, pc.hasVars, !pc.silent, f)
}

// pathArgs are the parameter lists of the jsonb_path functions: (target,
// path), plus vars, plus silent.
var pathArgs = [][]types.T{
	{types.JSONBT, types.JSONPathT},
	{types.JSONBT, types.JSONPathT, types.JSONBT},
	{types.JSONBT, types.JSONPathT, types.JSONBT, types.BoolT},
}

func pathExists(_ *Context, args []any) (any, error) {
	pc, err := newPathCall(args)
	if err != nil {
		return nil, err
	}
	r, err := pc.run(nil)
	if err != nil || r == pathError {
		return nil, err
	}
	return r == pathOK, nil
}

func pathMatch(_ *Context, args []any) (any, error) {
	pc, err := newPathCall(args)
	if err != nil {
		return nil, err
	}
	f := &found{}
	if _, err := pc.run(f); err != nil {
		return nil, err
	}
	if len(f.vals) == 1 {
		switch f.vals[0].kind {
		case jsonBool:
			return f.vals[0].b, nil
		case jsonNull:
			return nil, nil
		}
	}
	if !pc.silent {
		return nil, pgerr.New(pgerrcode.SingletonSQLJSONItemRequired, "single boolean result is expected")
	}
	return nil, nil
}

func pathQueryArray(_ *Context, args []any) (any, error) {
	pc, err := newPathCall(args)
	if err != nil {
		return nil, err
	}
	f := &found{}
	if _, err := pc.run(f); err != nil {
		return nil, err
	}
	return jsonbText(&jnode{kind: jsonArray, vals: f.vals}), nil
}

func pathQueryFirst(_ *Context, args []any) (any, error) {
	pc, err := newPathCall(args)
	if err != nil {
		return nil, err
	}
	f := &found{}
	if _, err := pc.run(f); err != nil {
		return nil, err
	}
	if len(f.vals) == 0 {
		return nil, nil
	}
	return jsonbText(f.vals[0]), nil
}

func init() {
	for _, a := range pathArgs {
		Register(
			fn("jsonb_path_exists", a, types.BoolT, pathExists),
			fn("jsonb_path_match", a, types.BoolT, pathMatch),
			fn("jsonb_path_query_array", a, types.JSONBT, pathQueryArray),
			fn("jsonb_path_query_first", a, types.JSONBT, pathQueryFirst),
		)
	}
	// the operators are the functions in silent mode
	silent := func(f func(*Context, []any) (any, error)) func(*Context, []any) (any, error) {
		return func(ctx *Context, args []any) (any, error) {
			return f(ctx, []any{args[0], args[1], "{}", true})
		}
	}
	Register(
		fn("@?", pathArgs[0], types.BoolT, silent(pathExists)),
		fn("@@", pathArgs[0], types.BoolT, silent(pathMatch)),
	)
	RegisterSetReturning(&SetReturning{Name: "jsonb_path_query",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			if len(args) < 2 || len(args) > 4 {
				return SetSignature{}, false, nil
			}
			return SetSignature{Params: pathArgs[len(args)-2], Out: []types.Field{{Name: "jsonb_path_query", T: types.JSONBT}}}, true, nil
		},
		Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
			pc, err := newPathCall(args)
			if err != nil {
				return nil, err
			}
			f := &found{}
			if _, err := pc.run(f); err != nil {
				return nil, err
			}
			i := 0
			return func() ([]any, bool, error) {
				if i >= len(f.vals) {
					return nil, false, nil
				}
				i++
				return []any{jsonbText(f.vals[i-1])}, true, nil
			}, nil
		}})
}
