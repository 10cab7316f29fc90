package exec

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// Aggregate is hash aggregation: rows are grouped by the key encoding of
// their GROUP BY values and each group has one functions.AggState per
// aggregate call. DISTINCT aggregates skip argument tuples the group has
// already seen, FILTER feeds only the rows where it is true (arguments are
// evaluated for those rows only), and ORDER BY inside an aggregate buffers
// the group's rows and sorts them before stepping. Without GROUP BY the
// output is exactly one row, even for no input. With grouping sets each
// row joins one group per set. Groups come out in the order they were
// first seen.
type Aggregate struct {
	rt     *Runtime
	node   *sql.Aggregate
	input  Operator
	schema *arrow.Schema

	aggs   []aggInfo
	index  map[string]int32
	groups []*aggGroup

	loaded bool
	pos    int
	out    outSlot
	// acct counts the groups, DISTINCT aggregates' seen keys and ORDER BY
	// aggregates' buffered rows in the statement's budget.
	acct memAccount
}

// aggInfo is what does not change between groups for one aggregate call.
type aggInfo struct {
	call     *sql.AggCall
	argTypes []types.T
	exprs    []sql.Expr // arguments, then ORDER BY keys
	specs    []keySpec  // ORDER BY
}

type aggGroup struct {
	key []any
	// set is the grouping set (an index into sql.Aggregate.Sets).
	set    int
	states []functions.AggState
	// sizes are what the growing states (functions.SizedAggState) hold,
	// as counted in the statement's budget.
	sizes []int64
	// seen holds the argument keys of DISTINCT aggregates (nil otherwise).
	seen []map[string]struct{}
	// buffered holds the rows of aggregates with ORDER BY.
	buffered [][]bufferedRow
}

type bufferedRow struct {
	args []any
	keys []sortVal
}

func newAggregate(rt *Runtime, n *sql.Aggregate, in Operator) *Aggregate {
	a := &Aggregate{rt: rt, node: n, input: in, schema: schemaOf(n.Out), index: map[string]int32{}, acct: rt.account()}
	for i := range n.Aggs {
		c := &n.Aggs[i]
		info := aggInfo{call: c}
		for _, arg := range c.Args {
			info.argTypes = append(info.argTypes, arg.Type())
			info.exprs = append(info.exprs, arg)
		}
		for _, k := range c.OrderBy {
			info.exprs = append(info.exprs, k.Expr)
		}
		info.specs = keySpecs(c.OrderBy)
		a.aggs = append(a.aggs, info)
	}
	return a
}

// Schema implements Operator.
func (a *Aggregate) Schema() *arrow.Schema { return a.schema }

func (a *Aggregate) newGroup(key []any, set int) (*aggGroup, error) {
	g := &aggGroup{
		key:      key,
		set:      set,
		states:   make([]functions.AggState, len(a.aggs)),
		sizes:    make([]int64, len(a.aggs)),
		seen:     make([]map[string]struct{}, len(a.aggs)),
		buffered: make([][]bufferedRow, len(a.aggs)),
	}
	for i, info := range a.aggs {
		if info.call.Agg == nil || info.call.Agg.New == nil {
			return nil, internalErr("aggregate %s has no implementation", info.call.Name)
		}
		g.states[i] = info.call.Agg.New(info.argTypes)
		if info.call.Distinct {
			g.seen[i] = map[string]struct{}{}
		}
	}
	return g, nil
}

func (a *Aggregate) load(ctx context.Context) error {
	ev := newEvaluator(ctx, a.rt)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := a.input.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rec.NumRows() == 0 {
			continue
		}
		if err := a.consume(ev, rec); err != nil {
			return err
		}
	}
	if len(a.node.GroupBy) == 0 && len(a.groups) == 0 && a.node.Sets == nil {
		g, err := a.newGroup(nil, 0)
		if err != nil {
			return err
		}
		a.groups = append(a.groups, g)
	}
	// An empty grouping set has its one row even for no input.
	for si, set := range a.node.Sets {
		if len(set) == 0 && !slices.ContainsFunc(a.groups, func(g *aggGroup) bool { return g.set == si }) {
			g, err := a.newGroup(make([]any, len(a.node.GroupBy)), si)
			if err != nil {
				return err
			}
			a.groups = append(a.groups, g)
		}
	}
	return a.finishOrdered(ev)
}

// consume adds one batch to the groups.
func (a *Aggregate) consume(ev *evaluator, rec arrow.Record) error {
	b := batchOf(rec)
	keys, err := ev.evalArgs(a.node.GroupBy, b)
	if err != nil {
		return err
	}
	defer releaseVecs(keys)
	if a.node.Sets == nil {
		return a.consumeSet(ev, b, keys, nil, 0)
	}
	for si, set := range a.node.Sets {
		if err := a.consumeSet(ev, b, keys, set, si); err != nil {
			return err
		}
	}
	return nil
}

// consumeSet adds a batch to the groups of one grouping set: set lists the
// keys it groups by (nil: all of them); the others are NULL in its groups.
func (a *Aggregate) consumeSet(ev *evaluator, b batch, keys []vec, set []int, si int) error {
	gidx := make([]int32, b.n)
	var kb []byte
	for i := 0; i < b.n; i++ {
		kb = append(kb[:0], byte(si), byte(si>>8))
		for j, k := range keys {
			if set == nil || slices.Contains(set, j) {
				kb = appendVecKey(kb, k, i)
			}
		}
		g, ok := a.index[string(kb)]
		if !ok {
			// The key's bytes and map entry, the key values, and a state
			// per aggregate.
			if err := a.acct.grow(int64(len(kb)) + memMapEntry + memValue*int64(len(keys)+len(a.aggs))); err != nil {
				return err
			}
			vals := make([]any, len(keys))
			for j, k := range keys {
				if set == nil || slices.Contains(set, j) {
					vals[j] = k.at(i)
				}
			}
			grp, err := a.newGroup(vals, si)
			if err != nil {
				return err
			}
			g = int32(len(a.groups))
			a.groups = append(a.groups, grp)
			a.index[string(kb)] = g
		}
		gidx[i] = g
	}
	for ai := range a.aggs {
		if err := a.step(ev, ai, b, gidx); err != nil {
			return err
		}
	}
	return nil
}

// step feeds one aggregate call the rows of a batch.
func (a *Aggregate) step(ev *evaluator, ai int, b batch, gidx []int32) error {
	info := &a.aggs[ai]
	call := info.call
	var rows []int // nil: every row
	if call.Filter != nil {
		f, err := ev.eval(call.Filter, b)
		if err != nil {
			return err
		}
		rows = make([]int, 0, b.n)
		for i := 0; i < b.n; i++ {
			if triAt(f, i) == triTrue {
				rows = append(rows, i)
			}
		}
		f.release()
		if len(rows) == 0 {
			return nil
		}
		if len(rows) == b.n {
			rows = nil
		}
	}
	sub := b
	if rows != nil {
		s, err := ev.subBatch(b, rows, info.exprs...)
		if err != nil {
			return err
		}
		if s.rec != nil {
			defer s.rec.Release()
		}
		sub = s
	}
	vals, err := ev.evalArgs(info.exprs, sub)
	if err != nil {
		return err
	}
	defer releaseVecs(vals)
	nargs := len(call.Args)
	argv, keyv := vals[:nargs], vals[nargs:]
	strict := !call.Agg.NullCall
	args := make([]any, nargs)
	var dk []byte
	for j := 0; j < sub.n; j++ {
		i := j
		if rows != nil {
			i = rows[j]
		}
		g := a.groups[gidx[i]]
		skip := false
		for k, v := range argv {
			args[k] = v.at(j)
			if args[k] == nil && strict {
				skip = true
			}
		}
		if skip {
			continue
		}
		if call.Distinct {
			dk = dk[:0]
			for k, v := range argv {
				dk = appendDatumKey(dk, args[k], v.t)
			}
			if _, ok := g.seen[ai][string(dk)]; ok {
				continue
			}
			if err := a.acct.grow(int64(len(dk)) + memMapEntry); err != nil {
				return err
			}
			g.seen[ai][string(dk)] = struct{}{}
		}
		if len(keyv) > 0 {
			row := bufferedRow{args: slices.Clone(args), keys: make([]sortVal, len(keyv))}
			for k, v := range keyv {
				if v.isConst() {
					row.keys[k] = datumSortVal(v.c, &info.specs[k])
				} else {
					row.keys[k] = sortValAt(v.arr, j, &info.specs[k])
					row.keys[k].s = strings.Clone(row.keys[k].s) // outlives the batch
				}
			}
			size := memValue * int64(len(args)+len(keyv))
			for _, k := range row.keys {
				size += int64(len(k.s))
			}
			if err := a.acct.grow(size); err != nil {
				return err
			}
			g.buffered[ai] = append(g.buffered[ai], row)
			continue
		}
		if err := a.stepState(ev.fn, g, ai, args); err != nil {
			return err
		}
	}
	return nil
}

// stepState steps aggregate ai of group g, and counts what a growing
// state (array_agg, string_agg, ...) took in the statement's budget.
func (a *Aggregate) stepState(fn *functions.Context, g *aggGroup, ai int, args []any) error {
	st := g.states[ai]
	if err := st.Step(fn, args); err != nil {
		return err
	}
	if s, ok := st.(functions.SizedAggState); ok {
		size := s.Size()
		if err := a.acct.grow(size - g.sizes[ai]); err != nil {
			return err
		}
		g.sizes[ai] = size
	}
	return nil
}

// finishOrdered sorts and steps the buffered rows of ORDER BY aggregates.
func (a *Aggregate) finishOrdered(ev *evaluator) error {
	for ai, info := range a.aggs {
		if len(info.call.OrderBy) == 0 {
			continue
		}
		specs := info.specs
		for _, g := range a.groups {
			rows := g.buffered[ai]
			slices.SortStableFunc(rows, func(x, y bufferedRow) int { return compareRows(specs, x.keys, y.keys) })
			for _, r := range rows {
				if err := a.stepState(ev.fn, g, ai, r.args); err != nil {
					return err
				}
			}
			g.buffered[ai] = nil
		}
	}
	return nil
}

// Next implements Operator.
func (a *Aggregate) Next(ctx context.Context) (arrow.Record, error) {
	a.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !a.loaded {
		a.loaded = true
		if err := a.load(ctx); err != nil {
			return nil, err
		}
	}
	if a.pos >= len(a.groups) {
		a.groups = nil
		return nil, io.EOF
	}
	end := min(a.pos+batchSize, len(a.groups))
	mem := a.rt.mem()
	fn := a.rt.fnIn(ctx)
	cols := a.node.Out
	nkeys := len(a.node.GroupBy)
	nsets := 0
	if a.node.Sets != nil {
		nsets = 1 // the set number column
	}
	if len(cols) != nkeys+len(a.aggs)+nsets {
		return nil, internalErr("aggregate has %d columns for %d keys and %d aggregates", len(cols), nkeys, len(a.aggs))
	}
	builders := make([]array.Builder, len(cols))
	for j, c := range cols {
		builders[j] = newBuilder(mem, c.T)
		builders[j].Reserve(end - a.pos)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for _, g := range a.groups[a.pos:end] {
		for j := 0; j < nkeys; j++ {
			if err := appendValue(builders[j], g.key[j], cols[j].T); err != nil {
				return nil, err
			}
		}
		for ai := range a.aggs {
			v, err := g.states[ai].Result(fn)
			if err != nil {
				return nil, err
			}
			if err := appendValue(builders[nkeys+ai], v, cols[nkeys+ai].T); err != nil {
				return nil, err
			}
		}
		if nsets > 0 {
			builders[len(cols)-1].(*array.Int32Builder).Append(int32(g.set + 1))
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	rec := array.NewRecord(a.schema, arrs, int64(end-a.pos))
	for _, arr := range arrs {
		arr.Release()
	}
	a.pos = end
	return a.out.set(rec), nil
}

// Close implements Operator.
func (a *Aggregate) Close() {
	a.out.release()
	a.groups = nil
	a.index = nil
	a.acct.release()
	a.input.Close()
}
