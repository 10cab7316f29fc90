package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/wire"
)

// TestIntegrityErrorFields: an integrity error names its schema, table and
// constraint (or column, for NOT NULL) in the ErrorResponse's own fields,
// as PostgreSQL 15 does (checked with psql's VERBOSITY verbose against
// it): drivers expose them and ORMs map a 23505 or 23503 to the model's
// field by the constraint's name. Each statement's error is compared
// with what PostgreSQL reports for it.
func TestIntegrityErrorFields(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	conn := srv.connect(t)
	mustExec(t, conn, `CREATE TABLE p (id int PRIMARY KEY, u text UNIQUE, n int NOT NULL DEFAULT 0, c int CHECK (c > 0))`)
	mustExec(t, conn, `CREATE TABLE ch (id int PRIMARY KEY, pid int REFERENCES p(id))`)
	mustExec(t, conn, `CREATE SCHEMA s2`)
	mustExec(t, conn, `CREATE TABLE s2.t (id int PRIMARY KEY)`)
	mustExec(t, conn, `INSERT INTO p VALUES (1, 'a', 1, 1)`)
	mustExec(t, conn, `INSERT INTO ch VALUES (2, 1)`)
	mustExec(t, conn, `ALTER TABLE p ADD COLUMN z int`)

	// want: code schema.table constraint (or "column=name").
	for _, c := range []struct{ sql, want string }{
		{`INSERT INTO p VALUES (1, 'b', 1, 1)`, "23505 public.p p_pkey"},
		{`INSERT INTO p VALUES (2, 'a', 1, 1)`, "23505 public.p p_u_key"},
		{`INSERT INTO p VALUES (1, 'zz', 1, 1) ON CONFLICT (u) DO NOTHING`, "23505 public.p p_pkey"},
		{`INSERT INTO s2.t VALUES (1), (1)`, "23505 s2.t t_pkey"},
		{`CREATE UNIQUE INDEX pn ON p (n)`, ""}, // one row: no duplicate yet
		{`INSERT INTO p VALUES (3, 'c', NULL, 1)`, "23502 public.p column=n"},
		{`UPDATE p SET n = NULL`, "23502 public.p column=n"},
		{`ALTER TABLE p ALTER COLUMN z SET NOT NULL`, "23502 public.p column=z"},
		{`INSERT INTO p VALUES (4, 'd', 1, -1)`, "23514 public.p p_c_check"},
		{`ALTER TABLE p ADD CONSTRAINT c2 CHECK (c > 5)`, "23514 public.p c2"},
		{`INSERT INTO ch VALUES (1, 99)`, "23503 public.ch ch_pid_fkey"},
		{`DELETE FROM p WHERE id = 1`, "23503 public.ch ch_pid_fkey"},
		{`UPDATE p SET id = 7 WHERE id = 1`, "23503 public.ch ch_pid_fkey"},
		{`DROP INDEX pn`, ""},
		{`INSERT INTO p VALUES (5, 'e', 1, 1)`, ""},
		{`CREATE UNIQUE INDEX pn ON p (n)`, "23505 public.p pn"},
		{`ALTER TABLE ch ADD CONSTRAINT ch_more FOREIGN KEY (id) REFERENCES p (id)`, "23503 public.ch ch_more"},
	} {
		_, err := conn.Exec(ctx, c.sql)
		got := ""
		if err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %v", c.sql, err)
			}
			got = fmt.Sprintf("%s %s.%s %s", pe.Code, pe.SchemaName, pe.TableName, pe.ConstraintName)
			if pe.ColumnName != "" {
				got = fmt.Sprintf("%s %s.%s column=%s", pe.Code, pe.SchemaName, pe.TableName, pe.ColumnName)
				if pe.ConstraintName != "" {
					got += " constraint=" + pe.ConstraintName
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: error fields %q, want %q (%v)", c.sql, got, c.want, err)
		}
	}

	// A duplicate key through COPY names them too, and so does the HTTP
	// API's JSON error.
	_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1\tq\t1\t1\n"), `COPY p (id, u, n, c) FROM STDIN`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" || pe.ConstraintName != "p_pkey" || pe.TableName != "p" || pe.SchemaName != "public" {
		t.Fatalf("COPY of a duplicate key: %v (%+v)", err, pe)
	}
	c := startHTTP(t, srv, wire.HTTPOptions{})
	c.expect("POST", "/workspaces/public/tables/query", `{"query": "INSERT INTO p VALUES (1, 'x', 1, 1)"}`, 400,
		`{"error": "duplicate key value violates unique constraint \"p_pkey\"", "code": "QUERY_ERROR", "sqlstate": "23505",
		  "detail": "Key (id)=(1) already exists.", "schema": "public", "table": "p", "constraint": "p_pkey"}`)
}
