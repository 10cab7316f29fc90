package functions

// What the pattern-matching operators share: a process-wide cache of
// compiled patterns, and the batch kernel of `text op pattern` (LIKE and
// ILIKE in like.go; the regex operators, and so SIMILAR TO, in regex.go)
// that compiles a constant pattern once per batch and a pattern column
// row by row.

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

// matcher is a compiled pattern of patternKernel.
type matcher interface {
	// match tests s against the pattern.
	match(s string) (bool, error)
}

// patternKernel is the batch kernel (run) of a strict operator
// `text op text` that tests its left argument against a pattern on its
// right: compile turns a pattern into a matcher M (a constant pattern
// once per batch, a pattern column row by row, where compile's cache does
// the rest), and neg negates the result (NOT LIKE, !~). NULL rows are
// neither compiled nor matched, so they raise no pattern errors.
//
// The row loop is a method, not a closure returned by a function: such a
// closure is inlined into the registering init function, whose size
// stops the compiler from inlining the loop's own calls (LIKE was 8%
// slower so).
type patternKernel[M matcher] struct {
	compile func(pat string) (M, error)
	neg     bool
}

// run is the kernel.
func (k patternKernel[M]) run(ctx *Context, args []Arg, n int) (arrow.Array, error) {
	var constM M
	var subjects, patterns *array.String
	constS, _ := args[0].Const.(string)
	if args[0].Array != nil {
		subjects = args[0].Array.(*array.String)
	}
	if args[1].Array != nil {
		patterns = args[1].Array.(*array.String)
	} else {
		var err error
		if constM, err = k.compile(args[1].Const.(string)); err != nil {
			return nil, err
		}
	}
	return cmpBatch(ctx, args, n, func(out []byte, valid *memory.Buffer) error {
		m, s := constM, constS
		for i := 0; i < n; i++ {
			if !isValid(valid, i) {
				continue
			}
			if patterns != nil {
				var err error
				if m, err = k.compile(patterns.Value(i)); err != nil {
					return err
				}
			}
			if subjects != nil {
				s = subjects.Value(i)
			}
			ok, err := m.match(s)
			if err != nil {
				return err
			}
			if ok != k.neg {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return nil
	})
}
