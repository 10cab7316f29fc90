package session

import (
	"context"
	"io"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
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
		in := exec.NewCopyIn(c, src)
		defer in.Release()
		var err error
		tag, err = s.inTx(ctx, func(tx *storage.Tx) (Tag, error) {
			n, err := in.Run(ctx, s.runtime(tx, p.params))
			return rowsTag("COPY", n), err
		})
		return tag.Rows, err
	})
	return tag, err
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
		tx, done := s.readTx()
		var err error
		n, err = exec.CopyTo(ctx, s.runtime(tx, p.params), c, s.TextOptions(), emit)
		done(err == nil)
		return n, err
	})
	if err != nil {
		return Tag{}, err
	}
	return rowsTag("COPY", n), nil
}
