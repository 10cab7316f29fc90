package main

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKeyLookupSnapshot checks that a lookup by primary key or unique key
// answers from the statement's snapshot, not from the latest commit that
// the key's hash index follows: a REPEATABLE READ transaction keeps
// seeing a row that another session updated, deleted or re-keyed after
// its snapshot, and does not see one inserted since; once it ends, the
// new state shows. The lookups run prepared, as drivers send them.
func TestKeyLookupSnapshot(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE mem (id bigint PRIMARY KEY, path text UNIQUE, task text)`)
	mustExec(t, a, `INSERT INTO mem SELECT g, '/s/' || g, 'task ' || g FROM generate_series(1, 1000) g`)

	byID := func(c *pgx.Conn, id int64) (string, bool) {
		t.Helper()
		var task string
		err := c.QueryRow(ctx, `SELECT task FROM mem WHERE id = $1`, id).Scan(&task)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", false
		}
		if err != nil {
			t.Fatalf("lookup of id %d: %v", id, err)
		}
		return task, true
	}
	byPath := func(c *pgx.Conn, path string) (int64, bool) {
		t.Helper()
		var id int64
		err := c.QueryRow(ctx, `SELECT id FROM mem WHERE path = $1`, path).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, false
		}
		if err != nil {
			t.Fatalf("lookup of path %s: %v", path, err)
		}
		return id, true
	}
	expect := func(what string, got string, found bool, want string, wantFound bool) {
		t.Helper()
		if got != want || found != wantFound {
			t.Fatalf("%s: got %q (found %v), want %q (found %v)", what, got, found, want, wantFound)
		}
	}

	mustExec(t, a, `BEGIN ISOLATION LEVEL REPEATABLE READ`)
	task, ok := byID(a, 1)
	expect("before", task, ok, "task 1", true)

	mustExec(t, b, `UPDATE mem SET task = 'changed' WHERE id = 1`)
	mustExec(t, b, `DELETE FROM mem WHERE id = 2`)
	mustExec(t, b, `UPDATE mem SET path = '/moved/3' WHERE id = 3`)
	mustExec(t, b, `INSERT INTO mem VALUES (5000, '/s/5000', 'new')`)
	task, ok = byID(b, 1)
	expect("other session, updated row", task, ok, "changed", true)

	task, ok = byID(a, 1)
	expect("snapshot, updated row", task, ok, "task 1", true)
	task, ok = byID(a, 2)
	expect("snapshot, deleted row", task, ok, "task 2", true)
	task, ok = byID(a, 5000)
	expect("snapshot, row inserted since", task, ok, "", false)
	if id, ok := byPath(a, "/s/3"); !ok || id != 3 {
		t.Fatalf("snapshot, re-keyed row: id %d found %v, want 3", id, ok)
	}
	if _, ok := byPath(a, "/moved/3"); ok {
		t.Fatal("snapshot sees the key a later commit gave the row")
	}
	mustExec(t, a, `COMMIT`)

	task, ok = byID(a, 1)
	expect("after, updated row", task, ok, "changed", true)
	task, ok = byID(a, 2)
	expect("after, deleted row", task, ok, "", false)
	task, ok = byID(a, 5000)
	expect("after, inserted row", task, ok, "new", true)
	if id, ok := byPath(a, "/moved/3"); !ok || id != 3 {
		t.Fatalf("after, re-keyed row: id %d found %v, want 3", id, ok)
	}
	if _, ok := byPath(a, "/s/3"); ok {
		t.Fatal("the old key of a re-keyed row still finds it")
	}
}
