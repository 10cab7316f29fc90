package exec

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// part is the answer of one CASE arm or COALESCE argument for some rows.
type part struct {
	v    vec
	rows []int // the batch rows this part answers
	idx  []int // the row of v for each entry of rows; nil: its position
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// newPart records the rows of a vec evaluated by evalRows(e, b, asked):
// answered lists positions in asked whose answer this part gives.
func newPart(v vec, full bool, asked []int, answered []int) part {
	p := part{v: v, rows: make([]int, len(answered))}
	p.idx = make([]int, len(answered))
	for k, j := range answered {
		p.rows[k] = asked[j]
		if full {
			p.idx[k] = asked[j]
		} else {
			p.idx[k] = j
		}
	}
	return p
}

// assemble merges parts (disjoint row sets) into one vec of n rows of type
// t; rows no part answers are NULL. It does not take over the parts.
func (ev *evaluator) assemble(parts []part, t types.T, n int) (vec, error) {
	if len(parts) == 0 {
		return constVec(nil, t), nil
	}
	if len(parts) == 1 && len(parts[0].rows) == n && n > 0 {
		p := parts[0]
		if p.v.isConst() {
			return constVec(p.v.c, t), nil
		}
		identity := true
		for k, r := range p.rows {
			if r != k || p.idx[k] != k {
				identity = false
				break
			}
		}
		if identity && p.v.arr.Len() == n {
			p.v.arr.Retain()
			arr, err := conformArray(ev.mem, p.v.arr, t)
			if err != nil {
				return vec{}, err
			}
			return vec{arr: arr, t: t}, nil
		}
	}
	srcs := make([]arrow.Array, len(parts))
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.Release()
			}
		}
	}()
	refs := make([]rowcopy.Ref, n)
	for i := range refs {
		refs[i].Src = -1
	}
	for k, p := range parts {
		var err error
		if p.v.isConst() {
			srcs[k], err = ev.materialize(p.v.c, t, 1)
		} else {
			p.v.arr.Retain()
			srcs[k], err = conformArray(ev.mem, p.v.arr, t)
		}
		if err != nil {
			return vec{}, err
		}
		for j, r := range p.rows {
			row := 0
			if !p.v.isConst() {
				row = j
				if p.idx != nil {
					row = p.idx[j]
				}
			}
			refs[r] = rowcopy.Ref{Src: int32(k), Row: int32(row)}
		}
	}
	arr, err := rowcopy.Gather(ev.mem, t.Arrow(), srcs, refs)
	if err != nil {
		return vec{}, err
	}
	return vec{arr: arr, t: t}, nil
}

func releaseParts(parts []part) {
	for _, p := range parts {
		p.v.release()
	}
}

// evalCase evaluates a THEN only for the rows that reach it.
func (ev *evaluator) evalCase(e *sql.Case, b batch) (vec, error) {
	var parts []part
	defer func() { releaseParts(parts) }()
	remaining := allRows(b.n)
	for _, w := range e.Whens {
		if len(remaining) == 0 {
			break
		}
		cond, full, err := ev.evalRows(w.Cond, b, remaining)
		if err != nil {
			return vec{}, err
		}
		var hit, miss []int
		for j, r := range remaining {
			k := j
			if full {
				k = r
			}
			if triAt(cond, k) == triTrue {
				hit = append(hit, r)
			} else {
				miss = append(miss, r)
			}
		}
		cond.release()
		if len(hit) > 0 {
			v, full, err := ev.evalRows(w.Result, b, hit)
			if err != nil {
				return vec{}, err
			}
			parts = append(parts, newPart(v, full, hit, allRows(len(hit))))
		}
		remaining = miss
	}
	if len(remaining) > 0 && e.Else != nil {
		v, full, err := ev.evalRows(e.Else, b, remaining)
		if err != nil {
			return vec{}, err
		}
		parts = append(parts, newPart(v, full, remaining, allRows(len(remaining))))
	}
	return ev.assemble(parts, e.T, b.n)
}

// evalCoalesce evaluates each argument only for the rows still NULL.
func (ev *evaluator) evalCoalesce(e *sql.Coalesce, b batch) (vec, error) {
	var parts []part
	defer func() { releaseParts(parts) }()
	remaining := allRows(b.n)
	for _, a := range e.Args {
		if len(remaining) == 0 {
			break
		}
		v, full, err := ev.evalRows(a, b, remaining)
		if err != nil {
			return vec{}, err
		}
		var hit []int // positions in remaining
		var miss []int
		for j, r := range remaining {
			k := j
			if full {
				k = r
			}
			if v.isNull(k) {
				miss = append(miss, r)
			} else {
				hit = append(hit, j)
			}
		}
		if len(hit) > 0 {
			parts = append(parts, newPart(v, full, remaining, hit))
		} else {
			v.release()
		}
		remaining = miss
	}
	return ev.assemble(parts, e.T, b.n)
}

// evalInList is "x IN (a, b, ...)": true if x equals an item, else NULL if
// x or an item is NULL, else false.
func (ev *evaluator) evalInList(e *sql.InList, b batch) (vec, error) {
	arg, err := ev.eval(e.Arg, b)
	if err != nil {
		return vec{}, err
	}
	defer arg.release()
	var res vec
	if set := ev.inListSet(e, arg.t); set != nil {
		res = ev.probeSet(arg, set, b.n)
	} else {
		res, err = ev.orEach(arg, e.List, e.Equal, false, b)
		if err != nil {
			return vec{}, err
		}
	}
	if !e.Negate {
		return res, nil
	}
	defer res.release()
	return ev.mapTri(res, b.n, triNot), nil
}

// inSet is a statement's cached constSet of an IN list for arguments of
// type t (nil set: the list is not one of constants, or too short).
type inSet struct {
	t   types.T
	set *valueSet
}

// inListSet returns the hash set e's list is probed with for arguments
// of type t; nil when the items are compared one by one. A list of
// constants has its set built on the statement's first batch; one with
// parameters each time (PL/pgSQL evaluates an expression again in the
// same runtime with other parameters).
func (ev *evaluator) inListSet(e *sql.InList, t types.T) *valueSet {
	if c, ok := ev.rt.inSets[e]; ok && c.t.Equal(t) {
		return c.set
	}
	if len(e.List) <= 4 {
		return nil
	}
	set, _ := ev.constSet(e.List, t) // (nil when the items are not all constants)
	if !slices.ContainsFunc(e.List, func(x sql.Expr) bool { _, param := x.(*sql.Param); return param }) {
		if ev.rt.inSets == nil {
			ev.rt.inSets = map[*sql.InList]inSet{}
		}
		ev.rt.inSets[e] = inSet{t: t, set: set}
	}
	return set
}

// valueSet is a hash set of non-NULL values plus whether a NULL was seen.
type valueSet struct {
	keys    map[string]struct{}
	hasNull bool
	empty   bool
}

// constSet builds a set from list items that are all constants of a type
// whose keys agree with "=" on t.
func (ev *evaluator) constSet(list []sql.Expr, t types.T) (*valueSet, bool) {
	set := &valueSet{keys: make(map[string]struct{}, len(list)), empty: len(list) == 0}
	for _, item := range list {
		var v any
		switch it := item.(type) {
		case *sql.Const:
			v = it.Value
		case *sql.Param:
			if it.Index < 0 || it.Index >= len(ev.rt.Params) {
				return nil, false
			}
			v = paramValue(ev.rt.Params[it.Index])
		default:
			return nil, false
		}
		if !hashCompatible(item.Type(), t) {
			return nil, false
		}
		if v == nil {
			set.hasNull = true
			continue
		}
		set.keys[string(appendDatumKey(nil, v, t))] = struct{}{}
	}
	return set, true
}

// hashCompatible reports whether values of a and b can be compared by key.
func hashCompatible(a, b types.T) bool {
	if a.Family == types.Null || a.Family == types.Unknown {
		return true
	}
	ca, cb := keyClassOf(a), keyClassOf(b)
	if ca != classOther || cb != classOther {
		return ca == cb
	}
	return a.Equal(b)
}

// probeSet answers "x IN set" for each row of arg.
func (ev *evaluator) probeSet(arg vec, set *valueSet, n int) vec {
	lookup := func(i int) tri {
		if set.empty {
			return triFalse
		}
		if arg.isNull(i) {
			return triNull
		}
		if _, ok := set.keys[string(appendVecKey(nil, arg, i))]; ok {
			return triTrue
		}
		if set.hasNull {
			return triNull
		}
		return triFalse
	}
	if arg.isConst() {
		return constVec(lookup(0).datum(), types.BoolT)
	}
	out := make([]tri, n)
	var key []byte
	for i := range out {
		switch {
		case set.empty:
			out[i] = triFalse
		case arg.arr.IsNull(i):
			out[i] = triNull
		default:
			key = appendColKey(key[:0], arg.arr, i, arg.t)
			if _, ok := set.keys[string(key)]; ok {
				out[i] = triTrue
			} else if set.hasNull {
				out[i] = triNull
			} else {
				out[i] = triFalse
			}
		}
	}
	return vec{arr: triArray(ev.mem, out), t: types.BoolT}
}

// orEach combines "arg op item" over items with OR (all false: AND).
func (ev *evaluator) orEach(arg vec, items []sql.Expr, op *functions.Overload, all bool, b batch) (vec, error) {
	combine, acc := triOr, triFalse
	if all {
		combine, acc = triAnd, triTrue
	}
	var state []tri
	for _, item := range items {
		iv, err := ev.eval(item, b)
		if err != nil {
			return vec{}, err
		}
		r, err := ev.compareWith(op, arg, iv, b.n)
		iv.release()
		if err != nil {
			return vec{}, err
		}
		if state == nil && r.isConst() {
			acc = combine(acc, triDatum(r.c))
			continue
		}
		if state == nil {
			state = make([]tri, b.n)
			for i := range state {
				state[i] = acc
			}
		}
		for i := range state {
			state[i] = combine(state[i], triAt(r, i))
		}
		r.release()
	}
	if state == nil {
		return constVec(acc.datum(), types.BoolT), nil
	}
	return vec{arr: triArray(ev.mem, state), t: types.BoolT}, nil
}

// compareWith applies a boolean operator (nil: equality by types.Compare).
func (ev *evaluator) compareWith(op *functions.Overload, l, r vec, n int) (vec, error) {
	if op == nil {
		return ev.compareEqual(l, r, n)
	}
	return ev.call(op, []vec{l, r}, types.BoolT, n)
}

// mapTri applies f to each row of a boolean vec.
func (ev *evaluator) mapTri(v vec, n int, f func(tri) tri) vec {
	if v.isConst() {
		return constVec(f(triDatum(v.c)).datum(), types.BoolT)
	}
	out := make([]tri, n)
	for i := range out {
		out[i] = f(triAt(v, i))
	}
	return vec{arr: triArray(ev.mem, out), t: types.BoolT}
}

// evalAnyAll is "x op ANY (array)" / "x op ALL (array)" with PostgreSQL's
// NULL rules: an empty array gives false (ANY) or true (ALL) whatever x is;
// otherwise NULL elements or a NULL x make an undecided result NULL.
func (ev *evaluator) evalAnyAll(e *sql.AnyAll, b batch) (vec, error) {
	left, err := ev.eval(e.Left, b)
	if err != nil {
		return vec{}, err
	}
	defer left.release()
	arrv, err := ev.eval(e.Array, b)
	if err != nil {
		return vec{}, err
	}
	defer arrv.release()
	elemT := types.UnknownT
	if at := e.Array.Type(); at.Family == types.ArrayFamily && at.Elem != nil {
		elemT = *at.Elem
	} else if at.Family == types.Vector {
		elemT = types.Float4T
	}
	if arrv.isConst() {
		a, _ := arrv.c.(*types.Array)
		if arrv.c == nil {
			return constVec(nil, types.BoolT), nil
		}
		if a == nil {
			return vec{}, internalErr("ANY/ALL over a non-array value %T", arrv.c)
		}
		if !e.All && e.Op != nil && e.Op.Name == "=" && len(a.Elems) > 4 && hashCompatible(elemT, left.t) {
			set := &valueSet{keys: make(map[string]struct{}, len(a.Elems)), empty: len(a.Elems) == 0}
			for _, x := range a.Elems {
				if x == nil {
					set.hasNull = true
					continue
				}
				set.keys[string(appendDatumKey(nil, x, elemT))] = struct{}{}
			}
			return ev.probeSet(left, set, b.n), nil
		}
		items := make([]sql.Expr, len(a.Elems))
		for i, x := range a.Elems {
			items[i] = &sql.Const{Value: x, T: elemT}
		}
		return ev.orEach(left, items, e.Op, e.All, b)
	}
	combine, identity := triOr, triFalse
	if e.All {
		combine, identity = triAnd, triTrue
	}
	out := make([]tri, b.n)
	row := make([]any, 2)
	for i := range out {
		av := arrv.at(i)
		if av == nil {
			out[i] = triNull
			continue
		}
		a, ok := av.(*types.Array)
		if !ok {
			return vec{}, internalErr("ANY/ALL over a non-array value %T", av)
		}
		acc := identity
		l := left.at(i)
		for _, x := range a.Elems {
			row[0], row[1] = l, x
			var r any
			if e.Op != nil {
				if r, err = ev.callRow(e.Op, row); err != nil {
					return vec{}, err
				}
			} else if l != nil && x != nil {
				r = compareValues(l, x, elemT) == 0
			}
			acc = combine(acc, triDatum(r))
			if acc == triOf(!e.All) {
				break
			}
		}
		out[i] = acc
	}
	return vec{arr: triArray(ev.mem, out), t: types.BoolT}, nil
}
