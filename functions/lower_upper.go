package functions

// lower and upper: Unicode case mapping of text.

import "strings"

func init() {
	Register(
		fn1("lower", tText, tText, func(a any) (any, error) { return strings.ToLower(a.(string)), nil }),
		fn1("upper", tText, tText, func(a any) (any, error) { return strings.ToUpper(a.(string)), nil }),
	)
}
