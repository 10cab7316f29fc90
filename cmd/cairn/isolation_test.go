package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestParallelPlanLeavesSessionStateAlone runs statements over a table
// large enough for a parallel top-k (one goroutine per scan partition)
// with functions that read or write session state. A volatile one
// (set_config) keeps the plan serial, as PostgreSQL keeps parallel-unsafe
// functions out of parallel workers: it used to run in every partition at
// once and end the process with "concurrent map writes". Stable ones
// (current_setting) run in the partitions against a snapshot of the
// session. Run with -race.
func TestParallelPlanLeavesSessionStateAlone(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE memories (id int, embedding float4[])`)
	mustExec(t, conn, `INSERT INTO memories SELECT g, ARRAY[1, g / 200000.0]::float4[] FROM generate_series(1, 200000) g`)

	topIDs := func(sql string, args ...any) []int32 {
		t.Helper()
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return ids
	}
	// Scores rise with id, all distinct.
	want := []int32{200000, 199999, 199998}
	same := func(what string, got []int32) {
		t.Helper()
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("%s: top-3 = %v, want %v", what, got, want)
		}
	}

	same("plain top-k", topIDs(`SELECT id FROM memories ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3`))

	for i := 0; i < 3; i++ {
		same("set_config in WHERE", topIDs(`SELECT id FROM memories WHERE set_config('my.x', id::text, false) IS NOT NULL ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3`))
		// The rows were filtered one after the other, in the session: the
		// setting holds the last row's id, as in PostgreSQL.
		var x string
		if err := conn.QueryRow(ctx, `SELECT current_setting('my.x')`).Scan(&x); err != nil || x != "200000" {
			t.Fatalf("my.x = %q, %v; want 200000", x, err)
		}
		mustExec(t, conn, `RESET my.x`)
	}
	// set_config in the select list and in the sort key.
	same("set_config in the select list", topIDs(`SELECT id FROM (SELECT id, embedding, set_config('my.y', id::text, true) AS y FROM memories) m ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3`))
	got := topIDs(`SELECT id FROM memories ORDER BY length(set_config('my.z', id::text, false)), embedding <#> '{0,1}'::float4[] DESC LIMIT 3`)
	if len(got) != 3 {
		t.Fatalf("set_config in ORDER BY: %v", got)
	}

	// Stable functions read the session's settings from the partitions.
	mustExec(t, conn, `SET my.pick = 'all'`)
	same("current_setting in WHERE", topIDs(`SELECT id FROM memories WHERE current_setting('my.pick') = 'all' AND current_user = current_user ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3`))
	mustExec(t, conn, `SET my.pick = 'none'`)
	if got := topIDs(`SELECT id FROM memories WHERE current_setting('my.pick') = 'all' ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3`); len(got) != 0 {
		t.Fatalf("current_setting read a stale value: %v", got)
	}
	// Advisory locks taken per row stay in the session (and are released
	// with it): all of them are held afterwards.
	var held bool
	if err := conn.QueryRow(ctx, `SELECT count(*) = 3 FROM (SELECT id FROM memories WHERE pg_try_advisory_lock(id) ORDER BY embedding <#> '{0,1}'::float4[] DESC LIMIT 3) s`).Scan(&held); err != nil || !held {
		t.Fatalf("advisory locks in a parallel-sized scan: %v, %v", held, err)
	}
	other := ts.connect(t)
	var free bool
	if err := other.QueryRow(ctx, `SELECT pg_try_advisory_lock(200000)`).Scan(&free); err != nil || free {
		t.Fatalf("lock 200000 taken by the scan is free in another session: %v, %v", free, err)
	}
	mustExec(t, conn, `SELECT pg_advisory_unlock_all()`)
}
