package exec

import (
	"context"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// bm25Key identifies a prepared BM25 query: the corpus column and the
// query text.
type bm25Key struct {
	table  uint64
	column int
	query  string
}

// bm25Query prepares query text against the corpus statistics of a table
// column, once per statement: N documents (non-NULL rows visible to the
// transaction), their average length and the document frequency of each
// query term.
func (rt *Runtime) bm25Query(ctx context.Context, table uint64, column int, query string) (*functions.BM25Query, error) {
	key := bm25Key{table, column, query}
	if q, ok := rt.bm25[key]; ok {
		return q, nil
	}
	terms := functions.Tokenize(query)
	stats := &functions.BM25Stats{DocFreq: map[string]int64{}}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	rr, err := rt.Tx.Scan(ctx, table, []int{column}, false)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	seen := map[string]bool{}
	for rr.Next() {
		col, ok := rr.Record().Column(0).(*array.String)
		if !ok {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "BM25 needs a text column")
		}
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				continue
			}
			stats.Docs++
			clear(seen)
			functions.ForEachToken(col.Value(i), func(tok string) {
				stats.TotalTokens++
				if want[tok] && !seen[tok] {
					seen[tok] = true
					stats.DocFreq[tok]++
				}
			})
		}
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	q := functions.PrepareBM25(query, stats)
	if rt.bm25 == nil {
		rt.bm25 = map[bm25Key]*functions.BM25Query{}
	}
	rt.bm25[key] = q
	return q, nil
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
	q, err := ev.rt.bm25Query(ev.ctx, e.Table, e.Column, qtext)
	if err != nil {
		return vec{}, err
	}
	tv, err := ev.eval(e.Text, b)
	if err != nil {
		return vec{}, err
	}
	defer tv.release()
	out := array.NewFloat32Builder(ev.mem)
	defer out.Release()
	out.Reserve(b.n)
	var tf []int
	for i := 0; i < b.n; i++ {
		if tv.isNull(i) {
			out.AppendNull()
			continue
		}
		var s float64
		s, tf = q.Score(tv.at(i).(string), tf)
		out.Append(float32(s))
	}
	return vec{arr: out.NewArray(), t: e.Type()}, nil
}
