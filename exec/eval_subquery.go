package exec

import (
	"errors"
	"io"

	"github.com/apache/arrow/go/v17/arrow/array"
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
}

func (ev *evaluator) evalNextVal(e *sql.NextVal, b batch) (vec, error) {
	if ev.rt.DB == nil {
		return vec{}, internalErr("nextval without a database")
	}
	bld := array.NewInt64Builder(ev.mem)
	defer bld.Release()
	bld.Reserve(b.n)
	for i := 0; i < b.n; i++ {
		v, err := nextVal(ev.rt.DB, e.Schema, e.Name)
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

// runSubquery runs a subquery's plan once per Runtime.
func (ev *evaluator) runSubquery(e *sql.Subquery) (*subqueryResult, error) {
	if r, ok := ev.rt.subqueries[e]; ok {
		return r, nil
	}
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
		col := rec.Column(0)
		for i := 0; i < n; i++ {
			var v any
			if !col.IsNull(i) {
				v = valueAt(col, i, colT)
			}
			vals = append(vals, v)
			if e.Kind == sql.ScalarSubquery && len(vals) > 1 {
				return nil, pgerr.New(pgerrcode.CardinalityViolation, "more than one row returned by a subquery used as an expression")
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
		if e.T.Family == types.Array && e.T.Elem != nil {
			elemT = *e.T.Elem
		}
		a, err := buildArray(elemT, vals, colT.Family == types.Array)
		if err != nil {
			return nil, err
		}
		res.array = a
	case sql.InSubquery:
		res.values = vals
		leftT := colT
		if e.Left != nil {
			leftT = e.Left.Type()
		}
		if hashCompatible(colT, leftT) && (e.Equal == nil || e.Equal.Name == "=") {
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
	if ev.rt.subqueries == nil {
		ev.rt.subqueries = map[*sql.Subquery]*subqueryResult{}
	}
	ev.rt.subqueries[e] = res
	return res, nil
}

func (ev *evaluator) evalSubquery(e *sql.Subquery, b batch) (vec, error) {
	res, err := ev.runSubquery(e)
	if err != nil {
		return vec{}, err
	}
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
		left, err := ev.eval(e.Left, b)
		if err != nil {
			return vec{}, err
		}
		defer left.release()
		var out vec
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
			if out, err = ev.orEach(left, items, e.Equal, false, b); err != nil {
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
