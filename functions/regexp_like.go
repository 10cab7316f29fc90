package functions

// regexp_like(string, pattern, flags): whether pattern matches with the
// option letters in flags (g is refused). The two-argument form is in
// regexp_match.go.

func init() {
	Register(fn("regexp_like", targs(tText, tText, tText), tBool, func(_ *Context, a []any) (any, error) {
		_, global, _, err := regexFlags(a[2].(string))
		if err != nil {
			return nil, err
		}
		if global {
			return nil, errGlobalOption("regexp_like")
		}
		re, err := compileRegex(a[1].(string), a[2].(string))
		if err != nil {
			return nil, err
		}
		return re.MatchString(a[0].(string)), nil
	}))
}
