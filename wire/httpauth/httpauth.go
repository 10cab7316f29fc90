// Package httpauth maps the HTTP API's bearer tokens to the roles whose
// privileges a request's SQL runs with. It keeps only SHA-256 hashes of
// the tokens and compares them in constant time; the API's handlers, the
// MCP endpoint and the memory explorer (wire/ui) share it, so a token is
// parsed and checked the same way everywhere.
package httpauth

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Tokens maps bearer tokens to roles. The zero value (and nil) has no
// tokens: Enabled is false and every request acts as the default role the
// caller chooses. It is immutable once built, so safe for concurrent use.
type Tokens struct {
	entries []entry
}

// entry is one token: its SHA-256 and its role.
type entry struct {
	hash [sha256.Size]byte
	role string
}

// hashPrefix marks a token given by its SHA-256 in a tokens file, so that
// the file need not hold the token itself.
const hashPrefix = "sha256:"

// Add maps token to role. An empty token is ignored (no token configured).
func (t *Tokens) Add(role, token string) {
	if token == "" {
		return
	}
	t.entries = append(t.entries, entry{hash: sha256.Sum256([]byte(token)), role: role})
}

// Merge adds o's tokens to t.
func (t *Tokens) Merge(o *Tokens) {
	if o != nil {
		t.entries = append(t.entries, o.entries...)
	}
}

// Load reads a tokens file (Parse) from path.
func (t *Tokens) Load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := t.Parse(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Parse reads a tokens file: one "role token" per line, the token either
// as it is or as "sha256:<64 hex digits>" (its SHA-256, what
// `printf %s TOKEN | sha256sum` prints); blank lines and lines starting
// with # are skipped. A role name is as the role was created (case
// matters, no quotes). A token given twice is an error: it would stand
// for two roles.
func (t *Tokens) Parse(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return fmt.Errorf("line %d: want \"role token\", got %d fields", n, len(fields))
		}
		e := entry{role: fields[0], hash: sha256.Sum256([]byte(fields[1]))}
		if h, ok := strings.CutPrefix(fields[1], hashPrefix); ok {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != sha256.Size {
				return fmt.Errorf("line %d: %s needs 64 hex digits", n, hashPrefix)
			}
			copy(e.hash[:], b)
		}
		if other, dup := t.find(func(o entry) bool { return o.hash == e.hash }); dup {
			return fmt.Errorf("line %d: the token of role %q is already given for role %q", n, e.role, other)
		}
		t.entries = append(t.entries, e)
	}
	return sc.Err()
}

// Enabled reports whether any token is configured; without one the API
// needs no authentication.
func (t *Tokens) Enabled() bool { return t != nil && len(t.entries) > 0 }

// Role returns the role of token. Every configured token is compared,
// each in constant time, so the time taken does not depend on which
// token matched or where a wrong one differs.
func (t *Tokens) Role(token string) (string, bool) {
	if t == nil || token == "" {
		return "", false
	}
	h := sha256.Sum256([]byte(token))
	return t.find(func(e entry) bool { return subtle.ConstantTimeCompare(h[:], e.hash[:]) == 1 })
}

// find is the role of the entry match accepts, looking at every entry.
func (t *Tokens) find(match func(entry) bool) (string, bool) {
	role, found := "", false
	for _, e := range t.entries {
		if match(e) && !found {
			role, found = e.role, true
		}
	}
	return role, found
}

// SessionValue is the value of a browser session cookie for token (the
// explorer's login): a MAC keyed by the token's hash, so that the cookie
// store never holds the token, and a cookie stays valid across restarts
// as long as the token does. "" when token is not configured.
func (t *Tokens) SessionValue(token string) string {
	if _, ok := t.Role(token); !ok {
		return ""
	}
	h := sha256.Sum256([]byte(token))
	return sessionMAC(h)
}

// SessionRole returns the role of a session cookie SessionValue made.
func (t *Tokens) SessionRole(cookie string) (string, bool) {
	if t == nil || cookie == "" {
		return "", false
	}
	return t.find(func(e entry) bool { return subtle.ConstantTimeCompare([]byte(sessionMAC(e.hash)), []byte(cookie)) == 1 })
}

func sessionMAC(hash [sha256.Size]byte) string {
	m := hmac.New(sha256.New, hash[:])
	m.Write([]byte("cairn-ui-session"))
	return hex.EncodeToString(m.Sum(nil))
}

// Bearer returns the token of r's "Authorization: Bearer <token>" header
// (the scheme in any case, as RFC 7235 has it), false when there is none.
func Bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// roleKey is the context key of the authenticated role.
type roleKey struct{}

// WithRole returns ctx carrying role, the role a request authenticated as:
// the statements the request runs are run as it.
func WithRole(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

// RoleFrom returns the role WithRole put in ctx, "" when none.
func RoleFrom(ctx context.Context) string {
	r, _ := ctx.Value(roleKey{}).(string)
	return r
}
