package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestMergeParameters runs MERGE through the extended protocol: typed
// and untyped parameters in the source, a condition and SET, a prepared
// statement executed with several argument sets, and a result that
// describes no rows.
func TestMergeParameters(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE kv (k text PRIMARY KEY, v int NOT NULL, hits int DEFAULT 0)`)
	const upsert = `MERGE INTO kv USING (SELECT $1::text AS k, $2::int AS v) s ON kv.k = s.k
		WHEN MATCHED AND $3 THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = s.v, hits = kv.hits + $4
		WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)`
	sd, err := conn.Prepare(ctx, "upsert", upsert)
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.Fields) != 0 {
		t.Fatalf("MERGE describes %d result columns, want none", len(sd.Fields))
	}
	if len(sd.ParamOIDs) != 4 || sd.ParamOIDs[2] != 16 || sd.ParamOIDs[3] != 23 {
		t.Fatalf("parameter types %v, want [text int4 bool int4]", sd.ParamOIDs)
	}
	for _, step := range []struct {
		k    string
		v    int
		drop bool
		tag  string
	}{
		{"a", 1, false, "MERGE 1"}, // inserted
		{"a", 2, false, "MERGE 1"}, // updated
		{"b", 5, false, "MERGE 1"},
		{"a", 3, false, "MERGE 1"},
		{"b", 0, true, "MERGE 1"}, // deleted
		{"c", 0, true, "MERGE 1"}, // inserted: DELETE needs a match
	} {
		tag, err := conn.Exec(ctx, "upsert", step.k, step.v, step.drop, 10)
		if err != nil {
			t.Fatalf("%+v: %v", step, err)
		}
		if tag.String() != step.tag {
			t.Fatalf("%+v: tag %q, want %q", step, tag, step.tag)
		}
	}
	rows, _ := conn.Query(ctx, `SELECT k, v, hits FROM kv ORDER BY k`)
	type kvRow struct {
		K    string
		V    int
		Hits int
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[kvRow])
	if err != nil {
		t.Fatal(err)
	}
	want := []kvRow{{"a", 3, 20}, {"c", 0, 0}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("rows %v, want %v", got, want)
	}

	// An untyped parameter takes the type of the column it is assigned.
	tag, err := conn.Exec(ctx, `MERGE INTO kv USING (VALUES ('a')) s(k) ON kv.k = s.k WHEN MATCHED THEN UPDATE SET v = $1`, 42)
	if err != nil || tag.String() != "MERGE 1" {
		t.Fatalf("untyped parameter: %q, %v", tag, err)
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT v FROM kv WHERE k = 'a'`).Scan(&v); err != nil || v != 42 {
		t.Fatalf("v = %d, %v; want 42", v, err)
	}
	// A failing MERGE changes nothing: NOT NULL on the inserted row.
	if _, err := conn.Exec(ctx, "upsert", "d", nil, false, 1); sqlState(err) != "23502" {
		t.Fatalf("NULL into a NOT NULL column: %v, want 23502", err)
	}
}

// TestMergeConcurrentSessions runs MERGE in two sessions at once. Under
// READ COMMITTED a MERGE that updates a row another transaction has
// updated waits for it, then runs again on the committed row (no update
// lost), as UPDATE does; under REPEATABLE READ it fails with 40001. A
// MERGE inserting a key another transaction has inserted waits, then
// fails with 23505 when that one commits, as in PostgreSQL 15.
func TestMergeConcurrentSessions(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE counter (id int PRIMARY KEY, n int)`)
	mustExec(t, a, `INSERT INTO counter VALUES (1, 0)`)
	const bump = `MERGE INTO counter c USING (VALUES (1)) s(id) ON c.id = s.id
		WHEN MATCHED THEN UPDATE SET n = c.n + 1
		WHEN NOT MATCHED THEN INSERT VALUES (s.id, 1)`

	// waitsFor runs sql in b while a holds its transaction open, checks
	// that it waits, then ends a with end and returns b's error.
	waitsFor := func(sql, end string) error {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := b.Exec(ctx, sql)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("%s returned (%v) while another transaction held the row", sql, err)
		case <-time.After(300 * time.Millisecond):
		}
		mustExec(t, a, end)
		return <-done
	}

	mustExec(t, a, `BEGIN`)
	mustExec(t, a, bump)
	if err := waitsFor(bump, `COMMIT`); err != nil {
		t.Fatalf("READ COMMITTED MERGE after a concurrent update: %v", err)
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("n = %d, %v; want 2 (both increments)", n, err)
	}

	// A rolled-back update lets the waiting MERGE go on.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, bump)
	if err := waitsFor(bump, `ROLLBACK`); err != nil {
		t.Fatalf("MERGE after a concurrent update rolled back: %v", err)
	}
	if err := a.QueryRow(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("n = %d, %v; want 3", n, err)
	}

	// REPEATABLE READ: the snapshot predates a's committed update.
	mustExec(t, b, `BEGIN ISOLATION LEVEL REPEATABLE READ`)
	mustExec(t, b, `SELECT n FROM counter`)
	mustExec(t, a, bump)
	if _, err := b.Exec(ctx, bump); sqlState(err) != "40001" {
		t.Fatalf("REPEATABLE READ MERGE of a row updated since its snapshot: %v, want 40001", err)
	}
	mustExec(t, b, `ROLLBACK`)

	// Two sessions inserting one new key through WHEN NOT MATCHED.
	const add = `MERGE INTO counter c USING (VALUES (2)) s(id) ON c.id = s.id
		WHEN NOT MATCHED THEN INSERT VALUES (s.id, 1)`
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, add)
	if err := waitsFor(add, `COMMIT`); sqlState(err) != "23505" {
		t.Fatalf("MERGE inserting a key a concurrent transaction inserted: %v, want 23505", err)
	}
	if err := a.QueryRow(ctx, `SELECT sum(n) FROM counter`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("sum(n) = %d, %v; want 5", n, err)
	}
}
