package functions

// get_byte(bytea, n) and set_byte(bytea, n, v): the n-th byte (from 0) of
// a bytea, read or replaced; get_bit and set_bit the same for its bits
// (bit k of byte k/8, least significant first). An n outside the value is
// 2202E, as in PostgreSQL.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	B := types.ByteaT
	Register(
		fn("get_byte", targs(B, tInt4), tInt4, func(_ *Context, a []any) (any, error) {
			b, n := a[0].([]byte), a[1].(int64)
			if err := checkByteIndex(n, int64(len(b))); err != nil {
				return nil, err
			}
			return int64(b[n]), nil
		}),
		fn("set_byte", targs(B, tInt4, tInt4), B, func(_ *Context, a []any) (any, error) {
			b, n := a[0].([]byte), a[1].(int64)
			if err := checkByteIndex(n, int64(len(b))); err != nil {
				return nil, err
			}
			out := append([]byte(nil), b...)
			out[n] = byte(a[2].(int64))
			return out, nil
		}),
		fn("get_bit", targs(B, tInt8), tInt4, func(_ *Context, a []any) (any, error) {
			b, n := a[0].([]byte), a[1].(int64)
			if err := checkByteIndex(n, int64(len(b))*8); err != nil {
				return nil, err
			}
			return int64(b[n/8]>>(n%8)) & 1, nil
		}),
		fn("set_bit", targs(B, tInt8, tInt4), B, func(_ *Context, a []any) (any, error) {
			b, n, v := a[0].([]byte), a[1].(int64), a[2].(int64)
			if err := checkByteIndex(n, int64(len(b))*8); err != nil {
				return nil, err
			}
			if v != 0 && v != 1 {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "new bit must be 0 or 1")
			}
			out := append([]byte(nil), b...)
			out[n/8] = out[n/8]&^(1<<(n%8)) | byte(v)<<(n%8)
			return out, nil
		}),
	)
}

// checkByteIndex is 2202E unless 0 <= n < size.
func checkByteIndex(n, size int64) error {
	if n < 0 || n >= size {
		return pgerr.New(pgerrcode.ArraySubscriptError, "index %d out of valid range, 0..%d", n, size-1)
	}
	return nil
}
