package wire

// http_origin.go keeps web pages out of the HTTP API: a page a browser
// shows could otherwise send it requests its user never meant, above all
// while it needs no token (a loopback server without --http-token, where
// every request runs as the bootstrap superuser).

import (
	"net"
	"net/http"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// codeForbidden is the error body's code of a request refused for where
// it comes from (refuseWebPages).
const codeForbidden = "FORBIDDEN"

// refuseWebPages answers 403 (42501) to two kinds of request a browser
// sends for a page of another site:
//
//   - a cross-origin request that is not GET, HEAD or OPTIONS
//     (http.CrossOriginProtection, by Sec-Fetch-Site or Origin): a page
//     may POST a "simple" request, a body of text/plain, to any address
//     without asking, and the API took it as JSON and ran its SQL;
//   - while the API needs no token, a request that came to a loopback
//     address for a Host that is not a loopback name or address: a page
//     of a site whose name its owner made resolve to 127.0.0.1 (DNS
//     rebinding) is same-origin with the API and may read what it
//     answers. /health and /ready stay open.
//
// Clients other than browsers send neither Origin nor Sec-Fetch-Site, and
// address a tokenless, loopback-only server by a loopback name, so they
// are never refused. The MCP SDK checks the Host of /mcp itself too.
func (a *httpAPI) refuseWebPages(h http.Handler) http.Handler {
	csrf := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := csrf.Check(r); err != nil {
			a.fail(w, &requestError{http.StatusForbidden, codeForbidden, pgerr.New(pgerrcode.InsufficientPrivilege, "cross-origin request refused: %v", err).
				WithHint("The HTTP API does not take requests from web pages of other sites.")})
			return
		}
		if !a.auth.Enabled() && r.Host != "" && r.URL.Path != "/health" && r.URL.Path != "/ready" && viaLoopback(r) && !loopbackHost(r.Host) {
			a.fail(w, &requestError{http.StatusForbidden, codeForbidden, pgerr.New(pgerrcode.InsufficientPrivilege, "request for host %q refused: without a token the HTTP API answers only requests addressed to localhost, 127.0.0.1 or ::1", r.Host).
				WithHint("Address the server by a loopback name, or give it --http-token.")})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// viaLoopback reports whether r came to a loopback address of this
// machine.
func viaLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	return loopbackHost(addr.String())
}

// loopbackHost reports whether host (a request's Host: a name or address,
// with or without a port) names this machine's loopback interface:
// localhost and its subdomains (RFC 6761; browsers resolve them to
// loopback themselves), or a loopback address. An empty Host (an HTTP/1.0
// client's) is no browser's.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
