package main

import (
	"context"
	"testing"
)

// TestViewFollowsRenameRestart renames a table, a column and a view that
// views read (as ORM migrations do) and moves one to another schema,
// kills the server with SIGKILL and restarts it: the views, rewritten to
// the new names, still read the same rows under their old column names,
// and pg_views shows the new names.
func TestViewFollowsRenameRestart(t *testing.T) {
	dir := t.TempDir()
	p := startLogged(t, dir)
	conn := p.connect(t)
	for _, q := range []string{
		`CREATE TABLE notes (id int PRIMARY KEY, body text)`,
		`INSERT INTO notes VALUES (1, 'one'), (2, 'two')`,
		`CREATE VIEW recent AS SELECT id, notes.body FROM notes WHERE id > 1`,
		`CREATE VIEW recent_ids AS SELECT id FROM recent`,
		`ALTER TABLE notes RENAME COLUMN body TO content`,
		`ALTER TABLE notes RENAME TO memo_notes`,
		`ALTER VIEW recent RENAME TO latest`,
		`CREATE SCHEMA archive`,
		`CREATE VIEW archived AS SELECT id FROM latest`,
		`CREATE VIEW archived_ids AS SELECT id FROM archived`,
		`ALTER VIEW archived SET SCHEMA archive`,
	} {
		mustExec(t, conn, q)
	}
	check := func(when string) {
		t.Helper()
		c := p.connect(t)
		var id int
		var body string
		if err := c.QueryRow(context.Background(), `SELECT id, body FROM latest`).Scan(&id, &body); err != nil || id != 2 || body != "two" {
			t.Errorf("%s: latest is (%d, %q), %v; want (2, \"two\")", when, id, body, err)
		}
		if err := c.QueryRow(context.Background(), `SELECT id FROM recent_ids`).Scan(&id); err != nil || id != 2 {
			t.Errorf("%s: recent_ids is %d, %v; want 2", when, id, err)
		}
		var def string
		if err := c.QueryRow(context.Background(), `SELECT definition FROM pg_views WHERE viewname = 'latest'`).Scan(&def); err != nil ||
			def != " SELECT id, memo_notes.content AS body FROM memo_notes WHERE id > 1;" {
			t.Errorf("%s: latest's definition %q, %v", when, def, err)
		}
		if err := c.QueryRow(context.Background(), `SELECT definition FROM pg_views WHERE viewname = 'recent_ids'`).Scan(&def); err != nil ||
			def != " SELECT id FROM latest;" {
			t.Errorf("%s: recent_ids's definition %q, %v", when, def, err)
		}
		if err := c.QueryRow(context.Background(), `SELECT id FROM archived_ids`).Scan(&id); err != nil || id != 2 {
			t.Errorf("%s: archived_ids is %d, %v; want 2", when, id, err)
		}
	}
	check("before the restart")
	p.kill()
	p = startLogged(t, dir)
	check("after the restart")
}
