package exec

import (
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

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
	t.rt.indexSearch(n.Scan.Table.ID, n.Index.Name, SearchTrigram)
	t.rt.searched(SearchTrigram, start, int64(len(ids)))
	t.inner = newFilter(t.rt, filter, candidateRows(t.rt, n.Scan, n.Index.Name, t.schema, ids))
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
