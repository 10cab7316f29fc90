package functions

// greatest(...) and least(...): the largest or smallest non-NULL
// argument (NULL when all are NULL), after converting all to their
// common type.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	mk := func(name string, want int) *Overload {
		return withTypes(&Overload{Name: name, Args: targs(ArgAny), Variadic: true, NullCall: true,
			ResultFn: func(args []types.T) types.T { return baseType(args[0]) }},
			func(_ *Context, a []any, ts []types.T) (any, error) {
				var best any
				for i, v := range a {
					if v == nil {
						continue
					}
					if best == nil || compareDatum(v, best, argType(ts, i, v))*want > 0 {
						best = v
					}
				}
				return best, nil
			})
	}
	Register(mk("greatest", 1), mk("least", -1))
}
