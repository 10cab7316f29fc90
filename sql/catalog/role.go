package catalog

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Roles: users and groups, as PostgreSQL's pg_authid and pg_auth_members
// hold them. They live in the catalog so that they are transactional and
// durable exactly as tables are (the WAL carries the catalog of a commit
// that changed it); privileges (a later step) will read them through
// Role, RoleByOID and IsMemberOf.

// BootstrapRoleOID is the OID of the bootstrap superuser, as in
// PostgreSQL (the role initdb makes).
const BootstrapRoleOID = 10

// BootstrapRole is the bootstrap superuser's name: the user the HTTP API
// runs as, and the one the test servers connect as.
const BootstrapRole = "cairn"

// FirstRoleOID is the OID of the first role CREATE ROLE makes, as
// PostgreSQL's first normal OID.
const FirstRoleOID = 16384

// RoleDef is a role (pg_authid).
type RoleDef struct {
	OID        uint32 `json:"oid"`
	Name       string `json:"name"`
	Superuser  bool   `json:"superuser,omitempty"`
	Inherit    bool   `json:"inherit,omitempty"`
	CreateRole bool   `json:"createrole,omitempty"`
	CreateDB   bool   `json:"createdb,omitempty"`
	Login      bool   `json:"login,omitempty"`
	// BypassRLS is BYPASSRLS: row-level security binds the role nowhere.
	BypassRLS bool `json:"bypassrls,omitempty"`
	// ConnLimit is CONNECTION LIMIT, -1 for none.
	ConnLimit int `json:"connlimit"`
	// Password is the SCRAM-SHA-256 verifier (see SCRAMVerifier), ""
	// for none. The password itself is never kept.
	Password string `json:"password,omitempty"`
	// ValidUntil is VALID UNTIL, nil for none.
	ValidUntil *time.Time `json:"valid_until,omitempty"`
	// Config is ALTER ROLE ... SET: "name=value" each, sorted by name
	// (pg_roles.rolconfig).
	Config []string `json:"config,omitempty"`
	// Comment is COMMENT ON ROLE's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// Clone returns a copy of r that shares no memory with it.
func (r *RoleDef) Clone() *RoleDef {
	n := *r
	n.Config = slices.Clone(r.Config)
	if r.ValidUntil != nil {
		t := *r.ValidUntil
		n.ValidUntil = &t
	}
	return &n
}

// MemberDef is one membership (pg_auth_members): Member is a member of
// Role, granted by Grantor, with ADMIN OPTION when Admin.
type MemberDef struct {
	Role    uint32 `json:"role"`
	Member  uint32 `json:"member"`
	Grantor uint32 `json:"grantor"`
	Admin   bool   `json:"admin,omitempty"`
}

// ensureBootstrapRole adds the bootstrap superuser to a catalog that has
// none (a new one, or one written before roles).
func (c *Catalog) ensureBootstrapRole() {
	if c.Roles == nil {
		c.Roles = map[string]*RoleDef{}
	}
	if c.NextRoleOID < FirstRoleOID {
		c.NextRoleOID = FirstRoleOID
	}
	if c.RoleByOID(BootstrapRoleOID) != nil {
		return
	}
	c.Roles[BootstrapRole] = &RoleDef{OID: BootstrapRoleOID, Name: BootstrapRole, Superuser: true, Inherit: true,
		CreateRole: true, CreateDB: true, Login: true, ConnLimit: -1}
}

// Role returns the role called name, or nil.
func (c *Catalog) Role(name string) *RoleDef { return c.Roles[name] }

// RoleByOID returns the role with OID oid, or nil.
func (c *Catalog) RoleByOID(oid uint32) *RoleDef {
	for _, r := range c.Roles {
		if r.OID == oid {
			return r
		}
	}
	return nil
}

// RoleList returns the roles in OID order.
func (c *Catalog) RoleList() []*RoleDef {
	out := make([]*RoleDef, 0, len(c.Roles))
	for _, r := range c.Roles {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *RoleDef) int { return int(a.OID) - int(b.OID) })
	return out
}

// IsMemberOf reports whether member is role or a member of it, directly
// or through other roles. With inheritOnly, the chain must pass only
// through roles that INHERIT (the privileges member uses without SET
// ROLE: pg_has_role's USAGE); without, any chain counts (SET ROLE,
// pg_has_role's MEMBER). A superuser is a member of every role, as in
// PostgreSQL.
func (c *Catalog) IsMemberOf(member, role uint32, inheritOnly bool) bool {
	if member == role {
		return true
	}
	if m := c.RoleByOID(member); m != nil && m.Superuser {
		return true
	}
	return c.Reaches(member, role, inheritOnly)
}

// Reaches reports whether a chain of memberships leads from member to
// role (through roles that INHERIT only, with inheritOnly), superusers
// counting for nothing: GRANT refuses a grant that would close a cycle.
func (c *Catalog) Reaches(member, role uint32, inheritOnly bool) bool {
	if member == role {
		return true
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if inheritOnly {
			if r := c.RoleByOID(cur); r == nil || !r.Inherit {
				continue
			}
		}
		for _, m := range c.Members {
			if m.Member == cur && !seen[m.Role] {
				if m.Role == role {
					return true
				}
				seen[m.Role] = true
				queue = append(queue, m.Role)
			}
		}
	}
	return false
}

// HasAdminOf reports whether member may grant role to others: it, or a
// role it is a member of by any chain, holds role WITH ADMIN OPTION (as
// PostgreSQL 15's is_admin_of_role; superusers aside).
func (c *Catalog) HasAdminOf(member, role uint32) bool {
	for _, m := range c.Members {
		if m.Role == role && m.Admin && c.Reaches(member, m.Member, false) {
			return true
		}
	}
	return false
}

// Membership returns the index of the grant of role to member in
// c.Members, -1 if there is none.
func (c *Catalog) Membership(role, member uint32) int {
	return slices.IndexFunc(c.Members, func(m MemberDef) bool { return m.Role == role && m.Member == member })
}

// SCRAM-SHA-256 verifiers in PostgreSQL's format:
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, base64 each.

// SCRAMIterations is PostgreSQL's default scram_iterations.
const SCRAMIterations = 4096

// SCRAMKeys is a parsed SCRAM-SHA-256 verifier.
type SCRAMKeys struct {
	Iterations           int
	Salt                 []byte
	StoredKey, ServerKey []byte
}

// SCRAMVerifier derives the verifier of password under a fresh 16-byte
// salt, as PostgreSQL's password_encryption = scram-sha-256 does.
func SCRAMVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	k, err := scramKeys(password, salt, SCRAMIterations)
	if err != nil {
		return "", err
	}
	return k.String(), nil
}

func scramKeys(password string, salt []byte, iterations int) (SCRAMKeys, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return SCRAMKeys{}, err
	}
	stored := sha256.Sum256(HMACSHA256(salted, "Client Key"))
	return SCRAMKeys{Iterations: iterations, Salt: salt, StoredKey: stored[:], ServerKey: HMACSHA256(salted, "Server Key")}, nil
}

// HMACSHA256 is HMAC-SHA-256 of msg under key, SCRAM's HMAC.
func HMACSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// String is the verifier in PostgreSQL's text format.
func (k SCRAMKeys) String() string {
	b := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", k.Iterations, b(k.Salt), b(k.StoredKey), b(k.ServerKey))
}

// Verifies reports whether password is the one k was derived from.
func (k SCRAMKeys) Verifies(password string) bool {
	got, err := scramKeys(password, k.Salt, k.Iterations)
	return err == nil && hmac.Equal(got.StoredKey, k.StoredKey) && hmac.Equal(got.ServerKey, k.ServerKey)
}

// ParseSCRAMVerifier reads a verifier in PostgreSQL's format; ok is false
// for any other text (a plain password, say).
func ParseSCRAMVerifier(v string) (k SCRAMKeys, ok bool) {
	rest, found := strings.CutPrefix(v, "SCRAM-SHA-256$")
	if !found {
		return k, false
	}
	iterSalt, keys, found := strings.Cut(rest, "$")
	if !found {
		return k, false
	}
	iter, salt, found := strings.Cut(iterSalt, ":")
	stored, server, found2 := strings.Cut(keys, ":")
	if !found || !found2 {
		return k, false
	}
	var err error
	if k.Iterations, err = strconv.Atoi(iter); err != nil || k.Iterations <= 0 {
		return k, false
	}
	dec := base64.StdEncoding.DecodeString
	if k.Salt, err = dec(salt); err != nil || len(k.Salt) == 0 {
		return k, false
	}
	if k.StoredKey, err = dec(stored); err != nil || len(k.StoredKey) != sha256.Size {
		return k, false
	}
	if k.ServerKey, err = dec(server); err != nil || len(k.ServerKey) != sha256.Size {
		return k, false
	}
	return k, true
}
