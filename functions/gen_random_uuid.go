package functions

// gen_random_uuid() and uuid-ossp's uuid_generate_v4(): random version-4
// UUIDs (volatile).

import (
	"crypto/rand"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	gen := func(_ *Context, _ []any) (any, error) {
		var u [16]byte
		if _, err := rand.Read(u[:]); err != nil {
			return nil, err
		}
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
		return u, nil
	}
	Register(
		&Overload{Name: "gen_random_uuid", Result: types.UUIDT, Volatility: Volatile, Eval: gen},
		&Overload{Name: "uuid_generate_v4", Result: types.UUIDT, Volatility: Volatile, Eval: gen},
	)
}
