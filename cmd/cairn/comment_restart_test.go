package main

import (
	"context"
	"testing"
)

// TestCommentsSurviveRestart sets COMMENT ON an index, a key constraint's
// index, a sequence, an enum, constraints, a trigger, a role, the
// database and an extension, kills the server with SIGKILL and restarts
// it: every comment is still in pg_description or pg_shdescription.
func TestCommentsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	p := startLogged(t, dir)
	conn := p.connect(t)
	for _, q := range []string{
		`CREATE TYPE mood AS ENUM ('happy', 'sad')`,
		`CREATE SEQUENCE ticket`,
		`CREATE TABLE items (id int PRIMARY KEY, qty int CONSTRAINT qty_positive CHECK (qty > 0), parent int CONSTRAINT items_parent_fk REFERENCES items (id))`,
		`CREATE INDEX items_qty ON items (qty)`,
		`CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
		`CREATE TRIGGER items_touch BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION touch()`,
		`CREATE ROLE reader`,
		`COMMENT ON INDEX items_qty IS 'index'`,
		`COMMENT ON INDEX items_pkey IS 'key index'`,
		`COMMENT ON SEQUENCE ticket IS 'sequence'`,
		`COMMENT ON TYPE mood IS 'type'`,
		`COMMENT ON CONSTRAINT items_pkey ON items IS 'key'`,
		`COMMENT ON CONSTRAINT qty_positive ON items IS 'check'`,
		`COMMENT ON CONSTRAINT items_parent_fk ON items IS 'foreign key'`,
		`COMMENT ON TRIGGER items_touch ON items IS 'trigger'`,
		`COMMENT ON ROLE reader IS 'role'`,
		`COMMENT ON DATABASE cairn IS 'database'`,
		`COMMENT ON EXTENSION vector IS 'extension'`,
	} {
		mustExec(t, conn, q)
	}
	const q = `SELECT string_agg(description, ',' ORDER BY description) FROM (
		SELECT description FROM pg_description WHERE description IN ('index', 'key index', 'sequence', 'type', 'key', 'check', 'foreign key', 'trigger', 'extension')
		UNION ALL SELECT description FROM pg_shdescription) d`
	const want = "check,database,extension,foreign key,index,key,key index,role,sequence,trigger,type"
	check := func(when string) {
		t.Helper()
		var got string
		if err := p.connect(t).QueryRow(context.Background(), q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: comments %q, want %q", when, got, want)
		}
	}
	check("before the restart")
	p.kill()
	p = startLogged(t, dir)
	check("after the restart")
	var db string
	if err := p.connect(t).QueryRow(context.Background(), `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = current_database()`).Scan(&db); err != nil || db != "database" {
		t.Errorf("shobj_description of the database: %q, %v", db, err)
	}
}
