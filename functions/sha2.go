package functions

// sha224, sha256, sha384, sha512(bytea) -> bytea: the SHA-2 digests. As in
// PostgreSQL there is no text overload: a text literal is read as bytea
// input, a text value needs a cast (md5 is the one digest taking text).

import (
	"crypto/sha256"
	"crypto/sha512"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	for name, sum := range map[string]func([]byte) []byte{
		"sha224": func(b []byte) []byte { h := sha256.Sum224(b); return h[:] },
		"sha256": func(b []byte) []byte { h := sha256.Sum256(b); return h[:] },
		"sha384": func(b []byte) []byte { h := sha512.Sum384(b); return h[:] },
		"sha512": func(b []byte) []byte { h := sha512.Sum512(b); return h[:] },
	} {
		sum := sum
		Register(fn1(name, types.ByteaT, types.ByteaT, func(a any) (any, error) { return sum(a.([]byte)), nil }))
	}
}
