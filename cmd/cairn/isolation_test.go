package main

import (
	"context"
	"fmt"
	"strings"
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

// TestExprCacheKeepsSessionsApart runs the same statements over the same
// table from concurrent sessions whose TimeZone, search_path and
// extra_float_digits differ, many times so that the engine's expression
// cache (shared by all sessions) is warm, and checks every answer against
// PostgreSQL's. Constants are read in each session's TimeZone too. The
// cache used to key date_trunc('day', at) on the
// function and its constants only, so a Tokyo session got a UTC
// session's days; now it keeps only immutable functions, and functions
// that read the session (stable) are computed in the statement.
func TestExprCacheKeepsSessionsApart(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE events (id int, at timestamptz, x float8, name text)`)
	mustExec(t, setup, `INSERT INTO events VALUES (1, '2024-01-01 20:00+00', 0.5, 'items'), (2, '2024-03-10 06:30+00', 2.25, 'other'), (3, '2024-06-30 23:59:59+00', -1, 'items')`)
	mustExec(t, setup, `CREATE SCHEMA a`)
	mustExec(t, setup, `CREATE SCHEMA b`)
	mustExec(t, setup, `CREATE TABLE a.items (id int)`)
	mustExec(t, setup, `CREATE TABLE b.items (id int)`)

	const timeQuery = `SELECT id::text, date_trunc('day', at)::text, to_char(at, 'YYYY-MM-DD HH24:MI'), at::date::text,
		extract(hour from at)::text, date_part('dow', at)::text, (at + interval '1 day')::text, at::text
		FROM events ORDER BY id`
	// PostgreSQL 15's answers, one row per line.
	timeAnswers := map[string]string{
		"UTC": `1|2024-01-01 00:00:00+00|2024-01-01 20:00|2024-01-01|20|1|2024-01-02 20:00:00+00|2024-01-01 20:00:00+00
2|2024-03-10 00:00:00+00|2024-03-10 06:30|2024-03-10|6|0|2024-03-11 06:30:00+00|2024-03-10 06:30:00+00
3|2024-06-30 00:00:00+00|2024-06-30 23:59|2024-06-30|23|0|2024-07-01 23:59:59+00|2024-06-30 23:59:59+00`,
		"Asia/Tokyo": `1|2024-01-02 00:00:00+09|2024-01-02 05:00|2024-01-02|5|2|2024-01-03 05:00:00+09|2024-01-02 05:00:00+09
2|2024-03-10 00:00:00+09|2024-03-10 15:30|2024-03-10|15|0|2024-03-11 15:30:00+09|2024-03-10 15:30:00+09
3|2024-07-01 00:00:00+09|2024-07-01 08:59|2024-07-01|8|1|2024-07-02 08:59:59+09|2024-07-01 08:59:59+09`,
		// 2024-03-10 is the day New York's clocks go forward: one day
		// after 01:30 EST is 01:30 EDT.
		"America/New_York": `1|2024-01-01 00:00:00-05|2024-01-01 15:00|2024-01-01|15|1|2024-01-02 15:00:00-05|2024-01-01 15:00:00-05
2|2024-03-10 00:00:00-05|2024-03-10 01:30|2024-03-10|1|0|2024-03-11 01:30:00-04|2024-03-10 01:30:00-05
3|2024-06-30 00:00:00-04|2024-06-30 19:59|2024-06-30|19|0|2024-07-01 19:59:59-04|2024-06-30 19:59:59-04`,
	}
	// Literals are read in the session's TimeZone when the statement is
	// bound.
	const literalQuery = `SELECT '2024-01-01 00:00'::timestamptz::text, count(*)::text FROM events WHERE at > '2024-01-01 21:00'`
	literalAnswers := map[string]string{
		"UTC":              "2024-01-01 00:00:00+00|2",
		"Asia/Tokyo":       "2024-01-01 00:00:00+09|3",
		"America/New_York": "2024-01-01 00:00:00-05|2",
	}
	const pathQuery = `SELECT count(*)::text FROM public.events WHERE to_regclass(name) = 'a.items'::regclass`
	const floatQuery = `SELECT string_agg((x * 3)::text, ',' ORDER BY id) FROM events`

	type session struct {
		settings []string
		query    string
		want     string
	}
	var sessions []session
	for zone, want := range timeAnswers {
		sessions = append(sessions, session{[]string{"SET TimeZone = '" + zone + "'", "SET DateStyle = 'ISO, MDY'"}, timeQuery, want})
		sessions = append(sessions, session{[]string{"SET TimeZone = '" + zone + "'"}, literalQuery, literalAnswers[zone]})
	}
	sessions = append(sessions,
		session{[]string{"SET search_path = a"}, pathQuery, "2"},
		session{[]string{"SET search_path = b"}, pathQuery, "0"},
		session{[]string{"SET extra_float_digits = 0"}, floatQuery, "1.5,6.75,-3"},
		session{[]string{"SET extra_float_digits = 3"}, floatQuery, "1.5,6.75,-3"},
	)
	const rounds = 30
	errs := make(chan error, len(sessions))
	for _, s := range sessions {
		conn := ts.connect(t)
		for _, set := range s.settings {
			mustExec(t, conn, set)
		}
		go func() {
			errs <- func() error {
				for i := 0; i < rounds; i++ {
					rows, err := conn.Query(ctx, s.query)
					if err != nil {
						return fmt.Errorf("%v: %s: %v", s.settings, s.query, err)
					}
					var lines []string
					for rows.Next() {
						vals, err := rows.Values()
						if err != nil {
							return err
						}
						fields := make([]string, len(vals))
						for j, v := range vals {
							fields[j] = fmt.Sprint(v)
						}
						lines = append(lines, strings.Join(fields, "|"))
					}
					if err := rows.Err(); err != nil {
						return err
					}
					if got := strings.Join(lines, "\n"); got != s.want {
						return fmt.Errorf("%v, round %d:\n%s\nwant (PostgreSQL):\n%s", s.settings, i, got, s.want)
					}
				}
				return nil
			}()
		}()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
