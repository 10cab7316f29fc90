package wire

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// runCopy runs a COPY portal, in either protocol, and returns its command
// tag. COPY FROM STDIN answers CopyInResponse and reads CopyData up to
// CopyDone; COPY TO STDOUT answers CopyOutResponse, one CopyData per row
// and CopyDone. On an error the caller sends ErrorResponse at once, as
// PostgreSQL does; the CopyData, CopyDone or CopyFail the client still
// sends are then ignored by the main loop (up to Sync in the extended
// protocol).
func (c *conn) runCopy(ctx context.Context, p *session.Portal, info session.CopyInfo) (session.Tag, error) {
	var format byte
	formats := make([]uint16, info.Columns)
	if info.Binary {
		format = 1
		for i := range formats {
			formats[i] = 1
		}
	}
	if info.Dir == session.CopyIn {
		src := &copyInReader{c: c, format: format, formats: formats}
		c.cr.setBorrow(true)
		tag, err := c.sess.CopyFrom(ctx, p, src)
		src.abandoned.Store(true)
		// A read that is sending CopyInResponse finishes before the
		// connection is written again; one not yet sending sends nothing.
		src.out.Lock()
		src.out.Unlock()
		if !src.mu.TryLock() {
			// A read of the session's still waits for the client's next
			// message: the main loop takes it over (nextMessage).
			c.copyIn = src
			return tag, err
		}
		defer src.mu.Unlock()
		c.cr.setBorrow(false)
		switch {
		case src.lost != nil:
			// The connection failed or ended mid-COPY: the COPY fails
			// with PostgreSQL's error for it (not the read's own error,
			// which would count as an internal one), though no client
			// is left to read it.
			c.receiveFailed(src.lost)
			c.end(src.lost)
			if err != nil {
				err = pgerr.New(pgerrcode.ConnectionFailure, "unexpected EOF on client connection with an open transaction")
			}
		case src.desync:
			// As PostgreSQL: the error, then FATAL, and the end.
			c.sendError(err)
			c.fatal(pgerr.New(pgerrcode.ProtocolViolation, "terminating connection because protocol synchronization was lost"))
			c.end(err)
		}
		return tag, err
	}
	started := false
	start := func() {
		if !started {
			c.send(&pgproto3.CopyOutResponse{OverallFormat: format, ColumnFormatCodes: formats})
			started = true
		}
	}
	tag, err := c.sess.CopyTo(ctx, p, func(line []byte) error {
		start()
		c.send(&pgproto3.CopyData{Data: line})
		return c.werr
	})
	if err != nil {
		return session.Tag{}, err
	}
	start()
	c.send(&pgproto3.CopyDone{})
	return tag, nil
}

// copyInReader is the data of a COPY FROM STDIN as an io.Reader: the
// payloads of the client's CopyData messages, then io.EOF at CopyDone.
// CopyInResponse goes out (and is flushed) at the first Read, once the
// session has accepted the statement. Flush and Sync are ignored meanwhile,
// as PostgreSQL ignores them; CopyFail ends the copy with an error, and so
// does any other message, which also ends the connection.
type copyInReader struct {
	c       *conn
	format  byte // the overall format: 0 text, 1 binary
	formats []uint16
	started bool
	data    []byte // the unread rest of the last CopyData
	err     error  // sticky: io.EOF after CopyDone, or why the copy ended
	// lost is set when the connection failed or the client left; desync
	// when a message other than the copy's came, after which the
	// connection cannot go on.
	lost   error
	desync bool
	// mu is held while Read runs. After an error the session returns
	// without waiting for a Read that waits for the client's next message
	// (the client may wait for the error first, as PostgreSQL sends it at
	// once); abandoned is then set, and that Read leaves the message in
	// held for the main loop instead of taking it.
	mu        sync.Mutex
	abandoned atomic.Bool
	held      pgproto3.FrontendMessage
	heldErr   error
	// out is held while Read sends CopyInResponse. The session may fail
	// the COPY (a statement timeout, a cancel) before its reading
	// goroutine got that far, and the main loop then writes the error:
	// taking out after setting abandoned makes it wait for a send under
	// way, and a later first Read sees abandoned and sends nothing, so
	// the two never write the connection at once or out of order.
	out sync.Mutex
}

// errCopyAbandoned is what Read returns once the COPY ended.
var errCopyAbandoned = errors.New("COPY FROM STDIN ended")

// nextMessage is the main loop's next message: after a COPY FROM whose
// last read was still waiting, the message that read got (or, once the
// read took it, the one after); otherwise the next one received.
func (c *conn) nextMessage() (pgproto3.FrontendMessage, error) {
	r := c.copyIn
	if r == nil {
		return c.receive()
	}
	c.copyIn = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	c.cr.setBorrow(false)
	switch {
	case r.held != nil || r.heldErr != nil:
		return r.held, r.heldErr
	case r.lost != nil:
		return nil, r.lost
	case r.desync:
		return nil, pgerr.New(pgerrcode.ProtocolViolation, "terminating connection because protocol synchronization was lost")
	}
	return c.receive()
}

// Read implements io.Reader.
func (r *copyInReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.abandoned.Load() {
		return 0, errCopyAbandoned
	}
	if !r.started {
		r.started = true
		r.out.Lock()
		if r.abandoned.Load() {
			r.out.Unlock()
			return 0, errCopyAbandoned
		}
		r.c.send(&pgproto3.CopyInResponse{OverallFormat: r.format, ColumnFormatCodes: r.formats})
		if err := r.c.flush(); err != nil {
			r.lost, r.err = err, err
		}
		r.out.Unlock()
	}
	for len(r.data) == 0 && r.err == nil {
		msg, err := r.c.receive()
		if r.abandoned.Load() {
			r.held, r.heldErr = msg, err
			return 0, errCopyAbandoned
		}
		if err != nil {
			r.lost, r.err = err, err
			break
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			r.data = m.Data
		case *pgproto3.CopyDone:
			r.err = io.EOF
		case *pgproto3.CopyFail:
			r.err = pgerr.New(pgerrcode.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
		case *pgproto3.Terminate:
			r.lost, r.err = io.EOF, io.ErrUnexpectedEOF
		default:
			r.err = pgerr.New(pgerrcode.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", messageType(m))
			r.desync = true
		}
	}
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// messageType is the type byte of a frontend message.
func messageType(m pgproto3.FrontendMessage) byte {
	b, err := m.Encode(nil)
	if err != nil || len(b) == 0 {
		return 0
	}
	return b[0]
}

// end makes the connection end after the current message: nothing more is
// sent on it (why is kept as its write error).
func (c *conn) end(why error) {
	c.closing = true
	if c.werr == nil {
		c.werr = why
	}
}
