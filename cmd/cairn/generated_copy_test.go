package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCopyGeneratedColumns copies into and out of a table with stored
// generated columns, as PostgreSQL 15 does: COPY without a column list
// reads and writes only the other columns, the generated ones are
// computed from each copied row (pgx's binary CopyFrom too), and a column
// list naming a generated column is 42P10.
func TestCopyGeneratedColumns(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE gdocs (id int PRIMARY KEY, body text NOT NULL, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED, n int GENERATED ALWAYS AS (length(body) * 2) STORED)`)
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1\tquick foxes\n2\tlazy dogs\n"), "COPY gdocs FROM STDIN")
	if err != nil || tag.String() != "COPY 2" {
		t.Fatalf("COPY: %q, %v", tag, err)
	}
	if n, err := conn.CopyFrom(ctx, pgx.Identifier{"gdocs"}, []string{"id", "body"}, pgx.CopyFromRows([][]any{{3, "jumping fox"}})); err != nil || n != 1 {
		t.Fatalf("binary COPY: %d, %v", n, err)
	}
	if pe := copyErr(conn, "COPY gdocs (id, body, n) FROM STDIN", "4\tx\t5\n"); pe == nil || pe.Code != "42P10" ||
		pe.Message != `column "n" is a generated column` || pe.Detail != "Generated columns cannot be used in COPY." {
		t.Fatalf("COPY naming a generated column: %+v", pe)
	}
	var out bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY gdocs TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	if want := "1\tquick foxes\n2\tlazy dogs\n3\tjumping fox\n"; out.String() != want {
		t.Fatalf("COPY TO: %q, want %q", out.String(), want)
	}
	rows, err := conn.Query(ctx, `SELECT id, tsv::text, n FROM gdocs WHERE tsv @@ plainto_tsquery('english', 'fox') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id, n int
		var tsv string
		err := r.Scan(&id, &tsv, &n)
		return fmt.Sprintf("%d %s %d", id, tsv, n), err
	})
	want := []string{"1 'fox':2 'quick':1 22", "3 'fox':2 'jump':1 22"}
	if err != nil || strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("rows: %q, %v\nwant %q", got, err, want)
	}
}
