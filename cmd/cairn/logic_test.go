package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestLogic runs every testdata/sql/**/*.test file against a fresh server
// over the wire. Directives:
//
//	statement        run the SQL (several statements allowed); expect the
//	                 command tag of the last one, or "ERROR <SQLSTATE>: msg"
//	query            run one query; expect a header line of column names
//	                 and one line per row, values in PostgreSQL's text
//	                 format joined by " | ", NULL as NULL
//
// Files under pg/ hold SQL whose expected output is what PostgreSQL 15
// prints; files under cairn/ cover what only cairn has (USING deeplake,
// its EXPLAIN, 0A000 for what it lacks). With LOGIC_TEST_PG set to
// a PostgreSQL connection string (for example the server of
// ../shared/tools/pg-oracle), the files run against that server instead,
// each in a database of its own, and -rewrite records PostgreSQL's answers.
func TestLogic(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "sql")
	var files []string
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".test") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no logic test files found")
	}
	for _, file := range files {
		name, _ := filepath.Rel(root, file)
		if os.Getenv("LOGIC_TEST_PG") != "" && !strings.HasPrefix(name, "pg"+string(filepath.Separator)) {
			continue // cairn's own behaviour: no PostgreSQL answer to compare
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			conn := logicConn(t, name)
			defer conn.Close(ctx)
			datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
				switch d.Cmd {
				case "statement":
					return runStatement(ctx, conn, d.Input)
				case "query":
					return runQuery(ctx, conn, d.Input)
				}
				t.Fatalf("%s: unknown directive %q", d.Pos, d.Cmd)
				return ""
			})
		})
	}
}

func errorText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR %s: %s\n", pe.Code, pe.Message)
	}
	return fmt.Sprintf("ERROR: %v\n", err)
}

func runStatement(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	results, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return errorText(err)
	}
	if len(results) == 0 {
		return "EMPTY\n"
	}
	return results[len(results)-1].CommandTag.String() + "\n"
}

func runQuery(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	// Read results through ResultReader: pgconn's ReadAll leaves the field
	// descriptions of an empty result unset.
	mrr := conn.Exec(ctx, sql)
	var b strings.Builder
	results := 0
	for mrr.NextResult() {
		results++
		rr := mrr.ResultReader()
		names := make([]string, len(rr.FieldDescriptions()))
		for i, f := range rr.FieldDescriptions() {
			names[i] = f.Name
		}
		b.WriteString(strings.Join(names, " | ") + "\n")
		for rr.NextRow() {
			vals := make([]string, len(rr.Values()))
			for i, v := range rr.Values() {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = string(v)
				}
			}
			b.WriteString(strings.Join(vals, " | ") + "\n")
		}
		if _, err := rr.Close(); err != nil {
			mrr.Close()
			return errorText(err)
		}
	}
	if err := mrr.Close(); err != nil {
		return errorText(err)
	}
	if results != 1 {
		return fmt.Sprintf("expected one result, got %d\n", results)
	}
	return b.String()
}

// logicConn connects to a fresh cairn server, or to a fresh database on
// the PostgreSQL server LOGIC_TEST_PG names.
func logicConn(t *testing.T, name string) *pgconn.PgConn {
	ctx := context.Background()
	pg := os.Getenv("LOGIC_TEST_PG")
	if pg == "" {
		ts := startServer(t, "")
		conn, err := pgconn.Connect(ctx, ts.connString())
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	admin, err := pgconn.Connect(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	db := "logic_" + strings.NewReplacer("/", "_", ".", "_").Replace(name)
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db).ReadAll()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db).ReadAll(); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgconn.ParseConfig(pg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = db
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}
