package functions

// factorial(bigint) -> numeric: n!, 1 for 0 and 1; negative n is an error
// and n above 32177 overflows numeric, as in PostgreSQL.

import (
	"math/big"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// maxFactorial is the largest n whose n! numeric holds.
const maxFactorial = 32177

func init() {
	Register(fn1("factorial", tInt8, tNum, func(a any) (any, error) {
		n := a.(int64)
		switch {
		case n < 0:
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "factorial of a negative number is undefined")
		case n > maxFactorial:
			return nil, numericOverflow()
		}
		d := new(apd.Decimal)
		d.Coeff.SetMathBigInt(new(big.Int).MulRange(1, max(n, 1)))
		return d, nil
	}))
}
