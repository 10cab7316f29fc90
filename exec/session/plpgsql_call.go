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
	ret, err := s.runPL(ctx, call.Fn, plArguments(call, args))
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

// callPLSet runs call's body, a set-returning function's, with the
// arguments args in tx, returning the rows its RETURN QUERYs and RETURN
// NEXTs gave. While they are gathered they count against mem, the calling
// statement's statement_mem (53200 past it).
func (s *Session) callPLSet(tx *storage.Tx, mem *exec.MemoryBudget, call *sql.PLCall, args []any) ([][]any, error) {
	defer s.borrowTx(tx)()
	_, rows, err := s.runPLRows(s.statementContext(), call.Fn, &plRows{out: call.Out, mem: mem}, plArguments(call, args))
	return rows, err
}

// plArguments gives a call's parameter variables the arguments args.
func plArguments(call *sql.PLCall, args []any) func(vals []plValue) {
	return func(vals []plValue) {
		for i, a := range args {
			vals[i] = plValue{v: a, t: call.Def.ArgTypes[i]}
		}
	}
}

// runProcedural runs a query that calls PL/pgSQL functions (a SELECT of
// one, or of one in its WHERE clause) outside a transaction block: their
// statements may write, so the transaction it runs in commits when its
// rows are all sent, as PostgreSQL's SELECT f() commits what f wrote. The
// rows stream as a plain query's do; a commit that fails (a concurrent
// update of the same rows) fails the statement. Data-modifying
// statements and EXPLAIN go their own way.
func (s *Session) runProcedural(ctx context.Context, p *Portal, plan sql.Node, maxRows int, emit func(arrow.Record) error) (Tag, bool, error) {
	switch plan.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge, *sql.ModifyingWith, *sql.Explain:
		return s.runQuery(ctx, p, plan, maxRows, emit)
	}
	if p.run == nil {
		if s.tx != nil {
			return s.runQuery(ctx, p, plan, maxRows, emit) // the block's transaction holds the writes
		}
		tx := s.begin()
		tx.SetContext(ctx)
		lockTimeout, _ := parseDuration(s.get("lock_timeout"))
		tx.SetLockTimeout(lockTimeout)
		rt := s.runtime(tx, p.params)
		rt.Schemas = p.schemas
		op, err := exec.Build(rt, plan)
		if err != nil {
			s.endProcedural(tx, false)
			return Tag{}, false, err
		}
		run := &portalRun{op: op}
		run.endTx = func(committed bool) { run.endErr = s.endProcedural(tx, committed) }
		p.run = run
	}
	sent, suspended, err := streamRows(ctx, p.run, maxRows, emit)
	if err != nil || !suspended {
		p.run.failed = err != nil
		p.closeRun()
		if err == nil {
			err = p.run.endErr
		}
	}
	if err != nil {
		return Tag{}, false, err
	}
	return rowsTag("SELECT", sent), suspended, nil
}

// endProcedural ends the transaction of runProcedural: committed (with
// its deferred checks, notifications and settings, as an autocommit
// statement's) or rolled back.
func (s *Session) endProcedural(tx *storage.Tx, committed bool) error {
	tx.SetContext(nil)
	var err error
	if committed {
		err = s.commit(tx)
	} else {
		tx.Rollback()
		s.forgetNotify()
	}
	ok := committed && err == nil
	s.endTxSettings(ok)
	s.engine.stats.XactEnded(ok)
	return err
}

// borrowTx makes tx, the transaction of an autocommit statement that runs
// a PL/pgSQL body (a function it calls, a trigger), the session's open
// one while the body runs, for the body's statements to run in. The
// function it returns gives it back. What the body's SET and SET LOCAL
// (set_config) change is settled when the statement's transaction ends
// (inTxOnce, readTx, endProcedural), as PostgreSQL's implicit
// transaction does. Inside a transaction block it does nothing.
func (s *Session) borrowTx(tx *storage.Tx) (giveBack func()) {
	if s.tx != nil {
		return func() {}
	}
	// The statement's own transaction has the session's default modes: a
	// write under default_transaction_read_only is 25006 (checkWritable).
	readOnly := s.readOnly
	s.tx, s.readOnly = tx, s.parsedSettings().defaultReadOnly
	return func() { s.tx, s.readOnly = nil, readOnly }
}
