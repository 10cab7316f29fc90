package exec

import (
	"math"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// rowLoop evaluates f for each row of the argument vecs: once when all
// are constant, otherwise row by row into a column of type t.
func (ev *evaluator) rowLoop(args []vec, t types.T, n int, f func(row []any) (any, error)) (vec, error) {
	row := make([]any, len(args))
	allConst := true
	for _, a := range args {
		if !a.isConst() {
			allConst = false
			break
		}
	}
	if allConst {
		for j, a := range args {
			row[j] = a.c
		}
		v, err := f(row)
		if err != nil {
			return vec{}, err
		}
		return constVec(v, t), nil
	}
	bld := newBuilder(ev.mem, t)
	defer bld.Release()
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		for j, a := range args {
			row[j] = a.at(i)
		}
		v, err := f(row)
		if err != nil {
			return vec{}, err
		}
		if err := appendValue(bld, v, t); err != nil {
			return vec{}, err
		}
	}
	return vec{arr: bld.NewArray(), t: t}, nil
}

func (ev *evaluator) evalArrayExpr(e *sql.ArrayExpr, b batch) (vec, error) {
	elems, err := ev.evalArgs(e.Elems, b)
	if err != nil {
		return vec{}, err
	}
	defer releaseVecs(elems)
	elemT := types.UnknownT
	if e.T.Elem != nil {
		elemT = *e.T.Elem
	}
	nested := len(e.Elems) > 0 && e.Elems[0].Type().Family == types.ArrayFamily
	return ev.rowLoop(elems, e.T, b.n, func(row []any) (any, error) {
		return buildArray(elemT, row, nested)
	})
}

// buildArray is ARRAY[...] over one row's element values; nested elements
// (ARRAY[ARRAY[...], ...]) make a multi-dimensional array.
func buildArray(elemT types.T, vals []any, nested bool) (*types.Array, error) {
	if !nested {
		elems := make([]any, len(vals))
		copy(elems, vals)
		a := &types.Array{Elem: elemT, Elems: elems}
		if len(vals) > 0 {
			a.Dims = []int{len(vals)}
		}
		return a, nil
	}
	var (
		sub   []int
		elems []any
		count int
		first = true
	)
	mismatch := func() error {
		return pgerr.New(pgerrcode.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
	}
	for _, v := range vals {
		if v == nil {
			continue // PostgreSQL ignores NULL sub-arrays
		}
		a, ok := v.(*types.Array)
		if !ok {
			return nil, internalErr("ARRAY element is %T, not an array", v)
		}
		if first {
			sub, first = a.Dims, false
		} else if !sameDims(sub, a.Dims) {
			return nil, mismatch()
		}
		elems = append(elems, a.Elems...)
		count++
	}
	if count == 0 || len(sub) == 0 {
		return &types.Array{Elem: elemT}, nil
	}
	dims := append([]int{count}, sub...)
	return &types.Array{Elem: elemT, Dims: dims, Elems: elems}, nil
}

func sameDims(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (ev *evaluator) evalSubscript(e *sql.Subscript, b batch) (vec, error) {
	exprs := []sql.Expr{e.Arg}
	for _, ix := range e.Indexes {
		exprs = append(exprs, ix.Lower, ix.Upper)
	}
	args := make([]vec, 0, len(exprs))
	defer func() { releaseVecs(args) }()
	for _, x := range exprs {
		if x == nil {
			args = append(args, constVec(nil, types.Int4T))
			continue
		}
		v, err := ev.eval(x, b)
		if err != nil {
			return vec{}, err
		}
		args = append(args, v)
	}
	slice := false
	for _, ix := range e.Indexes {
		if ix.Slice {
			slice = true
		}
	}
	return ev.rowLoop(args, e.T, b.n, func(row []any) (any, error) {
		if row[0] == nil {
			return nil, nil
		}
		a, ok := row[0].(*types.Array)
		if !ok {
			return nil, internalErr("cannot subscript a %T value", row[0])
		}
		lower := make([]any, len(e.Indexes))
		upper := make([]any, len(e.Indexes))
		for k := range e.Indexes {
			lower[k], upper[k] = row[1+2*k], row[2+2*k]
		}
		if slice {
			return arraySlice(a, e.Indexes, lower, upper)
		}
		return arrayElement(a, lower)
	})
}

// subscriptInt converts a subscript datum to an int; ok is false for NULL.
func subscriptInt(v any) (int, bool, error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case float64:
		return int(math.Round(x)), true, nil
	}
	if i, ok := toInt64(v); ok {
		if i > math.MaxInt32 || i < math.MinInt32 {
			return 0, false, pgerr.New(pgerrcode.NumericValueOutOfRange, "integer out of range")
		}
		return int(i), true, nil
	}
	return 0, false, pgerr.New(pgerrcode.DatatypeMismatch, "array subscript must have type integer")
}

// arrayElement is a[i][j]...: NULL when out of range or when the number of
// subscripts is not the number of dimensions.
func arrayElement(a *types.Array, idx []any) (any, error) {
	if len(idx) != len(a.Dims) {
		for _, x := range idx {
			if _, _, err := subscriptInt(x); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	off := 0
	for k, x := range idx {
		i, ok, err := subscriptInt(x)
		if err != nil || !ok {
			return nil, err
		}
		if i < 1 || i > a.Dims[k] {
			return nil, nil
		}
		off = off*a.Dims[k] + (i - 1)
	}
	return a.Elems[off], nil
}

// arraySlice is a[lo:hi][...]: every dimension is a slice (a plain i means
// 1:i), bounds are clamped, and an empty range gives an empty array.
func arraySlice(a *types.Array, ixs []sql.SubscriptIndex, lower, upper []any) (any, error) {
	empty := &types.Array{Elem: a.Elem}
	lo := make([]int, len(a.Dims))
	hi := make([]int, len(a.Dims))
	for k := range a.Dims {
		lo[k], hi[k] = 1, a.Dims[k]
	}
	for k, ix := range ixs {
		var l, u any
		if ix.Slice {
			l, u = lower[k], upper[k]
		} else {
			l, u = int64(1), lower[k]
		}
		var li, ui int
		if ix.Slice && ix.Lower == nil {
			li = 1
		} else {
			v, ok, err := subscriptInt(l)
			if err != nil || !ok {
				return nil, err
			}
			li = v
		}
		if ix.Slice && ix.Upper == nil {
			ui = math.MaxInt32
		} else {
			v, ok, err := subscriptInt(u)
			if err != nil || !ok {
				return nil, err
			}
			ui = v
		}
		if k >= len(a.Dims) {
			continue
		}
		lo[k] = max(li, 1)
		hi[k] = min(ui, a.Dims[k])
	}
	if len(ixs) > len(a.Dims) || len(a.Dims) == 0 {
		return empty, nil
	}
	dims := make([]int, len(a.Dims))
	for k := range dims {
		if lo[k] > hi[k] {
			return empty, nil
		}
		dims[k] = hi[k] - lo[k] + 1
	}
	// Walk the selected box in row-major order.
	out := &types.Array{Elem: a.Elem, Dims: dims}
	pos := make([]int, len(dims))
	copy(pos, lo)
	for {
		off := 0
		for k := range pos {
			off = off*a.Dims[k] + (pos[k] - 1)
		}
		out.Elems = append(out.Elems, a.Elems[off])
		k := len(pos) - 1
		for k >= 0 {
			pos[k]++
			if pos[k] <= hi[k] {
				break
			}
			pos[k] = lo[k]
			k--
		}
		if k < 0 {
			break
		}
	}
	return out, nil
}

func (ev *evaluator) evalRowExpr(e *sql.RowExpr, b batch) (vec, error) {
	fields, err := ev.evalArgs(e.Args, b)
	if err != nil {
		return vec{}, err
	}
	defer releaseVecs(fields)
	return ev.rowLoop(fields, e.T, b.n, func(row []any) (any, error) {
		out := make([]any, len(row))
		copy(out, row)
		return out, nil
	})
}

// evalFieldSelect is (record).field. A record read back from a column
// holds its fields as text (the record's text form); they are converted
// to the field's type.
func (ev *evaluator) evalFieldSelect(e *sql.FieldSelect, b batch) (vec, error) {
	arg, err := ev.eval(e.Arg, b)
	if err != nil {
		return vec{}, err
	}
	defer arg.release()
	return ev.rowLoop([]vec{arg}, e.T, b.n, func(row []any) (any, error) {
		rec, ok := row[0].([]any)
		if !ok || e.Index >= len(rec) || rec[e.Index] == nil {
			return nil, nil
		}
		v := rec[e.Index]
		if s, isText := v.(string); isText && !e.T.IsString() {
			return types.ParseText(s, e.T)
		}
		return v, nil
	})
}
