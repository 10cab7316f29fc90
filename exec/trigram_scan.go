package exec

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

// trigramFetchRows is how many candidate rows one batch fetches.
const trigramFetchRows = 4096

// trigramFetchMax is how many candidates are fetched by row ID at most:
// with more, gathering them one by one costs more than scanning the
// table's columns (from the column cache) and keeping the candidates.
const trigramFetchMax = 16384

// trigramScan runs sql.TrigramScan: it evaluates the patterns, has the
// trigram index find the rows holding their trigrams, and rechecks the
// whole WHERE clause on those: fetched by row ID when they are few, else
// kept from a scan of the table's columns by row ID (so the clause is
// evaluated on them only). Without a trigram to look for it runs
// Filter(Scan).
type trigramScan struct {
	rt     *Runtime
	node   *sql.TrigramScan
	schema *arrow.Schema
	inner  Operator // the recheck over the candidates, or Filter(Scan)
	done   bool     // no row can match
}

func newTrigramScan(rt *Runtime, n *sql.TrigramScan) *trigramScan {
	return &trigramScan{rt: rt, node: n, schema: schemaOf(n.Columns())}
}

// Schema implements Operator.
func (t *trigramScan) Schema() *arrow.Schema { return t.schema }

// Close implements Operator.
func (t *trigramScan) Close() {
	if t.inner != nil {
		t.inner.Close()
	}
}

// Next implements Operator.
func (t *trigramScan) Next(ctx context.Context) (arrow.Record, error) {
	if t.done {
		return nil, io.EOF
	}
	if t.inner == nil {
		if err := t.start(ctx); err != nil || t.done {
			return nil, eofOr(err)
		}
	}
	return t.inner.Next(ctx)
}

// start finds the candidates and sets up inner.
func (t *trigramScan) start(ctx context.Context) error {
	n := t.node
	filter := &sql.Filter{Input: n.Scan, Cond: n.Cond}
	var keys []trgmindex.Key
	for _, p := range n.Patterns {
		v, err := EvalScalar(ctx, t.rt, p.Pattern)
		if err != nil {
			return err
		}
		if v == nil {
			t.done = true // a NULL pattern: the conjunct is never true
			return nil
		}
		pat, ok := v.(string)
		if !ok {
			return internalErr("LIKE pattern is %T", v)
		}
		k, ok := trgmindex.LikeKeys(pat, p.Fold)
		if !ok {
			keys = nil
			break
		}
		keys = append(keys, k...)
	}
	if len(keys) == 0 {
		return t.scan(filter)
	}
	start := time.Now()
	ids, err := t.rt.Tx.TrigramSearch(ctx, n.Scan.Table.ID, n.Index.Columns[0], keys)
	if err != nil {
		return err
	}
	t.rt.indexSearch(n.Scan.Table.ID, SearchTrigram)
	t.rt.searched(SearchTrigram, start, int64(len(ids)))
	var source Operator = &fetchByID{rt: t.rt, scan: n.Scan, schema: t.schema, ids: ids}
	if len(ids) > trigramFetchMax {
		scan := *n.Scan
		if !scan.WithRowID {
			scan.WithRowID = true
			scan.Out = append(slices.Clip(scan.Out), sql.Col{Name: catalog.RowIDColumn, T: types.Int8T, Hidden: true})
		}
		set := roaring64.New()
		for _, id := range ids {
			set.Add(uint64(id))
		}
		source = &keepRows{rt: t.rt, input: newScan(t.rt, &scan), schema: t.schema, keep: set, dropRowID: !n.Scan.WithRowID}
	}
	t.inner = newFilter(t.rt, filter, source)
	return nil
}

// scan sets inner to Filter(Scan).
func (t *trigramScan) scan(filter *sql.Filter) error {
	op, err := Build(t.rt, filter)
	if err != nil {
		return err
	}
	t.inner = op
	return nil
}

// fetchByID returns the rows of a scan with the given IDs, in that order,
// trigramFetchRows at a time. A batch is valid until the next call.
type fetchByID struct {
	rt     *Runtime
	scan   *sql.Scan
	schema *arrow.Schema
	ids    []int64
	out    arrow.Record
}

// Schema implements Operator.
func (f *fetchByID) Schema() *arrow.Schema { return f.schema }

// Close implements Operator.
func (f *fetchByID) Close() { f.release() }

func (f *fetchByID) release() {
	if f.out != nil {
		f.out.Release()
		f.out = nil
	}
}

// Next implements Operator.
func (f *fetchByID) Next(ctx context.Context) (arrow.Record, error) {
	f.release()
	for len(f.ids) > 0 {
		n := min(len(f.ids), trigramFetchRows)
		rec, err := f.rt.Tx.FetchRows(ctx, f.scan.Table.ID, f.scan.Cols, f.ids[:n])
		if err != nil {
			return nil, err
		}
		f.ids = f.ids[n:]
		f.rt.indexRows(f.scan.Table.ID, rec.NumRows())
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		cols := rec.Columns()
		if !f.scan.WithRowID {
			cols = cols[:len(cols)-1]
		}
		f.out = array.NewRecord(f.schema, cols, rec.NumRows())
		rec.Release()
		return f.out, nil
	}
	return nil, io.EOF
}

// keepRows passes on the rows of its input (a scan with row IDs, the
// last column) whose row ID keep holds, without the row ID column when
// dropRowID. A batch is valid until the next call.
type keepRows struct {
	rt        *Runtime
	input     Operator
	schema    *arrow.Schema
	keep      *roaring64.Bitmap
	dropRowID bool
	out       arrow.Record
	sel       []int // the batch's kept rows, reused
}

// keptRows appends to sel the positions of ids that keep holds. A scan's
// row IDs mostly ascend within a batch: then keep is walked beside them
// with one iterator (a comparison a row) instead of a lookup of each (a
// quarter of a trigram-indexed ILIKE's time over a common word).
func keptRows(keep *roaring64.Bitmap, ids []int64, sel []int) []int {
	if !slices.IsSorted(ids) || len(ids) == 0 || ids[0] < 0 {
		for i, id := range ids {
			if keep.Contains(uint64(id)) {
				sel = append(sel, i)
			}
		}
		return sel
	}
	it := keep.Iterator()
	it.AdvanceIfNeeded(uint64(ids[0]))
	for i, id := range ids {
		if !it.HasNext() {
			break
		}
		next := it.PeekNext()
		if next < uint64(id) {
			it.AdvanceIfNeeded(uint64(id))
			if !it.HasNext() {
				break
			}
			next = it.PeekNext()
		}
		if next == uint64(id) {
			sel = append(sel, i)
			it.Next()
		}
	}
	return sel
}

// Schema implements Operator.
func (k *keepRows) Schema() *arrow.Schema { return k.schema }

// Close implements Operator.
func (k *keepRows) Close() {
	k.release()
	k.input.Close()
}

func (k *keepRows) release() {
	if k.out != nil {
		k.out.Release()
		k.out = nil
	}
}

// Next implements Operator.
func (k *keepRows) Next(ctx context.Context) (arrow.Record, error) {
	k.release()
	for {
		rec, err := k.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		ids := rec.Column(int(rec.NumCols()) - 1).(*array.Int64).Int64Values()
		k.sel = keptRows(k.keep, ids, k.sel[:0])
		if len(k.sel) == 0 {
			continue
		}
		kept, err := takeRecord(k.rt.mem(), rec, k.sel)
		if err != nil {
			return nil, err
		}
		cols := kept.Columns()
		if k.dropRowID {
			cols = cols[:len(cols)-1]
		}
		k.out = array.NewRecord(k.schema, cols, kept.NumRows())
		kept.Release()
		return k.out, nil
	}
}
