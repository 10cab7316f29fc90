package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// jsonb @> with an object on the right, the other common metadata filter
// (`metadata @> '{"repo": "cairn"}'`): each member of the right side is
// found in the left document by the scan (jsonField) and only its value
// is parsed, and only when its text differs (a number in another form) or
// it is a container; the right side is parsed once per batch when it is a
// constant. A left side that is not an object, or that the scan does not
// answer for, is parsed whole as before.

// containsMembers reports whether doc, a jsonb datum, contains b, a parsed
// jsonb datum that is an object (so its values' raw text is their normal
// form); ok is false when the scan does not answer (doc is not an object,
// or has an escaped member name).
func containsMembers(doc string, b *jnode) (contains, ok bool) {
	if i := skipJSONSpace(doc, 0); i == len(doc) || doc[i] != '{' {
		return false, false
	}
	for i, k := range b.keys {
		bv := b.vals[i]
		raw, found, ok := jsonField(doc, k)
		switch {
		case !ok:
			return false, false
		case !found:
			return false, true
		}
		if raw[0] == '{' || raw[0] == '[' {
			v, err := parseJSON(raw)
			if err != nil || !jsonbContains(v, bv, false) {
				return false, err == nil
			}
			continue
		}
		if bv.kind == jsonObject || bv.kind == jsonArray {
			return false, true
		}
		if !sameScalar(raw, bv.raw) {
			return false, true
		}
	}
	return true, true
}

// sameScalar reports whether two jsonb scalars in normal form are equal:
// the same text, or numbers that differ only in trailing zeros of their
// fraction (numeric's output form is otherwise one text per value: 1.0
// and 1 are equal in jsonb, 1e1 is stored as 10).
func sameScalar(a, b string) bool {
	if a == b {
		return true
	}
	if isJSONNumberText(a) && isJSONNumberText(b) {
		return trimFraction(a) == trimFraction(b)
	}
	return false
}

// isJSONNumberText reports whether a scalar's text is a number.
func isJSONNumberText(s string) bool { return s[0] == '-' || s[0] >= '0' && s[0] <= '9' }

// trimFraction drops the trailing zeros of a number's fraction, and its
// point when nothing follows.
func trimFraction(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// jsonbContainsKernel is jsonb @> jsonb over a batch (ov the overload): with a
// constant object on the right, each row by containsMembers; otherwise,
// and for the rows it does not answer, as ov.Eval does, with a constant
// right side parsed once.
func jsonbContainsKernel(ov *Overload) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		var b *jnode
		if args[1].Array == nil {
			var err error
			if b, err = parseJSON(args[1].Const.(string)); err != nil {
				return nil, err
			}
		}
		out := array.NewBooleanBuilder(mem(ctx))
		defer out.Release()
		out.Reserve(n)
		for i := 0; i < n; i++ {
			doc, ok1 := textAt(args[0], i)
			right, ok2 := textAt(args[1], i)
			if !ok1 || !ok2 {
				out.AppendNull()
				continue
			}
			if b == nil {
				v, err := ov.Eval(ctx, []any{doc, right})
				if err != nil {
					return nil, err
				}
				out.Append(v.(bool))
				continue
			}
			if b.kind == jsonObject {
				if c, ok := containsMembers(doc, b); ok {
					out.Append(c)
					continue
				}
			}
			a, err := parseJSON(doc)
			if err != nil {
				return nil, err
			}
			out.Append(jsonbContains(a, b, true))
		}
		return out.NewArray(), nil
	}
}
