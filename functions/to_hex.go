package functions

// to_hex(integer | bigint): hexadecimal digits of the two's-complement
// value.

import "strconv"

func init() {
	Register(
		fn1("to_hex", tInt4, tText, func(a any) (any, error) {
			return strconv.FormatUint(uint64(uint32(a.(int64))), 16), nil
		}),
		fn1("to_hex", tInt8, tText, func(a any) (any, error) {
			return strconv.FormatUint(uint64(a.(int64)), 16), nil
		}),
	)
}
