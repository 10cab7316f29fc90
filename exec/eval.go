package exec

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
	"github.com/jackc/pgerrcode"
)

// Runtime is everything operators need from the statement that runs them.
// One Runtime serves one execution of one statement and is used by one
// goroutine at a time; uncorrelated subqueries run once per Runtime and
// their results are cached in it.
type Runtime struct {
	// Fn is passed to every function call (now(), time zone, allocator);
	// nil means UTC, the current time and the default allocator.
	Fn *functions.Context
	// Params are the datums of $1, $2, ... A one-dimensional real[]
	// without NULLs may be a []float32 (the wire layer decodes a binary
	// embedding so, without boxing its elements): VALUES appends it to its
	// column as it is, and an expression reads it as the *types.Array
	// every function expects (paramValue).
	Params []any
	// Tx is the transaction scans read through; nextval goes through it
	// too (a sequence the transaction created counts inside it).
	Tx *storage.Tx
	// DB draws sequence values when there is no Tx.
	DB *storage.DB
	// Analyze, when true, makes operators count rows and time (EXPLAIN
	// ANALYZE); see AnalyzeLines.
	Analyze bool
	// ExprCache, when set, memoises deterministic one-column expressions
	// over immutable batches (shared by all sessions of an engine).
	ExprCache *ExprCache
	// Seqs are the session's sequence values (currval, lastval); nil
	// outside a session.
	Seqs *SequenceValues
	// ReadOnly marks a statement of a read-only transaction: nextval and
	// setval of a sequence outside the temporary schema are 25006 there,
	// as in PostgreSQL.
	ReadOnly bool
	// Stats are the engine's activity counters (pg_stat_user_tables);
	// nil counts nothing.
	Stats *Stats
	// Mem is the statement's memory budget (statement_mem); nil bounds
	// nothing.
	Mem *MemoryBudget
	// Xid is the ID of the statement's transaction: the xmax of the rows
	// it deletes or ON CONFLICT updates, as RETURNING shows them (0: 3,
	// PostgreSQL's first normal one).
	Xid uint32
	// Schemas, when set, are the prepared Arrow schemas of the plan's
	// nodes (PrepareSchemas), which its operators use instead of building
	// their own.
	Schemas *PlanSchemas
	// RerunOnGoneLock makes SELECT ... FOR UPDATE under READ COMMITTED
	// fail with storage.Conflict, before it has let any row through, at
	// a row that a transaction which committed after the snapshot
	// changed, so that the caller runs the statement again on a new
	// snapshot and returns the row's new version (LockRows).
	RerunOnGoneLock bool
	// Triggers runs the tables' BEFORE row triggers (trigger.go); nil
	// outside a session.
	Triggers TriggerRunner
	// Deferred are the transaction's deferred foreign key checks, which
	// the checks of deferred constraints join; nil checks every
	// constraint at once.
	Deferred *DeferredChecks
	// Depth counts the evaluations nested on the session's stack (see
	// maxEvalDepth); nil counts none.
	Depth *EvalDepth

	// scanReaders are preset readers of the scans of one partition of a
	// parallel pipeline.
	scanReaders map[*sql.Scan]array.RecordReader
	// bm25 caches prepared BM25 queries (corpus statistics) per statement.
	bm25 map[bm25Key]*functions.BM25Query
	// bm25Rows caches the text index's scored matches per statement.
	bm25Rows map[bm25Key]*textScores

	// wholeFK are the referential actions of the statement headed by
	// data-modifying WITH queries being run (RunModifyingWith).
	wholeFK *fkActions

	defaultFn  *functions.Context
	subqueries map[*sql.Subquery]*subqueryResult
	// correlated holds the results of correlated subqueries per
	// distinct outer row; outer is the outer row of the one running.
	correlated map[*sql.Subquery]map[string]*subqueryResult
	// correlatedSchemas are the schemas of the plans of correlated
	// subqueries, made at their first run for the runs after it (each
	// outer row builds the plan's operators again).
	correlatedSchemas map[*sql.Subquery]*PlanSchemas
	// existsRuns are the outer rows a correlated EXISTS with a hashed form
	// (sql.Subquery.Hashed) was run for, and the time they took
	// (hashExists).
	existsRuns map[*sql.Subquery]*correlatedRuns
	outer      []any
	// sysView is the system catalog view of the statement (catalogView).
	sysView *syscat.View
	sysOnce sync.Once
	// workTables are the rows of the previous round of each running
	// recursive union (WITH RECURSIVE), read by its WorkTableScan.
	workTables map[*sql.WorkTableScan][]arrow.Record
	// cteResults are the RETURNING rows of the data-modifying WITH
	// queries that ran (RunModifyingWith), read by their CTEScans.
	cteResults map[*sql.ModifyingCTE]*materialized
	// sharedCTEs are the rows of the WITH queries computed once for all
	// their readers (sql.SharedCTE), once the first reader ran.
	sharedCTEs map[*sql.SharedCTE][]arrow.Record
	stats      map[sql.Node]*opStats
	// inSets are the hash sets of the IN lists of constants (constSet),
	// built once a statement, not once a batch (a 100,000-item list over
	// 200,000 rows built its set 25 times).
	inSets map[*sql.InList]inSet
}

// fnCtx is the function context of the statement.
func (rt *Runtime) fnCtx() *functions.Context {
	if rt.Fn != nil {
		return rt.Fn
	}
	if rt.defaultFn == nil {
		rt.defaultFn = &functions.Context{Now: time.Now(), Location: time.UTC, Mem: memory.DefaultAllocator}
	}
	return rt.defaultFn
}

// fnIn is the statement's function context for an operator call under
// ctx: a copy whose Ctx is ctx, so that a function working long over one
// value stops when the statement is cancelled (functions.Context.Ctx).
func (rt *Runtime) fnIn(ctx context.Context) *functions.Context {
	fn := *rt.fnCtx()
	fn.Ctx = ctx
	return &fn
}

// mem is the allocator of the arrays operators build.
func (rt *Runtime) mem() memory.Allocator {
	if rt.Fn != nil && rt.Fn.Mem != nil {
		return rt.Fn.Mem
	}
	return memory.DefaultAllocator
}

// Eval evaluates e over every row of rec under ctx, the context of the
// operator call (a function working long stops when it ends). The result
// has rec.NumRows() rows and belongs to the caller, who releases it. A
// column reference returns the input column itself (retained, not
// copied).
func Eval(ctx context.Context, rt *Runtime, e sql.Expr, rec arrow.Record) (arrow.Array, error) {
	return newEvaluator(ctx, rt).evalArray(e, batchOf(rec))
}

// EvalScalar evaluates an expression that references no column (LIMIT
// counts, VALUES cells, defaults) and returns its datum.
func EvalScalar(ctx context.Context, rt *Runtime, e sql.Expr) (any, error) {
	if c, ok := e.(*sql.Const); ok {
		return c.Value, nil
	}
	ev := newEvaluator(ctx, rt)
	v, err := ev.eval(e, batch{n: 1})
	if err != nil {
		return nil, err
	}
	defer v.release()
	return v.at(0), nil
}

// paramValue is a parameter's datum as expressions read it: a []float32
// (see Runtime.Params) becomes the real[] *types.Array it stands for.
func paramValue(v any) any {
	if xs, ok := v.([]float32); ok {
		return types.NewVector(xs)
	}
	return v
}

// evaluator evaluates expressions over batches for one operator call.
type evaluator struct {
	ctx context.Context
	rt  *Runtime
	fn  *functions.Context
	mem memory.Allocator
}

func newEvaluator(ctx context.Context, rt *Runtime) *evaluator {
	if ctx == nil {
		ctx = context.Background()
	}
	return &evaluator{ctx: ctx, rt: rt, fn: rt.fnIn(ctx), mem: rt.mem()}
}

// batch is the input of an evaluation: a record, or n rows of nothing for
// expressions without column references.
type batch struct {
	rec arrow.Record
	n   int
}

func batchOf(rec arrow.Record) batch { return batch{rec: rec, n: int(rec.NumRows())} }

// vec is an evaluated expression: a column of the batch's rows, or a
// constant that stands for every row. The holder of a vec with an array
// releases it.
type vec struct {
	arr arrow.Array // nil: the constant c applies to every row
	c   any
	t   types.T
}

func constVec(c any, t types.T) vec { return vec{c: c, t: t} }

func (v vec) isConst() bool { return v.arr == nil }

// at returns row i as a datum.
func (v vec) at(i int) any {
	if v.arr == nil {
		return v.c
	}
	if v.arr.IsNull(i) {
		return nil
	}
	return valueAt(v.arr, i, v.t)
}

// isNull reports whether row i is NULL.
func (v vec) isNull(i int) bool {
	if v.arr == nil {
		return v.c == nil
	}
	return v.arr.IsNull(i)
}

func (v vec) release() {
	if v.arr != nil {
		v.arr.Release()
	}
}

func releaseVecs(vs []vec) {
	for _, v := range vs {
		v.release()
	}
}

// evalArray evaluates e and materialises the result as an array of b.n
// rows with e's Arrow type.
func (ev *evaluator) evalArray(e sql.Expr, b batch) (arrow.Array, error) {
	v, err := ev.eval(e, b)
	if err != nil {
		return nil, err
	}
	return ev.toArray(v, b.n, e.Type())
}

// toArray turns v into an array of n rows of type t, taking over v.
func (ev *evaluator) toArray(v vec, n int, t types.T) (arrow.Array, error) {
	if v.arr == nil {
		return ev.materialize(v.c, t, n)
	}
	return conformArray(ev.mem, v.arr, t)
}

// materialize builds an array repeating the datum c n times.
func (ev *evaluator) materialize(c any, t types.T, n int) (arrow.Array, error) {
	dt := t.Arrow()
	if c == nil {
		return array.MakeArrayOfNull(ev.mem, dt, n), nil
	}
	if n == 1 {
		if a, ok := scalarArray(c, dt); ok {
			return a, nil
		}
	}
	b := newBuilder(ev.mem, t)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if err := appendValue(b, c, t); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// scalarArray wraps one bigint or text datum, without a builder, as an
// array of one row of type dt (a key lookup's key, a parameter): ok is
// false for other types, which go through a builder.
func scalarArray(c any, dt arrow.DataType) (arrow.Array, bool) {
	switch dt.ID() {
	case arrow.INT64:
		x, ok := c.(int64)
		if !ok || !arrow.TypeEqual(dt, arrow.PrimitiveTypes.Int64) {
			return nil, false
		}
		return int64Array([]int64{x}), true
	case arrow.STRING:
		x, ok := c.(string)
		if !ok || !arrow.TypeEqual(dt, arrow.BinaryTypes.String) || types.CheckBatchBytes(0, len(x)) != nil {
			return nil, false
		}
		offsets := []int32{0, int32(len(x))}
		data := array.NewData(dt, 1, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes([]byte(x))}, nil, 0, 0)
		defer data.Release()
		return array.NewStringData(data), true
	}
	return nil, false
}

// int64Array wraps vals, without copying, as a bigint array without
// NULLs.
func int64Array(vals []int64) arrow.Array {
	data := array.NewData(arrow.PrimitiveTypes.Int64, len(vals), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, 0, 0)
	defer data.Release()
	return array.NewInt64Data(data)
}

// eval evaluates e over the rows of b.
func (ev *evaluator) eval(e sql.Expr, b batch) (vec, error) {
	if _, call := e.(*sql.Call); !call && ev.rt.Depth != nil {
		// A call counts in evalCallMemo, which callArgs also calls.
		if err := ev.rt.Depth.enter(); err != nil {
			return vec{}, err
		}
		defer ev.rt.Depth.leave()
	}
	switch e := e.(type) {
	case *sql.ColumnRef:
		if b.rec == nil || e.Index < 0 || e.Index >= int(b.rec.NumCols()) {
			return vec{}, pgerr.New(pgerrcode.InternalError, "column reference %s (#%d) out of range", e.Name, e.Index)
		}
		col := b.rec.Column(e.Index)
		col.Retain()
		return vec{arr: col, t: e.T}, nil
	case *sql.Const:
		return constVec(e.Value, e.T), nil
	case *sql.Param:
		if e.Index < 0 || e.Index >= len(ev.rt.Params) {
			return vec{}, pgerr.New(pgerrcode.UndefinedParameter, "there is no parameter $%d", e.Index+1)
		}
		return constVec(paramValue(ev.rt.Params[e.Index]), e.T), nil
	case *sql.Call:
		return ev.evalCall(e, b)
	case *sql.Cast:
		return ev.evalCast(e, b)
	case *sql.BoolOp:
		return ev.evalBoolOp(e, b)
	case *sql.IsNull:
		return ev.evalIsNull(e, b)
	case *sql.IsDistinct:
		return ev.evalIsDistinct(e, b)
	case *sql.Case:
		return ev.evalCase(e, b)
	case *sql.Coalesce:
		return ev.evalCoalesce(e, b)
	case *sql.DomainCheck:
		return ev.evalDomainCheck(e, b)
	case *sql.InList:
		return ev.evalInList(e, b)
	case *sql.AnyAll:
		return ev.evalAnyAll(e, b)
	case *sql.ArrayExpr:
		return ev.evalArrayExpr(e, b)
	case *sql.Subscript:
		return ev.evalSubscript(e, b)
	case *sql.RowExpr:
		return ev.evalRowExpr(e, b)
	case *sql.NextVal:
		return ev.evalNextVal(e, b)
	case *sql.SeqFunc:
		return ev.evalSeqFunc(e, b)
	case *sql.Subquery:
		return ev.evalSubquery(e, b)
	case *sql.OuterRef:
		return ev.evalOuterRef(e)
	case *sql.FieldSelect:
		return ev.evalFieldSelect(e, b)
	case *sql.BM25Score:
		return ev.evalBM25(e, b)
	case *sql.HybridRecord:
		// Selected as a value, the record is its fields.
		args := []sql.Expr{e.Embedding, e.Text}
		if e.WVec != nil {
			args = append(args, e.WVec, e.WText)
		}
		return ev.evalRowExpr(&sql.RowExpr{Args: args, T: e.Type()}, b)
	case nil:
		return vec{}, pgerr.New(pgerrcode.InternalError, "nil expression")
	}
	return vec{}, pgerr.NotSupported("expression %T", e)
}

// evalArgs evaluates each expression over b; on error nothing is left to
// release.
func (ev *evaluator) evalArgs(es []sql.Expr, b batch) ([]vec, error) {
	vs := make([]vec, 0, len(es))
	for _, e := range es {
		v, err := ev.eval(e, b)
		if err != nil {
			releaseVecs(vs)
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func (ev *evaluator) evalCall(e *sql.Call, b batch) (vec, error) {
	if e.Overload == nil {
		return vec{}, pgerr.New(pgerrcode.InternalError, "function %s has no overload", e.Name)
	}
	v, _, err := ev.evalCallMemo(e, b)
	return v, err
}

// evalCallMemo is evalCall that also reports whether the result is held
// by the ExprCache (and so stays immutable while the batch lives).
func (ev *evaluator) evalCallMemo(e *sql.Call, b batch) (vec, bool, error) {
	if d := ev.rt.Depth; d != nil {
		if err := d.enter(); err != nil {
			return vec{}, false, err
		}
		defer d.leave()
	}
	if cache := ev.rt.ExprCache; cache != nil && b.rec != nil {
		if col, ok := cacheableInput(e); ok && col.Index < int(b.rec.NumCols()) {
			input := b.rec.Column(col.Index)
			if key, ok := cacheKey(e, input); ok {
				if res := cache.get(key); res != nil {
					return vec{arr: res, t: e.T}, true, nil
				}
				v, err := ev.callArgs(e, b)
				kept := err == nil && v.arr != nil && cache.put(key, input, v.arr)
				return v, kept, err
			}
		}
	}
	v, err := ev.callArgs(e, b)
	return v, false, err
}

// callArgs evaluates the arguments of e over b and applies it, over the
// dictionary of its varying argument when that is a low-cardinality
// string column (dictionary.go).
func (ev *evaluator) callArgs(e *sql.Call, b batch) (vec, error) {
	varying, overDict := -1, false
	if ev.rt.ExprCache != nil && b.rec != nil {
		varying, overDict = dictionaryArg(e)
	}
	args := make([]vec, 0, len(e.Args))
	defer func() { releaseVecs(args) }()
	for i, a := range e.Args {
		var v vec
		var err error
		if call, ok := a.(*sql.Call); ok && i == varying {
			var kept bool
			v, kept, err = ev.evalCallMemo(call, b)
			overDict = overDict && kept
		} else {
			v, err = ev.eval(a, b)
		}
		if err != nil {
			return vec{}, err
		}
		args = append(args, v)
	}
	if overDict {
		if v, ok, err := ev.callOnDictionary(e, args, varying, b.n); ok {
			return v, err
		}
	}
	return ev.call(e.Overload, args, e.T, b.n)
}

// call applies an overload to evaluated arguments: once when they are all
// constant (and the function is not volatile), through its kernel when it
// has one, and row by row through Eval otherwise.
func (ev *evaluator) call(ov *functions.Overload, args []vec, t types.T, n int) (vec, error) {
	allConst := true
	for _, a := range args {
		if !a.isConst() {
			allConst = false
			break
		}
	}
	if allConst && ov.Volatility != functions.Volatile {
		row := make([]any, len(args))
		for i, a := range args {
			row[i] = a.c
		}
		v, err := ev.callRow(ov, row)
		if err != nil {
			return vec{}, err
		}
		return constVec(v, t), nil
	}
	if ov.Kernel != nil {
		fargs := make([]functions.Arg, len(args))
		for i, a := range args {
			fargs[i] = functions.Arg{Array: a.arr, Const: a.c, Type: a.t}
		}
		arr, err := ov.Kernel(ev.fn, fargs, n)
		if err != nil {
			return vec{}, err
		}
		if arr.Len() != n {
			arr.Release()
			return vec{}, pgerr.New(pgerrcode.InternalError, "function %s returned %d rows for %d", ov.Name, arr.Len(), n)
		}
		return vec{arr: arr, t: t}, nil
	}
	if ov.Eval == nil {
		return vec{}, pgerr.New(pgerrcode.InternalError, "function %s has no implementation", ov.Name)
	}
	bld := newBuilder(ev.mem, t)
	defer bld.Release()
	bld.Reserve(n)
	// The values built count against the statement's memory budget
	// while they are built: a function that makes large values from
	// small arguments (repeat, lpad, format, array_fill) over a batch
	// of rows would otherwise hold every row's value at once unbounded.
	acct := ev.rt.account()
	defer acct.release()
	var pending int64 // built bytes not yet counted
	row := make([]any, len(args))
	for i := 0; i < n; i++ {
		for j, a := range args {
			row[j] = a.at(i)
		}
		v, err := ev.callRow(ov, row)
		if err != nil {
			return vec{}, err
		}
		if acct.budget != nil {
			if pending += functions.DatumSize(v); pending >= callMemChunk {
				if err := acct.grow(pending); err != nil {
					return vec{}, err
				}
				pending = 0
			}
		}
		if err := appendValue(bld, v, t); err != nil {
			return vec{}, err
		}
	}
	return vec{arr: bld.NewArray(), t: t}, nil
}

// callMemChunk is how many bytes of a function's values are built before
// they are counted against the statement's memory budget: small values
// cost no accounting.
const callMemChunk = 1 << 20

// callRow calls ov.Eval on one row, honouring strictness.
func (ev *evaluator) callRow(ov *functions.Overload, row []any) (any, error) {
	if !ov.NullCall {
		for _, a := range row {
			if a == nil {
				return nil, nil
			}
		}
	}
	if ov.Eval == nil {
		return nil, pgerr.New(pgerrcode.InternalError, "function %s has no row implementation", ov.Name)
	}
	return ov.Eval(ev.fn, row)
}

// noopCast reports whether converting from to to changes nothing.
func noopCast(from, to types.T) bool {
	if from.Family != to.Family {
		return false
	}
	if to.Domain != "" && to.Domain != from.Domain {
		return false
	}
	if to.Mod >= 0 && to.Mod != from.Mod {
		return false
	}
	if from.Family == types.ArrayFamily {
		if from.Elem == nil || to.Elem == nil {
			return false
		}
		if to.Dims > 0 && from.Dims > 0 && to.Dims != from.Dims {
			return false
		}
		return noopCast(*from.Elem, *to.Elem)
	}
	return true
}

func (ev *evaluator) evalCast(e *sql.Cast, b batch) (vec, error) {
	v, err := ev.eval(e.Arg, b)
	if err != nil {
		return vec{}, err
	}
	from := e.Arg.Type()
	if noopCast(from, e.To) {
		v.t = e.To
		return v, nil
	}
	if v.isConst() {
		c, err := castValue(ev.fn, v.c, from, e.To, e.Explicit)
		if err != nil {
			return vec{}, err
		}
		return constVec(c, e.To), nil
	}
	defer v.release()
	if from.Family == types.Null || from.Family == types.Unknown && v.arr.DataType().ID() == arrow.NULL {
		return vec{arr: array.MakeArrayOfNull(ev.mem, e.To.Arrow(), b.n), t: e.To}, nil
	}
	bld := newBuilder(ev.mem, e.To)
	defer bld.Release()
	bld.Reserve(b.n)
	for i := 0; i < b.n; i++ {
		x := v.at(i)
		if x != nil {
			if x, err = castValue(ev.fn, x, from, e.To, e.Explicit); err != nil {
				return vec{}, err
			}
		}
		if err := appendValue(bld, x, e.To); err != nil {
			return vec{}, err
		}
	}
	return vec{arr: bld.NewArray(), t: e.To}, nil
}

func (ev *evaluator) evalIsNull(e *sql.IsNull, b batch) (vec, error) {
	if row, ok := e.Arg.(*sql.RowExpr); ok {
		// A row IS NULL when all its fields are, IS NOT NULL when none is.
		fields, err := ev.evalArgs(row.Args, b)
		if err != nil {
			return vec{}, err
		}
		defer releaseVecs(fields)
		out := make([]tri, b.n)
		for i := range out {
			all := true
			for _, f := range fields {
				if f.isNull(i) == e.Negate {
					all = false
					break
				}
			}
			out[i] = triOf(all)
		}
		return ev.triVec(out, fields), nil
	}
	v, err := ev.eval(e.Arg, b)
	if err != nil {
		return vec{}, err
	}
	defer v.release()
	if e.Arg.Type().Family == types.Record {
		// Any other record (a whole-row reference, a composite value)
		// likewise by its fields; a NULL record has only NULL fields.
		vals := make([]bool, b.n)
		for i := range vals {
			all := true
			if fields, ok := v.at(i).([]any); ok {
				for _, f := range fields {
					if (f == nil) == e.Negate {
						all = false
						break
					}
				}
			} else {
				all = !e.Negate
			}
			vals[i] = all
		}
		return vec{arr: boolArray(ev.mem, vals, nil), t: types.BoolT}, nil
	}
	if v.isConst() {
		return constVec((v.c == nil) != e.Negate, types.BoolT), nil
	}
	vals := make([]bool, b.n)
	for i := range vals {
		vals[i] = v.arr.IsNull(i) != e.Negate
	}
	return vec{arr: boolArray(ev.mem, vals, nil), t: types.BoolT}, nil
}

func (ev *evaluator) evalIsDistinct(e *sql.IsDistinct, b batch) (vec, error) {
	l, err := ev.eval(e.Left, b)
	if err != nil {
		return vec{}, err
	}
	defer l.release()
	r, err := ev.eval(e.Right, b)
	if err != nil {
		return vec{}, err
	}
	defer r.release()
	var eq vec
	if e.Equal != nil {
		if eq, err = ev.call(e.Equal, []vec{l, r}, types.BoolT, b.n); err != nil {
			return vec{}, err
		}
	} else {
		eq, err = ev.compareEqual(l, r, b.n)
		if err != nil {
			return vec{}, err
		}
	}
	defer eq.release()
	distinct := func(i int) bool {
		ln, rn := l.isNull(i), r.isNull(i)
		if ln || rn {
			return ln != rn
		}
		return triAt(eq, i) != triTrue
	}
	if l.isConst() && r.isConst() {
		return constVec(distinct(0) != e.Negate, types.BoolT), nil
	}
	vals := make([]bool, b.n)
	for i := range vals {
		vals[i] = distinct(i) != e.Negate
	}
	return vec{arr: boolArray(ev.mem, vals, nil), t: types.BoolT}, nil
}

// compareEqual compares two vecs of the same type with types.Compare (for
// nodes the binder left without an "=" overload).
func (ev *evaluator) compareEqual(l, r vec, n int) (vec, error) {
	if l.isConst() && r.isConst() {
		if l.c == nil || r.c == nil {
			return constVec(nil, types.BoolT), nil
		}
		return constVec(compareValues(l.c, r.c, l.t) == 0, types.BoolT), nil
	}
	out := make([]tri, n)
	for i := range out {
		a, b := l.at(i), r.at(i)
		if a == nil || b == nil {
			out[i] = triNull
			continue
		}
		out[i] = triOf(compareValues(a, b, l.t) == 0)
	}
	return vec{arr: triArray(ev.mem, out), t: types.BoolT}, nil
}

// checkCtx returns the context's error, if any.
func (ev *evaluator) checkCtx() error {
	if ev.ctx != nil {
		return ev.ctx.Err()
	}
	return nil
}

// internalErr is an XX000 error for states the binder should have ruled
// out.
func internalErr(format string, args ...any) error {
	return pgerr.New(pgerrcode.InternalError, "%s", fmt.Sprintf(format, args...))
}
