package syscat

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// Cursor is one of the session's open named portals as pg_cursors lists
// it: a cursor of DECLARE, or a named portal of the protocol's Bind
// (PostgreSQL lists both; the unnamed portal never shows).
type Cursor struct {
	Name string
	// Statement is the text of the statement that made it: the DECLARE,
	// or the query the portal runs.
	Statement    string
	Holdable     bool
	CreationTime time.Time
}

func init() {
	register("pg_catalog", "pg_cursors", 0, "name text, statement text, is_holdable bool, is_binary bool, is_scrollable bool, creation_time timestamptz", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Cursors))
		for _, c := range v.Cursors {
			// cairn's cursors read forward only and BINARY ones are
			// refused: neither binary nor scrollable.
			rows = append(rows, []any{c.Name, c.Statement, c.Holdable, false, false, types.TimestampFromTime(c.CreationTime)})
		}
		return rows
	})
}
