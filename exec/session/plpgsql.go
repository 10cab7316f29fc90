package session

// The PL/pgSQL interpreter: it runs a body compiled by package sql
// (sql.PLFunction) statement by statement. Each expression and SQL
// statement of the body runs as a nested statement of the session, in
// the open transaction, with the variables it names as its parameters;
// an EXCEPTION clause is a savepoint of the transaction, rolled back
// when a handler catches an error, as PostgreSQL's subtransaction.

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// maxPLDepth bounds how deeply PL/pgSQL bodies nest (a DO running a DO, a
// function calling itself): deeper is 54001, as PostgreSQL's stack depth
// limit, and never exhausts the server. PostgreSQL 15's 2 MB stack takes a
// simple recursive function 800 to 900 levels deep; a level costs cairn
// ~40 KB (stack and frame), so the deepest recursion holds ~32 MB.
const maxPLDepth = 800

// plValue is the value of a PL/pgSQL variable: a datum of type t, or a
// row (rec) for a record variable.
type plValue struct {
	v   any
	t   types.T
	rec *plRecord
	set bool // a record variable was assigned
	// returned marks the value of a RETURN statement (a body that ends
	// without one returns the zero plValue).
	returned bool
}

// plRecord is the row a record variable holds.
type plRecord struct {
	cols []Column
	vals []any
	// null marks the NULL row a trigger's NEW or OLD is where its event
	// has none (OLD of an INSERT): its fields read as NULL, and RETURN of
	// it returns NULL.
	null bool
}

// field is the position of a record's field name, -1 if it has none.
func (r *plRecord) field(name string) int {
	for i, c := range r.cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// plFrame is one run of a PL/pgSQL body.
type plFrame struct {
	s    *Session
	ctx  context.Context
	fn   *sql.PLFunction
	vals []plValue
	// caught are the errors the running handlers caught (innermost
	// last), which RAISE without arguments raises again.
	caught []error
	// rt is the runtime the body's expressions over no table are
	// evaluated in (scalarRuntime), made at the first.
	rt *exec.Runtime
	// set gathers a set-returning function's rows; nil for other bodies.
	set *plRows
}

// plRows are the rows a set-returning function's RETURN QUERYs and
// RETURN NEXTs gave, of its columns out, counted against the calling
// statement's memory budget.
type plRows struct {
	out  []types.Field
	mem  *exec.MemoryBudget
	rows [][]any
	held int64 // what rows took from mem
}

// add adds a row.
func (r *plRows) add(row []any) error {
	n := int64(24 + 16*len(row))
	for _, v := range row {
		switch v := v.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		case []float32:
			n += 4 * int64(len(v))
		case *types.Array:
			n += 16 * int64(len(v.Elems))
		}
	}
	if err := r.mem.Take(n); err != nil {
		return err
	}
	r.held += n
	r.rows = append(r.rows, row)
	return nil
}

// scalarRuntime is the runtime an expression over no table (no subquery)
// is evaluated in with parameters params: kept for the next while nothing
// can have changed the settings it holds (see evalScalar).
func (f *plFrame) scalarRuntime(params []any) *exec.Runtime {
	if f.rt == nil {
		f.rt = f.s.runtime(f.s.tx, nil)
	}
	f.rt.Params = params
	return f.rt
}

// evalScalar evaluates x, an expression over no table, with parameters
// params. A volatile function in it (set_config among them) may change
// the session's settings, so the next expression gets a fresh runtime; so
// does the next after any statement the body runs (runStatement).
func (f *plFrame) evalScalar(x sql.Expr, params []any) (any, error) {
	v, err := exec.EvalScalar(f.ctx, f.scalarRuntime(params), x)
	sql.WalkExpr(x, func(e sql.Expr) {
		if c, ok := e.(*sql.Call); ok && (c.Overload == nil || c.Overload.Volatility == functions.Volatile) {
			f.rt = nil
		}
	})
	return v, err
}

// plControl is how a statement ended: normally, or by EXIT, CONTINUE or
// RETURN, which the enclosing loops, blocks and the body take up.
type plControl struct {
	kind  plControlKind
	label string
}

type plControlKind uint8

const (
	plNext plControlKind = iota
	plExit
	plContinue
	plReturn
)

// runDo runs a DO block: in the open transaction (all of it undone if it
// fails), or in one of its own that commits when it ends.
func (s *Session) runDo(ctx context.Context, x *sql.Do) error {
	for s.tx == nil {
		notices := len(s.notices)
		s.BeginImplicit()
		_, err := s.runPL(ctx, x.Fn, nil)
		if err != nil {
			s.AbortBlock()
		}
		if cerr := s.EndImplicit(); err == nil {
			err = cerr
		}
		if !storage.IsFenced(err) {
			return err
		}
		// It wrote to a table another transaction's open ALTER TABLE
		// fences (its commit failed, nothing of it is left): it waits
		// for that transaction and runs again, as an autocommit
		// statement does (inTx), where PostgreSQL's DO waits at the
		// write for the ALTER's lock. The failed run's notices go.
		if err := s.waitFence(ctx, err); err != nil {
			return err
		}
		s.notices = s.notices[:notices]
	}
	mark := s.tx.Savepoint()
	_, err := s.runPL(ctx, x.Fn, nil)
	if err != nil {
		s.tx.RollbackTo(mark)
	}
	s.tx.ReleaseSavepoint(mark)
	return err
}

// runPL runs a compiled body in the open transaction; init sets up
// variables before the defaults are computed (a trigger's NEW and OLD).
// It returns the value of RETURN.
func (s *Session) runPL(ctx context.Context, fn *sql.PLFunction, init func(vals []plValue)) (plValue, error) {
	ret, _, err := s.runPLRows(ctx, fn, nil, init)
	return ret, err
}

// runPLRows is runPL for a set-returning function, whose RETURN QUERYs'
// rows set gathers: it also returns them. What they took from the
// statement's memory budget is given back when it returns (the caller
// hands them on at once).
func (s *Session) runPLRows(ctx context.Context, fn *sql.PLFunction, set *plRows, init func(vals []plValue)) (plValue, [][]any, error) {
	if set != nil {
		defer func() { set.mem.Give(set.held) }()
	}
	if s.plDepth >= maxPLDepth {
		return plValue{}, nil, pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded").
			WithHint("PL/pgSQL functions and DO blocks nest at most %d deep.", maxPLDepth)
	}
	s.plDepth++
	defer func() { s.plDepth-- }()
	f := &plFrame{s: s, ctx: ctx, fn: fn, vals: make([]plValue, len(fn.Vars)), set: set}
	for i, v := range fn.Vars {
		f.vals[i].t = v.T
	}
	if fn.Found >= 0 {
		f.vals[fn.Found] = plValue{v: false, t: types.BoolT}
	}
	if init != nil {
		init(f.vals)
	}
	for i, v := range fn.Vars {
		if err := f.initVar(i, v); err != nil {
			return plValue{}, nil, err
		}
	}
	ctl, ret, err := f.block(fn.Body)
	if err != nil {
		return plValue{}, nil, err
	}
	if ctl.kind == plExit || ctl.kind == plContinue {
		if ctl.label != "" {
			return plValue{}, nil, pgerr.New(pgerrcode.SyntaxError, "label \"%s\" does not exist", ctl.label)
		}
		return plValue{}, nil, pgerr.New(pgerrcode.SyntaxError, "%s cannot be used outside a loop", map[plControlKind]string{plExit: "EXIT", plContinue: "CONTINUE"}[ctl.kind])
	}
	if set == nil {
		return ret, nil, nil
	}
	return ret, set.rows, nil
}

// initVar gives variable i its default value.
func (f *plFrame) initVar(i int, v sql.PLVar) error {
	if v.Row != nil {
		// A table's row type: its fields, all NULL.
		rec := &plRecord{cols: make([]Column, len(v.Row)), vals: make([]any, len(v.Row))}
		for j, field := range v.Row {
			rec.cols[j] = Column{Name: field.Name, Type: field.T}
		}
		f.vals[i] = plValue{set: true, rec: rec}
		return nil
	}
	if v.Default == nil {
		if v.NotNull {
			return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "variable \"%s\" must have a default value, since it's declared NOT NULL", v.Name)
		}
		return nil
	}
	val, t, err := f.eval(v.Default)
	if err != nil {
		return err
	}
	if val == nil && v.NotNull {
		return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "null value cannot be assigned to variable \"%s\" declared NOT NULL", v.Name)
	}
	f.vals[i] = plValue{v: val, t: t}
	return nil
}

// checkCancel fails a body whose statement was cancelled or timed out:
// loops check it each time round.
func (f *plFrame) checkCancel() error {
	if err := f.ctx.Err(); err != nil {
		return pgerr.From(err)
	}
	return nil
}

// list runs statements in turn until one ends otherwise than normally.
func (f *plFrame) list(stmts []sql.PLStmt) (plControl, plValue, error) {
	for _, st := range stmts {
		ctl, ret, err := f.stmt(st)
		if err != nil || ctl.kind != plNext {
			return ctl, ret, err
		}
	}
	return plControl{}, plValue{}, nil
}

// block runs BEGIN ... EXCEPTION ... END. With handlers, the block's
// statements run after a savepoint: an error one of them catches rolls
// the block's effects back to it before the handler runs.
func (f *plFrame) block(b *sql.PLBlock) (plControl, plValue, error) {
	var ctl plControl
	var ret plValue
	var err error
	if len(b.Handlers) == 0 {
		ctl, ret, err = f.list(b.Body)
	} else {
		tx := f.s.tx
		mark := tx.Savepoint()
		ctl, ret, err = f.list(b.Body)
		if err != nil {
			tx.RollbackTo(mark)
		}
		tx.ReleaseSavepoint(mark)
		if err != nil {
			if h := matchHandler(b.Handlers, err); h != nil {
				ctl, ret, err = f.handle(h, err)
			}
		}
	}
	if err == nil && ctl.kind == plExit && b.Label != "" && ctl.label == b.Label {
		ctl = plControl{}
	}
	return ctl, ret, err
}

// handle runs handler h for the error it caught, with SQLSTATE and
// SQLERRM set to the error's.
func (f *plFrame) handle(h *sql.PLHandler, caught error) (plControl, plValue, error) {
	if f.fn.SQLState >= 0 {
		f.vals[f.fn.SQLState] = plValue{v: pgerr.Code(caught), t: types.TextT}
	}
	if f.fn.SQLErrm >= 0 {
		f.vals[f.fn.SQLErrm] = plValue{v: pgerr.From(caught).Message, t: types.TextT}
	}
	f.caught = append(f.caught, caught)
	defer func() { f.caught = f.caught[:len(f.caught)-1] }()
	return f.list(h.Body)
}

// stackedDiag is the value of GET STACKED DIAGNOSTICS item kind for the
// error caught: a field of the error, the empty string where it has none
// (as PostgreSQL's; cairn's errors name no data type).
func stackedDiag(kind string, caught error) string {
	pe := pgerr.From(caught)
	switch kind {
	case "RETURNED_SQLSTATE":
		return pe.Code
	case "MESSAGE_TEXT":
		return pe.Message
	case "PG_EXCEPTION_DETAIL":
		return pe.Detail
	case "PG_EXCEPTION_HINT":
		return pe.Hint
	case "PG_EXCEPTION_CONTEXT":
		return pe.Where
	case "COLUMN_NAME":
		return pe.Column
	case "CONSTRAINT_NAME":
		return pe.Constraint
	case "TABLE_NAME":
		return pe.Table
	case "SCHEMA_NAME":
		return pe.Schema
	}
	return "" // PG_DATATYPE_NAME
}

// matchHandler is the first handler that catches err: by its SQLSTATE,
// its class (a code ending in 000), or OTHERS, which catches all but a
// cancellation (query_canceled) and a failed ASSERT, as in PostgreSQL.
func matchHandler(hs []sql.PLHandler, err error) *sql.PLHandler {
	code := pgerr.Code(err)
	for i := range hs {
		for _, c := range hs[i].Codes {
			switch {
			case c == "":
				if code != pgerrcode.QueryCanceled && code != pgerrcode.AssertFailure {
					return &hs[i]
				}
			case c == code, strings.HasSuffix(c, "000") && strings.HasPrefix(code, c[:2]):
				return &hs[i]
			}
		}
	}
	return nil
}

// stmt runs one statement.
func (f *plFrame) stmt(st sql.PLStmt) (plControl, plValue, error) {
	switch x := st.(type) {
	case *sql.PLBlock:
		return f.block(x)
	case *sql.PLAssign:
		return plControl{}, plValue{}, f.assign(x)
	case *sql.PLIf:
		for i, c := range x.Conds {
			ok, err := f.cond(c)
			if err != nil {
				return plControl{}, plValue{}, err
			}
			if ok {
				return f.list(x.Bodies[i])
			}
		}
		return f.list(x.Else)
	case *sql.PLExecSQL:
		return plControl{}, plValue{}, f.execSQL(x)
	case *sql.PLPerform:
		n := 0
		_, err := f.run(x.Query, func([]Column, []any) error { n++; return nil })
		f.setFound(n > 0)
		return plControl{}, plValue{}, err
	case *sql.PLDynExecute:
		return plControl{}, plValue{}, f.dynExecute(x)
	case *sql.PLRaise:
		return plControl{}, plValue{}, f.raise(x)
	case *sql.PLReturn:
		ret := plValue{}
		switch {
		case x.Var >= 0:
			ret = f.vals[x.Var]
		case x.Expr != nil:
			v, t, err := f.eval(x.Expr)
			if err != nil {
				return plControl{}, plValue{}, err
			}
			ret = plValue{v: v, t: t}
		}
		ret.returned = true
		return plControl{kind: plReturn}, ret, nil
	case *sql.PLLoop:
		return f.loop(x)
	case *sql.PLReturnQuery:
		return plControl{}, plValue{}, f.returnQuery(x)
	case *sql.PLReturnNext:
		return plControl{}, plValue{}, f.returnNext(x)
	case *sql.PLGetDiag:
		if x.Stacked && len(f.caught) == 0 {
			return plControl{}, plValue{}, pgerr.New(pgerrcode.StackedDiagnosticsAccessedWithoutActiveHandler, "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
		}
		for _, it := range x.Items {
			val, from := any(f.s.plRows), types.Int8T
			if x.Stacked {
				val, from = stackedDiag(it.Kind, f.caught[len(f.caught)-1]), types.TextT
			}
			if t := f.fn.Vars[it.Var].T; t.Family != types.Unknown && !t.Equal(from) {
				var err error
				if val, err = f.cast(val, from, t); err != nil {
					return plControl{}, plValue{}, err
				}
			}
			f.vals[it.Var] = plValue{v: val, t: f.fn.Vars[it.Var].T}
		}
		return plControl{}, plValue{}, nil
	case *sql.PLExit:
		if x.Cond != nil {
			ok, err := f.cond(x.Cond)
			if err != nil || !ok {
				return plControl{}, plValue{}, err
			}
		}
		if x.Continue {
			return plControl{kind: plContinue, label: x.Label}, plValue{}, nil
		}
		return plControl{kind: plExit, label: x.Label}, plValue{}, nil
	}
	return plControl{}, plValue{}, pgerr.NotSupported("PL/pgSQL statement %T", st)
}

// setFound sets FOUND.
func (f *plFrame) setFound(found bool) {
	if f.fn.Found >= 0 {
		f.vals[f.fn.Found] = plValue{v: found, t: types.BoolT}
	}
}

// cond evaluates a condition: NULL is false.
func (f *plFrame) cond(e *sql.PLExpr) (bool, error) {
	v, _, err := f.eval(e)
	b, _ := v.(bool)
	return b, err
}

// loop runs LOOP, WHILE and the FOR loops.
func (f *plFrame) loop(x *sql.PLLoop) (plControl, plValue, error) {
	// body runs the loop's body once; stop reports that the loop ends
	// (and how the statement ends, ctl).
	body := func() (stop bool, ctl plControl, ret plValue, err error) {
		if err := f.checkCancel(); err != nil {
			return true, plControl{}, plValue{}, err
		}
		ctl, ret, err = f.list(x.Body)
		if err != nil {
			return true, ctl, ret, err
		}
		mine := ctl.label == "" || ctl.label == x.Label
		switch {
		case ctl.kind == plNext, ctl.kind == plContinue && mine:
			return false, plControl{}, plValue{}, nil
		case ctl.kind == plExit && mine:
			return true, plControl{}, plValue{}, nil
		}
		return true, ctl, ret, nil
	}
	switch {
	case x.IntegerFor:
		return f.forInteger(x, body)
	case x.Query != nil:
		return f.forQuery(x, body)
	case x.Array != nil:
		return f.forEach(x, body)
	}
	for {
		if x.Cond != nil {
			ok, err := f.cond(x.Cond)
			if err != nil || !ok {
				return plControl{}, plValue{}, err
			}
		}
		if stop, ctl, ret, err := body(); stop {
			return ctl, ret, err
		}
	}
}

// forInteger runs FOR i IN [REVERSE] a..b [BY step].
func (f *plFrame) forInteger(x *sql.PLLoop, body func() (bool, plControl, plValue, error)) (plControl, plValue, error) {
	bound := func(e *sql.PLExpr, what string) (int64, error) {
		v, _, err := f.eval(e)
		if err != nil {
			return 0, err
		}
		n, ok := v.(int64)
		if !ok {
			return 0, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "%s of FOR loop cannot be null", what)
		}
		return n, nil
	}
	lo, err := bound(x.Lower, "lower bound")
	if err != nil {
		return plControl{}, plValue{}, err
	}
	hi, err := bound(x.Upper, "upper bound")
	if err != nil {
		return plControl{}, plValue{}, err
	}
	step := int64(1)
	if x.Step != nil {
		if step, err = bound(x.Step, "BY value"); err != nil {
			return plControl{}, plValue{}, err
		}
		if step <= 0 {
			return plControl{}, plValue{}, pgerr.New(pgerrcode.InvalidParameterValue, "BY value of FOR loop must be greater than zero")
		}
	}
	for i := lo; x.Reverse && i >= hi || !x.Reverse && i <= hi; {
		f.vals[x.Var] = plValue{v: i, t: types.Int4T}
		f.setFound(true)
		if stop, ctl, ret, err := body(); stop {
			return ctl, ret, err
		}
		if x.Reverse {
			i -= step
		} else {
			i += step
		}
	}
	return plControl{}, plValue{}, nil
}

// returnQuery runs RETURN QUERY: the query's rows join the function's.
// Their columns must be the function's, in number and type (42804 "the
// structure of query does not match function result type" otherwise, as
// in PostgreSQL, which casts nothing here).
func (f *plFrame) returnQuery(x *sql.PLReturnQuery) error {
	n := 0
	cols, err := f.run(x.Query, func(cols []Column, row []any) error {
		n++
		return f.set.add(row)
	})
	if err == nil {
		err = f.checkShape(cols)
	}
	if err != nil {
		return err // the call fails, its rows with it
	}
	f.setFound(n > 0)
	return nil
}

// returnNext runs RETURN NEXT: one row, a record variable's fields or a
// value of a one-column function, each cast to its column's type as an
// assignment would.
func (f *plFrame) returnNext(x *sql.PLReturnNext) error {
	out := f.set.out
	var vals []any
	var ts []types.T
	switch {
	case x.Var >= 0 && f.fn.Vars[x.Var].Record:
		rec := f.vals[x.Var].rec
		if rec == nil {
			return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", f.fn.Vars[x.Var].Name).
				WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
		}
		vals = rec.vals
		for _, c := range rec.cols {
			ts = append(ts, c.Type)
		}
	case x.Var >= 0:
		vals, ts = []any{f.vals[x.Var].v}, []types.T{f.vals[x.Var].t}
	default:
		v, t, err := f.eval(x.Expr)
		if err != nil {
			return err
		}
		vals, ts = []any{v}, []types.T{t}
	}
	if len(vals) != len(out) {
		return pgerr.New(pgerrcode.DatatypeMismatch, "wrong record type supplied in RETURN NEXT").
			WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(vals), len(out))
	}
	row := make([]any, len(vals))
	for i, v := range vals {
		if v != nil && ts[i].Family != types.Unknown && !ts[i].Equal(out[i].T) {
			var err error
			if v, err = f.cast(v, ts[i], out[i].T); err != nil {
				return err
			}
		}
		row[i] = v
	}
	return f.set.add(row)
}

// checkShape checks that a RETURN QUERY's columns are the function's.
func (f *plFrame) checkShape(cols []Column) error {
	mismatch := pgerr.New(pgerrcode.DatatypeMismatch, "structure of query does not match function result type")
	out := f.set.out
	if len(cols) != len(out) {
		return mismatch.WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(cols), len(out))
	}
	for i, c := range cols {
		if !c.Type.Equal(out[i].T) {
			return mismatch.WithDetail("Returned type %s does not match expected type %s in column %d.", c.Type, out[i].T, i+1)
		}
	}
	return nil
}

// forEach runs FOREACH var IN ARRAY expr: the variable takes each element
// in turn (of every dimension, in storage order), cast to its type.
func (f *plFrame) forEach(x *sql.PLLoop, body func() (bool, plControl, plValue, error)) (plControl, plValue, error) {
	v, t, err := f.eval(x.Array)
	if err != nil {
		return plControl{}, plValue{}, err
	}
	if !t.IsArray() {
		return plControl{}, plValue{}, pgerr.New(pgerrcode.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", t)
	}
	if v == nil {
		return plControl{}, plValue{}, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "FOREACH expression must not be null")
	}
	var elems []any
	switch a := v.(type) {
	case *types.Array:
		elems = a.Elems
	case []float32:
		for _, x := range a {
			elems = append(elems, float64(x))
		}
	default:
		return plControl{}, plValue{}, pgerr.New(pgerrcode.InternalError, "FOREACH over a %T", v)
	}
	elemT, to := *t.Elem, f.fn.Vars[x.Var].T
	for _, e := range elems {
		if e != nil && to.Family != types.Unknown && !to.Equal(elemT) {
			if e, err = f.cast(e, elemT, to); err != nil {
				return plControl{}, plValue{}, err
			}
		}
		vt := to
		if vt.Family == types.Unknown {
			vt = elemT
		}
		f.vals[x.Var] = plValue{v: e, t: vt}
		if stop, ctl, ret, err := body(); stop {
			return ctl, ret, err
		}
	}
	return plControl{}, plValue{}, nil
}

// forQuery runs FOR target IN query: the query's rows are read first,
// then the body runs for each.
func (f *plFrame) forQuery(x *sql.PLLoop, body func() (bool, plControl, plValue, error)) (plControl, plValue, error) {
	var cols []Column
	var rows [][]any
	if _, err := f.run(x.Query, func(c []Column, row []any) error {
		cols = c
		rows = append(rows, row)
		return nil
	}); err != nil {
		return plControl{}, plValue{}, err
	}
	f.setFound(len(rows) > 0)
	for _, row := range rows {
		if err := f.into(x.Target, cols, row); err != nil {
			return plControl{}, plValue{}, err
		}
		if stop, ctl, ret, err := body(); stop {
			return ctl, ret, err
		}
	}
	return plControl{}, plValue{}, nil
}

// assign runs var := expr and rec.field := expr.
func (f *plFrame) assign(x *sql.PLAssign) error {
	v, t, err := f.eval(x.Expr)
	if err != nil {
		return err
	}
	if x.Field == "" {
		if v == nil && f.fn.Vars[x.Var].NotNull {
			return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "null value cannot be assigned to variable \"%s\" declared NOT NULL", f.fn.Vars[x.Var].Name)
		}
		f.vals[x.Var] = plValue{v: v, t: t}
		return nil
	}
	return f.setField(x.Var, x.Field, v, t)
}

// setField sets field of record variable varNo to v of type t, cast to
// the field's type.
func (f *plFrame) setField(varNo int, field string, v any, t types.T) error {
	rec := f.vals[varNo].rec
	if rec == nil {
		return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", f.fn.Vars[varNo].Name).
			WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
	}
	i := rec.field(field)
	if i < 0 {
		return pgerr.New(pgerrcode.UndefinedColumn, "record \"%s\" has no field \"%s\"", f.fn.Vars[varNo].Name, field)
	}
	if v != nil && !t.Equal(rec.cols[i].Type) {
		var err error
		if v, err = f.cast(v, t, rec.cols[i].Type); err != nil {
			return err
		}
	}
	rec.vals[i] = v
	return nil
}

// cast converts datum v of type from to type to, as an assignment does.
func (f *plFrame) cast(v any, from, to types.T) (any, error) {
	st, err := f.s.plCast(to)
	if err != nil {
		return nil, err
	}
	ts, params := []types.T{from}, []any{v}
	if x := f.s.scalar(st, ts, params); x != nil {
		return f.evalScalar(x, params)
	}
	var out any
	_, err = f.runStatement(st, params, ts, func(_ []Column, row []any) error {
		out = row[0]
		return nil
	})
	return out, err
}

// plCast is the statement SELECT CAST($1 AS to), made once per session
// and type and kept with its bindings.
func (s *Session) plCast(to types.T) (*Statement, error) {
	key := to.String()
	if st := s.plCasts[key]; st != nil {
		return st, nil
	}
	parsed, err := sql.Parse("SELECT CAST($1 AS " + key + ")")
	if err != nil {
		return nil, err
	}
	if s.plCasts == nil || len(s.plCasts) >= maxPLStatements {
		s.plCasts = map[string]*Statement{}
	}
	st := &Statement{SQL: parsed[0].Text, parsed: parsed[0]}
	s.plCasts[key] = st
	return st, nil
}

// params are the values of the variables an expression names.
func (f *plFrame) params(e *sql.PLExpr) ([]any, []types.T, error) {
	vals := make([]any, len(e.Refs))
	ts := make([]types.T, len(e.Refs))
	for i, r := range e.Refs {
		v := f.vals[r.Var]
		name := f.fn.Vars[r.Var].Name
		if r.Whole {
			// A record of the fields; NULL for a record not assigned
			// yet, or a trigger's row its event has none of.
			t := types.RecordT
			if v.rec == nil {
				ts[i] = t
				continue
			}
			for _, c := range v.rec.cols {
				t.Fields = append(t.Fields, types.Field{Name: c.Name, T: c.Type})
			}
			ts[i] = t
			if !v.rec.null {
				vals[i] = append([]any(nil), v.rec.vals...)
			}
			continue
		}
		if r.Field == "" {
			vals[i], ts[i] = v.v, v.t
			continue
		}
		if v.rec == nil {
			return nil, nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", name).
				WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
		}
		j := v.rec.field(r.Field)
		if j < 0 {
			return nil, nil, pgerr.New(pgerrcode.UndefinedColumn, "record \"%s\" has no field \"%s\"", name, r.Field)
		}
		vals[i], ts[i] = v.rec.vals[j], v.rec.cols[j].Type
	}
	return vals, ts, nil
}

// eval computes an expression: its one value (NULL when the query gives
// no row) and type. An expression over no table is evaluated as it is
// (scalar); anything else runs as a query.
func (f *plFrame) eval(e *sql.PLExpr) (any, types.T, error) {
	params, ts, err := f.params(e)
	if err != nil {
		return nil, types.T{}, err
	}
	st := f.s.plStatement(e)
	if x := f.s.scalar(st, ts, params); x != nil {
		v, err := f.evalScalar(x, params)
		t := x.Type()
		if t.Family == types.Unknown {
			t = types.TextT // an untyped literal, as a query's result column has it
		}
		return v, t, err
	}
	var v any
	var t types.T
	n := 0
	cols, err := f.runStatement(st, params, ts, func(c []Column, row []any) error {
		n++
		if n > 1 {
			return pgerr.New(pgerrcode.CardinalityViolation, "query returned more than one row").
				WithDetail("In the PL/pgSQL expression \"%s\".", e.Text)
		}
		v = row[0]
		return nil
	})
	if err != nil {
		return nil, t, err
	}
	if len(cols) != 1 {
		return nil, t, pgerr.New(pgerrcode.SyntaxError, "query returned %d columns", len(cols)).
			WithDetail("In the PL/pgSQL expression \"%s\".", e.Text)
	}
	return v, cols[0].Type, nil
}

// run runs an expression or statement of the body with its variables as
// parameters, handing row each row it returns; it returns the result's
// columns.
func (f *plFrame) run(e *sql.PLExpr, row func([]Column, []any) error) ([]Column, error) {
	params, ts, err := f.params(e)
	if err != nil {
		return nil, err
	}
	return f.runStatement(f.s.plStatement(e), params, ts, row)
}

// runStatement runs st, a statement of the body, with parameters params
// of types ts.
func (f *plFrame) runStatement(st *Statement, params []any, ts []types.T, row func([]Column, []any) error) ([]Column, error) {
	f.rt = nil // the statement may change the settings (SET, set_config)
	if !sameTypes(st.ParamTypes, ts) {
		st.ParamTypes = ts
	}
	return f.s.runNested(f.ctx, st, params, row)
}

// scalar is the expression st computes when it is a SELECT of one
// expression over no table (sql.ScalarSelect), bound for parameters of
// types ts (its binding kept), or nil: st then runs as a query, which
// also gives any error binding it.
func (s *Session) scalar(st *Statement, ts []types.T, params []any) sql.Expr {
	for i, t := range ts {
		if _, text := params[i].(string); text && t.IsOID() && t.Family != types.Oid {
			return nil // a reg* name the query's run looks up
		}
	}
	if !sameTypes(st.ParamTypes, ts) {
		st.ParamTypes = ts
	}
	bp, err := s.bindCached(st)
	if err != nil {
		return nil
	}
	q, ok := bp.bound.(*sql.Query)
	if !ok || len(bp.params) != len(ts) {
		return nil
	}
	return sql.ScalarSelect(q.Plan)
}

// maxPLStatements bounds the session's statements of PL/pgSQL bodies
// kept with their bindings (plStatement).
const maxPLStatements = 4096

// plStatement is e as a session statement, made at its first run and
// kept, with its binding, for the next runs of the body it is part of:
// a loop's next turn, the next row's call of a function or trigger. A
// body compiled again (a replaced function, a statement bound again)
// has new expressions; the old ones' statements go when the session
// holds too many.
func (s *Session) plStatement(e *sql.PLExpr) *Statement {
	if st := s.plStmts[e]; st != nil {
		return st
	}
	if s.plStmts == nil || len(s.plStmts) >= maxPLStatements {
		s.plStmts = map[*sql.PLExpr]*Statement{}
	}
	st := &Statement{SQL: e.Text, parsed: e.Stmt}
	s.plStmts[e] = st
	return st
}

// sameTypes reports whether two lists of types are equal.
func sameTypes(a, b []types.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// runNested runs a statement of a PL/pgSQL body in the open transaction:
// bound (its binding kept for the next run), executed, and each result
// row handed to row. It returns the result's columns.
func (s *Session) runNested(ctx context.Context, st *Statement, params []any, row func([]Column, []any) error) ([]Column, error) {
	s.statementSnapshot(st)
	bp, err := s.bindCached(st)
	if err != nil {
		return nil, err
	}
	switch bp.bound.(type) {
	case *sql.Transaction:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "unsupported transaction command in PL/pgSQL")
	case *sql.Copy:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot COPY to/from client in PL/pgSQL")
	case *sql.Prepare, *sql.Execute, *sql.Deallocate, *sql.DeclareCursor, *sql.Fetch, *sql.CloseCursor:
		return nil, pgerr.NotSupported("%s in PL/pgSQL", sql.CommandName(bp.bound))
	}
	if len(params) != len(bp.params) {
		return nil, pgerr.New(pgerrcode.InternalError, "PL/pgSQL statement has %d parameters, bound with %d", len(params), len(bp.params))
	}
	if err := s.lookupRegParams(bp.params, params); err != nil {
		return nil, err
	}
	p := &Portal{stmt: st, bound: bp.bound, params: params, columns: bp.columns, schemas: bp.schemas}
	defer p.closeRun()
	var tag Tag
	tag, _, err = s.execute(ctx, p, 0, func(r arrow.Record) error {
		for i := 0; i < int(r.NumRows()); i++ {
			vals := make([]any, len(p.columns))
			for j, c := range p.columns {
				vals[j] = types.ValueAt(r.Column(j), i, c.Type)
			}
			if err := row(p.columns, vals); err != nil {
				return err
			}
		}
		return nil
	})
	s.plRows = tag.Rows
	return p.columns, err
}

// execSQL runs an SQL statement of the body, with INTO when it has it:
// the first row goes to the targets (NULLs without one), and STRICT
// wants exactly one. FOUND says whether the statement read or changed a
// row.
func (f *plFrame) execSQL(x *sql.PLExecSQL) error {
	if x.NoDestination {
		return pgerr.New(pgerrcode.SyntaxError, "query has no destination for result data").
			WithHint("If you want to discard the results of a SELECT, use PERFORM instead.")
	}
	n := 0
	var first []any
	cols, err := f.run(x.SQL, func(c []Column, row []any) error {
		n++
		if n == 1 {
			first = row
		} else if x.Strict && x.Into != nil {
			return pgerr.New(pgerrcode.TooManyRows, "query returned more than one row").
				WithHint("Make sure the query returns a single row, or use LIMIT 1.")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if x.Into == nil {
		f.setFound(f.s.plRows > 0 || n > 0)
		return nil
	}
	if n == 0 && x.Strict {
		return pgerr.New(pgerrcode.NoDataFound, "query returned no rows")
	}
	f.setFound(n > 0)
	return f.into(x.Into, cols, first)
}

// into assigns a row to INTO or FOR targets: one record variable takes
// the whole row, scalar variables its columns in order (NULL for a
// missing row or column).
func (f *plFrame) into(targets []int, cols []Column, row []any) error {
	if len(targets) == 1 && f.fn.Vars[targets[0]].Record {
		if row == nil && f.fn.Vars[targets[0]].Row != nil {
			return f.initVar(targets[0], f.fn.Vars[targets[0]]) // its fields, all NULL
		}
		if row == nil {
			f.vals[targets[0]] = plValue{set: true, rec: &plRecord{cols: cols, vals: make([]any, len(cols))}}
			return nil
		}
		f.vals[targets[0]] = plValue{set: true, rec: &plRecord{cols: cols, vals: append([]any(nil), row...)}}
		return nil
	}
	for i, t := range targets {
		v := f.fn.Vars[t]
		if v.Record {
			return pgerr.NotSupported("a record variable among several INTO targets")
		}
		var val any
		vt := v.T
		if i < len(row) {
			val, vt = row[i], cols[i].Type
		}
		if v.Field != "" {
			if err := f.setField(v.FieldOf, v.Field, val, vt); err != nil {
				return err
			}
			continue
		}
		if val != nil && v.T.Family != types.Unknown && !vt.Equal(v.T) {
			var err error
			if val, err = f.cast(val, vt, v.T); err != nil {
				return err
			}
			vt = v.T
		}
		if v.T.Family != types.Unknown {
			vt = v.T
		}
		f.vals[t] = plValue{v: val, t: vt}
	}
	return nil
}

// dynExecute runs EXECUTE string [INTO ...] [USING ...]: the string is
// parsed now, and the USING values are its parameters $1, $2, ...
func (f *plFrame) dynExecute(x *sql.PLDynExecute) error {
	q, _, err := f.eval(x.Query)
	if err != nil {
		return err
	}
	text, ok := q.(string)
	if !ok {
		return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "query string argument of EXECUTE is null")
	}
	parsed, err := sql.Parse(text)
	if err != nil {
		return err
	}
	if len(parsed) != 1 {
		return pgerr.New(pgerrcode.FeatureNotSupported, "EXECUTE of %d statements is not supported", len(parsed))
	}
	params := make([]any, len(x.Params))
	ts := make([]types.T, len(x.Params))
	for i, p := range x.Params {
		if params[i], ts[i], err = f.eval(p); err != nil {
			return err
		}
	}
	st := &Statement{SQL: text, ParamTypes: ts, parsed: parsed[0]}
	n := 0
	var cols []Column
	var first []any
	if _, err := f.s.runNested(f.ctx, st, params, func(c []Column, row []any) error {
		n++
		if n == 1 {
			cols, first = c, row
		} else if x.Strict && x.Into != nil {
			return pgerr.New(pgerrcode.TooManyRows, "query returned more than one row")
		}
		return nil
	}); err != nil {
		return err
	}
	if x.Into == nil {
		return nil
	}
	if n == 0 && x.Strict {
		return pgerr.New(pgerrcode.NoDataFound, "query returned no rows")
	}
	return f.into(x.Into, cols, first)
}

// raise runs RAISE: a notice to the client, or an error (P0001 unless
// a condition or ERRCODE says otherwise). RAISE alone raises again the
// error its handler caught.
func (f *plFrame) raise(x *sql.PLRaise) error {
	if x.Message == "" && x.Cond == "" && len(x.Options) == 0 {
		if len(f.caught) == 0 {
			return pgerr.New(pgerrcode.StackedDiagnosticsAccessedWithoutActiveHandler, "RAISE without parameters cannot be used outside an exception handler")
		}
		return f.caught[len(f.caught)-1]
	}
	args := make([]string, len(x.Params))
	for i, p := range x.Params {
		v, _, err := f.eval(p)
		if err != nil {
			return err
		}
		if s, ok := v.(string); ok {
			args[i] = s
		} else {
			args[i] = "<NULL>"
		}
	}
	var msg strings.Builder
	next := 0
	for i := 0; i < len(x.Message); i++ {
		c := x.Message[i]
		switch {
		case c == '%' && i+1 < len(x.Message) && x.Message[i+1] == '%':
			msg.WriteByte('%')
			i++
		case c == '%':
			msg.WriteString(args[next])
			next++
		default:
			msg.WriteByte(c)
		}
	}
	code, message, detail, hint := x.Cond, msg.String(), "", ""
	for _, o := range x.Options {
		v, _, err := f.eval(o.Expr)
		if err != nil {
			return err
		}
		s, ok := v.(string)
		if !ok {
			return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "RAISE statement option cannot be null")
		}
		switch o.Kind {
		case "ERRCODE":
			c, ok := sql.PLCondition(s)
			if !ok || c == "" {
				return pgerr.New(pgerrcode.UndefinedObject, "unrecognized exception condition \"%s\"", s)
			}
			code = c
		case "MESSAGE":
			message = s
		case "DETAIL":
			detail = s
		case "HINT":
			hint = s
		}
	}
	if x.Message == "" && message == "" {
		message = code
		if x.Cond != "" {
			message = conditionName(x.Cond)
		}
	}
	switch x.Level {
	case "EXCEPTION":
		if code == "" {
			code = pgerrcode.RaiseException
		}
		e := pgerr.New(code, "%s", message)
		if detail != "" {
			e = e.WithDetail("%s", detail)
		}
		if hint != "" {
			e = e.WithHint("%s", hint)
		}
		return e
	case "NOTICE", "WARNING", "INFO":
		if code == "" {
			code = "00000"
			if x.Level == "WARNING" {
				code = "01000"
			}
		}
		f.s.notices = append(f.s.notices, Notice{Severity: x.Level, Code: code, Message: message, Detail: detail})
	}
	return nil
}

// conditionName is the condition name of a SQLSTATE (RAISE division_by_zero
// says "division_by_zero"), the code itself if it has none.
func conditionName(code string) string {
	if name := sql.PLConditionName(code); name != "" {
		return name
	}
	return code
}
