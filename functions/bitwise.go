package functions

// Bitwise operators on smallint, integer and bigint: & | # (xor) of two
// values of one type, ~ (not), and << >> by an integer count, each giving
// the operand's type. As in PostgreSQL, shifts wrap within the type's width
// (the count is taken modulo it by the machine) rather than erroring.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T} {
		t := t
		two := []types.T{t, t}
		Register(
			fn("&", two, t, func(_ *Context, a []any) (any, error) { return a[0].(int64) & a[1].(int64), nil }),
			fn("|", two, t, func(_ *Context, a []any) (any, error) { return a[0].(int64) | a[1].(int64), nil }),
			fn("#", two, t, func(_ *Context, a []any) (any, error) { return a[0].(int64) ^ a[1].(int64), nil }),
			fn1("~", t, t, func(a any) (any, error) { return wrapInt(^a.(int64), t.Family), nil }),
			fn("<<", []types.T{t, types.Int4T}, t, func(_ *Context, a []any) (any, error) {
				return wrapInt(a[0].(int64)<<shiftCount(a[1].(int64), t.Family), t.Family), nil
			}),
			fn(">>", []types.T{t, types.Int4T}, t, func(_ *Context, a []any) (any, error) {
				return wrapInt(a[0].(int64)>>shiftCount(a[1].(int64), t.Family), t.Family), nil
			}),
		)
	}
}

// shiftCount is a shift count as the machine applies it to a value of
// the family's width (x86 masks it to the width).
func shiftCount(n int64, f types.Family) uint {
	switch f {
	case types.Int2, types.Int4:
		return uint(n) & 31
	}
	return uint(n) & 63
}

// wrapInt truncates x to the family's width, as C's conversion does.
func wrapInt(x int64, f types.Family) int64 {
	switch f {
	case types.Int2:
		return int64(int16(x))
	case types.Int4:
		return int64(int32(x))
	}
	return x
}
