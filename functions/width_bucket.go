package functions

// width_bucket(operand, low, high, count) for float8 and numeric: the
// bucket (1 to count) operand falls in when [low, high) is cut into count
// equal buckets, 0 below the range and count+1 above it; low > high
// counts down. Computed as PostgreSQL 15 does: float8 in floating point,
// numeric exactly. width_bucket(operand, thresholds) for any comparable
// type: how many of the sorted thresholds (the buckets' lower bounds) are
// at most operand, found by PostgreSQL's binary search.

import (
	"math"
	"slices"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(
		fn("width_bucket", targs(tF8, tF8, tF8, tInt4), tInt4, func(_ *Context, a []any) (any, error) {
			return widthBucketFloat(a[0].(float64), a[1].(float64), a[2].(float64), a[3].(int64))
		}),
		fn("width_bucket", targs(tNum, tNum, tNum, tInt4), tInt4, func(_ *Context, a []any) (any, error) {
			return widthBucketNumeric(a[0].(*apd.Decimal), a[1].(*apd.Decimal), a[2].(*apd.Decimal), a[3].(int64))
		}),
		fn("width_bucket", targs(ArgAny, ArgAnyArray), tInt4, func(_ *Context, a []any) (any, error) {
			return widthBucketThresholds(a[0], a[1].(*types.Array))
		}),
	)
}

// widthBucketThresholds is width_bucket(operand, thresholds).
func widthBucketThresholds(x any, th *types.Array) (any, error) {
	if len(th.Dims) > 1 {
		return nil, pgerr.New(pgerrcode.ArraySubscriptError, "thresholds must be one-dimensional array")
	}
	if slices.Contains(th.Elems, nil) {
		return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "thresholds array must not contain NULLs")
	}
	left, right := 0, len(th.Elems)
	for left < right {
		mid := (left + right) / 2
		if compareDatum(x, th.Elems[mid], th.Elem) < 0 {
			right = mid
		} else {
			left = mid + 1
		}
	}
	return int64(left), nil
}

func errWidthBucket(msg string) error {
	return pgerr.New(pgerrcode.InvalidArgumentForWidthBucketFunction, "%s", msg)
}

func widthBucketFloat(x, lo, hi float64, count int64) (any, error) {
	if count <= 0 {
		return nil, errWidthBucket("count must be greater than zero")
	}
	if math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
		return nil, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, errWidthBucket("lower and upper bounds must be finite")
	}
	if lo == hi {
		return nil, errWidthBucket("lower bound cannot equal upper bound")
	}
	// Buckets counting down are buckets counting up on negated values.
	if lo > hi {
		x, lo, hi = -x, -lo, -hi
	}
	switch {
	case x < lo:
		return int64(0), nil
	case x >= hi:
		return checkInt(count+1, tInt4.Family)
	}
	// PostgreSQL 15's formula: no clamping, and a quotient that leaves
	// int4 (or is NaN, when hi - lo overflows) converts to the int4
	// minimum as its C cast does on x86-64.
	r := float64(count)*(x-lo)/(hi-lo) + 1
	if !(r > math.MinInt32-1 && r < math.MaxInt32+1) {
		return int64(math.MinInt32), nil
	}
	return int64(r), nil
}

func widthBucketNumeric(x, lo, hi *apd.Decimal, count int64) (any, error) {
	if count <= 0 {
		return nil, errWidthBucket("count must be greater than zero")
	}
	if x.Form == apd.NaN || lo.Form == apd.NaN || hi.Form == apd.NaN {
		return nil, errWidthBucket("operand, lower bound, and upper bound cannot be NaN")
	}
	if lo.Form == apd.Infinite || hi.Form == apd.Infinite {
		return nil, errWidthBucket("lower and upper bounds must be finite")
	}
	c := lo.Cmp(hi)
	if c == 0 {
		return nil, errWidthBucket("lower bound cannot equal upper bound")
	}
	// below and above are x outside [lo, hi) (or (hi, lo] counting down).
	below, above := x.Cmp(lo) < 0, x.Cmp(hi) >= 0
	if c > 0 {
		below, above = x.Cmp(lo) > 0, x.Cmp(hi) <= 0
	}
	switch {
	case below:
		return int64(0), nil
	case above:
		return checkInt(count+1, tInt4.Family)
	}
	// floor(count * (x - lo) / (hi - lo)) + 1, exactly; the quotient is
	// not negative, so truncation is the floor.
	var num, den apd.Decimal
	if _, err := exact.Sub(&num, x, lo); err != nil {
		return nil, numericOverflow()
	}
	if _, err := exact.Mul(&num, &num, newDec(count)); err != nil {
		return nil, numericOverflow()
	}
	if _, err := exact.Sub(&den, hi, lo); err != nil {
		return nil, numericOverflow()
	}
	quo, err := truncQuo(&num, &den)
	if err != nil {
		return nil, err
	}
	q, err := quo.Int64()
	if err != nil {
		return nil, errIntRange("integer")
	}
	return q + 1, nil
}
