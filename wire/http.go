package wire

import (
	"encoding/json"
	"net/http"

	"github.com/cairn-db/cairn/exec"
)

// HTTPHandler returns cairn's HTTP API over engine:
//
//	GET /health  200 {"status":"ok"} while the process serves requests
//	GET /ready   200 {"status":"ready"} once the engine can take queries
//
// The query API (SPEC §5) is added route by route in http_*.go files.
func HTTPHandler(engine *exec.Engine) http.Handler {
	api := &httpAPI{engine: engine}
	mux := http.NewServeMux()
	api.routes(mux)
	return mux
}

// httpAPI holds what the HTTP handlers share.
type httpAPI struct {
	engine *exec.Engine
}

// routes registers every endpoint; each handler lives in the http_*.go
// file of its group.
func (a *httpAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /health", a.health)
	mux.HandleFunc("GET /ready", a.ready)
}

func (a *httpAPI) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (a *httpAPI) ready(w http.ResponseWriter, r *http.Request) {
	if a.engine == nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
