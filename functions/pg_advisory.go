package functions

// The advisory lock functions: pg_advisory_lock, pg_advisory_lock_shared,
// pg_try_advisory_lock[_shared], the transaction-level
// pg_[try_]advisory_xact_lock[_shared], pg_advisory_unlock[_shared] and
// pg_advisory_unlock_all, each on a bigint key or a pair of integers.
// The locks themselves are the session's (Context.Advisory). PostgreSQL's
// lock functions return void, whose text output is empty; cairn has no
// void type, so they return an empty text.

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	keyOf := func(a []any) AdvisoryKey {
		if len(a) == 2 {
			return AdvisoryKey{ID: a[0].(int64)<<32 | int64(uint32(a[1].(int64))), Pair: true}
		}
		return AdvisoryKey{ID: a[0].(int64)}
	}
	locks := func(ctx *Context) (AdvisoryLocks, error) {
		if ctx == nil || ctx.Advisory == nil {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "advisory locks outside a session are not supported")
		}
		return ctx.Advisory, nil
	}
	for _, keyArgs := range [][]types.T{targs(types.Int8T), targs(tInt4, tInt4)} {
		for _, shared := range []bool{false, true} {
			for _, xact := range []bool{false, true} {
				suffix, infix := suffixOf(shared), ""
				if xact {
					infix = "_xact"
				}
				Register(
					&Overload{Name: "pg_advisory" + infix + "_lock" + suffix, Args: keyArgs, Result: tText, Volatility: Volatile,
						Eval: func(ctx *Context, a []any) (any, error) {
							l, err := locks(ctx)
							if err != nil {
								return nil, err
							}
							_, err = l.Lock(keyOf(a), shared, xact, true)
							return "", err
						}},
					&Overload{Name: "pg_try_advisory" + infix + "_lock" + suffix, Args: keyArgs, Result: types.BoolT, Volatility: Volatile,
						Eval: func(ctx *Context, a []any) (any, error) {
							l, err := locks(ctx)
							if err != nil {
								return nil, err
							}
							return l.Lock(keyOf(a), shared, xact, false)
						}},
				)
			}
			Register(&Overload{Name: "pg_advisory_unlock" + suffixOf(shared), Args: keyArgs, Result: types.BoolT, Volatility: Volatile,
				Eval: func(ctx *Context, a []any) (any, error) {
					l, err := locks(ctx)
					if err != nil {
						return nil, err
					}
					return l.Unlock(keyOf(a), shared), nil
				}})
		}
	}
	// asyncpg's pool runs pg_advisory_unlock_all whenever it takes a
	// connection back.
	Register(&Overload{Name: "pg_advisory_unlock_all", Result: tText, Volatility: Volatile,
		Eval: func(ctx *Context, _ []any) (any, error) {
			l, err := locks(ctx)
			if err != nil {
				return nil, err
			}
			l.UnlockAll()
			return "", nil
		}})
}

// suffixOf is the name suffix of the shared variants.
func suffixOf(shared bool) string {
	if shared {
		return "_shared"
	}
	return ""
}
