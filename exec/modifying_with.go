package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// RunModifyingWith runs a statement headed by data-modifying WITH queries
// (sql.ModifyingWith) in rt.Tx to completion: each query in turn, keeping
// its RETURNING rows for the CTE scans that read them, then the statement.
// It returns the statement's command ("SELECT" or its DML command), the
// rows it changed or returned, and its result rows, computed already (an
// operator the caller closes). The referential actions of all its
// queries run at its end, as PostgreSQL's RI triggers do: no query of
// the statement sees their effects.
func RunModifyingWith(ctx context.Context, rt *Runtime, n *sql.ModifyingWith) (command string, count int64, result Operator, err error) {
	rt.cteResults = map[*sql.ModifyingCTE]*materialized{}
	acts := newFKActions(rt)
	acts.whole = true
	rt.wholeFK = acts
	defer func() {
		for _, m := range rt.cteResults {
			m.Close()
		}
		rt.cteResults = nil
		rt.wholeFK = nil
		acts.release()
	}()
	command, count, result, err = runModifyingWith(ctx, rt, n)
	if err == nil {
		rt.wholeFK = nil
		if err = acts.run(ctx); err != nil {
			result.Close()
		}
	}
	return command, count, result, err
}

func runModifyingWith(ctx context.Context, rt *Runtime, n *sql.ModifyingWith) (command string, count int64, result Operator, err error) {
	for _, cte := range n.CTEs {
		_, returning, err := RunDML(ctx, rt, cte.Stmt)
		if err != nil {
			return "", 0, nil, err
		}
		rt.cteResults[cte] = returning.(*materialized)
	}
	switch n.Input.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge:
		changed, returning, err := RunDML(ctx, rt, n.Input)
		return DMLCommand(n.Input), changed, returning, err
	}
	op, err := Build(rt, n.Input)
	if err != nil {
		return "", 0, nil, err
	}
	defer op.Close()
	rows, err := Materialize(ctx, op, nil)
	if err != nil {
		return "", 0, nil, err
	}
	for _, rec := range rows.(*materialized).recs {
		count += rec.NumRows()
	}
	return "SELECT", count, rows, nil
}

// DMLCommand is the command of a data-modifying statement's tag: INSERT,
// UPDATE, DELETE or MERGE.
func DMLCommand(n sql.Node) string {
	switch n.(type) {
	case *sql.Insert:
		return "INSERT"
	case *sql.Update:
		return "UPDATE"
	case *sql.Merge:
		return "MERGE"
	}
	return "DELETE"
}

// cteScan replays the RETURNING rows of a data-modifying WITH query
// (sql.CTEScan), which RunModifyingWith keeps in the runtime.
type cteScan struct {
	schema *arrow.Schema
	rows   []arrow.Record
	pos    int
}

func newCTEScan(rt *Runtime, n *sql.CTEScan) (*cteScan, error) {
	m, ok := rt.cteResults[n.CTE]
	if !ok {
		return nil, pgerr.New(pgerrcode.InternalError, "WITH query \"%s\" read before it ran", n.CTE.Name)
	}
	return &cteScan{schema: schemaOf(n.Out), rows: m.recs}, nil
}

// Schema implements Operator.
func (c *cteScan) Schema() *arrow.Schema { return c.schema }

// Next implements Operator.
func (c *cteScan) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.pos >= len(c.rows) {
		return nil, io.EOF
	}
	c.pos++
	return c.rows[c.pos-1], nil
}

// Close implements Operator.
func (c *cteScan) Close() {}
