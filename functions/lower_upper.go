package functions

// lower and upper: Unicode case mapping of text. Some characters map to
// longer ones, so a result over 1GB is 54000.

import "strings"

func init() {
	Register(
		fn1("lower", tText, tText, func(a any) (any, error) { return checkLen(strings.ToLower(a.(string))) }),
		fn1("upper", tText, tText, func(a any) (any, error) { return checkLen(strings.ToUpper(a.(string))) }),
	)
}

// checkLen returns s, or 54000 when it is over maxAlloc: for functions
// whose result is at most a small multiple of their argument's length, so
// building it before the check costs a bounded amount.
func checkLen(s string) (any, error) {
	if len(s) > maxAlloc {
		return nil, errTooLarge()
	}
	return s, nil
}
