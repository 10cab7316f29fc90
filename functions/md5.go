package functions

// md5(text | bytea): the MD5 digest as 32 hex digits.

import (
	"crypto/md5"
	"encoding/hex"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(
		fn1("md5", tText, tText, func(a any) (any, error) {
			h := md5.Sum([]byte(a.(string)))
			return hex.EncodeToString(h[:]), nil
		}),
		fn1("md5", types.ByteaT, tText, func(a any) (any, error) {
			h := md5.Sum(a.([]byte))
			return hex.EncodeToString(h[:]), nil
		}),
	)
}
