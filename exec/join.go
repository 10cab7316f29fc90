package exec

import (
	"context"
	"errors"
	"io"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// Join materialises its right input and streams its left input against it:
// a hash join on the equality keys when the node has them (NULL keys never
// match), a nested loop otherwise. The residual condition is evaluated over
// candidate pairs in batches. Output follows the left input's order, each
// left row followed by its matches; RIGHT and FULL joins emit the right rows
// no left row matched at the end. Semi and anti joins output left rows only.
type Join struct {
	rt     *Runtime
	node   *sql.Join
	left   Operator
	right  Operator
	schema *arrow.Schema
	// joined is the schema of left+right rows that Cond is evaluated over.
	joined   *arrow.Schema
	nl, nr   int
	leftOnly bool

	keyTypes []types.T // common type of each key pair; Unknown: none needed
	lconv    []bool    // left key k must be cast to keyTypes[k]
	rconv    []bool

	built    bool
	rbatches []arrow.Record
	rrows    []rowcopy.Ref // right row number -> batch and row
	table    map[string][]int32
	matchedR []bool
	// acct counts the build side (its batches, row references and hash
	// table) in the statement's budget.
	acct memAccount

	probe     arrow.Record
	cands     [][]int32 // hash join: candidate right rows per left row
	matchedL  []bool
	li, mi    int
	leftDone  bool
	tailPos   int
	emptyDone bool
	out       outSlot
}

func newJoin(rt *Runtime, n *sql.Join, l, r Operator) *Join {
	j := &Join{rt: rt, node: n, left: l, right: r, schema: schemaOf(n.Out), acct: rt.account()}
	j.nl = len(n.Left.Columns())
	j.nr = len(n.Right.Columns())
	fields := append(append([]arrow.Field(nil), schemaOf(n.Left.Columns()).Fields()...), schemaOf(n.Right.Columns()).Fields()...)
	j.joined = arrow.NewSchema(fields, nil)
	j.leftOnly = n.Kind == sql.SemiJoin || n.Kind == sql.AntiJoin || len(n.Out) == j.nl
	j.keyTypes = make([]types.T, len(n.EquiLeft))
	j.lconv = make([]bool, len(n.EquiLeft))
	j.rconv = make([]bool, len(n.EquiLeft))
	for k := range n.EquiLeft {
		lt, rt := n.EquiLeft[k].Type(), n.EquiRight[k].Type()
		j.keyTypes[k] = lt
		if hashCompatible(lt, rt) || hashCompatible(rt, lt) {
			continue
		}
		common := joinKeyType(lt, rt)
		j.keyTypes[k] = common
		j.lconv[k] = !common.Equal(lt)
		j.rconv[k] = !common.Equal(rt)
	}
	return j
}

// joinKeyType is the type two differently typed equality keys are
// compared in.
func joinKeyType(a, b types.T) types.T {
	ca, cb := keyClassOf(a), keyClassOf(b)
	switch {
	case ca == classFloat || cb == classFloat:
		if a.IsNumeric() && b.IsNumeric() {
			return types.Float8T
		}
	case a.Family == types.Numeric || b.Family == types.Numeric:
		if a.IsNumeric() && b.IsNumeric() {
			return types.NumericT
		}
	case ca == classString || cb == classString:
		return types.TextT
	}
	return a
}

// Schema implements Operator.
func (j *Join) Schema() *arrow.Schema { return j.schema }

func (j *Join) hashed() bool { return len(j.node.EquiLeft) > 0 }

// rowKeys computes the hash key of each row of a batch and calls fn with
// it (key is only valid during the call; null reports a NULL in the key).
func (j *Join) rowKeys(ev *evaluator, exprs []sql.Expr, conv []bool, b batch, fn func(i int, key []byte, null bool)) error {
	vals, err := ev.evalArgs(exprs, b)
	if err != nil {
		return err
	}
	defer releaseVecs(vals)
	var kb []byte
	for i := 0; i < b.n; i++ {
		kb = kb[:0]
		null := false
		for k, v := range vals {
			if v.isNull(i) {
				null = true
				break
			}
			if conv[k] {
				c, err := castValue(ev.fn, v.at(i), v.t, j.keyTypes[k], false)
				if err != nil {
					return err
				}
				kb = appendDatumKey(kb, c, j.keyTypes[k])
			} else {
				kb = appendVecKey(kb, v, i)
			}
		}
		fn(i, kb, null)
	}
	return nil
}

// build materialises the right input (and its hash table).
func (j *Join) build(ctx context.Context, ev *evaluator) error {
	j.built = true
	if j.hashed() {
		j.table = map[string][]int32{}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := j.right.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		// Each row costs its rowcopy.Ref, its entry in a key's row list and
		// its matched flag; each new key its bytes and a map entry.
		if err := j.acct.growRecord(rec, int64(unsafe.Sizeof(rowcopy.Ref{}))+4+1); err != nil {
			return err
		}
		bi := int32(len(j.rbatches))
		rec.Retain()
		j.rbatches = append(j.rbatches, rec)
		base := int32(len(j.rrows))
		for i := 0; i < n; i++ {
			j.rrows = append(j.rrows, rowcopy.Ref{Src: bi, Row: int32(i)})
		}
		if j.hashed() {
			var keyBytes int64
			err := j.rowKeys(ev, j.node.EquiRight, j.rconv, batchOf(rec), func(i int, key []byte, null bool) {
				if !null {
					rows, ok := j.table[string(key)]
					if !ok {
						keyBytes += int64(len(key)) + memMapEntry
					}
					j.table[string(key)] = append(rows, base+int32(i))
				}
			})
			if err != nil {
				return err
			}
			if err := j.acct.grow(keyBytes); err != nil {
				return err
			}
		}
	}
	if j.node.Kind == sql.RightJoin || j.node.Kind == sql.FullJoin {
		j.matchedR = make([]bool, len(j.rrows))
	}
	return nil
}

// nextProbe pulls the next left batch; false at the end of the left input.
func (j *Join) nextProbe(ctx context.Context, ev *evaluator) (bool, error) {
	if j.probe != nil {
		j.probe.Release()
		j.probe = nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		rec, err := j.left.Next(ctx)
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		rec.Retain()
		j.probe = rec
		j.li, j.mi = 0, 0
		j.matchedL = make([]bool, n)
		if j.hashed() {
			j.cands = make([][]int32, n)
			err := j.rowKeys(ev, j.node.EquiLeft, j.lconv, batchOf(rec), func(i int, key []byte, null bool) {
				if !null {
					j.cands[i] = j.table[string(key)]
				}
			})
			if err != nil {
				return false, err
			}
		}
		return true, nil
	}
}

// candidates is the number of right rows left row i may match, and the
// m-th of them.
func (j *Join) candCount(i int) int {
	if j.hashed() {
		return len(j.cands[i])
	}
	return len(j.rrows)
}

func (j *Join) cand(i, m int) int32 {
	if j.hashed() {
		return j.cands[i][m]
	}
	return int32(m)
}

// joinItem is a candidate pair (r >= 0) or the end of left row l's
// candidates (r < 0).
type joinItem struct {
	l, r int32
}

// Next implements Operator.
func (j *Join) Next(ctx context.Context) (arrow.Record, error) {
	j.out.release()
	ev := newEvaluator(ctx, j.rt)
	if !j.built {
		if err := j.build(ctx, ev); err != nil {
			return nil, err
		}
	}
	kind := j.node.Kind
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if j.probe == nil && !j.leftDone {
			if len(j.rrows) == 0 && (kind == sql.InnerJoin || kind == sql.CrossJoin || kind == sql.SemiJoin || kind == sql.RightJoin) {
				j.leftDone = true
				continue
			}
			ok, err := j.nextProbe(ctx, ev)
			if err != nil {
				return nil, err
			}
			if !ok {
				j.leftDone = true
			}
			continue
		}
		if j.leftDone {
			return j.tail()
		}
		rec, err := j.chunk(ev)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			return j.out.set(rec), nil
		}
	}
}

// chunk processes up to batchSize candidate pairs of the current probe
// batch and returns the output rows they give (nil when none).
func (j *Join) chunk(ev *evaluator) (arrow.Record, error) {
	kind := j.node.Kind
	n := int(j.probe.NumRows())
	existence := (kind == sql.SemiJoin || kind == sql.AntiJoin) && j.node.Cond == nil
	var items []joinItem
	pairs := 0
	for j.li < n && pairs < batchSize {
		i := j.li
		if existence {
			j.matchedL[i] = j.candCount(i) > 0
			items = append(items, joinItem{l: int32(i), r: -1})
			j.li++
			continue
		}
		if kind == sql.SemiJoin && j.matchedL[i] {
			j.mi = j.candCount(i)
		}
		cnt := j.candCount(i)
		for j.mi < cnt && pairs < batchSize {
			items = append(items, joinItem{l: int32(i), r: j.cand(i, j.mi)})
			j.mi++
			pairs++
		}
		if j.mi < cnt {
			break // the chunk is full; continue this row next time
		}
		items = append(items, joinItem{l: int32(i), r: -1})
		j.li++
		j.mi = 0
	}
	if j.li >= n {
		defer func() {
			j.probe.Release()
			j.probe = nil
		}()
	}
	// Evaluate the residual condition over the candidate pairs.
	var pass []bool
	if j.node.Cond != nil && pairs > 0 {
		refsL := make([]rowcopy.Ref, 0, pairs)
		refsR := make([]rowcopy.Ref, 0, pairs)
		for _, it := range items {
			if it.r >= 0 {
				refsL = append(refsL, rowcopy.Ref{Src: 0, Row: it.l})
				refsR = append(refsR, j.rrows[it.r])
			}
		}
		cand, err := j.pairRecord(j.joined, refsL, refsR, false)
		if err != nil {
			return nil, err
		}
		mask, err := ev.eval(j.node.Cond, batchOf(cand))
		cand.Release()
		if err != nil {
			return nil, err
		}
		pass = make([]bool, pairs)
		for p := range pass {
			pass[p] = triAt(mask, p) == triTrue
		}
		mask.release()
	}
	var outL, outR []rowcopy.Ref
	p := 0
	for _, it := range items {
		if it.r >= 0 {
			ok := pass == nil || pass[p]
			p++
			if !ok {
				continue
			}
			first := !j.matchedL[it.l]
			j.matchedL[it.l] = true
			if j.matchedR != nil {
				j.matchedR[it.r] = true
			}
			switch kind {
			case sql.SemiJoin:
				if first {
					outL = append(outL, rowcopy.Ref{Row: it.l})
				}
			case sql.AntiJoin:
			default:
				outL = append(outL, rowcopy.Ref{Row: it.l})
				outR = append(outR, j.rrows[it.r])
			}
			continue
		}
		// End of row it.l's candidates.
		matched := j.matchedL[it.l]
		switch {
		case existence && kind == sql.SemiJoin && matched,
			kind == sql.AntiJoin && !matched:
			outL = append(outL, rowcopy.Ref{Row: it.l})
		case (kind == sql.LeftJoin || kind == sql.FullJoin) && !matched:
			outL = append(outL, rowcopy.Ref{Row: it.l})
			outR = append(outR, rowcopy.Ref{Src: -1})
		}
	}
	if len(outL) == 0 {
		return nil, nil
	}
	return j.pairRecord(j.schema, outL, outR, j.leftOnly)
}

// pairRecord builds a batch of schema from left rows of the probe batch
// (refsL) and right rows (refsR); leftOnly skips the right columns.
func (j *Join) pairRecord(schema *arrow.Schema, refsL, refsR []rowcopy.Ref, leftOnly bool) (arrow.Record, error) {
	mem := j.rt.mem()
	ncols := j.nl
	if !leftOnly {
		ncols += j.nr
	}
	cols := make([]arrow.Array, 0, ncols)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	var lsrc []arrow.Array
	if j.probe != nil {
		lsrc = []arrow.Array{nil}
	}
	for c := 0; c < j.nl; c++ {
		if lsrc != nil {
			lsrc[0] = j.probe.Column(c)
		}
		arr, err := rowcopy.Gather(mem, schema.Field(c).Type, lsrc, refsL)
		if err != nil {
			return nil, err
		}
		cols = append(cols, arr)
	}
	if !leftOnly {
		rsrc := make([]arrow.Array, len(j.rbatches))
		for c := 0; c < j.nr; c++ {
			for b, rec := range j.rbatches {
				rsrc[b] = rec.Column(c)
			}
			arr, err := rowcopy.Gather(mem, schema.Field(j.nl+c).Type, rsrc, refsR)
			if err != nil {
				return nil, err
			}
			cols = append(cols, arr)
		}
	}
	return array.NewRecord(schema, cols, int64(len(refsL))), nil
}

// tail emits the right rows no left row matched (RIGHT and FULL joins).
func (j *Join) tail() (arrow.Record, error) {
	if j.matchedR == nil {
		return nil, io.EOF
	}
	var outL, outR []rowcopy.Ref
	for j.tailPos < len(j.rrows) && len(outR) < batchSize {
		if !j.matchedR[j.tailPos] {
			outL = append(outL, rowcopy.Ref{Src: -1})
			outR = append(outR, j.rrows[j.tailPos])
		}
		j.tailPos++
	}
	if len(outR) == 0 {
		return nil, io.EOF
	}
	rec, err := j.pairRecord(j.schema, outL, outR, false)
	if err != nil {
		return nil, err
	}
	return j.out.set(rec), nil
}

// Close implements Operator.
func (j *Join) Close() {
	j.out.release()
	if j.probe != nil {
		j.probe.Release()
		j.probe = nil
	}
	for _, b := range j.rbatches {
		b.Release()
	}
	j.rbatches = nil
	j.table = nil
	j.acct.release()
	j.left.Close()
	j.right.Close()
}
