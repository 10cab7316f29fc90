package functions

// What the pattern-matching operators share: a process-wide cache of
// compiled patterns, and the batch kernel of `text op pattern` (LIKE and
// ILIKE in like.go; the regex operators, and so SIMILAR TO, in regex.go)
// that compiles a constant pattern once per batch and a pattern column
// row by row.

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// patternCacheMax bounds a patternCache: past it, new patterns are
// compiled on every use instead of kept, so a workload of ever-new
// patterns cannot grow the cache without end.
const patternCacheMax = 4096

// patternCache memoises compiled patterns (of type M) by key for the life
// of the process. It is safe for concurrent use.
type patternCache[M any] struct {
	m sync.Map // key -> M
	n atomic.Int64
}

// get returns the pattern compiled for key, calling compile on a miss.
func (c *patternCache[M]) get(key string, compile func() (M, error)) (M, error) {
	if v, ok := c.m.Load(key); ok {
		return v.(M), nil
	}
	v, err := compile()
	if err != nil {
		return v, err
	}
	if c.n.Add(1) <= patternCacheMax {
		c.m.Store(key, v)
	}
	return v, nil
}

// patternKernel is the batch kernel of a strict operator `text op text`
// that tests its left argument against a pattern on its right: compile
// turns a pattern into a matcher M (a constant pattern once per batch, a
// pattern column row by row, where compile's cache does the rest), match
// tests a string, and neg negates the result (NOT LIKE, !~). NULL rows
// are neither compiled nor matched, so they raise no pattern errors.
func patternKernel[M any](compile func(pat string) (M, error), match func(m M, s string) (bool, error), neg bool) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		subject, pattern := args[0], args[1]
		var m M
		if pattern.Array == nil {
			var err error
			if m, err = compile(pattern.Const.(string)); err != nil {
				return nil, err
			}
		}
		return cmpBatch(ctx, args, n, func(out []byte, valid *memory.Buffer) error {
			for i := 0; i < n; i++ {
				if !isValid(valid, i) {
					continue
				}
				if pattern.Array != nil {
					var err error
					if m, err = compile(pattern.Array.(*array.String).Value(i)); err != nil {
						return err
					}
				}
				s, _ := subject.Const.(string)
				if subject.Array != nil {
					s = subject.Array.(*array.String).Value(i)
				}
				ok, err := match(m, s)
				if err != nil {
					return err
				}
				if ok != neg {
					out[i>>3] |= 1 << (i & 7)
				}
			}
			return nil
		})
	}
}
