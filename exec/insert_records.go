package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
)

// RecordsIn is a COPY FROM whose rows its caller has already converted
// into Arrow records of the copied columns (the HTTP API's /ingest,
// straight from JSON): COPY FROM's insert (the table's row from the
// copied columns, the defaults of the others, every constraint, all or
// nothing) with the records in place of the data. The records stay the
// caller's; they are kept for the whole statement, so that a statement
// that meets a concurrent update can run again.
type RecordsIn struct {
	c      *sql.Copy
	schema *arrow.Schema
	recs   []arrow.Record
}

// NewRecordsIn prepares COPY c FROM STDIN over recs, whose columns are
// c.Columns' (the Arrow types of their SQL types).
func NewRecordsIn(c *sql.Copy, recs []arrow.Record) *RecordsIn {
	return &RecordsIn{c: c, schema: schemaOf(c.Columns), recs: recs}
}

// Run is one attempt at inserting the records in rt.Tx, through INSERT's
// path; it returns the rows inserted.
func (in *RecordsIn) Run(ctx context.Context, rt *Runtime) (int64, error) {
	op, err := copyInput(rt, in.c.Insert.Input, &recordsSource{in: in})
	if err != nil {
		return 0, err
	}
	out := newMaterialized(nil)
	defer out.Close()
	return insertRows(ctx, rt, in.c.Insert, op, out)
}

// recordsSource is the operator of a RecordsIn's CopySource: its records,
// in order.
type recordsSource struct {
	in   *RecordsIn
	next int
}

// Schema implements Operator.
func (s *recordsSource) Schema() *arrow.Schema { return s.in.schema }

// Next implements Operator.
func (s *recordsSource) Next(context.Context) (arrow.Record, error) {
	if s.next == len(s.in.recs) {
		return nil, io.EOF
	}
	s.next++
	return s.in.recs[s.next-1], nil
}

// Close implements Operator.
func (s *recordsSource) Close() {}
