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

// TestPreparedPlanFollowsCatalog checks that a prepared statement, whose
// plan is bound once and reused by every execution, is bound again when
// what the binding read changes: the search path and the catalog.
func TestPreparedPlanFollowsCatalog(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	c := ts.connect(t)
	mustExec(t, c, `CREATE SCHEMA other`)
	mustExec(t, c, `CREATE TABLE public.t (id int PRIMARY KEY, v text)`)
	mustExec(t, c, `CREATE TABLE other.t (id int PRIMARY KEY, v text)`)
	mustExec(t, c, `INSERT INTO public.t VALUES (1, 'public')`)
	mustExec(t, c, `INSERT INTO other.t VALUES (1, 'other')`)
	// pgx prepares the statement once and then only binds and executes it.
	read := func(want string) {
		t.Helper()
		var v string
		if err := c.QueryRow(ctx, `SELECT v FROM t WHERE id = $1`, 1).Scan(&v); err != nil || v != want {
			t.Fatalf("got %q, %v; want %q", v, err, want)
		}
	}
	read("public")
	read("public")
	mustExec(t, c, `SET search_path = other, public`)
	read("other")
	mustExec(t, c, `DROP TABLE other.t`)
	read("public")
	mustExec(t, c, `ALTER TABLE public.t DROP CONSTRAINT t_pkey`)
	mustExec(t, c, `INSERT INTO public.t VALUES (1, 'public')`)
	rows, err := c.Query(ctx, `SELECT v FROM t WHERE id = $1`, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(vs) != 2 {
		t.Fatalf("after dropping the key: %v, %v; want both rows", vs, err)
	}
}
