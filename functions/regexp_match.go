package functions

// regexp_match(string, pattern [, flags]) -> text[]: the capture groups of
// the first match (the whole match when the pattern has none), NULL when
// nothing matches. The g flag is not allowed (use regexp_matches).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	f := func(_ *Context, a []any) (any, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].(string)
		}
		if strings.Contains(flags, "g") {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "%s() does not support the \"global\" option", "regexp_match").
				WithHint("Use the regexp_matches function instead.")
		}
		re, err := compileRegex(a[1].(string), flags)
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			return nil, nil
		}
		return matchArray(s, m), nil
	}
	Register(
		fn("regexp_match", targs(tText, tText), textArrayT, f),
		fn("regexp_match", targs(tText, tText, tText), textArrayT, f),
		fn("regexp_like", targs(tText, tText), tBool, func(_ *Context, a []any) (any, error) {
			re, err := compileRegex(a[1].(string), "")
			if err != nil {
				return nil, err
			}
			return re.MatchString(a[0].(string)), nil
		}),
	)
}

// matchArray is the text[] regexp_match and regexp_matches return for the
// match m (submatch indexes) in s: its capture groups, NULL for a group
// that took no part, or the whole match when the pattern has no groups.
func matchArray(s string, m []int) *types.Array {
	if len(m) == 2 {
		return types.NewArray(types.TextT, s[m[0]:m[1]])
	}
	elems := make([]any, len(m)/2-1)
	for g := 1; g < len(m)/2; g++ {
		if m[2*g] >= 0 {
			elems[g-1] = s[m[2*g]:m[2*g+1]]
		}
	}
	return types.NewArray(types.TextT, elems...)
}
