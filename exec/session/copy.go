package session

import (
	"bytes"
	"context"
	"io"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/storage"
)

// Copy describes the portal's data; Dir is NotCopy when it is no COPY.
func (p *Portal) Copy() CopyInfo {
	c, ok := p.bound.(*sql.Copy)
	if !ok {
		return CopyInfo{}
	}
	info := CopyInfo{Dir: CopyOut, Columns: len(c.Columns), Binary: c.Options.Format == sql.CopyBinary}
	if c.From {
		info.Dir = CopyIn
	}
	return info
}

// errCopyPortal is the error of a portal run with the wrong method: a COPY
// runs with CopyFrom or CopyTo (as its direction says), anything else with
// Execute.
func errCopyPortal(method string) error {
	return pgerr.New(pgerrcode.InternalError, "%s does not run this portal: COPY runs with CopyFrom (FROM STDIN) or CopyTo (TO STDOUT)", method)
}

// CopyFrom runs a COPY ... FROM STDIN portal. src is the data: the
// payloads of the client's CopyData messages, io.EOF at CopyDone; any
// other error (the client's CopyFail) aborts the COPY. The rows go through
// INSERT's path (column defaults, every constraint), all or none, in the
// session's transaction or in one of their own. src is first read once the
// statement has passed its checks, so a caller may announce the copy at
// that first Read. The tag is "COPY n". After an error src may hold
// unread data, which the caller discards.
func (s *Session) CopyFrom(ctx context.Context, p *Portal, src io.Reader) (Tag, error) {
	c, ok := p.bound.(*sql.Copy)
	if !ok || !c.From {
		return Tag{}, errCopyPortal("CopyFrom")
	}
	var tag Tag
	err := s.statement(ctx, p, func(ctx context.Context) (int64, error) {
		if s.currentReadOnly() {
			return 0, pgerr.New(pgerrcode.ReadOnlySQLTransaction, "cannot execute COPY FROM in a read-only transaction")
		}
		prog := &progress{row: syscat.Progress{Copy: true, Command: "COPY FROM", Type: "PIPE", Relid: syscat.TableOID(c.Table.ID)},
			copyRows: &exec.CopyProgress{}, where: c.Insert.Input != nil && hasFilter(c.Insert.Input)}
		s.setProgress(prog)
		defer s.setProgress(nil)
		in := exec.NewCopyIn(c, countingReader{src, &prog.bytes})
		in.Progress = prog.copyRows
		defer in.Release()
		var err error
		// A COPY that read more than it keeps cannot run again after a
		// concurrent update: its 40001 goes to the client, which retries.
		tag, err = s.inTxUnless(ctx, func(tx *storage.Tx) (Tag, error) {
			if c.Options.Freeze && !tx.CreatedOrTruncated(c.Table.ID) {
				// PostgreSQL refuses this once the copy has begun, so the
				// client's data is taken (and dropped) as COPY data, not
				// read as statements by psql: begin it with one read.
				_, _ = src.Read(make([]byte, 1))
				return Tag{}, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState,
					"cannot perform COPY FREEZE because the table was not created or truncated in the current subtransaction")
			}
			if err := s.rebindCopy(p, tx, in); err != nil {
				return Tag{}, err
			}
			n, err := in.Run(ctx, s.runtime(tx, p.params))
			return rowsTag("COPY", n), err
		}, func() bool { return !in.Replayable() })
		return tag.Rows, err
	})
	return tag, err
}

// rebindCopy binds COPY FROM portal p again against tx's catalog when that
// is newer than the one p was bound against (outside a transaction block,
// a DDL committed in between, or before the statement runs again after a
// conflict), as planFor does for other statements: run as bound, its
// rows lack what the DDL added (storage refuses them with 40001), and so
// would every retry.
func (s *Session) rebindCopy(p *Portal, tx *storage.Tx, in *exec.CopyIn) error {
	cat := tx.Catalog()
	if p.cat == nil || p.cat == cat {
		return nil
	}
	bound, _, err := s.bindIn(cat, p.stmt, p.stmt.ParamTypes)
	if err != nil {
		return err
	}
	if c, ok := bound.(*sql.Copy); !ok || !in.Rebind(c) {
		return pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update").
			WithDetail("A concurrent transaction changed the columns COPY reads.").
			WithHint("Retry the statement.")
	}
	p.cat = cat
	return nil
}

// CopyTo runs a COPY ... TO STDOUT portal: emit is called with the data of
// each row (see exec.CopyTo). The tag is "COPY n".
func (s *Session) CopyTo(ctx context.Context, p *Portal, emit func(line []byte) error) (Tag, error) {
	c, ok := p.bound.(*sql.Copy)
	if !ok || c.From {
		return Tag{}, errCopyPortal("CopyTo")
	}
	var n int64
	err := s.statement(ctx, p, func(ctx context.Context) (int64, error) {
		prog := &progress{row: syscat.Progress{Copy: true, Command: "COPY TO", Type: "PIPE"}}
		if c.Table != nil {
			prog.row.Relid = syscat.TableOID(c.Table.ID)
		}
		s.setProgress(prog)
		defer s.setProgress(nil)
		// A text or CSV header line and the binary trailer are no rows.
		binary := c.Options.Format == sql.CopyBinary
		header := c.Options.Header && !binary
		counted := func(line []byte) error {
			prog.bytes.Add(int64(len(line)))
			switch {
			case header:
				header = false
			case binary && bytes.Equal(line, binaryTrailer):
			default:
				prog.tuples.Add(1)
			}
			return emit(line)
		}
		tx, done := s.readTx()
		var err error
		n, err = exec.CopyTo(ctx, s.runtime(tx, p.params), c, s.TextOptions(), counted)
		done(err == nil)
		return n, err
	})
	if err != nil {
		return Tag{}, err
	}
	return rowsTag("COPY", n), nil
}

// binaryTrailer is the binary COPY format's trailer: a tuple of -1
// fields.
var binaryTrailer = []byte{0xff, 0xff}

// hasFilter reports whether a COPY FROM's input plan n has a WHERE
// clause (a Filter).
func hasFilter(n sql.Node) bool {
	if _, ok := n.(*sql.Filter); ok {
		return true
	}
	for _, c := range n.Children() {
		if hasFilter(c) {
			return true
		}
	}
	return false
}
