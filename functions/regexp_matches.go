package functions

// regexp_matches(string, pattern [, flags]): the text[] of the capture
// groups of the first match (the whole match when the pattern has none),
// or with flag g of every match, empty ones included; no rows when
// nothing matches. It finds its matches with the PostgreSQL-to-RE2
// translation of regex.go and PostgreSQL's search loop (regexSearch).

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	RegisterSetReturning(&SetReturning{Name: "regexp_matches", Type: textArgs(types.Field{Name: "regexp_matches", T: textArrayT}),
		Rows: func(ctx *Context, args []any, _ []types.T) (NextRow, error) {
			ms, err := regexpMatches(ctx, args[0].(string), args[1].(string), flagsArg(args))
			if err != nil {
				return nil, err
			}
			return valueRows(ms), nil
		}})
}

// regexpMatches returns the rows of regexp_matches(s, pattern, flags):
// the text[] of the first match (see matchArray), or with flag g of every
// match.
func regexpMatches(ctx *Context, s, pattern, flags string) ([]*types.Array, error) {
	_, global, _, err := regexFlags(flags)
	if err != nil {
		return nil, err
	}
	re, err := compileRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	limit := 1
	if global {
		limit = math.MaxInt
	}
	ms, err := regexSearch(ctx, re, s, 0, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Array, len(ms))
	for i, m := range ms {
		out[i] = matchArray(s, m)
	}
	return out, nil
}

// flagsArg is the optional third argument of the set-returning regular
// expression functions: their option letters, none when absent.
func flagsArg(args []any) string {
	if len(args) > 2 {
		return args[2].(string)
	}
	return ""
}
