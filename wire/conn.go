package wire

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// flushThreshold is how much output a connection buffers before writing it
// out in the middle of a result; everything is flushed at ReadyForQuery
// and Flush.
const flushThreshold = 64 << 10

// conn is one client connection. Everything but cancelFn belongs to the
// connection's goroutine.
type conn struct {
	srv *Server
	// nc is the client's socket; its deadlines and Close (from Shutdown)
	// hold for the TLS connection over it too.
	nc net.Conn
	// tls is the TLS connection over nc once the client asked for it
	// (nil until then), and w what the output is written to: tls, or nc.
	tls *tls.Conn
	w   io.Writer
	log *slog.Logger
	cr  *frameReader
	be  *pgproto3.Backend
	// copyIn is the data of a COPY FROM STDIN that ended while a read of
	// it waited for the client (see nextMessage).
	copyIn *copyInReader

	out  []byte // encoded messages not yet written
	werr error  // the first write error; the connection is dead
	// writeDeadline is the write deadline set last (armWriteDeadline).
	writeDeadline time.Time
	// lastRowDesc is the RowDescription sent last (sendColumns).
	lastRowDesc struct {
		cols    []session.Column
		formats []int16
		msg     []byte
	}

	sess        *session.Session
	pid, secret uint32 // the cancel key, set by Server.track

	// ignoreTillSync is set by an error in an extended-protocol message:
	// everything up to the next Sync is discarded.
	ignoreTillSync bool
	// inCycle is set from the first extended-protocol message to Sync: a
	// shutdown waits for the cycle's messages already received.
	inCycle bool
	// blockExecutes counts the Execute messages since the last Sync.
	blockExecutes int
	// closing is set by a FATAL error: the connection ends after sending it.
	closing bool

	mu       sync.Mutex
	cancelFn context.CancelFunc // the running statement's; nil when idle
	// check polls, while a statement runs, whether the client closed its
	// end of the connection (statementContext, checkClient); made by the
	// first statement. checkArmed is set while it is pending: it stays
	// so from one statement to the next (resetting a timer for each
	// statement costs more than a late firing that finds none running).
	check      *time.Timer
	checkArmed bool
	// statementDone is endStatement, made once.
	statementDone func()

	// terminated is set by pg_terminate_backend: the connection ends with
	// FATAL 57P01 as soon as its goroutine notices.
	terminated atomic.Bool

	// notifyMu guards notify, and the socket's writes while the
	// connection waits for its client (notify.go).
	notifyMu sync.Mutex
	notify   notifyState
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{
		srv: s,
		nc:  nc,
		w:   nc,
		log: s.logger().With("remote", nc.RemoteAddr().String()),
	}
	c.statementDone = c.endStatement
	c.cr = newFrameReader(nc, s.maxMessageSize())
	c.be = pgproto3.NewBackend(c.cr, nc)
	return c
}

// serve runs the connection to its end. It never lets a panic escape: the
// panic is logged, the client gets FATAL XX000 and only this connection
// closes.
func (c *conn) serve() {
	defer c.srv.untrack(c)
	defer c.closeConn()
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic serving connection", "panic", r, "stack", string(debug.Stack()))
			if c.srv.panicHook != nil {
				c.srv.panicHook(r)
			}
			c.out = c.out[:0]
			c.fatal(pgerr.New(pgerrcode.InternalError, "internal error: %v", r))
		}
		c.closeSession()
	}()
	// The start-up phase has AuthenticationTimeout in all; a Shutdown
	// that set its read deadline to wake us just before is seen here.
	c.nc.SetReadDeadline(time.Now().Add(c.srv.authenticationTimeout()))
	if c.srv.closing.Load() {
		c.fatal(adminShutdown())
		return
	}
	if !c.startup() {
		return
	}
	c.nc.SetReadDeadline(time.Time{})
	c.log.Debug("session started", "pid", c.pid)
	c.loop()
}

// closeConn closes the connection, with a TLS close_notify first when
// the client speaks TLS, so that it sees the TLS stream end cleanly.
func (c *conn) closeConn() {
	if c.tls != nil {
		c.tls.Close()
		return
	}
	c.nc.Close()
}

// loop reads and answers messages until the client leaves, the protocol is
// violated or the server shuts down.
func (c *conn) loop() {
	for {
		if c.ending() {
			c.fatal(adminShutdown())
			return
		}
		idle, idleErr := c.armIdleTimeout()
		if idle && (c.srv.closing.Load() || c.terminated.Load()) {
			// A Shutdown or pg_terminate_backend that woke the read
			// before the deadline was set.
			c.fatal(adminShutdown())
			return
		}
		c.beginWait()
		msg, err := c.nextMessage()
		c.endWait()
		if idle {
			c.nc.SetReadDeadline(time.Time{})
		}
		if err != nil {
			var ne net.Error
			if idle && errors.As(err, &ne) && ne.Timeout() && !c.srv.closing.Load() && !c.terminated.Load() {
				c.log.Info("session idle timeout", "pid", c.pid, "code", pgerr.Code(idleErr))
				c.fatal(idleErr)
				return
			}
			var bad *badMessage
			if errors.As(err, &bad) {
				if c.badMessage(bad) {
					continue
				}
				return
			}
			c.receiveFailed(err)
			return
		}
		if c.ending() {
			// pg_terminate_backend (or a Shutdown) came while the read
			// waited: the message read since, which may be a COMMIT,
			// is not run. The deadline terminate sets does not always
			// win against data arriving just after it, and the
			// caller of pg_terminate_backend was already told true.
			// PostgreSQL checks for the signal before running a
			// message too.
			c.fatal(adminShutdown())
			return
		}
		if c.ignoreTillSync {
			// Flush still flushes: a client that pipelined Flush after
			// the failed message waits for everything before it.
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate, *pgproto3.Flush:
			default:
				continue
			}
		}
		switch msg.(type) {
		case *pgproto3.Parse, *pgproto3.Bind, *pgproto3.Describe, *pgproto3.Execute, *pgproto3.Close, *pgproto3.Flush:
			c.inCycle = true
		case *pgproto3.Sync:
			c.inCycle = false
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			c.simpleQuery(m.String)
		case *pgproto3.Parse:
			c.extended(c.parse(m))
		case *pgproto3.Bind:
			c.extended(c.bind(m))
		case *pgproto3.Describe:
			c.extended(c.describe(m))
		case *pgproto3.Execute:
			c.extended(c.execute(m))
		case *pgproto3.Close:
			c.extended(c.close(m))
		case *pgproto3.Sync:
			c.sync()
		case *pgproto3.Flush:
			c.flush()
		case *pgproto3.Terminate:
			return
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// Outside COPY (the rest of a COPY FROM STDIN that failed)
			// these are ignored, as PostgreSQL does.
		case *pgproto3.FunctionCall:
			c.sendError(pgerr.NotSupported("the function call protocol message"))
			c.readyForQuery()
		default:
			c.fatal(pgerr.New(pgerrcode.ProtocolViolation, "unexpected message type %T", msg))
			return
		}
		if c.werr != nil {
			c.log.Debug("connection lost", "err", c.werr)
			return
		}
		if c.closing {
			c.flush()
			return
		}
		if c.terminated.Load() {
			c.fatal(adminShutdown())
			return
		}
	}
}

// ending reports whether the connection must end before it runs another
// message: pg_terminate_backend terminated it, or the server is shutting
// down and no extended-protocol cycle is half done.
func (c *conn) ending() bool {
	return c.srv.closing.Load() && !c.inCycle || c.terminated.Load()
}

// sync answers Sync: the messages since the last one ran as one implicit
// transaction (unless they opened an explicit one), which ends now.
func (c *conn) sync() {
	c.ignoreTillSync = false
	c.blockExecutes = 0
	if err := c.sess.EndImplicit(); err != nil {
		c.sendError(err)
	}
	c.sess.DropPortals()
	c.readyForQuery()
}

// badMessage answers a message whose body is malformed as PostgreSQL
// does, with ERROR 08P01 and the session going on: a message of the
// extended protocol fails as any of them does (the rest up to Sync is
// skipped), a Query or a Sync fails the transaction and ReadyForQuery
// follows, and a message that comes while the rest up to Sync is skipped
// is skipped unread, as are COPY's messages outside a COPY; a
// FunctionCall fails and ReadyForQuery follows. A Bind of a prepared
// statement that does not exist fails with 26000, as PostgreSQL looks it
// up before reading on. A Terminate with a body ends the connection as
// Terminate does; any other type (a password message) ends it with FATAL
// 08P01. It reports whether the connection reads on.
func (c *conn) badMessage(bad *badMessage) bool {
	if bad.typ == 'X' {
		return false
	}
	if c.ignoreTillSync && bad.typ != 'S' {
		return true
	}
	c.log.Debug("malformed message", "type", string(bad.typ), "err", bad.err)
	switch bad.typ {
	case 'P', 'B', 'E', 'D', 'C', 'H':
		c.inCycle = true
		var err error = bad.err
		if _, ok := c.sess.PreparedStatement(bad.stmt); bad.hasStmt && !ok {
			err = noStatement(bad.stmt)
		}
		c.extended(err)
	case 'Q':
		c.sendError(bad.err)
		c.sess.AbortBlock()
		if err := c.sess.EndImplicit(); err != nil {
			c.sendError(err)
		}
		c.sess.DropPortals()
		c.readyForQuery()
	case 'F':
		c.sendError(bad.err)
		c.sess.AbortBlock()
		c.readyForQuery()
	case 'd', 'c', 'f':
		// COPY's messages outside a COPY are ignored unread, as the
		// well-formed ones are.
	case 'S':
		c.inCycle = false
		c.sendError(bad.err)
		c.sess.AbortBlock()
		c.sync()
	default:
		c.fatal(bad.err)
		return false
	}
	return c.werr == nil
}

// armIdleTimeout sets the read deadline of a connection that has sent
// ReadyForQuery and waits for the next query (not inside an extended
// protocol cycle or a COPY) when its session has an idle timeout
// (Session.IdleTimeout); it reports whether it did, and the error that
// ends the session when the deadline passes.
func (c *conn) armIdleTimeout() (bool, error) {
	if c.inCycle || c.copyIn != nil || c.sess == nil {
		return false, nil
	}
	d, err := c.sess.IdleTimeout()
	if d <= 0 {
		return false, nil
	}
	c.nc.SetReadDeadline(time.Now().Add(d))
	return true, err
}

// receive reads the next message. A message whose body is malformed (a
// string without its terminator, a value running past the end, bytes
// left over; checkBody, and pgproto3's decoders, which return io.EOF for
// a string without its terminator and panic on some bodies, a Bind
// parameter length below -1 for one) is a *badMessage, not a client that
// left: the Backend has consumed the whole message, and the connection
// can read on (badMessage answers it).
func (c *conn) receive() (msg pgproto3.FrontendMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, c.malformedBody(malformed(fmt.Sprint(r)))
		}
		c.cr.body = nil
	}()
	msg, err = c.be.Receive()
	switch {
	case err == nil:
		if bad := checkBody(c.cr.typ, c.cr.body); bad != nil {
			return nil, newBadMessage(c.cr.typ, c.cr.body, bad)
		}
	case !c.cr.failed:
		return nil, c.malformedBody(malformed(err.Error()))
	}
	return msg, err
}

// malformedBody is the error of the message just read, which its decoder
// refused: checkBody's words for what is wrong with it where it has
// some, else err.
func (c *conn) malformedBody(err *pgerr.Error) error {
	if bad := checkBody(c.cr.typ, c.cr.body); bad != nil {
		err = bad
	}
	return newBadMessage(c.cr.typ, c.cr.body, err)
}

// malformed is the error for a message whose body cannot be decoded.
func malformed(why string) *pgerr.Error {
	return pgerr.New(pgerrcode.ProtocolViolation, "invalid message format").WithDetail("%s", why)
}

// extended finishes an extended-protocol message: an error is reported
// and flushed at once, as PostgreSQL does, and the rest up to Sync is
// skipped. The flush matters to a client that sent Parse, Describe and
// Flush and now waits (asyncpg's prepare): no Sync follows until it has
// its answer, so an error left in the buffer would stall it for ever.
func (c *conn) extended(err error) {
	if err != nil {
		c.sendError(err)
		c.flush()
		c.ignoreTillSync = true
		c.sess.AbortBlock()
	}
}

// receiveFailed ends the connection after a failed read: silently when the
// client went away, with FATAL 57P01 on shutdown, FATAL 08P01 for a
// malformed or oversized message.
func (c *conn) receiveFailed(err error) {
	switch {
	case c.srv.closing.Load() || c.terminated.Load():
		c.fatal(adminShutdown())
	case isNetError(err):
		c.log.Debug("connection closed", "err", err)
	default:
		c.log.Warn("protocol violation", "err", err)
		var le *lengthError
		var pe *pgerr.Error
		if errors.As(err, &le) {
			c.fatal(le.pgError())
			return
		}
		if errors.As(err, &pe) {
			c.fatal(pe)
			return
		}
		c.fatal(pgerr.New(pgerrcode.ProtocolViolation, "invalid frontend message: %s", err.Error()))
	}
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// errTerminated ends a connection that pg_terminate_backend terminated
// once its FATAL error is out.
var errTerminated = errors.New("wire: connection terminated by pg_terminate_backend")

func adminShutdown() error {
	return pgerr.New(pgerrcode.AdminShutdown, "terminating connection due to administrator command")
}

// closeSession releases the session and with it its portals; it runs once,
// when the connection ends for whatever reason.
func (c *conn) closeSession() {
	if c.sess == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic closing session", "panic", r, "stack", string(debug.Stack()))
			if c.srv.panicHook != nil {
				c.srv.panicHook(r)
			}
		}
	}()
	sess := c.sess
	sess.OnNotify(nil)
	c.notifyMu.Lock()
	c.notify.waiting = false
	c.sess = nil
	c.notifyMu.Unlock()
	sess.Close()
	if c.srv.LogDisconnections {
		c.log.Info("disconnection", "session_time", time.Since(sess.Started()).Round(time.Millisecond).String())
	}
}

// clientCheckInterval is how often a running statement's connection is
// polled for a client that went away (PostgreSQL's
// client_connection_check_interval, which is off there by default).
const clientCheckInterval = 250 * time.Millisecond

// statementContext returns the context a statement runs under: cancelled
// by a CancelRequest for this connection, pg_cancel_backend or
// pg_terminate_backend, a forced Shutdown, or the client closing its end
// of the connection while the statement runs (polled every
// clientCheckInterval, so that an abandoned query does not run on for
// nobody). done must be called when the statement ends.
//
// The context is not derived from a server-wide one: a forced Shutdown
// cancels each connection's running statement itself (the flag it sets
// first is checked after cancelFn is published), so that statements do
// not all register with, and contend for, one parent.
func (c *conn) statementContext() (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.cancelFn = cancel
	if !c.checkArmed {
		if c.check == nil {
			c.check = time.AfterFunc(clientCheckInterval, c.checkClient)
		} else {
			c.check.Reset(clientCheckInterval)
		}
		c.checkArmed = true
	}
	c.mu.Unlock()
	if c.srv.aborted.Load() {
		cancel()
	}
	return ctx, c.statementDone
}

// endStatement is the done function of statementContext: the statement's
// context is cancelled (releasing what it holds) and the connection is
// idle. The check timer is left to find no statement running when it
// fires, unless the next statement has started by then.
func (c *conn) endStatement() {
	c.mu.Lock()
	cancel := c.cancelFn
	c.cancelFn = nil
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// checkClient runs on c.check's timer: while a statement runs, a client
// that closed its end cancels it, else it looks again later; with none
// running it disarms.
func (c *conn) checkClient() {
	c.mu.Lock()
	running := c.cancelFn != nil
	if !running {
		c.checkArmed = false
	}
	c.mu.Unlock()
	if !running {
		return
	}
	closed := peerClosed(c.nc)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cancelFn == nil:
		c.checkArmed = false
	case closed:
		c.cancelFn()
		c.checkArmed = false
	default:
		c.check.Reset(clientCheckInterval)
	}
}

// cancelRunning cancels the running statement, if any; it may be called
// from any goroutine.
func (c *conn) cancelRunning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelFn != nil {
		c.cancelFn()
	}
}

// backend is what pg_stat_activity shows of the connection's client and
// how pg_cancel_backend and pg_terminate_backend reach it.
func (c *conn) backend() session.Backend {
	b := session.Backend{Cancel: c.cancelRunning, Terminate: c.terminate}
	switch a := c.nc.RemoteAddr().(type) {
	case *net.TCPAddr:
		b.ClientAddr, b.ClientPort = a.IP.String(), a.Port
	case *net.UnixAddr:
		b.ClientPort = -1
	}
	if a, ok := c.nc.LocalAddr().(*net.TCPAddr); ok {
		b.ServerAddr, b.ServerPort = a.IP.String(), a.Port
	}
	if c.tls != nil {
		if st := c.tls.ConnectionState(); st.HandshakeComplete {
			b.TLS = tlsInfo(st)
		}
	}
	return b
}

// tlsInfo is what pg_stat_ssl shows of a TLS session: its version as
// OpenSSL names it, its cipher suite and the suite's key bits.
func tlsInfo(st tls.ConnectionState) *session.TLSInfo {
	version := "TLSv1.2"
	if st.Version == tls.VersionTLS13 {
		version = "TLSv1.3"
	}
	cipher := tls.CipherSuiteName(st.CipherSuite)
	bits := 256
	if strings.Contains(cipher, "AES_128") {
		bits = 128
	}
	return &session.TLSInfo{Version: version, Cipher: cipher, Bits: bits}
}

// terminate is pg_terminate_backend: the running statement is cancelled,
// a read waiting for the next message wakes, and the connection's
// goroutine ends it with FATAL 57P01. It may be called from any
// goroutine.
func (c *conn) terminate() {
	c.terminated.Store(true)
	c.cancelRunning()
	c.nc.SetReadDeadline(time.Now())
}

// send buffers msg; output is written at flushThreshold, Flush and
// ReadyForQuery.
func (c *conn) send(msg pgproto3.BackendMessage) {
	if c.werr != nil {
		return
	}
	out, err := msg.Encode(c.out)
	if err != nil {
		// Only a message over pgproto3's 1 GiB limit fails to encode.
		c.log.Error("encoding message", "type", fmt.Sprintf("%T", msg), "err", err)
		c.werr = err
		return
	}
	c.out = out
	if len(c.out) >= flushThreshold {
		c.flush()
	}
}

// flush writes the buffered output; it returns (and keeps) the first write
// error.
func (c *conn) flush() error {
	if c.werr != nil {
		return c.werr
	}
	if len(c.out) == 0 {
		return nil
	}
	c.armWriteDeadline()
	_, err := c.w.Write(c.out)
	if cap(c.out) > 4*flushThreshold {
		c.out = nil // don't pin a huge buffer for the connection's life
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		c.werr = err
	}
	return err
}

// armWriteDeadline makes the next write fail once it has been blocked
// for about the server's write timeout. The deadline is moved only when
// a sixteenth of the timeout has passed since it was last set (a write
// then has 15/16 of the timeout at least): setting it costs a timer
// update, which a connection answering thousands of small queries a
// second would otherwise pay at every flush.
func (c *conn) armWriteDeadline() {
	timeout := c.srv.writeTimeout()
	now := time.Now()
	if c.writeDeadline.Sub(now) >= timeout-timeout/16 {
		return
	}
	c.writeDeadline = now.Add(timeout)
	c.nc.SetWriteDeadline(c.writeDeadline)
}

// sendError reports err to the client as an ErrorResponse.
func (c *conn) sendError(err error) {
	if c.terminated.Load() {
		// The statement was cancelled by pg_terminate_backend: the
		// client gets the FATAL error alone, as from PostgreSQL.
		c.fatal(adminShutdown())
		if c.werr == nil {
			c.werr = errTerminated // nothing more goes out
		}
		return
	}
	resp := errorResponse(err, false)
	if c.werr != nil {
		// The client is gone (the statement failed writing to it):
		// nothing goes out, and its write error is no internal error.
		c.log.Debug("statement ended by a lost connection", "code", resp.Code, "err", err, "pid", c.pid)
		return
	}
	c.logError(err, resp)
	if resp.Severity == "FATAL" || resp.Severity == "PANIC" {
		c.closing = true
	}
	c.send(resp)
}

// fatal reports err with severity FATAL and flushes; the caller then ends
// the connection.
func (c *conn) fatal(err error) {
	resp := errorResponse(err, true)
	c.logError(err, resp)
	c.send(resp)
	c.flush()
}

func (c *conn) logError(err error, resp *pgproto3.ErrorResponse) {
	if resp.Code == pgerrcode.InternalError {
		c.log.Error("internal error", "err", err, "pid", c.pid)
	} else {
		c.log.Debug("statement error", "code", resp.Code, "err", resp.Message, "pid", c.pid)
	}
}

// sendNotices sends the notices the session raised since the last call.
func (c *conn) sendNotices() {
	if c.sess == nil {
		return
	}
	for _, n := range c.sess.TakeNotices() {
		sev := n.Severity
		if sev == "" {
			sev = "NOTICE"
		}
		code := n.Code
		if code == "" {
			code = pgerrcode.SuccessfulCompletion
		}
		c.send(&pgproto3.NoticeResponse{Severity: sev, SeverityUnlocalized: sev, Code: code, Message: n.Message, Detail: n.Detail})
	}
}

// sendParameters sends params as ParameterStatus messages, sorted by name.
func (c *conn) sendParameters(params map[string]string) {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c.send(&pgproto3.ParameterStatus{Name: k, Value: params[k]})
	}
}

// readyForQuery ends a query cycle: pending notices, the parameters a
// statement changed (as PostgreSQL, just before ReadyForQuery), then
// ReadyForQuery with the transaction status, and a flush.
func (c *conn) readyForQuery() {
	c.sess.Idle()
	c.sendNotices()
	c.sendNotifications()
	c.sendParameters(c.sess.TakeChangedParameters())
	if c.werr == nil {
		c.out = append(c.out, 'Z', 0, 0, 0, 5, byte(c.sess.TxStatus()))
	}
	c.flush()
}

// sendCommandComplete sends CommandComplete with tag, encoded in place
// (pgproto3's message would cost the tag's string and bytes).
func (c *conn) sendCommandComplete(tag session.Tag) {
	if c.werr != nil {
		return
	}
	start := len(c.out)
	c.out = append(c.out, 'C', 0, 0, 0, 0)
	c.out = tag.AppendTo(c.out)
	c.out = append(c.out, 0)
	binary.BigEndian.PutUint32(c.out[start+1:], uint32(len(c.out)-start-1))
	if len(c.out) >= flushThreshold {
		c.flush()
	}
}
