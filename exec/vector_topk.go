package exec

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// efSearchDefault and probesDefault are hnsw.ef_search's and
// ivfflat.probes' defaults, pgvector's.
const (
	efSearchDefault = 40
	probesDefault   = 1
)

// vectorTopK runs sql.VectorTopK: the Count+Offset rows nearest to the
// query vector, found through the table's vector index (and exactly in
// the parts of the table the index does not cover yet), fetched by row
// ID, nearest first. Under a WHERE clause it first finds the qualifying
// rows (RowFilter), and the search accepts only them: storage scores them
// all by their codes where they are few and walks the index otherwise.
//
// The index holds only rows with a score, so where the search cannot
// give the whole answer it yields more rows, which the Sort above ranks
// as it ranks a scan's: with no LIMIT (ALL or NULL), every row (through
// inner, the scan under the WHERE clause); where the search finds fewer
// than Count+Offset rows (a query vector that scores no row, such as
// NULL, empty or zero, or fewer scored qualifying rows than that), the
// first other qualifying rows up to that number, which score NULL and
// rank last.
type vectorTopK struct {
	rt     *Runtime
	node   *sql.VectorTopK
	schema *arrow.Schema
	out    arrow.Record
	inner  Operator
	done   bool
}

func newVectorTopK(rt *Runtime, n *sql.VectorTopK) *vectorTopK {
	return &vectorTopK{rt: rt, node: n, schema: schemaOf(n.Columns())}
}

// Schema implements Operator.
func (v *vectorTopK) Schema() *arrow.Schema { return v.schema }

// Close implements Operator.
func (v *vectorTopK) Close() {
	if v.out != nil {
		v.out.Release()
		v.out = nil
	}
	if v.inner != nil {
		v.inner.Close()
	}
}

// Next implements Operator: the one batch of candidates.
func (v *vectorTopK) Next(ctx context.Context) (arrow.Record, error) {
	if v.inner != nil {
		return v.inner.Next(ctx)
	}
	if v.done {
		return nil, io.EOF
	}
	v.done = true
	start := time.Now()
	count, offset, err := limitValues(ctx, v.rt, v.node.Count, v.node.Offset)
	if err != nil || count == 0 {
		return nil, eofOr(err)
	}
	qv, err := EvalScalar(ctx, v.rt, v.node.Query)
	if err != nil {
		return nil, err
	}
	var query []float32
	if arr, ok := qv.(*types.Array); ok {
		query, _ = arr.Float32s()
	} else if qv != nil {
		return nil, internalErr("vector search query is %T", qv)
	}
	if count < 0 {
		return v.scanAll(ctx)
	}
	k := limitEnd(count, offset)
	scan := v.node.Scan
	var allow *roaring64.Bitmap
	if v.node.RowFilter != nil {
		if allow, err = qualifyingRows(ctx, v.rt, v.node.RowFilter); err != nil {
			return nil, err
		}
	}
	var hits []storage.VectorHit
	// With keys after the distance, the rows tied with the k-th are
	// candidates too: ask for twice as many while the hits end in a tie.
	for want := int(k); len(query) > 0; want *= 2 {
		if hits, err = v.rt.Tx.VectorSearch(ctx, scan.Table.ID, v.node.Index, query, want, vectorEffort(v.rt), allow); err != nil {
			return nil, err
		}
		if !v.node.TieBreak || len(hits) < want || hits[len(hits)-1].Dist != hits[k-1].Dist {
			break
		}
	}
	v.rt.indexSearch(scan.Table.ID, v.node.Index.Name, SearchVector)
	v.rt.searched(SearchVector, start, int64(len(hits)))
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.RowID
	}
	if int64(len(hits)) < k {
		if allow == nil {
			// Every row qualifies: list their IDs, reading no column.
			rowIDs := &sql.Scan{Table: scan.Table, Alias: scan.Alias, WithRowID: true,
				Out: []sql.Col{{Name: catalog.RowIDColumn, T: types.Int8T, Table: scan.Alias, Hidden: true}}}
			if allow, err = qualifyingRows(ctx, v.rt, rowIDs); err != nil {
				return nil, err
			}
		}
		ids = appendUnscored(ids, allow, k)
	}
	if len(ids) == 0 {
		return nil, io.EOF
	}
	rec, err := v.rt.Tx.FetchRows(ctx, scan.Table.ID, scan.Cols, ids)
	if err != nil {
		return nil, err
	}
	v.rt.indexRows(scan.Table.ID, v.node.Index.Name, rec.NumRows())
	cols := rec.Columns()
	if !scan.WithRowID {
		cols = cols[:len(cols)-1]
	}
	v.out = array.NewRecord(v.schema, cols, rec.NumRows())
	rec.Release()
	return v.out, nil
}

// scanAll answers from the table's scan under the WHERE clause instead of
// the index (there is no LIMIT): the Sort above ranks every row.
func (v *vectorTopK) scanAll(ctx context.Context) (arrow.Record, error) {
	var plan sql.Node = v.node.Scan
	if v.node.Filter != nil {
		plan = &sql.Filter{Input: plan, Cond: v.node.Filter}
	}
	var err error
	if v.inner, err = Build(v.rt, plan); err != nil {
		return nil, err
	}
	return v.inner.Next(ctx)
}

// appendUnscored appends to ids, the row IDs of a search's hits (all the
// qualifying rows it could score, fewer than k), the other rows of allow:
// qualifying rows the index leaves out, whose score is NULL or NaN (a
// vector type's cosine distance to a zero vector). When they are few
// (at most 4k+64) all of them go, for the Sort above to rank them (NaN
// before NULL); else the first of them until there are k.
func appendUnscored(ids []int64, allow *roaring64.Bitmap, k int64) []int64 {
	found := roaring64.BitmapOf()
	for _, id := range ids {
		found.Add(uint64(id))
	}
	rest := roaring64.AndNot(allow, found)
	all := rest.GetCardinality() <= uint64(4*k+64)
	it := rest.Iterator()
	for (all || int64(len(ids)) < k) && it.HasNext() {
		ids = append(ids, int64(it.Next()))
	}
	return ids
}

// qualifyingRows returns the row IDs of the rows that satisfy a WHERE
// clause: those rowFilter (a plan of one column of row IDs) yields.
func qualifyingRows(ctx context.Context, rt *Runtime, rowFilter sql.Node) (*roaring64.Bitmap, error) {
	op, err := Build(rt, rowFilter)
	if err != nil {
		return nil, err
	}
	ids := roaring64.New()
	err = Drain(ctx, op, func(rec arrow.Record) error {
		col := rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids.Add(uint64(col.Value(i)))
		}
		return nil
	})
	return ids, err
}

// vectorEffort is the session's hnsw.ef_search and ivfflat.probes.
func vectorEffort(rt *Runtime) storage.VectorEffort {
	return storage.VectorEffort{
		Ef:     intSetting(rt, "hnsw.ef_search", efSearchDefault),
		Probes: intSetting(rt, "ivfflat.probes", probesDefault),
	}
}

// intSetting is the session's positive integer setting name, or def.
func intSetting(rt *Runtime, name string, def int) int {
	if s := rt.fnCtx().Session; s != nil {
		if val, ok := s.Setting(name); ok {
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				return n
			}
		}
	}
	return def
}
