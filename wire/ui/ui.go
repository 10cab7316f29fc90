package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/wire/httpauth"
	"github.com/cairn-db/cairn/wire/mcp"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Cookie names. Both are HttpOnly, SameSite=Strict and scoped to /ui.
const (
	// sessionCookie proves a browser gave a token once: it holds
	// httpauth.Tokens.SessionValue(token), never the token itself.
	sessionCookie = "cairn_ui_session"
	// csrfCookie holds the random value every form posts back
	// (double-submit): a page of another site can neither read it nor,
	// with SameSite=Strict, make the browser send it.
	csrfCookie = "cairn_ui_csrf"
)

// Options configures the explorer.
type Options struct {
	// Tokens are the HTTP API's bearer tokens (none: no login): a request
	// is let in with "Authorization: Bearer <token>", with the session
	// cookie a login set, or with ?token=<token>, which sets that cookie
	// and redirects to the same page without it. The pages' statements
	// run as the token's role (httpauth.WithRole on the request context).
	Tokens *httpauth.Tokens
	// DefaultRole is the role the statements run as while no token is
	// configured.
	DefaultRole string
	// Logger receives the errors of the server's own making (class XX).
	Logger *slog.Logger
}

// Handler returns the explorer; mount it at "/ui/" (it serves "/ui"
// too). db runs its statements, each in a session of its own; the
// explorer names every table with its schema.
func Handler(db mcp.DB, opts Options) http.Handler {
	u := &explorer{db: db, tokens: opts.Tokens, defaultRole: opts.DefaultRole, log: opts.Logger, pages: map[string]*template.Template{}}
	if u.log == nil {
		u.log = slog.Default()
	}
	for _, page := range []string{"login", "error", "overview", "table", "row", "traces", "activity"} {
		u.pages[page] = template.Must(template.New("layout.html").ParseFS(assets, "templates/layout.html", "templates/"+page+".html"))
	}
	static, err := fs.Sub(assets, "static")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /ui", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("POST /ui/login", u.login)
	mux.HandleFunc("GET /ui/{$}", u.guard(u.overview))
	mux.HandleFunc("GET /ui/tables/{schema}/{table}", u.guard(u.table))
	mux.HandleFunc("GET /ui/tables/{schema}/{table}/row", u.guard(u.row))
	mux.HandleFunc("GET /ui/traces", u.guard(u.traces))
	mux.HandleFunc("GET /ui/activity", u.guard(u.activity))
	mux.HandleFunc("POST /ui/activity/{pid}/{action}", u.guard(u.signal))
	mux.HandleFunc("GET /ui/login", func(w http.ResponseWriter, r *http.Request) {
		u.render(w, r, http.StatusOK, "login", &page{Title: "Log in", Data: loginData{Next: "/ui/"}})
	})
	mux.HandleFunc("/ui/", u.guard(func(w http.ResponseWriter, r *http.Request, _ *page) {
		u.fail(w, r, pgerr.New(pgerrcode.UndefinedObject, "no page %s", r.URL.Path), http.StatusNotFound)
	}))
	return mux
}

// explorer holds what the pages share.
type explorer struct {
	db          mcp.DB
	tokens      *httpauth.Tokens
	defaultRole string
	log         *slog.Logger
	pages       map[string]*template.Template
}

// equal compares secrets in time independent of where they differ.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// setCookie sets one of the explorer's cookies.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/ui", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// guard lets in the requests that carry the token (Options.Token), gives
// every browser its CSRF cookie and checks it on each POST. A request
// authenticated by its Authorization header needs no CSRF value: a page
// of another site cannot make a browser send that header.
func (u *explorer) guard(h func(http.ResponseWriter, *http.Request, *page)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		byHeader := false
		role := u.defaultRole
		if u.tokens.Enabled() {
			tok, _ := httpauth.Bearer(r)
			c, _ := r.Cookie(sessionCookie)
			query := r.URL.Query().Get("token")
			var ok bool
			switch role, ok = u.tokens.Role(tok); {
			case ok:
				byHeader = true
			case query != "":
				// A token in the URL only logs in (GET), never acts.
				if _, valid := u.tokens.Role(query); valid && r.Method == http.MethodGet {
					setCookie(w, r, sessionCookie, u.tokens.SessionValue(query))
					q := r.URL.Query()
					q.Del("token")
					http.Redirect(w, r, (&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String(), http.StatusSeeOther)
					return
				}
			case c != nil:
				role, ok = u.tokens.SessionRole(c.Value)
			}
			if !ok {
				u.log.Warn("http authentication failed", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
				w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
				u.render(w, r, http.StatusUnauthorized, "login", &page{Title: "Log in", Data: loginData{Next: r.URL.Path, Wrong: query != "" || r.Header.Get("Authorization") != ""}})
				return
			}
		}
		r = r.WithContext(httpauth.WithRole(r.Context(), role))
		p := &page{}
		if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 64 {
			p.CSRF = c.Value
		} else {
			b := make([]byte, 32)
			rand.Read(b)
			p.CSRF = hex.EncodeToString(b)
			setCookie(w, r, csrfCookie, p.CSRF)
		}
		if r.Method == http.MethodPost && !byHeader {
			if c, err := r.Cookie(csrfCookie); err != nil || !equal(r.PostFormValue("csrf"), c.Value) {
				u.fail(w, r, pgerr.New(pgerrcode.InsufficientPrivilege, "missing or invalid CSRF token: reload the page and submit the form again"), http.StatusForbidden)
				return
			}
		}
		h(w, r, p)
	}
}

// loginData is the login page's.
type loginData struct {
	Next  string
	Wrong bool
}

// login answers the login form: the right token sets the session cookie
// and goes on to the page asked for, a wrong one gets 401.
func (u *explorer) login(w http.ResponseWriter, r *http.Request) {
	next := r.PostFormValue("next")
	if !strings.HasPrefix(next, "/ui/") || strings.HasPrefix(next, "/ui//") {
		next = "/ui/"
	}
	if u.tokens.Enabled() {
		tok := r.PostFormValue("token")
		if _, ok := u.tokens.Role(tok); !ok {
			u.log.Warn("http authentication failed", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			u.render(w, r, http.StatusUnauthorized, "login", &page{Title: "Log in", Data: loginData{Next: next, Wrong: true}})
			return
		}
		setCookie(w, r, sessionCookie, u.tokens.SessionValue(tok))
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// page is what the layout renders around a page's Data.
type page struct {
	Title string
	CSRF  string
	Data  any
}

// render writes a page; a template that fails half way has already sent
// its status, so it is logged only.
func (u *explorer) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := u.pages[name].Execute(w, p); err != nil {
		u.log.Error("rendering ui page", "page", name, "path", r.URL.Path, "err", err)
	}
}

// errorData is the error page's.
type errorData struct {
	Message, SQLState string
}

// fail renders err as an error page with status, or when status is 0
// the one its SQLSTATE calls for (statusOf).
func (u *explorer) fail(w http.ResponseWriter, r *http.Request, err error, status int) {
	code := pgerr.Code(err)
	if status == 0 {
		status = statusOf(code)
	}
	if strings.HasPrefix(code, "XX") || status == http.StatusInternalServerError {
		u.log.Error("ui request failed", "path", r.URL.Path, "err", err)
	}
	u.render(w, r, status, "error", &page{Title: "Error", Data: errorData{Message: err.Error(), SQLState: code}})
}

// statusOf maps a SQLSTATE to the HTTP status of its error page.
func statusOf(code string) int {
	switch {
	case code == pgerrcode.UndefinedTable, code == pgerrcode.InvalidSchemaName, code == pgerrcode.UndefinedColumn, code == pgerrcode.UndefinedObject:
		return http.StatusNotFound
	case code == pgerrcode.InsufficientPrivilege:
		return http.StatusForbidden
	case code == pgerrcode.QueryCanceled:
		return http.StatusGatewayTimeout
	case strings.HasPrefix(code, "0A"), strings.HasPrefix(code, "22"), strings.HasPrefix(code, "42"):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// errNotFound builds the 404 of a missing object.
func errNotFound(format string, args ...any) error {
	return pgerr.New(pgerrcode.UndefinedTable, format, args...)
}

// badRequest is the error of a request the explorer cannot run.
func badRequest(format string, args ...any) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, format, args...)
}
