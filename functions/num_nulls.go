package functions

// num_nulls(VARIADIC "any") and num_nonnulls(VARIADIC "any"): how many
// arguments are NULL, or not. (An explicit VARIADIC array is counted as
// one argument: the binder does not expand it.)

func init() {
	count := func(nulls bool) func(*Context, []any) (any, error) {
		return func(_ *Context, a []any) (any, error) {
			n := int64(0)
			for _, v := range a {
				if (v == nil) == nulls {
					n++
				}
			}
			return n, nil
		}
	}
	Register(
		&Overload{Name: "num_nulls", Args: targs(ArgAnyType), Variadic: true, Result: tInt4, NullCall: true, Eval: count(true)},
		&Overload{Name: "num_nonnulls", Args: targs(ArgAnyType), Variadic: true, Result: tInt4, NullCall: true, Eval: count(false)},
	)
}
