package wire

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/exec/session"
	"github.com/jackc/pgproto3/v2"
)

// simpleQuery answers a Query message: every statement in the text in
// turn, each with RowDescription (when it returns rows), DataRows in text
// format and CommandComplete; the first error ends the message. Empty or
// comment-only text gets EmptyQueryResponse. As in PostgreSQL, a Query
// discards the unnamed prepared statement and portal.
func (c *conn) simpleQuery(sql string) {
	c.sess.ClosePrepared("")
	if p, ok := c.sess.Portal(""); ok {
		c.sess.ClosePortal(p)
	}
	ctx, done := c.statementContext()
	err := c.runQuery(ctx, sql)
	done()
	if err != nil {
		c.sendNotices()
		c.sendError(err)
		c.sess.AbortBlock()
	}
	// Extended-protocol messages sent without a Sync before the query
	// opened an implicit transaction; the query ends it, as PostgreSQL's
	// does: it commits with the query, or rolls back with its error.
	if err := c.sess.EndImplicit(); err != nil {
		c.sendError(err)
	}
	c.sess.DropPortals()
	c.readyForQuery()
}

func (c *conn) runQuery(ctx context.Context, sql string) error {
	if err := checkText(sql); err != nil {
		return err
	}
	empty, err := c.sess.Query(ctx, sql, func(p *session.Portal) error {
		if err := c.runStatement(ctx, p); err != nil {
			return err
		}
		return c.werr
	})
	if empty {
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	return err
}

// runStatement runs portal p of a simple query to completion (a COPY
// through runCopy). RowDescription goes out with the first batch (or
// before CommandComplete when there are no rows), so an error the
// statement raises before producing rows (an unknown table, an aborted
// transaction) comes alone, as in PostgreSQL.
func (c *conn) runStatement(ctx context.Context, p *session.Portal) error {
	if info := p.Copy(); info.Dir != session.NotCopy {
		tag, err := c.runCopy(ctx, p, info)
		if err != nil {
			return err
		}
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag.String())})
		return nil
	}
	// The columns are read when the rows come: a statement bound again
	// for a DDL committed since Bind (session.Portal) may have others.
	var cols []session.Column
	described := p.Columns() == nil
	describe := func() {
		if !described {
			cols = p.Columns()
			c.send(rowDescription(cols, nil))
			described = true
		}
	}
	opts := c.outputOptions()
	tag, _, err := c.sess.Execute(ctx, p, 0, func(rec arrow.Record) error {
		describe()
		return c.writeRecord(rec, cols, nil, opts)
	})
	c.sendNotices()
	if err != nil {
		return err
	}
	describe()
	c.sendCommandComplete(tag)
	return nil
}
