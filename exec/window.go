package exec

import (
	"context"
	"errors"
	"io"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// windowOp computes window functions (sql.Window). Window functions see
// whole partitions, so it reads all of its input first, then for each
// function sorts the rows by partition and order keys, walks the
// partitions computing one value per row, and emits the input rows in
// their original order with the functions' columns appended.
type windowOp struct {
	rt     *Runtime
	node   *sql.Window
	input  Operator
	schema *arrow.Schema

	result arrow.Record
	pos    int
	out    outSlot
	// acct counts the input the window gathers in the statement's budget.
	acct memAccount
}

func newWindow(rt *Runtime, n *sql.Window, in Operator) *windowOp {
	return &windowOp{rt: rt, node: n, input: in, schema: schemaOf(n.Out), acct: rt.account()}
}

// Schema implements Operator.
func (w *windowOp) Schema() *arrow.Schema { return w.schema }

// Close implements Operator.
func (w *windowOp) Close() {
	w.out.release()
	if w.result != nil {
		w.result.Release()
		w.result = nil
	}
	w.acct.release()
	w.input.Close()
}

// Next implements Operator.
func (w *windowOp) Next(ctx context.Context) (arrow.Record, error) {
	w.out.release()
	if w.result == nil {
		if err := w.compute(ctx); err != nil {
			return nil, err
		}
	}
	n := int(w.result.NumRows())
	if w.pos >= n {
		return nil, io.EOF
	}
	end := min(w.pos+batchSize, n)
	rec := w.result.NewSlice(int64(w.pos), int64(end))
	w.pos = end
	return w.out.set(rec), nil
}

// compute reads the input and builds the whole result.
func (w *windowOp) compute(ctx context.Context) error {
	in, err := w.readAll(ctx)
	if err != nil {
		return err
	}
	defer in.Release()
	ev := newEvaluator(ctx, w.rt)
	cols := append([]arrow.Array{}, in.Columns()...)
	var made []arrow.Array
	defer func() { releaseAll(made) }()
	for _, f := range w.node.Funcs {
		vals, err := w.values(ev, f, in)
		if err != nil {
			return err
		}
		arr, err := datumsArray(w.rt, vals, f.T)
		if err != nil {
			return err
		}
		made = append(made, arr)
		cols = append(cols, arr)
	}
	w.result = array.NewRecord(w.schema, cols, in.NumRows())
	return nil
}

// readAll concatenates the input's batches into one record.
func (w *windowOp) readAll(ctx context.Context) (arrow.Record, error) {
	var recs []arrow.Record
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for {
		rec, err := w.input.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		// Its bytes, and a row index for the partition and order.
		if err := w.acct.growRecord(rec, 8); err != nil {
			return nil, err
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	inSchema := schemaOf(w.node.Input.Columns())
	cols := make([]arrow.Array, inSchema.NumFields())
	defer func() { releaseAll(cols) }()
	var n int64
	for i := range cols {
		parts := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			parts = append(parts, r.Column(i))
		}
		if len(parts) == 0 {
			cols[i] = array.MakeArrayOfNull(w.rt.mem(), inSchema.Field(i).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts, w.rt.mem())
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	for _, r := range recs {
		n += r.NumRows()
	}
	return array.NewRecord(inSchema, cols, n), nil
}

// datumsArray builds a column of type t from datums.
func datumsArray(rt *Runtime, vals []any, t types.T) (arrow.Array, error) {
	b := newBuilder(rt.mem(), t)
	defer b.Release()
	for _, v := range vals {
		if err := appendValue(b, v, t); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// windowRows is one function's view of the rows: the evaluated arguments
// and the rows' order by partition, then order keys.
type windowRows struct {
	order []int // row indexes, sorted
	keys  [][]sortVal
	specs []keySpec
	nPart int // leading keys that are partition keys
	args  []vec
}

// samePartition reports whether sorted positions i and j are in one
// partition; samePeers whether they also tie on the order keys.
func (r *windowRows) samePartition(i, j int) bool {
	return compareRows(r.specs[:r.nPart], r.keys[r.order[i]][:r.nPart], r.keys[r.order[j]][:r.nPart]) == 0
}

func (r *windowRows) samePeers(i, j int) bool {
	return compareRows(r.specs, r.keys[r.order[i]], r.keys[r.order[j]]) == 0
}

// arg is argument k at row i.
func (r *windowRows) arg(k, row int) any { return r.args[k].at(row) }

// values computes f for every row of in, in row order.
func (w *windowOp) values(ev *evaluator, f *sql.WindowFunc, in arrow.Record) ([]any, error) {
	n := int(in.NumRows())
	keys := make([]sql.SortKey, 0, len(f.Partition)+len(f.Order))
	for _, p := range f.Partition {
		keys = append(keys, sql.SortKey{Expr: p})
	}
	keys = append(keys, f.Order...)
	ke := newKeyEvaluator(keys)
	r := &windowRows{specs: ke.specs, nPart: len(f.Partition), order: make([]int, n)}
	var err error
	if r.keys, err = ke.rows(ev, in, nil); err != nil {
		return nil, err
	}
	for i := range r.order {
		r.order[i] = i
	}
	sort.SliceStable(r.order, func(a, b int) bool {
		return compareRows(r.specs, r.keys[r.order[a]], r.keys[r.order[b]]) < 0
	})
	args := f.Args
	if f.Agg != nil {
		args = f.Agg.Args
	}
	if r.args, err = ev.evalArgs(args, batchOf(in)); err != nil {
		return nil, err
	}
	defer releaseVecs(r.args)
	var filter vec
	if f.Agg != nil && f.Agg.Filter != nil {
		if filter, err = ev.eval(f.Agg.Filter, batchOf(in)); err != nil {
			return nil, err
		}
		defer filter.release()
	}
	fr, err := newFrame(ev, f)
	if err != nil {
		return nil, err
	}
	if err := fr.evalRanges(ev, f, in); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for start := 0; start < n; {
		end := start + 1
		for end < n && r.samePartition(start, end) {
			end++
		}
		if f.Agg != nil {
			err = w.aggregate(ev, f, r, fr, filter, start, end, out)
		} else {
			err = windowFunction(f, r, fr, start, end, out)
		}
		if err != nil {
			return nil, err
		}
		start = end
	}
	return out, nil
}

// peerStart is the start of the peer group of sorted position i in the
// partition starting at start.
func (r *windowRows) peerStart(i, start int) int {
	j := i
	for j > start && r.samePeers(j-1, i) {
		j--
	}
	return j
}

// peerEnd is the end of the peer group of sorted position i in the
// partition ending at end.
func (r *windowRows) peerEnd(i, end int) int {
	j := i + 1
	for j < end && r.samePeers(i, j) {
		j++
	}
	return j
}

// frame is a window function's frame with its offsets evaluated.
type frame struct {
	spec       sql.WindowFrame
	start, end int64 // the offsets of N PRECEDING / N FOLLOWING bounds
	// ranges are, in RANGE mode with an offset bound, per input row its
	// key and its frame's start and end bound values (sql.FrameBound's
	// Bound; the key where a bound is not an offset), compared by
	// rangeSpec.
	ranges    [][]sortVal
	rangeSpec *keySpec
	// In GROUPS mode, for the partition starting at sorted position
	// groupPS: the peer group (from 0) of each of its positions
	// (groupOf[i-groupPS]) and each group's first position, then the
	// partition's end (groupStart).
	groupPS    int
	groupOf    []int
	groupStart []int
}

// groups computes the peer groups of the partition [ps, pe) for GROUPS
// offsets, once per partition.
func (fr *frame) groups(r *windowRows, ps, pe int) {
	if fr.groupStart != nil && fr.groupPS == ps {
		return
	}
	fr.groupPS, fr.groupOf, fr.groupStart = ps, fr.groupOf[:0], fr.groupStart[:0]
	for i := ps; i < pe; i++ {
		if i == ps || !r.samePeers(i-1, i) {
			fr.groupStart = append(fr.groupStart, i)
		}
		fr.groupOf = append(fr.groupOf, len(fr.groupStart)-1)
	}
	fr.groupStart = append(fr.groupStart, pe)
}

// groupBound is a GROUPS frame's N PRECEDING / N FOLLOWING bound of
// sorted position i in the partition [ps, pe): the first row of the peer
// group off groups before or after i's (the end of it, isEnd), clamped to
// the partition.
func (fr *frame) groupBound(r *windowRows, kind sql.BoundKind, off int64, i, ps, pe int, isEnd bool) int {
	fr.groups(r, ps, pe)
	g, n := int64(fr.groupOf[i-ps]), int64(len(fr.groupStart)-1)
	var t int64
	switch {
	case kind == sql.OffsetFollowing && off >= n-g:
		return pe
	case kind == sql.OffsetFollowing:
		t = g + off
	case off > g:
		return ps
	default:
		t = g - off
	}
	if isEnd {
		return fr.groupStart[t+1]
	}
	return fr.groupStart[t]
}

// excluded is the range [xs, xe) of sorted positions the EXCLUDE clause
// leaves out of the frame of position i in the partition [ps, pe), but
// for keep (-1: none), which EXCLUDE TIES keeps.
func (fr *frame) excluded(r *windowRows, i, ps, pe int) (xs, xe, keep int) {
	switch fr.spec.Exclude {
	case sql.ExcludeCurrentRow:
		return i, i + 1, -1
	case sql.ExcludeGroup:
		return r.peerStart(i, ps), r.peerEnd(i, pe), -1
	case sql.ExcludeTies:
		return r.peerStart(i, ps), r.peerEnd(i, pe), i
	}
	return 0, 0, -1
}

// framePositions calls yield with the sorted positions of the frame of
// position i in the partition [ps, pe), in order (backwards with
// reverse), until yield returns false.
func (fr *frame) framePositions(r *windowRows, i, ps, pe int, reverse bool, yield func(p int) bool) {
	s, e := fr.bounds(r, i, ps, pe)
	xs, xe, keep := fr.excluded(r, i, ps, pe)
	in := func(p int) bool { return p < xs || p >= xe || p == keep }
	if reverse {
		for p := e - 1; p >= s; p-- {
			if in(p) && !yield(p) {
				return
			}
		}
		return
	}
	for p := s; p < e; p++ {
		if in(p) && !yield(p) {
			return
		}
	}
}

// evalRanges evaluates a RANGE frame's key and bound values over in, and
// checks that no offset is negative (22013).
func (fr *frame) evalRanges(ev *evaluator, f *sql.WindowFunc, in arrow.Record) error {
	spec := fr.spec
	if spec.RangeKey == nil {
		return nil
	}
	order := f.Order[0]
	key := func(e sql.Expr) sql.SortKey {
		if e == nil {
			e = spec.RangeKey
		}
		return sql.SortKey{Expr: e, Desc: order.Desc, NullsFirst: order.NullsFirst}
	}
	ke := newKeyEvaluator([]sql.SortKey{key(spec.RangeKey), key(spec.Start.Bound), key(spec.End.Bound)})
	var err error
	if fr.ranges, err = ke.rows(ev, in, nil); err != nil {
		return err
	}
	fr.rangeSpec = &ke.specs[0]
	for _, v := range fr.ranges {
		if v[0].null {
			continue
		}
		// A PRECEDING bound lies before the key in the sort order, a
		// FOLLOWING one after it; otherwise the offset was negative.
		for k, b := range []sql.FrameBound{spec.Start, spec.End} {
			if b.Bound != nil && v[1+k].null {
				return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "frame %s offset must not be null", [2]string{"starting", "ending"}[k])
			}
			c := fr.rangeSpec.compare(&v[1+k], &v[0])
			if b.Kind == sql.OffsetPreceding && c > 0 || b.Kind == sql.OffsetFollowing && c < 0 {
				return pgerr.New(pgerrcode.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")
			}
		}
	}
	return nil
}

// rangeBound is the start (or, isEnd, the end) of the RANGE frame of
// sorted position i in the partition [ps, pe): the first row whose key
// reaches the row's bound value (the first past it, for the end). The
// frame of a row with a NULL key is its NULL peers.
func (fr *frame) rangeBound(r *windowRows, i, ps, pe int, isEnd bool) int {
	cur := fr.ranges[r.order[i]]
	key := func(p int) *sortVal { return &fr.ranges[r.order[p]][0] }
	if cur[0].null {
		if isEnd {
			return r.peerEnd(i, pe)
		}
		return r.peerStart(i, ps)
	}
	lo, hi := ps, pe // the partition's rows with a key
	if fr.rangeSpec.nullsFirst {
		lo += sort.Search(pe-ps, func(k int) bool { return !key(ps + k).null })
	} else {
		hi = ps + sort.Search(pe-ps, func(k int) bool { return key(ps + k).null })
	}
	if isEnd {
		return lo + sort.Search(hi-lo, func(k int) bool { return fr.rangeSpec.compare(key(lo+k), &cur[2]) > 0 })
	}
	return lo + sort.Search(hi-lo, func(k int) bool { return fr.rangeSpec.compare(key(lo+k), &cur[1]) >= 0 })
}

// newFrame evaluates the frame's offsets (constants; never negative).
func newFrame(ev *evaluator, f *sql.WindowFunc) (*frame, error) {
	fr := &frame{spec: f.Frame, groupPS: -1}
	for _, b := range []struct {
		bound *sql.FrameBound
		dst   *int64
		which string
	}{{&f.Frame.Start, &fr.start, "starting"}, {&f.Frame.End, &fr.end, "ending"}} {
		if b.bound.Offset == nil {
			continue
		}
		v, err := EvalScalar(ev.ctx, ev.rt, b.bound.Offset)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "frame %s offset must not be null", b.which)
		}
		if *b.dst = v.(int64); *b.dst < 0 {
			return nil, pgerr.New(pgerrcode.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", b.which)
		}
	}
	return fr, nil
}

// fromStart reports whether every frame starts at the partition's first
// row and leaves none out, so one running aggregate state serves the
// whole partition.
func (fr *frame) fromStart() bool {
	return fr.spec.Start.Kind == sql.UnboundedPreceding && fr.spec.Exclude == sql.ExcludeNoOthers
}

// bounds is the frame [s, e) of sorted position i in the partition
// [ps, pe); empty when s >= e.
func (fr *frame) bounds(r *windowRows, i, ps, pe int) (s, e int) {
	at := func(b sql.FrameBound, off int64, isEnd bool) int {
		switch b.Kind {
		case sql.UnboundedPreceding:
			return ps
		case sql.UnboundedFollowing:
			return pe
		case sql.OffsetPreceding, sql.OffsetFollowing:
			if fr.spec.Groups {
				return fr.groupBound(r, b.Kind, off, i, ps, pe, isEnd)
			}
			if !fr.spec.Rows {
				return fr.rangeBound(r, i, ps, pe, isEnd)
			}
			// i ± off, saturated just outside the partition: an offset
			// near 2^63 would wrap around.
			p := int64(i)
			switch {
			case b.Kind == sql.OffsetFollowing && off > int64(pe)-p:
				p = int64(pe)
			case b.Kind == sql.OffsetFollowing:
				p += off
			case off > p-int64(ps):
				p = int64(ps) - 1
			default:
				p -= off
			}
			if isEnd {
				p++
			}
			return int(max(min(p, int64(pe)), int64(ps)))
		}
		// CURRENT ROW: the row itself in ROWS mode, its peers in RANGE.
		switch {
		case fr.spec.Rows && isEnd:
			return i + 1
		case fr.spec.Rows:
			return i
		case isEnd:
			return r.peerEnd(i, pe)
		}
		return r.peerStart(i, ps)
	}
	return at(fr.spec.Start, fr.start, false), at(fr.spec.End, fr.end, true)
}

// aggregate computes an aggregate over each row's frame in one partition
// [start, end) of the sorted rows. Frames that all start at the
// partition's first row share one running state; others are aggregated
// afresh for each row.
func (w *windowOp) aggregate(ev *evaluator, f *sql.WindowFunc, r *windowRows, fr *frame, filter vec, start, end int, out []any) error {
	argTypes := make([]types.T, len(f.Agg.Args))
	for i, a := range f.Agg.Args {
		argTypes[i] = a.Type()
	}
	args := make([]any, len(argTypes))
	var state functions.AggState
	stepped := 0
	step := func(from, upTo int) error {
		for ; from < upTo; from++ {
			row := r.order[from]
			if f.Agg.Filter != nil && triAt(filter, row) != triTrue {
				continue
			}
			skip := false
			for k := range args {
				args[k] = r.arg(k, row)
				skip = skip || args[k] == nil && !f.Agg.Agg.NullCall
			}
			if !skip {
				if err := state.Step(ev.fn, args); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := start; i < end; i++ {
		// A row's result may cost as much as its frame (jsonb_agg over
		// a running frame builds all of it): 20,000 rows took minutes,
		// and the statement must stay cancellable meanwhile.
		if err := ev.checkCtx(); err != nil {
			return err
		}
		s, e := fr.bounds(r, i, start, end)
		if fr.spec.Exclude != sql.ExcludeNoOthers {
			// The frame less the excluded rows, afresh for each row.
			state = f.Agg.Agg.New(argTypes)
			var err error
			fr.framePositions(r, i, start, end, false, func(p int) bool {
				err = step(p, p+1)
				return err == nil
			})
			if err != nil {
				return err
			}
			v, err := state.Result(ev.fn)
			if err != nil {
				return err
			}
			out[r.order[i]] = v
			continue
		}
		if !fr.fromStart() || state == nil {
			state, stepped = f.Agg.Agg.New(argTypes), s
		}
		if e > stepped {
			if err := step(stepped, e); err != nil {
				return err
			}
			stepped = e
		}
		v, err := state.Result(ev.fn)
		if err != nil {
			return err
		}
		out[r.order[i]] = v
	}
	return nil
}

// windowFunction computes a window-only function over one partition
// [start, end) of the sorted rows.
func windowFunction(f *sql.WindowFunc, r *windowRows, fr *frame, start, end int, out []any) error {
	size := end - start
	rank, dense := int64(1), int64(1)
	for i := start; i < end; i++ {
		row := r.order[i]
		pos := i - start // 0-based position in the partition
		if i > start && !r.samePeers(i-1, i) {
			rank, dense = int64(pos+1), dense+1
		}
		switch f.Name {
		case "row_number":
			out[row] = int64(pos + 1)
		case "rank":
			out[row] = rank
		case "dense_rank":
			out[row] = dense
		case "percent_rank":
			if size <= 1 {
				out[row] = 0.0
			} else {
				out[row] = float64(rank-1) / float64(size-1)
			}
		case "cume_dist":
			out[row] = float64(r.peerEnd(i, end)-start) / float64(size)
		case "ntile":
			buckets := r.arg(0, row)
			if buckets == nil {
				out[row] = nil
				continue
			}
			nb := buckets.(int64)
			if nb <= 0 {
				return errNtile()
			}
			out[row] = ntile(int64(pos), int64(size), nb)
		case "lag", "lead":
			offset := int64(1)
			if len(f.Args) >= 2 {
				o := r.arg(1, row)
				if o == nil {
					out[row] = nil
					continue
				}
				offset = o.(int64)
			}
			if f.Name == "lag" {
				offset = -offset
			}
			if j := int64(i) + offset; j >= int64(start) && j < int64(end) {
				out[row] = r.arg(0, r.order[j])
			} else if len(f.Args) == 3 {
				out[row] = r.arg(2, row)
			} else {
				out[row] = nil
			}
		case "first_value", "last_value":
			out[row] = nil
			fr.framePositions(r, i, start, end, f.Name == "last_value", func(p int) bool {
				out[row] = r.arg(0, r.order[p])
				return false
			})
		case "nth_value":
			nv := r.arg(1, row)
			if nv == nil {
				out[row] = nil
				continue
			}
			k := nv.(int64)
			if k <= 0 {
				return errNthValue()
			}
			out[row] = nil
			fr.framePositions(r, i, start, end, false, func(p int) bool {
				if k--; k > 0 {
					return true
				}
				out[row] = r.arg(0, r.order[p])
				return false
			})
		default:
			return internalErr("unknown window function %s", f.Name)
		}
	}
	return nil
}

// ntile is the bucket (1-based) of position pos of size rows split into
// n buckets as evenly as possible, the first size%n buckets one larger.
func ntile(pos, size, n int64) int64 {
	per, extra := size/n, size%n
	if per == 0 {
		return pos + 1
	}
	big := extra * (per + 1) // rows in the larger buckets
	if pos < big {
		return pos/(per+1) + 1
	}
	return extra + (pos-big)/per + 1
}

func errNtile() error {
	return pgerr.New(pgerrcode.InvalidArgumentForNtileFunction, "argument of ntile must be greater than zero")
}

func errNthValue() error {
	return pgerr.New(pgerrcode.InvalidArgumentForNthValueFunction, "argument of nth_value must be greater than zero")
}
