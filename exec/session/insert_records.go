package session

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// CopyTypes are the types of a COPY ... FROM STDIN portal's columns, in
// the data's order; nil for any other portal.
func (p *Portal) CopyTypes() []types.T {
	c, ok := p.bound.(*sql.Copy)
	if !ok || !c.From {
		return nil
	}
	ts := make([]types.T, len(c.Columns))
	for i, col := range c.Columns {
		ts[i] = col.T
	}
	return ts
}

// CopyRecords runs a COPY ... FROM STDIN portal whose rows the caller has
// already converted into recs, Arrow records of the portal's columns
// (CopyTypes, each of its type's Arrow type): the HTTP API's /ingest,
// which builds them straight from JSON. The rows go through INSERT's path
// as CopyFrom's do (column defaults, every constraint), all or none, in
// the session's transaction or in one of their own; in a read-only one
// it fails as the INSERTs it stands for would. recs stay the caller's.
// The tag is "COPY n".
func (s *Session) CopyRecords(ctx context.Context, p *Portal, recs []arrow.Record) (Tag, error) {
	c, ok := p.bound.(*sql.Copy)
	if !ok || !c.From {
		return Tag{}, errCopyPortal("CopyRecords")
	}
	var tag Tag
	err := s.statement(ctx, p, func(ctx context.Context) (int64, error) {
		if s.currentReadOnly() {
			return 0, pgerr.New(pgerrcode.ReadOnlySQLTransaction, "cannot execute INSERT in a read-only transaction")
		}
		in := exec.NewRecordsIn(c, recs)
		var err error
		tag, err = s.inTxUnless(ctx, func(tx *storage.Tx) (Tag, error) {
			n, err := in.Run(ctx, s.runtime(tx, p.params))
			return rowsTag("COPY", n), err
		}, nil)
		return tag.Rows, err
	})
	return tag, err
}

// PlainInsert recognizes an INSERT of one row of parameters that
// /query/batch can load as rows (sql.PlainInsert, for wire, which does
// not import sql).
func PlainInsert(query string) (schema, table string, cols []string, params []int, ok bool) {
	return sql.PlainInsert(query)
}
