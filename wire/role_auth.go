package wire

import (
	"crypto/rand"
	"crypto/sha256"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/catalog"
)

// RoleAuth authenticates each login against its role's SCRAM-SHA-256
// verifier in the catalog, as PostgreSQL's scram-sha-256 pg_hba method
// does: an unknown user, a role without a password, a wrong password and
// an expired VALID UNTIL all fail alike with 28P01 "password
// authentication failed", after a full (mock) exchange, so the answer
// does not tell which. While the bootstrap superuser has no password
// (the server runs without --password), a loopback client is trusted as
// cairn always trusted it, for roles without a password; a role with one
// is always asked for it.
//
// Failures are throttled per client address and user name: after
// throttleFree failures within throttleWindow, each further attempt
// waits before its exchange starts, 250 ms doubling per failure up to
// throttleMaxDelay, so guessing passwords costs time while the rightful
// user, who fails once or twice, is never slowed. A success clears the
// count. Failed authentications are logged with the peer address.
type RoleAuth struct {
	// Engine holds the roles; Logger gets the failed authentications
	// (nil: slog.Default()).
	Engine *session.Engine
	Logger *slog.Logger

	once     sync.Once
	mockSalt []byte
	mu       sync.Mutex
	failures map[throttleKey]*throttleEntry
}

const (
	throttleFree     = 3
	throttleWindow   = 10 * time.Minute
	throttleMaxDelay = 10 * time.Second
	throttleMaxKeys  = 10000
)

type throttleKey struct{ host, user string }

type throttleEntry struct {
	count int
	last  time.Time
}

// NewRoleAuth returns the Authenticator of engine's roles.
func NewRoleAuth(engine *session.Engine, logger *slog.Logger) *RoleAuth {
	return &RoleAuth{Engine: engine, Logger: logger}
}

func (a *RoleAuth) init() {
	a.once.Do(func() {
		a.mockSalt = make([]byte, 16)
		rand.Read(a.mockSalt)
		a.failures = map[throttleKey]*throttleEntry{}
		if a.Logger == nil {
			a.Logger = slog.Default()
		}
	})
}

// delay is how long an attempt of key waits before its exchange.
func (a *RoleAuth) delay(key throttleKey, now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.failures[key]
	if e == nil || now.Sub(e.last) > throttleWindow || e.count < throttleFree {
		return 0
	}
	d := 250 * time.Millisecond << min(e.count-throttleFree, 6)
	return min(d, throttleMaxDelay)
}

// record counts a failure of key (ok false) or clears its count.
func (a *RoleAuth) record(key throttleKey, ok bool, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ok {
		delete(a.failures, key)
		return
	}
	if len(a.failures) >= throttleMaxKeys {
		for k, e := range a.failures {
			if now.Sub(e.last) > throttleWindow {
				delete(a.failures, k)
			}
		}
	}
	e := a.failures[key]
	if e == nil || now.Sub(e.last) > throttleWindow {
		e = &throttleEntry{}
		a.failures[key] = e
	}
	e.count++
	e.last = now
}

// mockKeys are the keys of a role that has none (or does not exist): a
// salt stable per user name, so that repeated attempts do not reveal
// that the role is missing, and keys no password matches.
func (a *RoleAuth) mockKeys(user string) catalog.SCRAMKeys {
	h := sha256.Sum256(append(append([]byte{}, a.mockSalt...), user...))
	return catalog.SCRAMKeys{Iterations: catalog.SCRAMIterations, Salt: h[:16], StoredKey: make([]byte, 32), ServerKey: make([]byte, 32)}
}

// Authenticate implements Authenticator.
func (a *RoleAuth) Authenticate(ex AuthExchange, user, database string) error {
	a.init()
	cred := a.Engine.Credentials(user)
	if cred.Known && cred.Verifier == "" && !cred.BootstrapHasPassword && isLoopback(ex.RemoteAddr()) {
		return nil // trust, as before roles
	}
	key := throttleKey{host: hostOf(ex.RemoteAddr()), user: user}
	if d := a.delay(key, time.Now()); d > 0 {
		time.Sleep(d)
	}
	keys, ok := catalog.ParseSCRAMVerifier(cred.Verifier)
	if !ok {
		keys = a.mockKeys(user)
	}
	err := scramExchange(ex, user, keys)
	reason := ""
	switch {
	case !cred.Known:
		reason = "role does not exist"
	case !ok:
		reason = "role has no password assigned"
	case err != nil:
		reason = "wrong password"
	case cred.ValidUntil != nil && cred.ValidUntil.Before(time.Now()):
		reason = "password has expired"
	}
	if reason == "" {
		a.record(key, true, time.Now())
		return nil
	}
	a.record(key, false, time.Now())
	a.Logger.Warn("password authentication failed", "user", user, "host", key.host, "reason", reason)
	if err != nil {
		return err
	}
	return passwordFailed(user)
}

// isLoopback reports whether addr is a loopback or Unix-socket peer.
func isLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// hostOf is addr without its port.
func hostOf(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return addr.String()
}
