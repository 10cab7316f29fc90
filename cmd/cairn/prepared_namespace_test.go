package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPreparedNamespace checks that the protocol's prepared statements
// and SQL PREPARE's share one namespace per session, as in PostgreSQL:
// pgx's statement cache prepares with Parse, and the statements it made
// can be run with SQL EXECUTE, are listed in pg_prepared_statements, and
// go with DEALLOCATE ALL and DISCARD ALL (pgbouncer's reset query), after
// which pgx prepares them again; a SQL PREPAREd statement can be bound
// by the protocol. CAIRN_TEST_PG, when set, runs the test against that
// server instead (a PostgreSQL, to check the expectations).
func TestPreparedNamespace(t *testing.T) {
	ctx := context.Background()
	dsn := os.Getenv("CAIRN_TEST_PG")
	if dsn == "" {
		dsn = startServer(t, "").connString()
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const query = "SELECT $1::int4 * 2 AS doubled"
	var n int32
	if err := conn.QueryRow(ctx, query, 21).Scan(&n); err != nil || n != 42 {
		t.Fatalf("pgx query: %d %v", n, err)
	}

	// pgx's cached statement, prepared by Parse, is listed ...
	var name, stmt, params string
	var fromSQL bool
	if err := conn.QueryRow(ctx, "SELECT name, statement, parameter_types[1]::text, from_sql FROM pg_prepared_statements WHERE statement = $1", query).
		Scan(&name, &stmt, &params, &fromSQL); err != nil {
		t.Fatalf("pg_prepared_statements: %v", err)
	}
	if !strings.HasPrefix(name, "stmtcache_") || params != "integer" || fromSQL {
		t.Errorf("pg_prepared_statements row: %q %q %q %v", name, stmt, params, fromSQL)
	}
	// ... and runs with SQL EXECUTE.
	if err := conn.QueryRow(ctx, "EXECUTE "+name+"(5)", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 10 {
		t.Errorf("EXECUTE of a protocol statement: %d %v", n, err)
	}

	// A SQL PREPAREd statement is listed with from_sql and its PREPARE text ...
	if _, err := conn.Exec(ctx, "PREPARE triple(int4) AS SELECT $1 * 3", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT statement, parameter_types[1]::text, from_sql FROM pg_prepared_statements WHERE name = 'triple'").
		Scan(&stmt, &params, &fromSQL); err != nil || stmt != "PREPARE triple(int4) AS SELECT $1 * 3" || params != "integer" || !fromSQL {
		t.Errorf("pg_prepared_statements of PREPARE: %q %q %v %v", stmt, params, fromSQL, err)
	}
	// ... and can be bound by the protocol: Bind and Execute of "triple".
	res := conn.PgConn().ExecPrepared(ctx, "triple", [][]byte{[]byte("7")}, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "21" {
		t.Errorf("Bind of a SQL prepared statement: %q %v", res.Rows, res.Err)
	}
	// A Parse of a name SQL PREPARE took is 42P05.
	if _, err := conn.PgConn().Prepare(ctx, "triple", "SELECT 1", nil); sqlState(err) != "42P05" {
		t.Errorf("Parse of a taken name: %v, want 42P05", err)
	}

	count := func() int {
		var c int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements", pgx.QueryExecModeSimpleProtocol).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, reset := range []string{"DEALLOCATE ALL", "DISCARD ALL"} {
		if err := conn.QueryRow(ctx, query, 1).Scan(&n); err != nil {
			t.Fatalf("before %s: %v", reset, err)
		}
		if _, err := conn.Exec(ctx, reset, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("%s: %v", reset, err)
		}
		if c := count(); c != 0 {
			t.Errorf("after %s: %d prepared statements, want 0", reset, c)
		}
		if _, err := conn.Exec(ctx, "EXECUTE "+name+"(5)", pgx.QueryExecModeSimpleProtocol); sqlState(err) != "26000" {
			t.Errorf("EXECUTE after %s: %v, want 26000", reset, err)
		}
		// pgx's cache still names the statement: its next use fails
		// (26000, as PostgreSQL's), pgx forgets it, and prepares it again.
		conn.QueryRow(ctx, query, 2).Scan(&n)
		if err := conn.QueryRow(ctx, query, 3).Scan(&n); err != nil || n != 6 {
			t.Errorf("pgx after %s: %d %v", reset, n, err)
		}
	}
}
