package wire

import (
	"net/http"

	"github.com/cairn-db/cairn/wire/mcp"
	"github.com/cairn-db/cairn/wire/ui"
)

// uiHandler is the memory explorer at /ui (package wire/ui). Its
// statements run in engine sessions as the MCP tools' do, named
// cairn-ui in pg_stat_activity; it names every table with its schema, so
// the sessions' workspace is only their search_path.
func (a *httpAPI) uiHandler() http.Handler {
	return ui.Handler(sessionDB{api: a, ws: mcp.DefaultWorkspace, app: "cairn-ui"}, ui.Options{Token: a.token, Logger: a.log})
}
