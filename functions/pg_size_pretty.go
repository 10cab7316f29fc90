package functions

// pg_size_pretty(bigint | numeric): a byte count in the largest unit that
// keeps it readable ("10 kB", "5120 kB", "8192 PB"), with PostgreSQL 15's
// exact rounding (dbsize.c): a unit is used while the value, converted to
// it, is below its limit; every conversion but the last truncates and the
// last one rounds half away from zero, so the last division is by one bit
// less and the rounding halves the rest. bytes are printed unrounded
// (numeric fractions included).

import (
	"math/big"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

// sizeUnit is one of dbsize.c's size_pretty_units.
type sizeUnit struct {
	name string
	// limit is the value, converted to this unit and before rounding,
	// from which the next unit is used.
	limit int64
	// round means the value is rounded half away from zero in this unit
	// (it was divided by one bit less).
	round bool
	bits  uint
}

var sizeUnits = []sizeUnit{
	{"bytes", 10 * 1024, false, 0},
	{"kB", 20*1024 - 1, true, 10},
	{"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30},
	{"TB", 20*1024 - 1, true, 40},
	{"PB", 20*1024 - 1, true, 50},
}

// shift is the number of bits to divide by when moving from unit i to
// unit i+1.
func (u sizeUnit) shift(next sizeUnit) uint {
	s := next.bits - u.bits
	if next.round {
		s--
	}
	if u.round {
		s++
	}
	return s
}

func init() {
	Register(
		fn1("pg_size_pretty", tInt8, tText, func(a any) (any, error) { return sizePretty(a.(int64)), nil }),
		fn1("pg_size_pretty", tNum, tText, func(a any) (any, error) { return sizePrettyNumeric(a.(*apd.Decimal)), nil }),
	)
}

// sizePretty is pg_size_pretty(bigint).
func sizePretty(size int64) string {
	for i, u := range sizeUnits {
		// |size| as unsigned, so that the most negative bigint is not
		// taken for a small number.
		abs := uint64(size)
		if size < 0 {
			abs = -abs
		}
		if i == len(sizeUnits)-1 || abs < uint64(u.limit) {
			if u.round {
				if size < 0 {
					size = (size - 1) / 2
				} else {
					size = (size + 1) / 2
				}
			}
			return types.FormatText(size, tInt8) + " " + u.name
		}
		// Division, not a shift, so negative sizes round like positive ones.
		size /= int64(1) << u.shift(sizeUnits[i+1])
	}
	panic("unreachable")
}

// sizePrettyNumeric is pg_size_pretty(numeric). Only a size shown in bytes
// keeps its fraction; every other unit is reached by integer division.
// NaN and ±Infinity are never below a limit and end up in PB.
func sizePrettyNumeric(d *apd.Decimal) string {
	if d.Form != apd.Finite {
		return types.FormatText(d, tNum) + " " + sizeUnits[len(sizeUnits)-1].name
	}
	if new(apd.Decimal).Abs(d).Cmp(apd.New(sizeUnits[0].limit, 0)) < 0 {
		return types.FormatText(d, tNum) + " " + sizeUnits[0].name
	}
	size := decBig(truncDec(d, 0))
	var abs, one big.Int
	one.SetInt64(1)
	for i, u := range sizeUnits[1:] {
		size.Quo(size, new(big.Int).Lsh(&one, sizeUnits[i].shift(u)))
		if i+2 == len(sizeUnits) || abs.Abs(size).Cmp(big.NewInt(u.limit)) < 0 {
			if u.round {
				if size.Sign() < 0 {
					size.Sub(size, &one)
				} else {
					size.Add(size, &one)
				}
				size.Quo(size, big.NewInt(2))
			}
			return size.String() + " " + u.name
		}
	}
	panic("unreachable")
}
