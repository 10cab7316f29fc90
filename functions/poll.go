package functions

// A function that works long over one value (a 500MB repeat, a
// regexp_replace over a long text) would see a CancelRequest or its
// statement's statement_timeout only when it returned: the executor
// looks at the statement's context between batches. Such functions count
// their work with a poller, which looks at the context every pollWork
// units (bytes read or written, words parsed) and ends the call with
// 57014 as soon as the statement is cancelled.

import (
	"context"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// pollWork is how many units of work a poller lets pass between two
// looks at the context: about a millisecond of copying or scanning, so a
// cancel is seen at once and the looks cost nothing next to the work.
const pollWork = 1 << 20

// itemWork is what one item (an array element, a field cut out of a
// text) counts in a poller beyond its bytes: making it costs about as
// much as copying 64 bytes.
const itemWork = 1 << 6

// poller counts a long call's work and looks at the statement's context
// every pollWork units of it.
type poller struct {
	ctx  context.Context
	work int
}

// context is the context of a call under c; the background without one
// (a test's bare Context), which never ends.
func (c *Context) context() context.Context {
	if c == nil || c.Ctx == nil {
		return context.Background()
	}
	return c.Ctx
}

// poller returns a poller for a call under c.
func (c *Context) poller() poller { return poller{ctx: c.context()} }

// add counts n units of work and returns the statement's 57014 ("due to
// user request" or "due to statement timeout") once it is cancelled.
func (p *poller) add(n int) error {
	if p.work += n; p.work < pollWork {
		return nil
	}
	p.work = 0
	if err := p.ctx.Err(); err != nil {
		return pgerr.From(err)
	}
	return nil
}

// inPieces calls f over [0, n) in pieces of pollWork, looking at the
// statement's context between them: for work the standard library would
// do in one uninterruptible call (copying, hashing).
func (c *Context) inPieces(n int, f func(lo, hi int)) error {
	p := c.poller()
	for lo := 0; lo < n; lo += pollWork {
		hi := min(lo+pollWork, n)
		f(lo, hi)
		if err := p.add(hi - lo); err != nil {
			return err
		}
	}
	return nil
}
