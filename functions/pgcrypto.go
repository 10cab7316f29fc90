package functions

// pgcrypto's digest(data, type) and hmac(data, key, type) -> bytea, for
// text and bytea data: md5, sha1, sha224, sha256, sha384 or sha512 (in
// any case), as CREATE EXTENSION pgcrypto provides them. Another name is
// 22023, as pgcrypto's "Cannot use ...: No such hash algorithm".

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// pgcryptoHashes are the hash algorithms digest and hmac know, by name.
var pgcryptoHashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224, "sha256": sha256.New,
	"sha384": sha512.New384, "sha512": sha512.New,
}

// pgcryptoHash is the algorithm name names.
func pgcryptoHash(name string) (func() hash.Hash, error) {
	if h, ok := pgcryptoHashes[strings.ToLower(name)]; ok {
		return h, nil
	}
	return nil, pgerr.New(pgerrcode.InvalidParameterValue, "Cannot use \"%s\": No such hash algorithm", name)
}

// bytesOf is a text or bytea datum's bytes.
func bytesOf(v any) []byte {
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	return v.([]byte)
}

func init() {
	digest := func(_ *Context, a []any) (any, error) {
		h, err := pgcryptoHash(a[1].(string))
		if err != nil {
			return nil, err
		}
		w := h()
		w.Write(bytesOf(a[0]))
		return w.Sum(nil), nil
	}
	mac := func(_ *Context, a []any) (any, error) {
		h, err := pgcryptoHash(a[2].(string))
		if err != nil {
			return nil, err
		}
		w := hmac.New(h, bytesOf(a[1]))
		w.Write(bytesOf(a[0]))
		return w.Sum(nil), nil
	}
	Register(
		fn("digest", targs(tText, tText), types.ByteaT, digest),
		fn("digest", targs(types.ByteaT, tText), types.ByteaT, digest),
		fn("hmac", targs(tText, tText, tText), types.ByteaT, mac),
		fn("hmac", targs(types.ByteaT, types.ByteaT, tText), types.ByteaT, mac),
	)
}
