package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
)

// Scan reads a table through the statement's transaction, passing the
// storage batches on (relabelled to the node's schema).
type Scan struct {
	rt     *Runtime
	node   *sql.Scan
	schema *arrow.Schema
	reader array.RecordReader
	out    outSlot
	done   bool
}

func newScan(rt *Runtime, n *sql.Scan) *Scan {
	return &Scan{rt: rt, node: n, schema: rt.schemaFor(n)}
}

// Schema implements Operator.
func (s *Scan) Schema() *arrow.Schema { return s.schema }

// Next implements Operator.
func (s *Scan) Next(ctx context.Context) (arrow.Record, error) {
	s.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.done {
		return nil, io.EOF
	}
	if s.reader == nil {
		if s.rt.Tx == nil {
			return nil, internalErr("scan of %s without a transaction", s.node.Table.Name)
		}
		if r, ok := s.rt.scanReaders[s.node]; ok {
			// One partition of a parallel scan (see parallel.go).
			s.reader = r
			delete(s.rt.scanReaders, s.node)
		} else {
			r, err := scanTable(ctx, s.rt.Tx, s.node.Table.ID, s.node.Cols, s.node.WithRowID)
			if err != nil {
				return nil, err
			}
			s.reader = r
			s.rt.seqScan(s.node.Table.ID)
		}
	}
	for s.reader.Next() {
		rec := s.reader.Record()
		if rec.NumRows() == 0 {
			continue
		}
		s.rt.seqRows(s.node.Table.ID, rec.NumRows())
		out, err := conformRecord(s.rt.mem(), rec, s.schema)
		if err != nil {
			return nil, err
		}
		return s.out.set(out), nil
	}
	s.done = true
	if err := s.reader.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// Close implements Operator.
func (s *Scan) Close() {
	s.out.release()
	if r, ok := s.rt.scanReaders[s.node]; ok {
		r.Release()
		delete(s.rt.scanReaders, s.node)
	}
	if s.reader != nil {
		s.reader.Release()
		s.reader = nil
	}
	s.done = true
}
