package functions

// md5(text | bytea): the MD5 digest as 32 hex digits. A long value is
// hashed in pieces, so that a cancel is seen during it (inPieces).

import (
	"crypto/md5"
	"encoding/hex"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(
		fn("md5", targs(tText), tText, func(ctx *Context, a []any) (any, error) {
			s := a[0].(string)
			return md5Hex(ctx, len(s), func(lo, hi int) []byte { return []byte(s[lo:hi]) })
		}),
		fn("md5", targs(types.ByteaT), tText, func(ctx *Context, a []any) (any, error) {
			b := a[0].([]byte)
			return md5Hex(ctx, len(b), func(lo, hi int) []byte { return b[lo:hi] })
		}),
	)
}

// md5Hex is the hex MD5 digest of the n bytes piece returns slices of.
func md5Hex(ctx *Context, n int, piece func(lo, hi int) []byte) (any, error) {
	h := md5.New()
	if err := ctx.inPieces(n, func(lo, hi int) { h.Write(piece(lo, hi)) }); err != nil {
		return nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
