package exec

import (
	"errors"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// subqueryResult is what an uncorrelated subquery produced, kept for the
// rest of the statement.
type subqueryResult struct {
	scalar any
	exists bool
	array  *types.Array
	// values are the rows of an IN subquery (first column); set indexes
	// them when their type hashes consistently with the "=" used.
	values  []any
	hasNull bool
	set     *valueSet
	// tuples are the rows of a multi-column IN subquery: keys holds those
	// without NULLs, nullRows the others.
	tuples *tupleSet
}

// tupleSet holds the rows of "(a, b) IN (SELECT x, y ...)".
type tupleSet struct {
	types    []types.T
	keys     map[string]struct{}
	nullRows [][]any
	all      [][]any
}

func (ev *evaluator) evalNextVal(e *sql.NextVal, b batch) (vec, error) {
	bld := array.NewInt64Builder(ev.mem)
	defer bld.Release()
	bld.Reserve(b.n)
	for i := 0; i < b.n; i++ {
		v, err := nextVal(ev.rt, e.Schema, e.Name)
		if err != nil {
			return vec{}, err
		}
		bld.UnsafeAppend(v)
	}
	if b.rec == nil && b.n == 1 {
		arr := bld.NewInt64Array()
		defer arr.Release()
		return constVec(arr.Value(0), types.Int8T), nil
	}
	return vec{arr: bld.NewArray(), t: types.Int8T}, nil
}

// runSubquery runs an uncorrelated subquery's plan once per Runtime.
func (ev *evaluator) runSubquery(e *sql.Subquery) (*subqueryResult, error) {
	if r, ok := ev.rt.subqueries[e]; ok {
		return r, nil
	}
	// The rows it keeps stay for the rest of the statement: counted in its
	// budget (a hashed EXISTS or an IN over a large table gathers all of
	// them).
	acct := ev.rt.account()
	res, err := ev.computeSubquery(e, &acct)
	if err != nil {
		acct.release()
		return nil, err
	}
	if ev.rt.subqueries == nil {
		ev.rt.subqueries = map[*sql.Subquery]*subqueryResult{}
	}
	ev.rt.subqueries[e] = res
	return res, nil
}

// maxCorrelatedMemo bounds the results a correlated subquery keeps per
// statement, one per distinct outer row.
const maxCorrelatedMemo = 4096

// runCorrelated runs a correlated subquery's plan for the outer values
// args (its OuterRefs read them), remembering the result per distinct
// values for the rest of the statement.
func (ev *evaluator) runCorrelated(e *sql.Subquery, args []any) (*subqueryResult, error) {
	var key []byte
	for i, a := range args {
		key = appendDatumKey(key, a, e.Args[i].Type())
	}
	memo := ev.rt.correlated[e]
	if r, ok := memo[string(key)]; ok {
		return r, nil
	}
	ps := ev.rt.correlatedSchemas[e]
	if ps == nil {
		if ev.rt.correlatedSchemas == nil {
			ev.rt.correlatedSchemas = map[*sql.Subquery]*PlanSchemas{}
		}
		ps = PrepareSchemas(e.Plan)
		ev.rt.correlatedSchemas[e] = ps
	}
	saved, savedSchemas := ev.rt.outer, ev.rt.Schemas
	ev.rt.outer, ev.rt.Schemas = args, ps
	res, err := ev.computeSubquery(e, nil)
	ev.rt.outer, ev.rt.Schemas = saved, savedSchemas
	if err != nil {
		return nil, err
	}
	if memo == nil {
		if ev.rt.correlated == nil {
			ev.rt.correlated = map[*sql.Subquery]map[string]*subqueryResult{}
		}
		memo = map[string]*subqueryResult{}
		ev.rt.correlated[e] = memo
	}
	if len(memo) < maxCorrelatedMemo {
		memo[string(key)] = res
	}
	return res, nil
}

// evalOuterRef reads a value of the outer row of the correlated subquery
// being run.
func (ev *evaluator) evalOuterRef(e *sql.OuterRef) (vec, error) {
	if e.Slot >= len(ev.rt.outer) {
		return vec{}, internalErr("outer reference %s outside its subquery", e.Name)
	}
	return constVec(ev.rt.outer[e.Slot], e.T), nil
}

// computeSubquery runs a subquery's plan and collects what its kind
// needs, counting the values it keeps in acct when acct is not nil.
func (ev *evaluator) computeSubquery(e *sql.Subquery, acct *memAccount) (*subqueryResult, error) {
	op, err := Build(ev.rt, e.Plan)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	cols := e.Plan.Columns()
	var colT types.T
	if len(cols) > 0 {
		colT = cols[0].T
	}
	res := &subqueryResult{}
	var vals []any
	for {
		if err := ev.checkCtx(); err != nil {
			return nil, err
		}
		rec, err := op.Next(ev.ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		if e.Kind == sql.ExistsSubquery {
			res.exists = true
			break
		}
		if len(cols) == 0 {
			return nil, internalErr("subquery returns no columns")
		}
		if e.Kind == sql.InSubquery && len(cols) > 1 {
			if res.tuples == nil {
				res.tuples = &tupleSet{keys: map[string]struct{}{}}
				for _, c := range cols {
					res.tuples.types = append(res.tuples.types, c.T)
				}
			}
			res.tuples.add(rec)
			if acct != nil {
				if err := acct.growRecord(rec, memMapEntry); err != nil {
					return nil, err
				}
			}
			continue
		}
		col := rec.Column(0)
		var size int64
		for i := 0; i < n; i++ {
			var v any
			if !col.IsNull(i) {
				v = valueAt(col, i, colT)
			}
			vals = append(vals, v)
			size += functions.DatumSize(v) + memMapEntry // and its key in an IN's set
			if e.Kind == sql.ScalarSubquery && len(vals) > 1 {
				return nil, pgerr.New(pgerrcode.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
		}
		if acct != nil {
			if err := acct.grow(size); err != nil {
				return nil, err
			}
		}
	}
	switch e.Kind {
	case sql.ScalarSubquery:
		if len(vals) == 1 {
			res.scalar = vals[0]
		}
	case sql.ArraySubquery:
		elemT := colT
		if e.T.Family == types.ArrayFamily && e.T.Elem != nil {
			elemT = *e.T.Elem
		}
		var a *types.Array
		var err error
		if colT.Family == types.ArrayFamily {
			a, err = functions.AccumulateArrays(elemT, vals)
		} else {
			a, err = buildArray(elemT, vals, false)
		}
		if err != nil {
			return nil, err
		}
		res.array = a
	case sql.InSubquery:
		if len(cols) > 1 {
			if res.tuples == nil {
				res.tuples = &tupleSet{}
			}
			break
		}
		res.values = vals
		leftT := colT
		if e.Left != nil {
			leftT = e.Left.Type()
		}
		if hashCompatible(colT, leftT) && (e.Equal == nil || e.Equal.Name == "=") && !e.All {
			set := &valueSet{keys: make(map[string]struct{}, len(vals)), empty: len(vals) == 0}
			for _, v := range vals {
				if v == nil {
					set.hasNull = true
					continue
				}
				set.keys[string(appendDatumKey(nil, v, colT))] = struct{}{}
			}
			res.set = set
		}
		for _, v := range vals {
			if v == nil {
				res.hasNull = true
			}
		}
	}
	return res, nil
}

func (ev *evaluator) evalSubquery(e *sql.Subquery, b batch) (vec, error) {
	if len(e.Args) > 0 {
		if e.Hashed == nil {
			return ev.evalCorrelated(e, b)
		}
		return ev.evalExists(e, b)
	}
	res, err := ev.runSubquery(e)
	if err != nil {
		return vec{}, err
	}
	return ev.subqueryValue(e, res, b)
}

// correlatedRuns are the outer rows a correlated EXISTS was run for and
// the time they took.
type correlatedRuns struct {
	rows  int
	spent time.Duration
	// tooLarge is set once the hashed form ran out of the statement's
	// memory: the EXISTS stays per row.
	tooLarge bool
}

// Thresholds of hash: a correlated EXISTS switches to its hashed form
// once its runs took existsSlowRun each on average (over at least
// existsSlowRuns rows: the plan reads the inner table for each row, as
// the hashed form reads it once), or once it ran for existsHashRows
// rows. A plan that finds each row's match by an index stays per row
// until then: for a few outer rows it beats reading a large inner table
// whole, which is all the hashed form can do (no row counts tell the two
// apart here).
const (
	existsSlowRun  = time.Millisecond
	existsSlowRuns = 3
	existsHashRows = 10000
)

// hash reports whether the EXISTS these runs are of should use its hashed
// form from now on.
func (r *correlatedRuns) hash() bool {
	return !r.tooLarge && r.rows >= existsHashRows || r.rows >= existsSlowRuns && r.spent >= time.Duration(r.rows)*existsSlowRun
}

// existsRuns returns the runs of the correlated EXISTS e so far.
func (ev *evaluator) existsRuns(e *sql.Subquery) *correlatedRuns {
	r := ev.rt.existsRuns[e]
	if r == nil {
		if ev.rt.existsRuns == nil {
			ev.rt.existsRuns = map[*sql.Subquery]*correlatedRuns{}
		}
		r = &correlatedRuns{}
		ev.rt.existsRuns[e] = r
	}
	return r
}

// existsStep is how many outer rows a correlated EXISTS with a hashed
// form runs its plan for between two looks at whether to switch (hash):
// a plan that reads the inner table whole takes milliseconds a row.
const existsStep = 8

// evalExists evaluates a correlated EXISTS with a hashed form over b: row
// by row (evalCorrelated), a few rows at a time, until its runs show that
// the hashed form is the cheaper (hash), then hashed.
func (ev *evaluator) evalExists(e *sql.Subquery, b batch) (vec, error) {
	runs := ev.existsRuns(e)
	out := make([]tri, 0, b.n)
	for i := 0; i < b.n; {
		j := min(b.n, i+existsStep)
		if runs.hash() {
			j = b.n
		}
		part := batch{rec: b.rec, n: j - i}
		if b.rec != nil && part.n < b.n {
			part.rec = b.rec.NewSlice(int64(i), int64(j))
		}
		v, err := ev.existsPart(e, runs, part)
		if part.rec != b.rec {
			part.rec.Release()
		}
		if err != nil {
			return vec{}, err
		}
		for k := range part.n {
			out = append(out, triAt(v, k))
		}
		v.release()
		i = j
	}
	return vec{arr: triArray(ev.mem, out), t: types.BoolT}, nil
}

// existsPart evaluates the correlated EXISTS e over b, hashed when its runs
// say so, per row otherwise (counted in runs); an inner query whose keys
// do not fit in the statement's memory (53200) stays per row.
func (ev *evaluator) existsPart(e *sql.Subquery, runs *correlatedRuns, b batch) (vec, error) {
	if runs.hash() {
		v, err := ev.evalExistsHashed(e, b)
		if pgerr.Code(err) != pgerrcode.OutOfMemory {
			return v, err
		}
		runs.tooLarge = true
	}
	start := time.Now()
	v, err := ev.evalCorrelated(e, b)
	runs.rows, runs.spent = runs.rows+b.n, runs.spent+time.Since(start)
	return v, err
}

// evalExistsHashed evaluates the correlated EXISTS e through its hashed
// form, an uncorrelated IN run once: its NULL (no match, a NULL key) is
// EXISTS's false.
func (ev *evaluator) evalExistsHashed(e *sql.Subquery, b batch) (vec, error) {
	res, err := ev.runSubquery(e.Hashed)
	if err != nil {
		return vec{}, err
	}
	in, err := ev.subqueryValue(e.Hashed, res, b)
	if err != nil {
		return vec{}, err
	}
	defer in.release()
	return ev.mapTri(in, b.n, func(t tri) tri { return triOf((t == triTrue) != e.Negate) }), nil
}

// evalCorrelated evaluates a correlated subquery row by row: its plan runs
// for each distinct outer row, and the row's value is computed from that
// run's result as for an uncorrelated subquery over a one-row batch.
func (ev *evaluator) evalCorrelated(e *sql.Subquery, b batch) (vec, error) {
	args, err := ev.evalArgs(e.Args, b)
	if err != nil {
		return vec{}, err
	}
	defer releaseVecs(args)
	bld := newBuilder(ev.mem, e.T)
	defer bld.Release()
	vals := make([]any, len(args))
	for i := 0; i < b.n; i++ {
		if err := ev.checkCtx(); err != nil {
			return vec{}, err
		}
		for k, a := range args {
			vals[k] = a.at(i)
		}
		res, err := ev.runCorrelated(e, slices.Clone(vals))
		if err != nil {
			return vec{}, err
		}
		row := batch{n: 1}
		if b.rec != nil {
			row.rec = b.rec.NewSlice(int64(i), int64(i+1))
		}
		v, err := ev.subqueryValue(e, res, row)
		if row.rec != nil {
			row.rec.Release()
		}
		if err != nil {
			return vec{}, err
		}
		d := v.at(0)
		v.release()
		if err := appendValue(bld, d, e.T); err != nil {
			return vec{}, err
		}
	}
	return vec{arr: bld.NewArray(), t: e.T}, nil
}

// subqueryValue is the value of a subquery over the rows of b, given the
// result of its plan.
func (ev *evaluator) subqueryValue(e *sql.Subquery, res *subqueryResult, b batch) (vec, error) {
	var err error
	switch e.Kind {
	case sql.ScalarSubquery:
		return constVec(res.scalar, e.T), nil
	case sql.ExistsSubquery:
		return constVec(res.exists != e.Negate, types.BoolT), nil
	case sql.ArraySubquery:
		return constVec(res.array, e.T), nil
	case sql.InSubquery:
		if e.Left == nil {
			return vec{}, internalErr("IN subquery without a left operand")
		}
		var out vec
		if res.tuples != nil {
			if out, err = ev.inTuples(e.Left, res.tuples, b); err != nil {
				return vec{}, err
			}
			if !e.Negate {
				return out, nil
			}
			defer out.release()
			return ev.mapTri(out, b.n, triNot), nil
		}
		left, err := ev.eval(e.Left, b)
		if err != nil {
			return vec{}, err
		}
		defer left.release()
		if res.set != nil {
			out = ev.probeSet(left, res.set, b.n)
		} else {
			colT := types.UnknownT
			if cols := e.Plan.Columns(); len(cols) > 0 {
				colT = cols[0].T
			}
			items := make([]sql.Expr, len(res.values))
			for i, v := range res.values {
				items[i] = &sql.Const{Value: v, T: colT}
			}
			if out, err = ev.orEach(left, items, e.Equal, e.All, b); err != nil {
				return vec{}, err
			}
		}
		if !e.Negate {
			return out, nil
		}
		defer out.release()
		return ev.mapTri(out, b.n, triNot), nil
	}
	return vec{}, internalErr("unknown subquery kind %d", e.Kind)
}

// add records the rows of rec.
func (ts *tupleSet) add(rec arrow.Record) {
	var key []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		r := make([]any, len(ts.types))
		null := false
		key = key[:0]
		for c := range r {
			col := rec.Column(c)
			if col.IsNull(i) {
				null = true
				continue
			}
			r[c] = valueAt(col, i, ts.types[c])
			key = appendDatumKey(key, r[c], ts.types[c])
		}
		ts.all = append(ts.all, r)
		if null {
			ts.nullRows = append(ts.nullRows, r)
		} else {
			ts.keys[string(key)] = struct{}{}
		}
	}
}

// match compares a probe row with a subquery row: true when all fields
// are equal, false when one differs, NULL otherwise.
func (ts *tupleSet) match(p, r []any) tri {
	res := triTrue
	for c := range p {
		if p[c] == nil || r[c] == nil {
			res = triNull
			continue
		}
		a := appendDatumKey(nil, p[c], ts.types[c])
		b := appendDatumKey(nil, r[c], ts.types[c])
		if string(a) != string(b) {
			return triFalse
		}
	}
	return res
}

// lookup is "p IN (rows)".
func (ts *tupleSet) lookup(p []any) tri {
	if len(ts.all) == 0 {
		return triFalse
	}
	candidates := ts.all
	if !slices.Contains(p, nil) {
		var key []byte
		for c, v := range p {
			key = appendDatumKey(key, v, ts.types[c])
		}
		if _, ok := ts.keys[string(key)]; ok {
			return triTrue
		}
		candidates = ts.nullRows
	}
	res := triFalse
	for _, r := range candidates {
		switch ts.match(p, r) {
		case triTrue:
			return triTrue
		case triNull:
			res = triNull
		}
	}
	return res
}

// inTuples is "(a, b, ...) IN (SELECT x, y, ...)".
func (ev *evaluator) inTuples(left sql.Expr, ts *tupleSet, b batch) (vec, error) {
	var fields []sql.Expr
	if r, ok := left.(*sql.RowExpr); ok {
		fields = r.Args
	} else {
		fields = []sql.Expr{left}
	}
	if len(fields) != len(ts.types) && len(ts.all) > 0 {
		return vec{}, pgerr.New(pgerrcode.SyntaxError, "subquery has too many columns")
	}
	vals, err := ev.evalArgs(fields, b)
	if err != nil {
		return vec{}, err
	}
	defer releaseVecs(vals)
	out := make([]tri, b.n)
	p := make([]any, len(vals))
	for i := range out {
		for c, v := range vals {
			p[c] = v.at(i)
		}
		out[i] = ts.lookup(p)
	}
	return ev.triVec(out, vals), nil
}
