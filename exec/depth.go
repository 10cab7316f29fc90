package exec

import (
	"sync/atomic"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// maxEvalDepth bounds how deeply expression evaluations nest on one
// session's stack, counted across the statements it runs inside one
// another (a PL/pgSQL function's, a trigger's, a subquery's). Evaluation
// recurses through the expression tree, a Go frame or four a level (some
// 2 KB), and a Go stack past 1 GB is a fatal error that no recover()
// catches: a PL/pgSQL function calling itself 700 deep from the bottom
// of a 3,000-term sum took the whole server down. One statement's tree
// is at most some 5,000 levels (the parser's limit), and 800 nested
// PL/pgSQL calls (maxPLDepth) from call sites 25 levels deep stay below.
const maxEvalDepth = 20000

// EvalDepth counts the expression evaluations under way on a session's
// stack (Runtime.Depth); the session hands the same one to every
// statement it runs. It is atomic because a statement may evaluate in
// several goroutines at once (hybridTopK's workers).
type EvalDepth struct{ n atomic.Int32 }

// enter counts one more evaluation nested in the ones under way, or
// fails with PostgreSQL's 54001 once maxEvalDepth are; leave undoes a
// successful enter.
func (d *EvalDepth) enter() error {
	if d.n.Add(1) > maxEvalDepth {
		d.n.Add(-1)
		return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded").
			WithHint("Expressions, subqueries and PL/pgSQL calls nest at most %d deep in a session.", maxEvalDepth)
	}
	return nil
}

func (d *EvalDepth) leave() { d.n.Add(-1) }
