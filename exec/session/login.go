package session

import (
	"sync"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// DefaultMaxConnections and DefaultSuperuserReservedConnections are
// PostgreSQL's max_connections and superuser_reserved_connections.
const (
	DefaultMaxConnections               = 100
	DefaultSuperuserReservedConnections = 3
)

// connLimits counts the sessions Login opened, in all and per login
// name, against max_connections, the slots reserved for superusers and
// each role's CONNECTION LIMIT.
type connLimits struct {
	max, reserved int

	mu     sync.Mutex
	total  int
	byUser map[string]int
}

// enter admits one more session for role r logging in as user, or
// returns PostgreSQL's 53300 error.
func (l *connLimits) enter(user string, r *catalog.RoleDef) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.total >= l.max:
		return pgerr.New(pgerrcode.TooManyConnections, "sorry, too many clients already")
	case !r.Superuser && l.total >= l.max-l.reserved:
		return pgerr.New(pgerrcode.TooManyConnections, "remaining connection slots are reserved for non-replication superuser connections")
	case !r.Superuser && r.ConnLimit >= 0 && l.byUser[user] >= r.ConnLimit:
		return pgerr.New(pgerrcode.TooManyConnections, "too many connections for role \"%s\"", user)
	}
	l.total++
	l.byUser[user]++
	return nil
}

// leave gives back the slot of a session of user.
func (l *connLimits) leave(user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.byUser[user]--; l.byUser[user] == 0 {
		delete(l.byUser, user)
	}
}

// Credentials are what a login's authentication checks, as of the newest
// committed catalog.
type Credentials struct {
	// Known is false for a name that is no role; such a login fails.
	Known bool
	// Verifier is the role's SCRAM-SHA-256 verifier, "" when it has no
	// password.
	Verifier string
	// ValidUntil is the role's VALID UNTIL, nil for none.
	ValidUntil *time.Time
	// BootstrapHasPassword reports whether the bootstrap superuser has a
	// password (the server runs with --password). Without one, loopback
	// clients are trusted as before roles existed.
	BootstrapHasPassword bool
}

// legacyLogins reports whether cat has no role but the bootstrap
// superuser: then, as before cairn had roles, any login name is accepted
// and acts as the bootstrap superuser (under that name), so that setups
// that only use --password keep working. The first CREATE ROLE ends
// that: from then on a login name must name a role that may log in.
func legacyLogins(cat *catalog.Catalog) bool { return len(cat.Roles) == 1 }

// Credentials returns what authenticating user needs.
func (e *Engine) Credentials(user string) Credentials {
	cat := e.db.Catalog()
	boot := cat.RoleByOID(catalog.BootstrapRoleOID)
	c := Credentials{BootstrapHasPassword: boot.Password != ""}
	r := cat.Role(user)
	if r == nil && legacyLogins(cat) {
		r = boot
	}
	if r != nil {
		c.Known, c.Verifier, c.ValidUntil = true, r.Password, r.ValidUntil
	}
	return c
}

// Login opens the session of an authenticated client: it refuses a name
// that is no role (28000; see legacyLogins), a role without LOGIN
// (28000), and a connection beyond max_connections, the superuser
// reserve or the role's CONNECTION LIMIT (53300), and applies the role's
// ALTER ROLE ... SET defaults before the startup parameters: those of
// the startup packet other than user, database and replication, which
// may include options (applyStartup). A startup parameter that cannot be
// applied fails the login with PostgreSQL's error for it.
func (e *Engine) Login(user, database string, startup map[string]string) (*Session, error) {
	return e.login(user, database, startup, true)
}

// LoginRole is Login for a client whose credential was issued for role
// itself (an HTTP API bearer token): the role must exist even while
// legacyLogins would let any name act as the bootstrap superuser, so a
// token mapped to a role not yet created, or dropped since, grants
// nothing.
func (e *Engine) LoginRole(role, database string, startup map[string]string) (*Session, error) {
	return e.login(role, database, startup, false)
}

// login is Login; legacy allows legacyLogins' fallback.
func (e *Engine) login(user, database string, startup map[string]string, legacy bool) (*Session, error) {
	// The names of a startup packet are text every session can read
	// (current_user, pg_stat_activity): bytes that are not UTF-8 are
	// refused as a query's text would be, before legacyLogins could take
	// them for a login name.
	for _, name := range []string{user, database} {
		if err := types.CheckText([]byte(name)); err != nil {
			return nil, err
		}
	}
	cat := e.db.Catalog()
	r := cat.Role(user)
	if r == nil {
		if !legacy || !legacyLogins(cat) {
			return nil, pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "role \"%s\" does not exist", user)
		}
		r = cat.RoleByOID(catalog.BootstrapRoleOID)
	}
	if !r.Login {
		return nil, pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "role \"%s\" is not permitted to log in", user)
	}
	if err := e.limits.enter(user, r); err != nil {
		return nil, err
	}
	s, err := e.newSession(user, database, r.Config, startup)
	if err != nil {
		e.limits.leave(user)
		return nil, err
	}
	s.login = true
	return s, nil
}

// SetBootstrapPassword makes password the bootstrap superuser's (the
// server's --password), committing the change only when the stored
// verifier does not already match it.
func (e *Engine) SetBootstrapPassword(password string) error {
	boot := e.db.Catalog().RoleByOID(catalog.BootstrapRoleOID)
	if k, ok := catalog.ParseSCRAMVerifier(boot.Password); ok && k.Verifies(password) {
		return nil
	}
	v, err := catalog.SCRAMVerifier(password)
	if err != nil {
		return err
	}
	tx := e.db.Begin()
	defer tx.Rollback()
	n := tx.Catalog().RoleByOID(catalog.BootstrapRoleOID).Clone()
	n.Password = v
	if err := tx.AlterRole(n); err != nil {
		return err
	}
	return tx.Commit()
}

// Started is when the session was opened.
func (s *Session) Started() time.Time { return s.started }
