package functions

// count(*) (registered with no arguments) and count(x), which counts the
// rows where x is not NULL (count(DISTINCT x) is the executor's).

import "github.com/cairn-db/cairn/sql/types"

type countState struct{ n int64 }

func (s *countState) Step(_ *Context, _ []any) error { s.n++; return nil }
func (s *countState) Result(_ *Context) (any, error) { return s.n, nil }

func init() {
	RegisterAggregate(
		&Aggregate{Name: "count", Result: types.Int8T, NullCall: true,
			New: func([]types.T) AggState { return &countState{} }},
		&Aggregate{Name: "count", Args: targs(ArgAnyType), Result: types.Int8T,
			New: func([]types.T) AggState { return &countState{} }},
	)
}
