package main

import (
	"context"
	"testing"
)

// TestConcurrentDropIfExists: two transactions that each DROP ... IF
// EXISTS the same object both commit, as in PostgreSQL (where the second
// waits for the first's lock, finds the object gone and skips it). The
// second commit used to replay its drop on the catalog the first had
// committed and fail with 42704 / 42P01 / 3F000, so concurrent clean-ups
// of a scratch index or table failed at random. A plain DROP still fails
// there, as PostgreSQL's does.
func TestConcurrentDropIfExists(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	for _, c := range []struct{ setup, drop string }{
		{`CREATE TABLE di1 (a int); CREATE INDEX di1_a ON di1 (a)`, `DROP INDEX IF EXISTS di1_a`},
		{`CREATE TABLE di2 (a int)`, `DROP TABLE IF EXISTS di2`},
		{`CREATE SEQUENCE di3`, `DROP SEQUENCE IF EXISTS di3`},
		{`CREATE SCHEMA di4`, `DROP SCHEMA IF EXISTS di4`},
		{`CREATE VIEW di5 AS SELECT 1 AS x`, `DROP VIEW IF EXISTS di5`},
	} {
		mustExec(t, a, c.setup)
		mustExec(t, a, "BEGIN")
		mustExec(t, b, "BEGIN")
		mustExec(t, a, c.drop)
		mustExec(t, b, c.drop)
		mustExec(t, a, "COMMIT")
		if _, err := b.Exec(ctx, "COMMIT"); err != nil {
			t.Errorf("%s, committed after another session's: %v", c.drop, err)
		}
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname LIKE 'di%' AND relname <> 'di1'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d relations left, %v", n, err)
	}

	// Without IF EXISTS the second drop fails at its commit.
	mustExec(t, a, `CREATE TABLE di6 (a int); CREATE INDEX di6_a ON di6 (a)`)
	mustExec(t, a, "BEGIN")
	mustExec(t, b, "BEGIN")
	mustExec(t, a, `DROP INDEX di6_a`)
	mustExec(t, b, `DROP INDEX di6_a`)
	mustExec(t, a, "COMMIT")
	if _, err := b.Exec(ctx, "COMMIT"); sqlState(err) != "42704" {
		t.Errorf("DROP INDEX committed after another session's: %v, want 42704", err)
	}
}
