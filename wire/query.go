package wire

import (
	"context"

	"github.com/apache/arrow/go/v17/arrow"
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
	c.closePortal("")
	ctx, done := c.statementContext()
	err := c.runQuery(ctx, sql)
	done()
	if err != nil {
		c.sendNotices()
		c.sendError(err)
	}
	c.endOfTransactionPortals()
	c.readyForQuery()
}

func (c *conn) runQuery(ctx context.Context, sql string) error {
	if err := checkText(sql); err != nil {
		return err
	}
	stmts, err := c.sess.Prepare(sql, nil)
	if err != nil {
		return err
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if len(stmts) == 1 {
		if err := c.runStatement(ctx, stmts[0]); err != nil {
			return err
		}
		return c.werr
	}
	// Several statements run as one implicit transaction, as in
	// PostgreSQL: the first error rolls back what the others did.
	for _, st := range stmts {
		c.sess.BeginImplicit()
		if err = c.runStatement(ctx, st); err != nil {
			break
		}
		if c.werr != nil {
			err = c.werr
			c.sess.AbortBlock()
			break
		}
	}
	if cerr := c.sess.EndImplicit(); err == nil {
		err = cerr
	}
	return err
}

// runStatement binds st without parameters and runs it to completion (a
// COPY through runCopy). RowDescription goes out with the first batch (or
// before CommandComplete when there are no rows), so an error the
// statement raises before producing rows (an unknown table, an aborted
// transaction) comes alone, as in PostgreSQL.
func (c *conn) runStatement(ctx context.Context, st *session.Statement) error {
	p, err := c.sess.Bind(st, nil)
	if err != nil {
		return err
	}
	defer c.sess.ClosePortal(p)
	if info := p.Copy(); info.Dir != session.NotCopy {
		tag, err := c.runCopy(ctx, p, info)
		if err != nil {
			return err
		}
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		return nil
	}
	cols := p.Columns()
	described := cols == nil
	describe := func() {
		if !described {
			c.send(rowDescription(cols, nil))
			described = true
		}
	}
	opts := c.textOptions()
	tag, _, err := c.sess.Execute(ctx, p, 0, func(rec arrow.Record) error {
		describe()
		return c.writeRecord(rec, cols, nil, opts)
	})
	c.sendNotices()
	if err != nil {
		return err
	}
	describe()
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}
