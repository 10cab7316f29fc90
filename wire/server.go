package wire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-db/cairn/exec/session"
)

// DefaultMaxMessageSize is the largest frontend message a Server accepts
// when Server.MaxMessageSize is 0: PostgreSQL's own limit (1 GiB - 1).
const DefaultMaxMessageSize = 1<<30 - 1

// DefaultAuthenticationTimeout bounds a connection's start-up phase when
// Server.AuthenticationTimeout is 0: PostgreSQL's authentication_timeout.
const DefaultAuthenticationTimeout = 60 * time.Second

// DefaultWriteTimeout bounds one blocked write to a client when
// Server.WriteTimeout is 0.
const DefaultWriteTimeout = 2 * time.Minute

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("wire: server closed")

// Server serves the PostgreSQL v3 protocol, one goroutine per connection,
// in the manner of net/http's Server: set the fields, then call Serve with
// one or more listeners and Shutdown to stop. The fields must not change
// once Serve has been called.
type Server struct {
	// Engine runs the SQL; each connection gets its own session.Session.
	Engine *session.Engine
	// Logger receives connection-level events; nil means slog.Default().
	Logger *slog.Logger
	// Auth authenticates clients after the startup message; nil trusts
	// every client (AuthenticationOk at once).
	Auth Authenticator
	// TLSConfig, when set, makes the server answer an SSLRequest with 'S'
	// and speak TLS on that connection, as PostgreSQL does with ssl = on;
	// nil answers 'N' and the client goes on in the clear or gives up, as
	// its sslmode says. Channel binding (SCRAM-SHA-256-PLUS) binds to
	// Certificates[0], the certificate served when it is the only one.
	TLSConfig *tls.Config
	// LogConnections logs each connection attempt and each successful
	// authentication, and LogDisconnections each session's end with its
	// duration, as PostgreSQL's log_connections and log_disconnections.
	// Failed authentications are always logged, with the peer address.
	LogConnections, LogDisconnections bool
	// TLSRequired refuses a client that did not ask for TLS with FATAL
	// 28000, as a pg_hba.conf of hostssl lines only does.
	TLSRequired bool
	// MaxMessageSize bounds the length of a Query, Parse, Bind, CopyData
	// or FunctionCall message as its length word counts it (itself
	// included, the type byte not); other messages have PostgreSQL's
	// smaller limits (frame.go). A longer one closes the connection with
	// FATAL 08P01 as soon as its header arrives. 0 means
	// DefaultMaxMessageSize.
	MaxMessageSize int
	// AuthenticationTimeout bounds the start-up phase, from the
	// connection's accept to its first ReadyForQuery: a client that opens
	// a connection and sends its start-up packet slowly or never
	// (slowloris) is dropped then, as PostgreSQL drops it after
	// authentication_timeout. 0 means DefaultAuthenticationTimeout.
	AuthenticationTimeout time.Duration
	// WriteTimeout bounds how long one write to a client may block: a
	// client that stops reading its results while the socket's buffers
	// are full loses its connection then, and its statement ends,
	// releasing its locks and memory, instead of holding them for ever.
	// A client that reads, however slowly, is never cut off. 0 means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration

	initOnce sync.Once
	// aborted is set when a Shutdown's context ended: running statements
	// are cancelled, and one that starts now is cancelled at once.
	aborted atomic.Bool

	closing   atomic.Bool // Shutdown was called; read without mu
	mu        sync.Mutex
	shutdown  bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	byPID     map[uint32]*conn
	active    sync.WaitGroup // one per tracked connection

	// panicHook, when set (by tests), is called with a recovered panic.
	panicHook func(any)
}

func (s *Server) init() {
	s.initOnce.Do(func() {
		s.listeners = make(map[net.Listener]struct{})
		s.conns = make(map[*conn]struct{})
		s.byPID = make(map[uint32]*conn)
	})
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Server) maxMessageSize() int {
	if s.MaxMessageSize > 0 {
		return s.MaxMessageSize
	}
	return DefaultMaxMessageSize
}

func (s *Server) authenticationTimeout() time.Duration {
	if s.AuthenticationTimeout > 0 {
		return s.AuthenticationTimeout
	}
	return DefaultAuthenticationTimeout
}

func (s *Server) writeTimeout() time.Duration {
	if s.WriteTimeout > 0 {
		return s.WriteTimeout
	}
	return DefaultWriteTimeout
}

func (s *Server) shuttingDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdown
}

// Serve accepts connections on l and serves each in its own goroutine
// until l fails or Shutdown is called; it then returns ErrServerClosed
// (after Shutdown) or the accept error. Serve closes l when it returns. It
// may be called for several listeners at once.
func (s *Server) Serve(l net.Listener) error {
	s.init()
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.shuttingDown() {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of file descriptors and the like: back off and retry,
			// as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger().Warn("accept failed; retrying", "err", err, "delay", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c := s.newConn(nc)
		if !s.track(c) {
			nc.Close()
			continue
		}
		go c.serve()
	}
}

// Shutdown stops the server gracefully: it closes the listeners, lets each
// connection finish the message it is processing (a running statement runs
// to its end and its results are sent), then ends every connection with
// FATAL 57P01. When ctx expires first, running statements are cancelled
// and their connections ended with FATAL 57P01 (or closed, when that
// cannot be sent within terminateWait); Shutdown then waits for their goroutines
// (and thus their sessions' Close) and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.init()
	s.mu.Lock()
	s.shutdown = true
	s.closing.Store(true)
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		// Wake a connection blocked reading the next message; one that is
		// busy sees the deadline when it next reads, after its results.
		c.nc.SetReadDeadline(time.Now())
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.active.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	// As PostgreSQL's fast shutdown: each running statement is cancelled
	// and its client told FATAL 57P01 (drivers and poolers take it as
	// "connect again", not as a broken network); a connection that has
	// not ended after terminateWait (blocked writing to a client that
	// does not read) is closed.
	s.aborted.Store(true)
	s.mu.Lock()
	for c := range s.conns {
		c.terminate()
	}
	s.mu.Unlock()
	select {
	case <-done:
		return ctx.Err()
	case <-time.After(terminateWait):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

// terminateWait is how long Shutdown, once its context has expired, lets
// connections send their FATAL error before it closes them.
const terminateWait = time.Second

// track registers a new connection and draws the secret of its cancel
// key; it reports false when the server is shutting down.
func (s *Server) track(c *conn) bool {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return false
	}
	c.secret = randUint32()
	s.conns[c] = struct{}{}
	s.active.Add(1)
	return true
}

// trackPID makes c's session reachable by a CancelRequest: the key's
// process id is the session's pid, which the engine assigned.
func (s *Server) trackPID(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byPID[c.pid] = c
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[c]; !ok {
		return
	}
	delete(s.conns, c)
	if s.byPID[c.pid] == c {
		delete(s.byPID, c.pid)
	}
	s.active.Done()
}

// cancel handles a CancelRequest: it cancels the statement running on the
// connection with the given key, if any. A wrong key is ignored silently,
// as PostgreSQL does.
func (s *Server) cancel(pid, secret uint32) {
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c == nil {
		return
	}
	var a, b [4]byte
	binary.BigEndian.PutUint32(a[:], c.secret)
	binary.BigEndian.PutUint32(b[:], secret)
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return
	}
	c.cancelRunning()
}

func randUint32() uint32 {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return binary.BigEndian.Uint32(b[:])
}
