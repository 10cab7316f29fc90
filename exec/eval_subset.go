package exec

// Lazy evaluation over a subset of a batch's rows (the right side of AND/OR,
// CASE arms, COALESCE arguments), and conversion of evaluated arrays to the
// Arrow type a column must have.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// evalRows evaluates e for the given rows of b (ascending). When full is
// true the result covers all of b's rows (row r of b is row r of the vec):
// that happens when rows is all of them, or when e cannot fail and it is
// cheaper to evaluate it everywhere. Otherwise row j of the result is row
// rows[j] of b.
func (ev *evaluator) evalRows(e sql.Expr, b batch, rows []int) (v vec, full bool, err error) {
	if len(rows) == b.n || safeExpr(e) {
		v, err = ev.eval(e, b)
		return v, true, err
	}
	sub, err := ev.subBatch(b, rows, e)
	if err != nil {
		return vec{}, false, err
	}
	if sub.rec != nil {
		defer sub.rec.Release()
	}
	v, err = ev.eval(e, sub)
	return v, false, err
}

// subBatch copies the given rows of the columns exprs reference; the other
// columns become NULL-typed placeholders so that positions stay valid.
func (ev *evaluator) subBatch(b batch, rows []int, exprs ...sql.Expr) (batch, error) {
	if b.rec == nil {
		return batch{n: len(rows)}, nil
	}
	used := make([]bool, b.rec.NumCols())
	for _, e := range exprs {
		// Every expression over the batch's rows counts, a correlated
		// subquery's outer references included.
		sql.WalkExpr(e, func(x sql.Expr) {
			if c, ok := x.(*sql.ColumnRef); ok && c.Index >= 0 && c.Index < len(used) {
				used[c.Index] = true
			}
		})
	}
	fields := make([]arrow.Field, len(used))
	cols := make([]arrow.Array, len(used))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range used {
		f := b.rec.Schema().Field(i)
		if !used[i] {
			fields[i] = arrow.Field{Name: f.Name, Type: arrow.Null, Nullable: true}
			cols[i] = array.NewNull(len(rows))
			continue
		}
		fields[i] = f
		c, err := rowcopy.Take(ev.mem, b.rec.Column(i), rows)
		if err != nil {
			return batch{}, err
		}
		cols[i] = c
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	return batch{rec: rec, n: len(rows)}, nil
}

// comparisonOps cannot fail on valid operands.
var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// safeExpr reports whether evaluating e can neither fail nor have an
// effect, so that it may be evaluated on rows that do not need it.
func safeExpr(e sql.Expr) bool {
	switch e := e.(type) {
	case *sql.ColumnRef, *sql.Const, *sql.Param:
		return true
	case *sql.IsNull:
		return safeExpr(e.Arg)
	case *sql.BoolOp:
		for _, a := range e.Args {
			if !safeExpr(a) {
				return false
			}
		}
		return true
	case *sql.Call:
		if !e.Infix || !comparisonOps[e.Name] || e.Overload == nil || e.Overload.Volatility == functions.Volatile {
			return false
		}
		for _, a := range e.Args {
			if !safeExpr(a) {
				return false
			}
		}
		return true
	}
	return false
}

// conformArray returns arr with the Arrow type of t, taking over arr. Types
// that differ only in names, nullability flags or time zone labels are
// relabelled without copying.
func conformArray(mem memory.Allocator, arr arrow.Array, t types.T) (arrow.Array, error) {
	return conformToType(mem, arr, t.Arrow())
}

func conformToType(mem memory.Allocator, arr arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dt) {
		return arr, nil
	}
	defer arr.Release()
	if arr.DataType().ID() == arrow.NULL || arr.NullN() == arr.Len() {
		return array.MakeArrayOfNull(mem, dt, arr.Len()), nil
	}
	d, ok := relabel(arr.Data(), dt)
	if !ok {
		return nil, internalErr("cannot use a %v column as %v", arr.DataType(), dt)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// relabel returns d with data type dt when both have the same physical
// layout; the caller releases the result.
func relabel(d arrow.ArrayData, dt arrow.DataType) (arrow.ArrayData, bool) {
	if d.DataType().ID() != dt.ID() {
		return nil, false
	}
	var children []arrow.ArrayData
	switch t := dt.(type) {
	case *arrow.ListType:
		c, ok := relabel(d.Children()[0], t.Elem())
		if !ok {
			return nil, false
		}
		defer c.Release()
		children = []arrow.ArrayData{c}
	case *arrow.FixedSizeBinaryType:
		if d.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != t.ByteWidth {
			return nil, false
		}
	case *arrow.TimestampType:
		if d.DataType().(*arrow.TimestampType).Unit != t.Unit {
			return nil, false
		}
	case *arrow.Time64Type:
		if d.DataType().(*arrow.Time64Type).Unit != t.Unit {
			return nil, false
		}
	default:
		if len(d.Children()) > 0 {
			return nil, false
		}
	}
	return array.NewData(dt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset()), true
}
