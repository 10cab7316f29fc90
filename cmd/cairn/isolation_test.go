package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
// table from concurrent sessions whose TimeZone, DateStyle, search_path
// and extra_float_digits differ, many times so that the engine's
// expression cache (shared by all sessions) is warm, and checks every
// answer against PostgreSQL's. The cache used to key date_trunc('day', at)
// on the function and its constants only, so a Tokyo session got a UTC
// session's days; now it keeps only immutable functions, and functions
// that read the session (stable) are computed in the statement. Constants
// are read in each session's TimeZone and DateStyle field order; values
// print in its DateStyle and extra_float_digits in the wire's text format
// (raw: read as the bytes the server sent) and in casts to text, never in
// the binary format or in JSON's dates.
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

	type check struct {
		query string
		raw   bool // simple protocol, the text the server sent
		want  string
	}
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
	const literalQuery = `SELECT '2024-01-01 00:00'::timestamptz::text, count(*)::text FROM events WHERE at > '2024-01-01 21:00'`
	literalAnswers := map[string]string{
		"UTC":              "2024-01-01 00:00:00+00|2",
		"Asia/Tokyo":       "2024-01-01 00:00:00+09|3",
		"America/New_York": "2024-01-01 00:00:00-05|2",
	}
	const pathQuery = `SELECT count(*)::text FROM public.events WHERE to_regclass(name) = 'a.items'::regclass`

	// DateStyle: casts to text, || and an ambiguous literal (read in the
	// session's field order), with to_char and to_json, which it does not
	// govern; then the columns themselves in the text format; then in the
	// binary format, which no setting changes.
	const styleQuery = `SELECT id::text, at::text, at::date::text, at::timestamp::text, to_char('03/04/2024'::date, 'YYYY-MM-DD'),
		to_char(at, 'DD.MM.YYYY'), to_json(at)::text, 'at ' || at FROM events ORDER BY id`
	const columnsQuery = `SELECT at, at::date, at::timestamp FROM events ORDER BY id`
	binary := check{`SELECT at FROM events ORDER BY id`, false, "2024-01-01T20:00:00Z\n2024-03-10T06:30:00Z\n2024-06-30T23:59:59Z"}
	// extra_float_digits: casts to text in an aggregate, then the text
	// format, then the binary format.
	const floatQuery = `SELECT string_agg((x / 3)::text, ',' ORDER BY id), string_agg((x / 3)::real::text, ',' ORDER BY id) FROM events`
	const floatColumns = `SELECT x / 3, (x / 3)::real, ARRAY[x / 7] FROM events ORDER BY id`
	floatBinary := check{`SELECT x / 3 FROM events ORDER BY id`, false, "0.16666666666666666\n0.75\n-0.3333333333333333"}

	type session struct {
		settings []string
		checks   []check
	}
	var sessions []session
	for zone, want := range timeAnswers {
		sessions = append(sessions,
			session{[]string{"SET TimeZone = '" + zone + "'", "SET DateStyle = 'ISO, MDY'"}, []check{{timeQuery, false, want}}},
			session{[]string{"SET TimeZone = '" + zone + "'"}, []check{{literalQuery, false, literalAnswers[zone]}}})
	}
	sessions = append(sessions,
		session{[]string{"SET search_path = a"}, []check{{pathQuery, false, "2"}}},
		session{[]string{"SET search_path = b"}, []check{{pathQuery, false, "0"}}},
		session{[]string{"SET TimeZone = 'Asia/Tokyo'", "SET DateStyle = 'SQL, DMY'"}, []check{
			{styleQuery, false, `1|02/01/2024 05:00:00 JST|02/01/2024|02/01/2024 05:00:00|2024-04-03|02.01.2024|"2024-01-02T05:00:00+09:00"|at 02/01/2024 05:00:00 JST
2|10/03/2024 15:30:00 JST|10/03/2024|10/03/2024 15:30:00|2024-04-03|10.03.2024|"2024-03-10T15:30:00+09:00"|at 10/03/2024 15:30:00 JST
3|01/07/2024 08:59:59 JST|01/07/2024|01/07/2024 08:59:59|2024-04-03|01.07.2024|"2024-07-01T08:59:59+09:00"|at 01/07/2024 08:59:59 JST`},
			{columnsQuery, true, `02/01/2024 05:00:00 JST|02/01/2024|02/01/2024 05:00:00
10/03/2024 15:30:00 JST|10/03/2024|10/03/2024 15:30:00
01/07/2024 08:59:59 JST|01/07/2024|01/07/2024 08:59:59`},
			binary}},
		session{[]string{"SET TimeZone = 'America/New_York'", "SET DateStyle = 'Postgres, MDY'"}, []check{
			{styleQuery, false, `1|Mon Jan 01 15:00:00 2024 EST|01-01-2024|Mon Jan 01 15:00:00 2024|2024-03-04|01.01.2024|"2024-01-01T15:00:00-05:00"|at Mon Jan 01 15:00:00 2024 EST
2|Sun Mar 10 01:30:00 2024 EST|03-10-2024|Sun Mar 10 01:30:00 2024|2024-03-04|10.03.2024|"2024-03-10T01:30:00-05:00"|at Sun Mar 10 01:30:00 2024 EST
3|Sun Jun 30 19:59:59 2024 EDT|06-30-2024|Sun Jun 30 19:59:59 2024|2024-03-04|30.06.2024|"2024-06-30T19:59:59-04:00"|at Sun Jun 30 19:59:59 2024 EDT`},
			{columnsQuery, true, `Mon Jan 01 15:00:00 2024 EST|01-01-2024|Mon Jan 01 15:00:00 2024
Sun Mar 10 01:30:00 2024 EST|03-10-2024|Sun Mar 10 01:30:00 2024
Sun Jun 30 19:59:59 2024 EDT|06-30-2024|Sun Jun 30 19:59:59 2024`},
			binary}},
		session{[]string{"SET TimeZone = 'UTC'", "SET DateStyle = 'German'"}, []check{
			{styleQuery, false, `1|01.01.2024 20:00:00 UTC|01.01.2024|01.01.2024 20:00:00|2024-04-03|01.01.2024|"2024-01-01T20:00:00+00:00"|at 01.01.2024 20:00:00 UTC
2|10.03.2024 06:30:00 UTC|10.03.2024|10.03.2024 06:30:00|2024-04-03|10.03.2024|"2024-03-10T06:30:00+00:00"|at 10.03.2024 06:30:00 UTC
3|30.06.2024 23:59:59 UTC|30.06.2024|30.06.2024 23:59:59|2024-04-03|30.06.2024|"2024-06-30T23:59:59+00:00"|at 30.06.2024 23:59:59 UTC`},
			{columnsQuery, true, `01.01.2024 20:00:00 UTC|01.01.2024|01.01.2024 20:00:00
10.03.2024 06:30:00 UTC|10.03.2024|10.03.2024 06:30:00
30.06.2024 23:59:59 UTC|30.06.2024|30.06.2024 23:59:59`},
			binary}},
		session{[]string{"SET TimeZone = 'Asia/Tokyo'", "SET DateStyle = 'ISO, YMD'"}, []check{
			{`SELECT to_char('24/03/04'::date, 'YYYY-MM-DD')`, false, "2024-03-04"},
			{columnsQuery, true, `2024-01-02 05:00:00+09|2024-01-02|2024-01-02 05:00:00
2024-03-10 15:30:00+09|2024-03-10|2024-03-10 15:30:00
2024-07-01 08:59:59+09|2024-07-01|2024-07-01 08:59:59`},
			binary}},
		session{[]string{"SET extra_float_digits = 0"}, []check{
			{floatQuery, false, "0.166666666666667,0.75,-0.333333333333333|0.166667,0.75,-0.333333"},
			{floatColumns, true, `0.166666666666667|0.166667|{0.0714285714285714}
0.75|0.75|{0.321428571428571}
-0.333333333333333|-0.333333|{-0.142857142857143}`},
			floatBinary}},
		session{[]string{"SET extra_float_digits = -3"}, []check{
			{floatQuery, false, "0.166666666667,0.75,-0.333333333333|0.167,0.75,-0.333"},
			{floatColumns, true, `0.166666666667|0.167|{0.0714285714286}
0.75|0.75|{0.321428571429}
-0.333333333333|-0.333|{-0.142857142857}`},
			floatBinary}},
		session{[]string{"SET extra_float_digits = -12"}, []check{
			{floatQuery, false, "0.167,0.75,-0.333|0.2,0.8,-0.3"},
			{floatColumns, true, `0.167|0.2|{0.0714}
0.75|0.8|{0.321}
-0.333|-0.3|{-0.143}`},
			floatBinary}},
		session{[]string{"SET extra_float_digits = 3"}, []check{
			{floatQuery, false, "0.16666666666666666,0.75,-0.3333333333333333|0.16666667,0.75,-0.33333334"},
			{floatColumns, true, `0.16666666666666666|0.16666667|{0.07142857142857142}
0.75|0.75|{0.32142857142857145}
-0.3333333333333333|-0.33333334|{-0.14285714285714285}`},
			floatBinary}},
	)
	// run answers a check's query as lines of fields joined by "|":
	// decoded by pgx (timestamps as UTC RFC 3339), or raw, the bytes the
	// server sent in the simple protocol's text format.
	run := func(conn *pgx.Conn, c check) (string, error) {
		var lines []string
		if c.raw {
			results, err := conn.PgConn().Exec(ctx, c.query).ReadAll()
			if err != nil {
				return "", err
			}
			for _, row := range results[0].Rows {
				fields := make([]string, len(row))
				for j, v := range row {
					fields[j] = string(v)
				}
				lines = append(lines, strings.Join(fields, "|"))
			}
			return strings.Join(lines, "\n"), nil
		}
		rows, err := conn.Query(ctx, c.query)
		if err != nil {
			return "", err
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return "", err
			}
			fields := make([]string, len(vals))
			for j, v := range vals {
				if tm, ok := v.(time.Time); ok {
					v = tm.UTC().Format(time.RFC3339Nano)
				}
				fields[j] = fmt.Sprint(v)
			}
			lines = append(lines, strings.Join(fields, "|"))
		}
		return strings.Join(lines, "\n"), rows.Err()
	}
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
					for _, c := range s.checks {
						got, err := run(conn, c)
						if err != nil {
							return fmt.Errorf("%v: %s: %v", s.settings, c.query, err)
						}
						if got != c.want {
							return fmt.Errorf("%v, round %d: %s:\n%s\nwant (PostgreSQL):\n%s", s.settings, i, c.query, got, c.want)
						}
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

// TestExprCacheTimeZoneFunctions runs functions that read the session's
// TimeZone over a table large enough for the ExprCache to keep their
// results (it skips batches under 256 rows) from sessions in two time
// zones, each after the other has filled the cache. age of two
// timestamptz values (immutable in PostgreSQL's pg_proc, though its fields
// are the TimeZone's) and OVERLAPS with an interval on timestamptz were
// marked immutable, so the second session got the first one's answer.
func TestExprCacheTimeZoneFunctions(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE stamps (id int, at timestamptz, til timestamptz)`)
	mustExec(t, setup, `INSERT INTO stamps SELECT g, timestamptz '2024-03-10 06:30+00', timestamptz '2024-03-31 00:00+00' FROM generate_series(1, 1000) g`)
	const query = `SELECT age(til, '2024-03-01 00:00+00')::text, (at, interval '1 day') OVERLAPS ('2024-03-11 06:00+00', interval '1 hour'), count(*)
		FROM stamps GROUP BY 1, 2`
	// PostgreSQL 15's answers: New York's clocks go forward on
	// 2024-03-10, so a day after 01:30 EST ends at 05:30 UTC.
	want := map[string]string{
		"UTC":              "30 days|true|1000",
		"America/New_York": "1 mon 1 day 01:00:00|false|1000",
	}
	for _, order := range [][]string{{"UTC", "America/New_York"}, {"America/New_York", "UTC"}} {
		for _, zone := range order {
			conn := ts.connect(t)
			mustExec(t, conn, "SET TimeZone = '"+zone+"'")
			var age string
			var overlaps bool
			var n int64
			if err := conn.QueryRow(ctx, query).Scan(&age, &overlaps, &n); err != nil {
				t.Fatalf("%s: %v", zone, err)
			}
			if got := fmt.Sprintf("%s|%t|%d", age, overlaps, n); got != want[zone] {
				t.Errorf("%s after %v: got %s, want %s", zone, order, got, want[zone])
			}
			conn.Close(ctx)
		}
	}
}
