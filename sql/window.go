package sql

import (
	"fmt"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Window functions: fn(...) OVER (PARTITION BY ... ORDER BY ... [frame]).
// They are bound where they appear (select list, ORDER BY) as WindowCall
// expressions; once the query's WHERE, GROUP BY and HAVING are planned,
// the binder moves them into one Window node over that plan and leaves
// column references to its outputs behind, so they see the grouped rows
// and are computed before DISTINCT, ORDER BY and LIMIT, as in PostgreSQL.

// WindowFunc is one window function call.
type WindowFunc struct {
	// Name is the function: row_number, rank, dense_rank, percent_rank,
	// cume_dist, ntile, lag, lead, first_value, last_value, nth_value, or
	// an aggregate's name (then Agg is set).
	Name      string
	Agg       *AggCall
	Args      []Expr
	Partition []Expr
	Order     []SortKey
	Frame     WindowFrame
	T         types.T
}

// WindowFrame is the frame of rows an aggregate, first_value, last_value
// or nth_value sees for each row: in ROWS mode counted in rows, in RANGE
// mode (the default) with the current row's peers (rows tying on the
// ORDER BY keys) counted as the current row, in GROUPS mode counted in
// peer groups. The default frame runs from the partition's first row to
// the current row's last peer. Exclude leaves rows out of it.
type WindowFrame struct {
	Rows       bool
	Groups     bool
	Start, End FrameBound
	// RangeKey is, in RANGE mode with an offset bound, the one ORDER BY
	// key in the type its bounds are computed in (rangeOffsetType).
	RangeKey Expr
	Exclude  FrameExclusion
}

// FrameExclusion is a frame's EXCLUDE clause.
type FrameExclusion uint8

// Frame exclusions: EXCLUDE NO OTHERS (the default), CURRENT ROW, GROUP
// (the current row and its peers) and TIES (its peers but not itself).
const (
	ExcludeNoOthers FrameExclusion = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind BoundKind
	// Offset is N of N PRECEDING / N FOLLOWING (ROWS and GROUPS mode), a
	// constant.
	Offset Expr
	// Bound is, in RANGE mode, the key value this bound of each row's
	// frame lies at: RangeKey minus or plus the offset.
	Bound Expr
}

// BoundKind is where a frame bound lies.
type BoundKind uint8

// Frame bounds.
const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// WindowCall is a window function inside an expression until the binder
// moves it into a Window node.
type WindowCall struct {
	Func *WindowFunc
}

func (e *WindowCall) Type() types.T { return e.Func.T }
func (e *WindowCall) String() string {
	args := e.Func.Args
	if e.Func.Agg != nil {
		args = e.Func.Agg.Args
	}
	return fmt.Sprintf("%s(%s) OVER (...)", e.Func.Name, joinExprs(args, ", "))
}

// windowExprs are the expressions a window function reads.
func (f *WindowFunc) windowExprs() []Expr {
	out := append(append([]Expr{}, f.Args...), f.Partition...)
	for _, k := range f.Order {
		out = append(out, k.Expr)
	}
	if f.Agg != nil {
		out = append(out, f.Agg.Args...)
		out = append(out, nonNil(f.Agg.Filter)...)
	}
	fr := &f.Frame
	return append(out, nonNil(fr.Start.Offset, fr.End.Offset, fr.RangeKey, fr.Start.Bound, fr.End.Bound)...)
}

// transform rebuilds f with fn applied to its expressions.
func (f *WindowFunc) transform(tr func(Expr) Expr) *WindowFunc {
	c := *f
	c.Args = make([]Expr, len(f.Args))
	for i, a := range f.Args {
		c.Args[i] = tr(a)
	}
	c.Partition = make([]Expr, len(f.Partition))
	for i, p := range f.Partition {
		c.Partition[i] = tr(p)
	}
	c.Order = make([]SortKey, len(f.Order))
	for i, k := range f.Order {
		c.Order[i] = k
		c.Order[i].Expr = tr(k.Expr)
	}
	c.Frame.Start.Offset, c.Frame.End.Offset = tr(f.Frame.Start.Offset), tr(f.Frame.End.Offset)
	c.Frame.RangeKey = tr(f.Frame.RangeKey)
	c.Frame.Start.Bound, c.Frame.End.Bound = tr(f.Frame.Start.Bound), tr(f.Frame.End.Bound)
	if f.Agg != nil {
		agg := *f.Agg
		agg.Args = make([]Expr, len(f.Agg.Args))
		for i, a := range f.Agg.Args {
			agg.Args[i] = tr(a)
		}
		if f.Agg.Filter != nil {
			agg.Filter = tr(f.Agg.Filter)
		}
		c.Agg = &agg
	}
	return &c
}

// Window computes window functions over its input's rows; its output is
// the input's columns followed by one column per function.
type Window struct {
	Input Node
	Funcs []*WindowFunc
	Out   []Col
}

func (n *Window) Columns() []Col   { return n.Out }
func (n *Window) Children() []Node { return []Node{n.Input} }
func (n *Window) String() string {
	names := make([]string, len(n.Funcs))
	for i, f := range n.Funcs {
		names[i] = f.Name
	}
	return "WindowAgg: " + strings.Join(names, ", ")
}

// Frame options of pg_query's WindowDef (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault        = 0x00001
	frameRows              = 0x00004
	frameGroups            = 0x00008
	frameStartUnboundedPre = 0x00020
	frameStartCurrentRow   = 0x00200
	frameStartOffsetPre    = 0x00800
	frameStartOffsetFol    = 0x02000
	frameEndUnboundedFol   = 0x00100
	frameEndCurrentRow     = 0x00400
	frameEndOffsetPre      = 0x01000
	frameEndOffsetFol      = 0x04000
	frameExcludeCurrentRow = 0x08000
	frameExcludeGroup      = 0x10000
	frameExcludeTies       = 0x20000
)

// defaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
var defaultFrame = WindowFrame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// bindFrame binds a window's frame clause over its ORDER BY keys.
func (b *Binder) bindFrame(sc *scope, def *pg_query.WindowDef, order []SortKey) (WindowFrame, error) {
	opts := def.FrameOptions
	if opts&frameNonDefault == 0 {
		return defaultFrame, nil
	}
	f := WindowFrame{Rows: opts&frameRows != 0, Groups: opts&frameGroups != 0}
	if f.Groups && len(order) == 0 {
		return f, pgerr.New(pgerrcode.WindowingError, "GROUPS mode requires an ORDER BY clause")
	}
	switch {
	case opts&frameExcludeCurrentRow != 0:
		f.Exclude = ExcludeCurrentRow
	case opts&frameExcludeGroup != 0:
		f.Exclude = ExcludeGroup
	case opts&frameExcludeTies != 0:
		f.Exclude = ExcludeTies
	}
	bound := func(unbounded, current, pre, fol int32, offset *pg_query.Node, unboundedKind BoundKind) (FrameBound, error) {
		switch {
		case opts&unbounded != 0:
			return FrameBound{Kind: unboundedKind}, nil
		case opts&current != 0:
			return FrameBound{Kind: CurrentRow}, nil
		case opts&(pre|fol) != 0:
			if !f.Rows && !f.Groups {
				return b.rangeBound(sc, &f, order, offset, opts&pre != 0)
			}
			mode := "ROWS"
			if f.Groups {
				mode = "GROUPS"
			}
			e, err := b.bindFrameOffset(sc, offset, mode, func() (Expr, error) { return b.bindExprWant(sc, offset, types.Int8T) })
			if err != nil {
				return FrameBound{}, err
			}
			kind := OffsetFollowing
			if opts&pre != 0 {
				kind = OffsetPreceding
			}
			return FrameBound{Kind: kind, Offset: e}, nil
		}
		return FrameBound{Kind: CurrentRow}, nil
	}
	var err error
	if f.Start, err = bound(frameStartUnboundedPre, frameStartCurrentRow, frameStartOffsetPre, frameStartOffsetFol, def.StartOffset, UnboundedPreceding); err != nil {
		return f, err
	}
	if f.End, err = bound(frameEndUnboundedFol, frameEndCurrentRow, frameEndOffsetPre, frameEndOffsetFol, def.EndOffset, UnboundedFollowing); err != nil {
		return f, err
	}
	return f, nil
}

// bindFrameOffset binds the offset of a ROWS or RANGE frame bound (mode)
// with bind, refusing what PostgreSQL refuses there: aggregates ("not
// allowed in window ROWS"), window functions, and columns of the query
// itself (42P10), since the offset is computed once for the whole window;
// a subquery's own columns and a correlated subquery's outer columns are
// fine.
func (b *Binder) bindFrameOffset(sc *scope, offset *pg_query.Node, mode string, bind func() (Expr, error)) (Expr, error) {
	saved := b.clause
	b.clause = "window " + mode
	e, err := bind()
	b.clause = saved
	if err != nil {
		return nil, err
	}
	var local bool
	walkExpr(e, func(x Expr) {
		if _, ok := x.(*ColumnRef); ok {
			local = true
		}
	})
	if local {
		return nil, pgerr.New(pgerrcode.InvalidColumnReference, "argument of %s must not contain variables", mode)
	}
	return e, nil
}

// rangeBound binds N PRECEDING / N FOLLOWING of a RANGE frame: a distance
// in the units of its one ORDER BY key (a number for numeric keys, an
// interval for dates, timestamps and intervals). The bound's value for a
// row is its key minus N (PRECEDING) or plus N (FOLLOWING), the other way
// round for a descending key.
func (b *Binder) rangeBound(sc *scope, f *WindowFrame, order []SortKey, offset *pg_query.Node, preceding bool) (FrameBound, error) {
	kind := OffsetFollowing
	if preceding {
		kind = OffsetPreceding
	}
	if len(order) != 1 {
		return FrameBound{}, pgerr.New(pgerrcode.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	key := order[0].Expr
	keyT, offT, ok := rangeOffsetType(key.Type())
	if !ok {
		return FrameBound{}, pgerr.New(pgerrcode.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", key.Type())
	}
	if f.RangeKey == nil {
		k, err := b.coerce(key, keyT, castExplicit)
		if err != nil {
			return FrameBound{}, err
		}
		f.RangeKey = k
	}
	off, err := b.bindFrameOffset(sc, offset, "RANGE", func() (Expr, error) { return b.bindExpr(sc, offset) })
	if err != nil {
		return FrameBound{}, err
	}
	given := off.Type()
	if off, err = b.coerce(off, offT, castAssignment); err != nil {
		return FrameBound{}, pgerr.New(pgerrcode.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", key.Type(), given)
	}
	op := "+"
	if preceding != order[0].Desc {
		op = "-"
	}
	bound, err := b.bindOperator(op, f.RangeKey, off)
	if err != nil {
		return FrameBound{}, err
	}
	if bound, err = b.coerce(bound, keyT, castExplicit); err != nil {
		return FrameBound{}, err
	}
	return FrameBound{Kind: kind, Bound: bound}, nil
}

// rangeOffsetType is the type a RANGE frame's bounds over a key of type t
// are computed and compared in, and the type of the offset: integers as
// bigint, floats as double precision, dates as timestamps.
func rangeOffsetType(t types.T) (key, offset types.T, ok bool) {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8:
		return types.Int8T, types.Int8T, true
	case types.Float4, types.Float8:
		return types.Float8T, types.Float8T, true
	case types.Numeric:
		return types.NumericT, types.NumericT, true
	case types.DateFamily, types.TimestampFamily:
		return types.TimestampT, types.IntervalT, true
	case types.TimestampTZ:
		return types.TimestampTZT, types.IntervalT, true
	case types.Interval:
		return types.IntervalT, types.IntervalT, true
	}
	return types.T{}, types.T{}, false
}

// windowOnly are the functions that exist only as window functions, and
// their result types (nil: the type of the first argument).
var windowOnly = map[string]*types.T{
	"row_number": &types.Int8T, "rank": &types.Int8T, "dense_rank": &types.Int8T,
	"percent_rank": &types.Float8T, "cume_dist": &types.Float8T, "ntile": &types.Int4T,
	"lag": nil, "lead": nil, "first_value": nil, "last_value": nil, "nth_value": nil,
}

// bindWindowCall binds fn(...) OVER (...).
func (b *Binder) bindWindowCall(sc *scope, fc *pg_query.FuncCall, name string) (Expr, error) {
	if b.clause != "" || b.currentAgg() == nil {
		where := b.clause
		switch {
		case where == "":
			where = "this context"
		case where == "CHECK":
			where = "check constraints"
		case strings.HasPrefix(where, "window "): // a frame offset
			where = "window definitions"
		}
		return nil, pgerr.New(pgerrcode.WindowingError, "window functions are not allowed in %s", where).WithPosition(fc.Location + 1)
	}
	if agg := b.currentAgg(); agg.inAgg {
		return nil, pgerr.New(pgerrcode.GroupingError, "aggregate function calls cannot contain window function calls").WithPosition(fc.Location + 1)
	}
	def, err := b.windowDef(fc.Over)
	if err != nil {
		return nil, err
	}
	f := &WindowFunc{Name: name}
	for _, p := range def.PartitionClause {
		e, err := b.bindExpr(sc, p)
		if err != nil {
			return nil, err
		}
		f.Partition = append(f.Partition, e)
	}
	for _, o := range def.OrderClause {
		sb := o.GetSortBy()
		e, err := b.bindExpr(sc, sb.Node)
		if err != nil {
			return nil, err
		}
		f.Order = append(f.Order, makeSortKey(sb, e))
	}
	if f.Frame, err = b.bindFrame(sc, def, f.Order); err != nil {
		return nil, err
	}
	if res, isWindow := windowOnly[name]; isWindow {
		if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil {
			return nil, pgerr.NotSupported("DISTINCT, FILTER or * with %s", name)
		}
		if f.Args, err = b.bindExprs(sc, fc.Args); err != nil {
			return nil, err
		}
		if err := b.checkWindowArgs(f, res); err != nil {
			return nil, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
		}
		return &WindowCall{Func: f}, nil
	}
	if !functions.IsAggregate(name) {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name).WithPosition(fc.Location + 1)
	}
	if fc.AggDistinct || len(fc.AggOrder) > 0 {
		return nil, pgerr.NotSupported("DISTINCT or ORDER BY in a window aggregate")
	}
	call, err := b.bindAggCall(sc, fc, name)
	if err != nil {
		return nil, err
	}
	f.Agg, f.T = &call, call.T
	return &WindowCall{Func: f}, nil
}

// checkWindowArgs checks and types the arguments of a window-only
// function and sets its result type (res, or the first argument's).
func (b *Binder) checkWindowArgs(f *WindowFunc, res *types.T) error {
	min, max := 0, 0
	switch f.Name {
	case "ntile":
		min, max = 1, 1
	case "lag", "lead":
		min, max = 1, 3
	case "first_value", "last_value":
		min, max = 1, 1
	case "nth_value":
		min, max = 2, 2
	}
	if len(f.Args) < min || len(f.Args) > max {
		return pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", f.Name, typeList(f.Args))
	}
	var err error
	switch f.Name {
	case "ntile", "nth_value":
		last := len(f.Args) - 1
		if f.Args[last], err = b.coerce(f.Args[last], types.Int4T, castImplicit); err != nil {
			return err
		}
	case "lag", "lead":
		if len(f.Args) >= 2 {
			if f.Args[1], err = b.coerce(f.Args[1], types.Int4T, castImplicit); err != nil {
				return err
			}
		}
		if len(f.Args) == 3 {
			// The default takes the value's type (or both a common one).
			_, args, err := b.unify(f.Name, []Expr{f.Args[0], f.Args[2]})
			if err != nil {
				return err
			}
			f.Args[0], f.Args[2] = args[0], args[1]
		}
	}
	if res != nil {
		f.T = *res
	} else {
		f.T = f.Args[0].Type()
		if f.T.Family == types.Unknown {
			f.T = types.TextT
		}
	}
	return nil
}

// windowDef resolves OVER (...) or OVER name against the query's WINDOW
// clause; an OVER (name ...) inherits the named window's partitioning and
// ordering.
func (b *Binder) windowDef(over *pg_query.WindowDef) (*pg_query.WindowDef, error) {
	ref := over.Name
	if ref == "" {
		ref = over.Refname
	}
	if ref == "" {
		return over, nil
	}
	for _, w := range b.windows {
		if d := w.GetWindowDef(); d != nil && d.Name == ref {
			if over.Name != "" {
				return d, nil
			}
			// A new definition over the named one's parts: the tree may
			// be a template's, whose constants the binder looks up by
			// node (Binder.constant).
			out := &pg_query.WindowDef{Name: d.Name, Refname: d.Refname, PartitionClause: d.PartitionClause,
				OrderClause: d.OrderClause, FrameOptions: d.FrameOptions, StartOffset: d.StartOffset,
				EndOffset: d.EndOffset, Location: d.Location}
			if len(over.OrderClause) > 0 {
				out.OrderClause = over.OrderClause
			}
			if over.FrameOptions&frameNonDefault != 0 {
				out.FrameOptions, out.StartOffset, out.EndOffset = over.FrameOptions, over.StartOffset, over.EndOffset
			}
			return out, nil
		}
	}
	return nil, pgerr.New(pgerrcode.UndefinedObject, "window \"%s\" does not exist", ref)
}

// planWindows moves the window calls of exprs into a Window node over
// plan, replacing each with a reference to its output column; plan is
// returned unchanged when there are none.
func planWindows(plan Node, exprs []*Expr) (Node, error) {
	base := plan.Columns()
	funcs, cols, err := liftCalls(exprs, len(base), func(x Expr) (*WindowFunc, Col, bool) {
		wc, ok := x.(*WindowCall)
		if !ok {
			return nil, Col{}, false
		}
		return wc.Func, Col{Name: wc.Func.Name, T: wc.Func.T}, true
	})
	if err != nil || len(funcs) == 0 {
		return plan, err
	}
	return &Window{Input: plan, Funcs: funcs, Out: append(append([]Col{}, base...), cols...)}, nil
}

// liftCalls replaces each expression of exprs that pick selects (a window
// call, a set-returning call) with a reference to a new column numbered
// from first, and returns what pick made of them with their columns, in
// order: the calls are computed by a node under the projection.
func liftCalls[F any](exprs []*Expr, first int, pick func(Expr) (F, Col, bool)) ([]F, []Col, error) {
	var funcs []F
	var cols []Col
	for _, e := range exprs {
		out, err := transformExpr(*e, func(x Expr) (Expr, error) {
			f, col, ok := pick(x)
			if !ok {
				return nil, nil
			}
			funcs, cols = append(funcs, f), append(cols, col)
			return &ColumnRef{Index: first + len(cols) - 1, Name: col.Name, T: col.T}, nil
		})
		if err != nil {
			return nil, nil, err
		}
		*e = out
	}
	return funcs, cols, nil
}

// checkWindowNames refuses a WINDOW clause that defines a name twice
// (42P20, as PostgreSQL).
func checkWindowNames(clause []*pg_query.Node) error {
	seen := map[string]bool{}
	for _, n := range clause {
		w := n.GetWindowDef()
		if w == nil || w.Name == "" {
			continue
		}
		if seen[w.Name] {
			return pgerr.New(pgerrcode.WindowingError, "window \"%s\" is already defined", w.Name).WithPosition(w.Location + 1)
		}
		seen[w.Name] = true
	}
	return nil
}
