package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
)

// sharedCTEScan reads a WITH query computed once per statement
// (sql.SharedCTE): the first of its readers to run computes all its rows
// into the runtime, and every reader replays those.
type sharedCTEScan struct {
	rt     *Runtime
	node   *sql.SharedCTEScan
	schema *arrow.Schema
	rows   []arrow.Record
	loaded bool
	pos    int
}

func newSharedCTEScan(rt *Runtime, n *sql.SharedCTEScan) *sharedCTEScan {
	return &sharedCTEScan{rt: rt, node: n, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (s *sharedCTEScan) Schema() *arrow.Schema { return s.schema }

// Next implements Operator.
func (s *sharedCTEScan) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.loaded {
		rows, err := s.rt.sharedCTERows(ctx, s.node.CTE)
		if err != nil {
			return nil, err
		}
		s.rows, s.loaded = rows, true
	}
	if s.pos >= len(s.rows) {
		return nil, io.EOF
	}
	s.pos++
	return s.rows[s.pos-1], nil
}

// Close implements Operator.
func (s *sharedCTEScan) Close() {}

// sharedCTERows returns the rows of cte, computing them the first time
// the statement asks.
func (rt *Runtime) sharedCTERows(ctx context.Context, cte *sql.SharedCTE) ([]arrow.Record, error) {
	if rows, ok := rt.sharedCTEs[cte]; ok {
		return rows, nil
	}
	op, err := Build(rt, cte.Plan)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	// The rows are held to the end of the statement: they count against
	// its statement_mem (53200 past it), as a sort's input does.
	acct := rt.account()
	rows := []arrow.Record{}
	for {
		rec, err := op.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := acct.growRecord(rec, 0); err != nil {
			return nil, err
		}
		rec.Retain()
		rows = append(rows, rec)
	}
	if rt.sharedCTEs == nil {
		rt.sharedCTEs = map[*sql.SharedCTE][]arrow.Record{}
	}
	rt.sharedCTEs[cte] = rows
	return rows, nil
}
