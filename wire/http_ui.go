package wire

import (
	"net/http"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/wire/mcp"
	"github.com/cairn-db/cairn/wire/ui"
)

// uiHandler is the memory explorer at /ui (package wire/ui). Its
// statements run in engine sessions as the MCP tools' do, named
// cairn-ui in pg_stat_activity; it names every table with its schema, so
// the sessions' workspace is only their search_path. They run as the
// role of the token the explorer's login took.
func (a *httpAPI) uiHandler() http.Handler {
	return ui.Handler(sessionDB{api: a, ws: mcp.DefaultWorkspace, app: "cairn-ui"}, ui.Options{Tokens: a.auth, DefaultRole: catalog.BootstrapRole, Logger: a.log})
}
