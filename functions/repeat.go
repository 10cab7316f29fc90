package functions

// repeat(string, n): the string n times ('' for n <= 0); results over
// 1GB are 54000 as in PostgreSQL, and a long one is built in pieces that
// a cancel stops. The 1GB limit of text values is kept
// here for the other functions that build long values too.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// maxAlloc is PostgreSQL's MaxAllocSize, the largest text value. It is a
// variable so that tests can lower it instead of building 1GB values.
var maxAlloc = 1<<30 - 1

// errTooLarge is the error for a result whose length is known to be over
// maxAlloc before it is built.
func errTooLarge() error {
	return pgerr.New(pgerrcode.ProgramLimitExceeded, "requested length too large")
}

// checkGrow is PostgreSQL's string buffer limit for functions that build
// a text or bytea value piece by piece (||, concat, string_agg): adding
// more bytes to a value of have bytes must keep it within maxAlloc.
func checkGrow(have, more int) error {
	if have+more > maxAlloc {
		return pgerr.New(pgerrcode.ProgramLimitExceeded, "out of memory").
			WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", have, more)
	}
	return nil
}

func init() {
	Register(fn("repeat", targs(tText, tInt4), tText, func(ctx *Context, a []any) (any, error) {
		s, n := a[0].(string), a[1].(int64)
		if n <= 0 || s == "" {
			return "", nil
		}
		if int64(len(s))*n > int64(maxAlloc) {
			return nil, errTooLarge()
		}
		// strings.Repeat's doubling, with a look at the statement's
		// context between copies (a 1GB result takes a second). Each
		// copy is of whole strings, so the next starts at one.
		total := len(s) * int(n)
		most := max(pollWork/len(s), 1) * len(s)
		var b strings.Builder
		b.Grow(total)
		b.WriteString(s)
		p := ctx.poller()
		for b.Len() < total {
			chunk := min(b.Len(), total-b.Len(), most)
			b.WriteString(b.String()[:chunk])
			if err := p.add(chunk); err != nil {
				return nil, err
			}
		}
		return b.String(), nil
	}))
}
