package functions

// isfinite(date | timestamp | timestamptz | interval): false for the
// infinities. PostgreSQL 15's intervals are always finite.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(
		fn1("isfinite", types.DateT, tBool, func(a any) (any, error) { return !a.(types.Date).IsInfinite(), nil }),
		fn1("isfinite", types.TimestampT, tBool, func(a any) (any, error) { return !a.(types.Timestamp).IsInfinite(), nil }),
		fn1("isfinite", types.TimestampTZT, tBool, func(a any) (any, error) { return !a.(types.Timestamp).IsInfinite(), nil }),
		fn1("isfinite", types.IntervalT, tBool, func(any) (any, error) { return true, nil }),
	)
}
