package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// tri is a value of SQL's three-valued logic.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triNull
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// triDatum converts a boolean datum (or NULL) to a tri.
func triDatum(v any) tri {
	switch v := v.(type) {
	case bool:
		return triOf(v)
	case nil:
		return triNull
	}
	return triNull
}

func (t tri) datum() any {
	switch t {
	case triTrue:
		return true
	case triFalse:
		return false
	}
	return nil
}

func triAnd(a, b tri) tri {
	if a == triFalse || b == triFalse {
		return triFalse
	}
	if a == triNull || b == triNull {
		return triNull
	}
	return triTrue
}

func triOr(a, b tri) tri {
	if a == triTrue || b == triTrue {
		return triTrue
	}
	if a == triNull || b == triNull {
		return triNull
	}
	return triFalse
}

func triNot(a tri) tri {
	switch a {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triNull
}

// triAt reads row i of a boolean vec.
func triAt(v vec, i int) tri {
	if v.arr == nil {
		return triDatum(v.c)
	}
	if v.arr.IsNull(i) {
		return triNull
	}
	if b, ok := v.arr.(*array.Boolean); ok {
		return triOf(b.Value(i))
	}
	return triDatum(valueAt(v.arr, i, types.BoolT))
}

// triArray builds a boolean array from tri values.
func triArray(mem memory.Allocator, ts []tri) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(len(ts))
	for _, t := range ts {
		switch t {
		case triNull:
			b.AppendNull()
		default:
			b.UnsafeAppend(t == triTrue)
		}
	}
	return b.NewArray()
}

// boolArray builds a boolean array; valid may be nil (no NULLs).
func boolArray(mem memory.Allocator, vals []bool, valid []bool) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// triVec makes a boolean vec of ts: a constant when every input was one.
func (ev *evaluator) triVec(ts []tri, inputs []vec) vec {
	if len(ts) > 0 {
		allConst := true
		for _, in := range inputs {
			if !in.isConst() {
				allConst = false
				break
			}
		}
		if allConst {
			return constVec(ts[0].datum(), types.BoolT)
		}
	}
	return vec{arr: triArray(ev.mem, ts), t: types.BoolT}
}

func (ev *evaluator) evalBoolOp(e *sql.BoolOp, b batch) (vec, error) {
	if e.Op == sql.Not {
		if len(e.Args) != 1 {
			return vec{}, internalErr("NOT with %d arguments", len(e.Args))
		}
		v, err := ev.eval(e.Args[0], b)
		if err != nil {
			return vec{}, err
		}
		defer v.release()
		if v.isConst() {
			return constVec(triNot(triDatum(v.c)).datum(), types.BoolT), nil
		}
		out := make([]tri, b.n)
		for i := range out {
			out[i] = triNot(triAt(v, i))
		}
		return vec{arr: triArray(ev.mem, out), t: types.BoolT}, nil
	}
	isAnd := e.Op == sql.And
	combine, decisive, identity := triOr, triTrue, triFalse
	if isAnd {
		combine, decisive, identity = triAnd, triFalse, triTrue
	}
	// cstate is the running result while every argument so far was a
	// constant; state takes over (one entry per row) after the first
	// column-valued argument.
	cstate := identity
	var state []tri
	for _, arg := range e.Args {
		if state == nil {
			if cstate == decisive {
				break
			}
			v, err := ev.eval(arg, b)
			if err != nil {
				return vec{}, err
			}
			if v.isConst() {
				cstate = combine(cstate, triDatum(v.c))
				continue
			}
			state = make([]tri, b.n)
			for i := range state {
				state[i] = combine(cstate, triAt(v, i))
			}
			v.release()
			continue
		}
		// Only rows not yet decided see the next argument, so that
		// "x <> 0 AND 1/x > 0" never divides by zero.
		rows := make([]int, 0, len(state))
		for i, s := range state {
			if s != decisive {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			break
		}
		v, full, err := ev.evalRows(arg, b, rows)
		if err != nil {
			return vec{}, err
		}
		for j, r := range rows {
			k := j
			if full {
				k = r
			}
			state[r] = combine(state[r], triAt(v, k))
		}
		v.release()
	}
	if state == nil {
		return constVec(cstate.datum(), types.BoolT), nil
	}
	return vec{arr: triArray(ev.mem, state), t: types.BoolT}, nil
}
