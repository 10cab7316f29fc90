package main

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTrigramIndexParams runs LIKE and ILIKE with the pattern as a pgx
// parameter ($1, extended protocol, a prepared plan reused with other
// patterns) against a table with a trigram index and the same rows
// without one, before and after a restart: the answers are the same, and
// EXPLAIN shows the index. 'note %' has every row as a candidate (more
// than are fetched by row ID: they are kept from a scan), the others
// fewer.
func TestTrigramIndexParams(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	conn := srv.connect(t)
	for _, q := range []string{
		`CREATE TABLE notes (id int PRIMARY KEY, body text)`,
		`INSERT INTO notes SELECT i, 'note ' || i || ' ' || (ARRAY['Grüße aus MÜNCHEN', 'tool output: Error 42', 'ΣΊΣΥΦΟΣ', 'under_score 100%'])[1 + i % 4] || ' ' || md5(i::text) FROM generate_series(1, 20000) i`,
		`CREATE TABLE plain AS SELECT * FROM notes`,
		`CREATE EXTENSION pg_trgm`,
		`CREATE INDEX notes_trgm ON notes USING gin (body gin_trgm_ops)`,
		`INSERT INTO notes VALUES (90001, 'tail row in münchen'), (90002, NULL)`,
		`INSERT INTO plain VALUES (90001, 'tail row in münchen'), (90002, NULL)`,
		`DELETE FROM notes WHERE id IN (4, 8)`,
		`DELETE FROM plain WHERE id IN (4, 8)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ids := func(conn *pgx.Conn, table, op, pat string) []int64 {
		t.Helper()
		rows, err := conn.Query(ctx, "SELECT id FROM "+table+" WHERE body "+op+" $1", pat)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	check := func(conn *pgx.Conn) {
		t.Helper()
		for _, c := range []struct{ op, pat string }{
			{"ILIKE", "%münchen%"}, {"LIKE", "%MÜNCHEN%"}, {"ILIKE", "%error 42%"},
			{"ILIKE", "%σίσυφοσ%"}, {"LIKE", `%under\_score 100\%%`}, {"LIKE", "note 1__ %"}, {"LIKE", "note %"},
			{"ILIKE", "%ab%"}, {"LIKE", "%c4ca4238a0b923820dcc509a6f75849b"},
		} {
			got, want := ids(conn, "notes", c.op, c.pat), ids(conn, "plain", c.op, c.pat)
			if !slices.Equal(got, want) {
				t.Fatalf("%s %q: %d rows through the index, %d by a scan", c.op, c.pat, len(got), len(want))
			}
			if len(want) == 0 {
				t.Fatalf("%s %q matches nothing: a weak test", c.op, c.pat)
			}
			var count int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM notes WHERE body "+c.op+" $1", c.pat).Scan(&count); err != nil {
				t.Fatalf("count(*) %s %q: %v", c.op, c.pat, err)
			}
			if count != int64(len(want)) {
				t.Fatalf("count(*) %s %q = %d, want %d", c.op, c.pat, count, len(want))
			}
		}
		var plan string
		if err := conn.QueryRow(ctx, "EXPLAIN SELECT id FROM notes WHERE body ILIKE $1", "%x%").Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if want := "Bitmap Heap Scan on notes using notes_trgm"; len(plan) < len(want) || plan[:len(want)] != want {
			t.Fatalf("plan %q", plan)
		}
	}
	check(conn)
	dir := srv.Dir
	srv.stop()
	srv = startServer(t, dir)
	check(srv.connect(t))
}
