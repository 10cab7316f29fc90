package functions

// abs(x) and the prefix operator @ for every number type.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

func init() {
	for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT} {
		f := t.Family
		eval := func(a any) (any, error) {
			switch v := a.(type) {
			case int64:
				if v < 0 {
					if v == math.MinInt64 {
						return nil, errIntRange("bigint")
					}
					return checkInt(-v, f)
				}
				return v, nil
			case float64:
				return math.Abs(v), nil
			case *apd.Decimal:
				d := new(apd.Decimal)
				d.Abs(v)
				return d, nil
			}
			return a, nil
		}
		Register(fn1("abs", t, t, eval), fn1("@", t, t, eval))
	}
}
