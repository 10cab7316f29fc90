package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage"
)

// keyIndexTables are the two tables TestKeyIndexScanMatchesScan fills
// alike: ev with btree and hash indexes, plain with none.
var keyIndexTables = []string{"ev", "plain"}

// TestKeyIndexScanMatchesScan runs equality, IN and = ANY lookups on
// btree- and hash-indexed columns of many types (pgx parameters, a
// prepared plan reused with other values, and literals) against a table
// with the indexes and the same rows without: the answers are the same,
// through flushed and compacted segments, the unflushed tail, deletes and
// updates, a column added after the first segments (NULL there), the
// transaction's own inserts and deletes, another session's snapshot, and
// after a restart (the indexes rebuilt from the segments); EXPLAIN shows
// the index.
func TestKeyIndexScanMatchesScan(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv := startServerOpts(t, dir, storage.Options{FlushRows: 700})
	conn := srv.connect(t)
	exec := func(conn *pgx.Conn, q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	both := func(q string) {
		t.Helper()
		for _, table := range keyIndexTables {
			exec(conn, strings.ReplaceAll(q, "TBL", table))
		}
	}
	both(`CREATE TABLE TBL (id bigint PRIMARY KEY, session_id text, seq int, tenant uuid, at timestamptz,
		score numeric, flag boolean, kind varchar(10), doc jsonb)`)
	for _, q := range []string{
		`CREATE INDEX ev_session ON ev (session_id, seq)`,
		`CREATE INDEX ev_tenant ON ev USING hash (tenant)`,
		`CREATE INDEX ev_at ON ev (at DESC)`,
		`CREATE INDEX ev_score ON ev (score)`,
		`CREATE INDEX ev_flag_kind ON ev (flag, kind)`,
		`CREATE INDEX ev_doc ON ev (doc)`,
		`CREATE INDEX ev_doc_n ON ev ((doc ->> 'n'))`,
		`CREATE INDEX ev_lower ON ev (lower(session_id), seq)`,
	} {
		exec(conn, q)
	}
	fill := `INSERT INTO TBL SELECT g, 's' || (g %% 97), g %% 50, ('00000000-0000-0000-0000-0000000000' || lpad((g %% 13)::text, 2, '0'))::uuid,
		'2026-01-01 00:00:00+00'::timestamptz + (g %% 40) * interval '1 hour', (g %% 7) * 1.50, g %% 3 = 0,
		CASE WHEN g %% 11 = 0 THEN NULL ELSE 'k' || (g %% 5) END, jsonb_build_object('n', g %% 4)
		FROM generate_series(%d, %d) g`
	both(fmt.Sprintf(fill, 1, 3000)) // segments, compacted
	both(fmt.Sprintf(fill, 3001, 3500))
	for g := 3501; g <= 3540; g++ { // single-row commits: small tail batches
		both(fmt.Sprintf(fill, g, g))
	}
	both(`DELETE FROM TBL WHERE id % 10 = 3`)
	both(`UPDATE TBL SET session_id = 's5', score = 2.0 WHERE id % 25 = 1`)
	both(`UPDATE TBL SET session_id = NULL WHERE id % 97 = 2`)
	both(`ALTER TABLE TBL ADD COLUMN label text`)
	exec(conn, `CREATE INDEX ev_label ON ev (label)`)
	both(`UPDATE TBL SET label = 'L' || (id % 3) WHERE id > 3300`)
	both(fmt.Sprintf(fill, 3541, 4800))

	type lookup struct {
		where string
		args  []any
	}
	lookups := []lookup{
		{"session_id = $1", []any{"s5"}},
		{"session_id = $1", []any{"s96"}},
		{"session_id = $1", []any{"nope"}},
		{"session_id = $1", []any{nil}},
		{"session_id = $1 AND seq = $2", []any{"s5", 5}},
		{"session_id = $1 AND seq = $2", []any{"s5", int64(6)}},
		{"session_id = $1 AND seq > $2", []any{"s12", 20}},
		{"session_id IN ('s1', 's2', 's3') AND seq IN (1, 2, 3, 4)", nil},
		{"session_id = ANY($1)", []any{[]string{"s7", "s8", "missing"}}},
		{"session_id = ANY(ARRAY['s9', NULL])", nil},
		{"session_id = ANY($1)", []any{[]string{}}},
		{"seq = $1", []any{7}}, // not a leading column: a scan
		{"tenant = $1", []any{"00000000-0000-0000-0000-000000000007"}},
		{"at = $1", []any{"2026-01-01 05:00:00+00"}},
		{"at = '2026-01-01 07:00:00+02'", nil},
		{"score = 3", nil},
		{"score = $1", []any{"4.500"}},
		{"score = 2.0", nil},
		{"flag = true AND kind = 'k2'", nil},
		{"flag = $1", []any{false}},
		{"flag AND kind IS NULL", nil},
		{"kind = 'k1' AND flag = false", nil},
		{"doc = $1", []any{`{"n": 2}`}}, // jsonb: a scan
		{"label = 'L1'", nil},
		{"label = $1 AND session_id = $2", []any{"L2", "s40"}},
		{"label IS NULL", nil},
		{"label IS NULL AND session_id = $1", []any{"s41"}},
		{"session_id IS NULL", nil},
		{"kind IS NULL", nil}, // not a leading column: a scan
		{"doc ->> 'n' = $1", []any{"2"}},
		{"doc ->> 'n' IN ('1', '3') AND flag", nil},
		{"lower(session_id) = $1", []any{"s5"}},
		{"lower(session_id) = 's7' AND seq = $1", []any{7}},
		{"lower(session_id) IS NULL", nil},
		{"upper(session_id) = 'S5'", nil}, // no index on upper(): a scan
		{"at > $1", []any{"2026-01-02 10:00:00+00"}},
		{"at >= $1 AND at < $2", []any{"2026-01-01 05:00:00+00", "2026-01-01 09:00:00+00"}},
		{"at BETWEEN '2026-01-01 03:00:00+00' AND '2026-01-01 04:00:00+00' AND flag", nil},
		{"at <= '2026-01-01 02:00:00+00'", nil},
		{"id = ANY($1)", []any{[]int64{5, 77, 77, 3001, 9001, -4}}},
		{"id IN (1, 2, 3333) AND session_id <> 's1'", nil},
		{"$1 < at", []any{"2026-01-02 14:30:00+00"}},
		{"at > $1 AND at < $2", []any{"2026-01-02 00:00:00+00", "2026-01-01 00:00:00+00"}},
		{"session_id = 's5' OR seq = 3", nil},
	}
	ids := func(conn *pgx.Conn, table string, l lookup) []int64 {
		t.Helper()
		q := "SELECT id FROM " + table + " WHERE " + l.where
		rows, err := conn.Query(ctx, q, l.args...)
		if err != nil {
			t.Fatalf("%s %v: %v", q, l.args, err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatalf("%s %v: %v", q, l.args, err)
		}
		slices.Sort(out)
		return out
	}
	check := func(conn *pgx.Conn, what string) {
		t.Helper()
		found := 0
		for _, l := range lookups {
			got, want := ids(conn, "ev", l), ids(conn, "plain", l)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: WHERE %s %v: %d rows through the index, %d by a scan\n%v\n%v", what, l.where, l.args, len(got), len(want), got, want)
			}
			found += len(want)
		}
		if found == 0 {
			t.Fatalf("%s: no lookup found a row", what)
		}
	}
	check(conn, "committed")
	for _, l := range lookups {
		var plan string
		if err := conn.QueryRow(ctx, "EXPLAIN SELECT id FROM ev WHERE "+l.where, l.args...).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		indexed := strings.Contains(plan, "Bitmap Heap Scan on ev using ")
		scan := l.where == "seq = $1" || l.where == "doc = $1" || l.where == "kind IS NULL" || strings.HasPrefix(l.where, "upper") || strings.Contains(l.where, " OR ")
		if indexed == scan {
			t.Fatalf("EXPLAIN WHERE %s: %q", l.where, plan)
		}
	}

	for where, index := range map[string]string{
		"session_id = 's1'":                  "ev_session",
		"session_id = 's1' AND seq = 3":      "ev_session",
		"tenant = md5('x')::uuid":            "ev_tenant",
		"flag = true AND kind = 'k1'":        "ev_flag_kind",
		"seq = 3 AND session_id = 's1'":      "ev_session",
		"session_id IN ('s1', 's2')":         "ev_session",
		"session_id = ANY(ARRAY['s1','s2'])": "ev_session",
	} {
		var plan string
		if err := conn.QueryRow(ctx, "EXPLAIN SELECT id FROM ev WHERE "+where).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "Bitmap Heap Scan on ev using "+index) {
			t.Fatalf("EXPLAIN WHERE %s: %q", where, plan)
		}
	}

	// pg_stat_user_indexes counts the searches of each index and the rows
	// they fetched; an index no plan used has none.
	scans := map[string][2]int64{}
	rows, err := conn.Query(ctx, "SELECT indexrelname, idx_scan, idx_tup_fetch FROM pg_stat_user_indexes WHERE relname = 'ev'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var scan, fetch int64
		if err := rows.Scan(&name, &scan, &fetch); err != nil {
			t.Fatal(err)
		}
		scans[name] = [2]int64{scan, fetch}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if s := scans["ev_session"]; s[0] < 10 || s[1] == 0 {
		t.Fatalf("ev_session: idx_scan %d, idx_tup_fetch %d", s[0], s[1])
	}
	if s := scans["ev_tenant"]; s[0] < 1 || s[1] == 0 {
		t.Fatalf("ev_tenant: idx_scan %d, idx_tup_fetch %d", s[0], s[1])
	}
	if s := scans["ev_doc"]; s[0] != 0 {
		t.Fatalf("ev_doc, which no plan uses: idx_scan %d", s[0])
	}

	// Another session's snapshot stays its own while rows come and go.
	other := srv.connect(t)
	exec(other, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	before := ids(other, "ev", lookups[0])
	both(`INSERT INTO TBL (id, session_id, seq) SELECT g, 's5', 1 FROM generate_series(9001, 9400) g`)
	both(`DELETE FROM TBL WHERE id IN (5, 105, 205)`)
	if after := ids(other, "ev", lookups[0]); !slices.Equal(before, after) {
		t.Fatalf("a snapshot saw other commits: %d rows, then %d", len(before), len(after))
	}
	exec(other, "COMMIT")
	check(conn, "after more commits")

	// A transaction's own inserts and deletes.
	exec(conn, "BEGIN")
	both(`INSERT INTO TBL (id, session_id, seq, tenant) SELECT g, 's5', 9, '00000000-0000-0000-0000-000000000007' FROM generate_series(20001, 20050) g`)
	both(`DELETE FROM TBL WHERE session_id = 's5' AND seq = 5`)
	both(`UPDATE TBL SET session_id = 's96' WHERE id BETWEEN 20001 AND 20010`)
	check(conn, "in a transaction")
	exec(conn, "ROLLBACK")
	check(conn, "after the rollback")

	srv.stop()
	srv = startServerOpts(t, dir, storage.Options{FlushRows: 700})
	check(srv.connect(t), "after a restart")
}
