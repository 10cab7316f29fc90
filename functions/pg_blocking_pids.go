package functions

// pg_blocking_pids(pid): the backends that hold a lock the session with
// that pid waits for (a row or key lock, or an advisory lock), through
// the session's LockReporter. Empty when it waits for nothing or no
// session has the pid.

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// LockReporter is the optional part of a SessionInfo that
// pg_blocking_pids uses: the pids blocking pid, each once.
type LockReporter interface {
	BlockingPIDs(pid int64) []int64
}

func init() {
	Register(&Overload{Name: "pg_blocking_pids", Args: targs(tInt4), Result: types.ArrayOf(types.Int4T, 1), Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			var r LockReporter
			if ctx != nil && ctx.Session != nil {
				r, _ = ctx.Session.(LockReporter)
			}
			if r == nil {
				return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_blocking_pids outside a session is not supported")
			}
			pids := r.BlockingPIDs(a[0].(int64))
			elems := make([]any, len(pids))
			for i, p := range pids {
				elems[i] = p
			}
			if len(elems) == 0 {
				return &types.Array{Elem: types.Int4T}, nil
			}
			return &types.Array{Elem: types.Int4T, Dims: []int{len(elems)}, Elems: elems}, nil
		}})
}
