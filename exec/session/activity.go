package session

// What the server is doing: the engine's registry of open sessions, each
// with a backend process id and its current activity, read by
// pg_stat_activity and acted on by pg_cancel_backend and
// pg_terminate_backend. The registry's lock is taken when a session opens
// or closes and when the view or a signal function reads it; a statement
// updates only its own session's activity (a per-session mutex, never
// contended but by such a reader).

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
)

// Backend is what the server that owns a session tells the engine about
// it: where the client connects from and how to stop it. Cancel cancels
// the running statement (a no-op when idle); Terminate ends the
// connection (or request) with FATAL 57P01 and so, in time, closes the
// session. Both may be called from any goroutine. A nil hook makes
// pg_cancel_backend or pg_terminate_backend a no-op that still reports
// success, as signalling a backend that ignores the signal does in
// PostgreSQL.
type Backend struct {
	// ClientAddr is the client's IP address; "" for a Unix socket or an
	// in-process client.
	ClientAddr string
	// ClientPort is the client's TCP port; -1 for a Unix socket, 0 when
	// unknown (NULL).
	ClientPort int
	// ServerAddr and ServerPort are the address and port the server
	// accepted the connection on (inet_server_addr, inet_server_port);
	// "" and 0 when there is none.
	ServerAddr string
	ServerPort int
	// TLS is the connection's TLS session, nil for none (pg_stat_ssl).
	TLS       *TLSInfo
	Cancel    func()
	Terminate func()
}

// TLSInfo is what pg_stat_ssl shows of a connection's TLS session.
type TLSInfo = syscat.TLSInfo

// registry is an engine's open sessions by backend pid.
type registry struct {
	mu    sync.Mutex
	byPID map[int32]*Session
	next  int32
}

// add registers s and assigns its pid: a counter from a random start (as
// PostgreSQL's pids are OS pids, nothing about them is meaningful), the
// next one unused.
func (r *registry) add(s *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byPID == nil {
		r.byPID = map[int32]*Session{}
		r.next = 1000 + rand.Int32N(1<<20)
	}
	for {
		r.next++
		if r.next <= 0 {
			r.next = 1000
		}
		if _, taken := r.byPID[r.next]; !taken {
			break
		}
	}
	s.pid = r.next
	r.byPID[s.pid] = s
}

func (r *registry) remove(s *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byPID[s.pid] == s {
		delete(r.byPID, s.pid)
	}
}

func (r *registry) lookup(pid int32) *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byPID[pid]
}

// sessions returns the open sessions, in no order.
func (r *registry) sessions() []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Session, 0, len(r.byPID))
	for _, s := range r.byPID {
		out = append(out, s)
	}
	return out
}

// The states of pg_stat_activity.state.
const (
	stateActive        = "active"
	stateIdle          = "idle"
	stateIdleInTx      = "idle in transaction"
	stateIdleInTxError = "idle in transaction (aborted)"
)

// activity is a session's row of pg_stat_activity, written by the
// session's goroutine and read by any.
type activity struct {
	mu          sync.Mutex
	backend     Backend
	appName     string
	state       string
	query       string
	queryStart  time.Time
	stateChange time.Time
	xactStart   time.Time
	// waitType and wait name the lock the running statement waits for
	// ("Lock" and "transactionid" or "advisory"); "" when it runs.
	waitType, wait string
	// rowWait is rowLockWait as a func value, made once (a statement's
	// storage.WithLockWait hook).
	rowWait func(bool)
	// closed is closed when the session closes (pg_terminate_backend's
	// wait).
	closed chan struct{}
	// progress is the running COPY's or CREATE INDEX's (progress.go).
	progress *progress
}

// PID is the session's backend process id: the BackendKeyData process id
// a connection announces, pg_backend_pid() and pg_stat_activity.pid.
func (s *Session) PID() int32 { return s.pid }

// SetBackend tells the engine where the session's client is and how to
// cancel and terminate it; the owner calls it once, before the session
// runs a statement.
func (s *Session) SetBackend(b Backend) {
	s.act.mu.Lock()
	s.act.backend = b
	s.act.mu.Unlock()
}

// startActivity marks the session active with the statement text and
// returns the time it started.
func (s *Session) startActivity(query string) time.Time {
	now := time.Now()
	xact := now
	if s.tx != nil && !s.implicit {
		xact = s.txStart
	}
	a := &s.act
	a.mu.Lock()
	a.state, a.query, a.queryStart, a.stateChange = stateActive, query, now, now
	if a.xactStart.IsZero() {
		a.xactStart = xact
	}
	a.mu.Unlock()
	return now
}

// Idle records that the session waits for its client: idle, idle in
// transaction or idle in an aborted transaction as TxStatus says. The
// owner calls it when a request ends (ReadyForQuery on a connection).
func (s *Session) Idle() {
	state := stateIdle
	var xact time.Time
	switch s.TxStatus() {
	case TxActive:
		state, xact = stateIdleInTx, s.txStart
	case TxFailed:
		state, xact = stateIdleInTxError, s.txStart
	}
	app := s.get("application_name")
	a := &s.act
	a.mu.Lock()
	if a.state != state {
		a.state, a.stateChange = state, time.Now()
	}
	a.xactStart, a.appName = xact, app
	a.mu.Unlock()
}

// lockWait records (waiting) or clears a lock wait of the running
// statement: wait is "transactionid" for a row lock, "advisory" for an
// advisory lock.
func (s *Session) lockWait(wait string, waiting bool) {
	a := &s.act
	a.mu.Lock()
	if waiting {
		a.waitType, a.wait = "Lock", wait
	} else {
		a.waitType, a.wait = "", ""
	}
	a.mu.Unlock()
}

// rowLockWait is the storage.WithLockWait hook of the session's
// statements.
func (s *Session) rowLockWait(waiting bool) { s.lockWait("transactionid", waiting) }

// row is the session's pg_stat_activity row.
func (s *Session) row() syscat.Activity {
	a := &s.act
	a.mu.Lock()
	defer a.mu.Unlock()
	return syscat.Activity{
		PID: s.pid, User: s.authUser, Database: s.database, ApplicationName: a.appName,
		ClientAddr: a.backend.ClientAddr, ClientPort: a.backend.ClientPort, TLS: a.backend.TLS,
		BackendStart: s.started, XactStart: a.xactStart, QueryStart: a.queryStart, StateChange: a.stateChange,
		State: a.state, WaitEventType: a.waitType, WaitEvent: a.wait, Query: a.query,
	}
}

// Activity returns a row of pg_stat_activity for each open session.
func (e *Engine) Activity() []syscat.Activity {
	ss := e.sessions.sessions()
	out := make([]syscat.Activity, len(ss))
	for i, s := range ss {
		out[i] = s.row()
	}
	return out
}

// notBackend is PostgreSQL's warning for a pid no session has.
func notBackend(pid int64) Notice {
	return Notice{Severity: "WARNING", Code: pgerrcode.Warning, Message: fmt.Sprintf("PID %d is not a PostgreSQL backend process", pid)}
}

// signalTarget is the session pg_cancel_backend or pg_terminate_backend
// (terminate) signals, nil with PostgreSQL's warning when pid is no
// session's. As PostgreSQL's pg_signal_backend, only a superuser may
// signal a superuser's session, and others only the sessions of roles
// whose privileges they have (42501).
func (e *statementEnv) signalTarget(pid int64, terminate bool) (*Session, error) {
	t := e.sess.engine.sessions.lookup(int32(pid))
	if t == nil || int64(int32(pid)) != pid {
		e.sess.notices = append(e.sess.notices, notBackend(pid))
		return nil, nil
	}
	cat := e.sess.catalog()
	me, owner := e.sess.currentRole(cat), roleNamed(cat, t.authUser)
	switch {
	case owner.Superuser && !me.Superuser && terminate:
		return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "must be a superuser to terminate superuser process")
	case owner.Superuser && !me.Superuser:
		return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "must be a superuser to cancel superuser query")
	case !cat.IsMemberOf(me.OID, owner.OID, true) && terminate:
		return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "must be a member of the role whose process is being terminated or member of pg_signal_backend")
	case !cat.IsMemberOf(me.OID, owner.OID, true):
		return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "must be a member of the role whose query is being canceled or member of pg_signal_backend")
	}
	return t, nil
}

// CancelBackend implements functions.BackendSignaller:
// pg_cancel_backend.
func (e *statementEnv) CancelBackend(pid int64) (bool, error) {
	t, err := e.signalTarget(pid, false)
	if t == nil {
		return false, err
	}
	t.act.mu.Lock()
	cancel := t.act.backend.Cancel
	t.act.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return true, nil
}

// TerminateBackend implements functions.BackendSignaller:
// pg_terminate_backend. With a timeout it waits that long for the
// session to close and reports whether it did, warning when not.
func (e *statementEnv) TerminateBackend(pid int64, timeout time.Duration) (bool, error) {
	t, err := e.signalTarget(pid, true)
	if t == nil {
		return false, err
	}
	t.act.mu.Lock()
	terminate := t.act.backend.Terminate
	t.act.mu.Unlock()
	if terminate != nil {
		terminate()
	}
	if timeout <= 0 || t == e.sess {
		return true, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var done <-chan struct{}
	if ctx := e.sess.stmtCtx; ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-t.act.closed:
		return true, nil
	case <-timer.C:
	case <-done:
		return false, nil
	}
	e.sess.notices = append(e.sess.notices, Notice{Severity: "WARNING", Code: pgerrcode.Warning,
		Message: fmt.Sprintf("backend with PID %d did not terminate within %d milliseconds", pid, timeout.Milliseconds())})
	return false, nil
}
