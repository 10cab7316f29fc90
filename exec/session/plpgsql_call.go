package session

// Calls of PL/pgSQL functions of CREATE FUNCTION from SQL: the binder
// makes such a call a function whose evaluation hands the session the
// compiled body (sql.PLCall) and one row's arguments; the session runs
// the body in the calling statement's transaction, as it runs a
// trigger's, and casts what RETURN gives to the function's result type.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// callPL runs call's body with the arguments args in tx, the calling
// statement's transaction.
func (s *Session) callPL(tx *storage.Tx, call *sql.PLCall, args []any) (any, error) {
	defer s.borrowTx(tx)()
	ctx := s.statementContext()
	def := call.Def
	ret, err := s.runPL(ctx, call.Fn, func(vals []plValue) {
		for i, a := range args {
			vals[i] = plValue{v: a, t: def.ArgTypes[i]}
		}
	})
	if err != nil {
		return nil, err
	}
	if def.Returns.OID() == types.VoidOID {
		return "", nil // RETURN; or the end of the body
	}
	if !ret.returned {
		return nil, pgerr.New(pgerrcode.FunctionExecutedNoReturnStatement, "control reached end of function without RETURN")
	}
	if ret.rec != nil {
		return nil, pgerr.NotSupported("PL/pgSQL function %s returning a record variable", def.Name)
	}
	if ret.v == nil || ret.t.Equal(def.Returns) && ret.t.Mod == def.Returns.Mod {
		return ret.v, nil
	}
	f := &plFrame{s: s, ctx: ctx, fn: call.Fn}
	return f.cast(ret.v, ret.t, def.Returns)
}

// runProcedural runs a query that calls PL/pgSQL functions (a SELECT of
// one, or one in a data-modifying statement): their statements may
// write, so it runs to completion in the transaction, which an
// autocommit statement then commits, as PostgreSQL's SELECT f() commits
// what f wrote.
func (s *Session) runProcedural(ctx context.Context, p *Portal, plan sql.Node, maxRows int, emit func(arrow.Record) error) (Tag, bool, error) {
	switch plan.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge, *sql.ModifyingWith, *sql.Explain:
		return s.runQuery(ctx, p, plan, maxRows, emit)
	}
	return s.runToCompletion(ctx, p, maxRows, emit, func(rt *exec.Runtime) (Tag, exec.Operator, error) {
		op, err := exec.Build(rt, plan)
		if err != nil {
			return Tag{}, nil, err
		}
		defer op.Close()
		rows, err := exec.Materialize(ctx, op, nil)
		return rowsTag("SELECT", 0), rows, err
	})
}

// borrowTx makes tx, the transaction of an autocommit statement that runs
// a PL/pgSQL body (a function it calls, a trigger), the session's open
// one while the body runs, for the body's statements to run in. The
// function it returns gives it back. What the body's SET and SET LOCAL
// (set_config) change is settled when the statement's transaction ends
// (inTxOnce, readTx), as PostgreSQL's implicit transaction does. Inside a
// transaction block it does nothing.
func (s *Session) borrowTx(tx *storage.Tx) (giveBack func()) {
	if s.tx != nil {
		return func() {}
	}
	s.tx = tx
	return func() { s.tx = nil }
}
