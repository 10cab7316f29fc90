package exec

import (
	"context"
	"errors"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// bm25Key identifies a prepared BM25 query: the corpus column and the
// query text.
type bm25Key struct {
	table  uint64
	column int
	query  string
}

// bm25Query prepares query text for the search operator op against the
// corpus of a table column, once per statement: op's Prepare hook reads
// the column's statistics (BM25's: its documents, their average length
// and the document frequency of each query term). Both search operators
// share BM25's hook, so a prepared query serves either.
func (rt *Runtime) bm25Query(ctx context.Context, op *functions.Overload, table uint64, column int, query string) (*functions.BM25Query, error) {
	key := bm25Key{table, column, query}
	if q, ok := rt.bm25[key]; ok {
		return q, nil
	}
	q, err := op.Prepare(corpus{ctx: ctx, rt: rt, table: table, column: column}, query)
	if err != nil {
		return nil, err
	}
	if rt.bm25 == nil {
		rt.bm25 = map[bm25Key]*functions.BM25Query{}
	}
	rt.bm25[key] = q
	return q, nil
}

// corpus is a table column as a search operator's Prepare hook reads it
// (functions.Corpus), in the statement's transaction.
type corpus struct {
	ctx    context.Context
	rt     *Runtime
	table  uint64
	column int
}

// IndexStats implements functions.Corpus from the column's text index.
func (c corpus) IndexStats(terms []string) (docs, tokens int64, docFreq []int64, ok bool, err error) {
	docs, tokens, docFreq, err = c.rt.Tx.TextStats(c.table, c.column, terms)
	if errors.Is(err, storage.ErrNoTextIndex) {
		return 0, 0, nil, false, nil
	}
	return docs, tokens, docFreq, err == nil, err
}

// Texts implements functions.Corpus by reading the whole column.
func (c corpus) Texts(fn func(text string)) error {
	rr, err := c.rt.Tx.Scan(c.ctx, c.table, []int{c.column}, false)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		col, ok := rr.Record().Column(0).(*array.String)
		if !ok {
			return pgerr.New(pgerrcode.DatatypeMismatch, "BM25 needs a text column")
		}
		for i := 0; i < col.Len(); i++ {
			if !col.IsNull(i) {
				fn(col.Value(i))
			}
		}
	}
	return rr.Err()
}

// textScores are the BM25 scores of the rows of a column that hold a
// query term, from the table's text index: IDs[i] scores Scores[i].
type textScores struct {
	IDs    []int64
	Scores []float64
	byID   map[int64]float64
}

// within returns the matches whose row is in allow.
func (t *textScores) within(allow *roaring64.Bitmap) *textScores {
	out := &textScores{}
	for i, id := range t.IDs {
		if allow.Contains(uint64(id)) {
			out.IDs = append(out.IDs, id)
			out.Scores = append(out.Scores, t.Scores[i])
		}
	}
	return out
}

// score looks a row's score up by ID (0 for a row without a query term).
func (t *textScores) score(id int64) float64 {
	if t.byID == nil {
		t.byID = make(map[int64]float64, len(t.IDs))
		for i, id := range t.IDs {
			t.byID[id] = t.Scores[i]
		}
	}
	return t.byID[id]
}

// bm25Matches scores every row of the column that holds a query term,
// from the table's text index, once per statement. ok is false when the
// column has no text index.
func (rt *Runtime) bm25Matches(ctx context.Context, op *functions.Overload, table uint64, column int, query string) (*textScores, bool, error) {
	key := bm25Key{table, column, query}
	if m, ok := rt.bm25Rows[key]; ok {
		return m, true, nil
	}
	q, err := rt.bm25Query(ctx, op, table, column, query)
	if err != nil {
		return nil, false, err
	}
	terms := q.UniqueTerms()
	matches, err := rt.Tx.TextSearch(ctx, table, column, terms)
	if errors.Is(err, storage.ErrNoTextIndex) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rt.indexSearch(table, "", SearchBM25)
	// TextSearch orders its terms as given: map them onto the query's tf
	// slots.
	slot := make([]int, len(matches.Terms))
	for i, t := range matches.Terms {
		slot[i] = slices.Index(terms, t)
	}
	out := &textScores{IDs: make([]int64, 0, matches.Len()), Scores: make([]float64, 0, matches.Len())}
	tf := make([]int, len(terms))
	for i := 0; i < matches.Len(); i++ {
		clear(tf)
		for t := range matches.Terms {
			if slot[t] >= 0 {
				tf[slot[t]] = int(matches.Freq(i, t))
			}
		}
		if s := q.ScoreCounts(tf, int(matches.DocLen[i])); s > 0 {
			out.IDs = append(out.IDs, matches.RowIDs[i])
			out.Scores = append(out.Scores, s)
		}
	}
	if rt.bm25Rows == nil {
		rt.bm25Rows = map[bm25Key]*textScores{}
	}
	rt.bm25Rows[key] = out
	return out, true, nil
}

// evalBM25 scores each row's text for the query (0 when no term matches,
// NULL for a NULL text or query).
func (ev *evaluator) evalBM25(e *sql.BM25Score, b batch) (vec, error) {
	qv, err := ev.eval(e.Query, batch{n: 1})
	if err != nil {
		return vec{}, err
	}
	qtext, _ := qv.at(0).(string)
	qnull := qv.isNull(0)
	qv.release()
	if qnull {
		return constVec(nil, e.Type()), nil
	}
	q, err := ev.rt.bm25Query(ev.ctx, e.Op, e.Table, e.Column, qtext)
	if err != nil {
		return vec{}, err
	}
	tv, err := ev.eval(e.Text, b)
	if err != nil {
		return vec{}, err
	}
	defer tv.release()
	score, done, err := ev.bm25Scorer(e, q, qtext, b)
	if err != nil {
		return vec{}, err
	}
	defer done()
	out := array.NewFloat32Builder(ev.mem)
	defer out.Release()
	out.Reserve(b.n)
	for i := 0; i < b.n; i++ {
		if tv.isNull(i) {
			out.AppendNull()
			continue
		}
		out.Append(float32(score(i, tv)))
	}
	return vec{arr: out.NewArray(), t: e.Type()}, nil
}

// bm25Scorer returns the BM25 score of row i of a batch: looked up by row
// ID in the text index's matches when the scan carries row IDs and the
// column has an index, computed from the row's text otherwise.
// The caller calls done when it has scored the batch.
func (ev *evaluator) bm25Scorer(e *sql.BM25Score, q *functions.BM25Query, qtext string, b batch) (score func(i int, text vec) float64, done func(), err error) {
	if e.RowID != nil {
		matches, ok, err := ev.rt.bm25Matches(ev.ctx, e.Op, e.Table, e.Column, qtext)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			idv, err := ev.eval(e.RowID, b)
			if err != nil {
				return nil, nil, err
			}
			if ids, isInt := idv.arr.(*array.Int64); isInt {
				vals := ids.Int64Values()
				return func(i int, _ vec) float64 { return matches.score(vals[i]) }, idv.release, nil
			}
			idv.release()
		}
	}
	var tf []int
	return func(i int, text vec) float64 {
		var s float64
		s, tf = q.Score(text.at(i).(string), tf)
		return s
	}, func() {}, nil
}
