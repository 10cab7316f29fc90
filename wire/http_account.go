package wire

// http_account.go answers the account endpoints of Deeplake's API that
// its clients call besides the tables ones (Hivemind, Activeloop's memory
// plugin, on every session start and in its org / workspace / members
// commands), as Deeplake answers them for a self-hosted organisation:
// cairn has one organisation, whose user is the role of the request's
// bearer token, and no usage rollup or pushed notifications. Logins, tokens and
// member management are Deeplake-only and fail with 0A000 saying what to
// do instead, rather than answering as if they had worked.

import (
	"context"
	"net/http"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/wire/httpauth"
)

// accountOrg is the one organisation cairn reports. Clients send the
// organisation in X-Activeloop-Org-Id; cairn does not check that header,
// since the bearer token alone grants access.
const accountOrg = "cairn"

// defaultWorkspace is the workspace Hivemind and Deeplake's SDK use when
// none is configured; it is listed before its first table exists.
const defaultWorkspace = "default"

// listWorkspacesSQL lists the schemas that are workspaces: all but the
// system ones, and of those the ones the session's role may use.
const listWorkspacesSQL = `SELECT schema_name::text FROM information_schema.schemata
WHERE schema_name NOT IN ('pg_catalog', 'information_schema') AND schema_name NOT LIKE 'pg\_%'
AND has_schema_privilege(schema_name::text, 'USAGE') ORDER BY schema_name`

// idName is an organisation or workspace in a listing.
type idName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// member is an element of GET /organizations/{org}/members. cairn's
// user has no e-mail address, and clients show the name when there is
// none.
type member struct {
	UserID string `json:"user_id"`
	Name   string `json:"name"`
	Email  string `json:"email,omitempty"`
	Role   string `json:"role"`
}

// usageScope is one scope of GET /me/hivemind-stats.
type usageScope struct {
	SessionsCount     int64 `json:"sessions_count"`
	MemoryRecallCount int64 `json:"memory_recall_count"`
	MemorySearchBytes int64 `json:"memory_search_bytes"`
}

// accountRoutes registers the account endpoints:
//
//	GET    /me                                  {"id", "name"}: the token's role (no e-mail address)
//	GET    /me/notifications                    {"notifications": []}: nothing is pushed
//	GET    /me/hivemind-stats                   {"org": {...}, "user": {...}}, all zero: no usage rollup
//	GET    /organizations                       [{"id": "cairn", "name": "cairn"}]
//	GET    /organizations/{org}/members         the token's role; 404 for another organisation
//	GET    /workspaces                          {"data": [{"id", "name"}]}: the schemas the role may use, "default" always
//	POST   /organizations/{org}/members/invite  0A000 (501): cairn has no members to manage
//	DELETE /organizations/{org}/members/{user}  0A000 (501)
//	POST   /users/me/tokens                     0A000 (501): the token is the server's --http-token
//	POST   /auth/device/code, /auth/device/token 0A000 (501): there is no login
func (a *httpAPI) accountRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /me", a.guard(a.me))
	mux.HandleFunc("GET /me/notifications", a.guard(a.notifications))
	mux.HandleFunc("GET /me/hivemind-stats", a.guard(a.hivemindStats))
	mux.HandleFunc("GET /organizations", a.guard(a.organizations))
	mux.HandleFunc("GET /organizations/{org}/members", a.guard(a.members))
	mux.HandleFunc("GET /workspaces", a.guard(a.workspaces))
	mux.HandleFunc("POST /organizations/{org}/members/invite", a.guard(a.noMembers))
	mux.HandleFunc("DELETE /organizations/{org}/members/{user}", a.guard(a.noMembers))
	mux.HandleFunc("POST /users/me/tokens", a.guard(a.noLogin))
	// The device flow runs before a client has a token, so it is not
	// guarded; it answers nothing but how to configure one.
	mux.HandleFunc("POST /auth/device/code", a.noLogin)
	mux.HandleFunc("POST /auth/device/token", a.noLogin)
}

func (a *httpAPI) me(w http.ResponseWriter, r *http.Request) {
	role := httpauth.RoleFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{"id": role, "name": role})
}

func (a *httpAPI) notifications(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]struct{}{"notifications": {}})
}

func (a *httpAPI) hivemindStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]usageScope{"org": {}, "user": {}})
}

func (a *httpAPI) organizations(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []idName{{accountOrg, accountOrg}})
}

func (a *httpAPI) members(w http.ResponseWriter, r *http.Request) {
	if org := r.PathValue("org"); org != accountOrg {
		writeError(w, http.StatusNotFound, codeNotFound, pgerr.New(pgerrcode.UndefinedObject, "organization %q does not exist", org).
			WithHint("cairn has one organization, %q.", accountOrg))
		return
	}
	role := httpauth.RoleFrom(r.Context())
	writeJSON(w, http.StatusOK, map[string][]member{"members": {{role, role, "", "ADMIN"}}})
}

// workspaces answers GET /workspaces in Deeplake's shape, {"data": [...]}.
func (a *httpAPI) workspaces(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess, err := a.login(ctx, map[string]string{"application_name": "cairn-http"})
	if err != nil {
		a.fail(w, err)
		return
	}
	defer sess.Close()
	names, err := queryTexts(ctx, sess, listWorkspacesSQL)
	if err != nil {
		a.fail(w, err)
		return
	}
	data := []idName{{defaultWorkspace, defaultWorkspace}}
	for _, n := range names {
		if n != defaultWorkspace {
			data = append(data, idName{n, n})
		}
	}
	writeJSON(w, http.StatusOK, map[string][]idName{"data": data})
}

func (a *httpAPI) noMembers(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotImplemented, codeNotSupported, pgerr.NotSupported("organization members on cairn").
		WithHint("cairn's members are its roles: create one with CREATE ROLE and map a token to it in the --http-tokens file."))
}

func (a *httpAPI) noLogin(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotImplemented, codeNotSupported, pgerr.NotSupported("logging in to cairn").
		WithHint("Put a token of the server's (--http-token, or a role's from --http-tokens) in ~/.deeplake/credentials.json as \"token\", or in HIVEMIND_TOKEN."))
}
