package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestEnumPgx drives an enum type through pgx over a real socket: the
// enum's own OID in RowDescription, strings in and out with and without
// pgx knowing the type (LoadType registers its codec, which reads and
// writes binary), its sort order after ADD VALUE BEFORE, RENAME VALUE on
// stored rows, COPY in binary and out as text, and all of it again after
// the server is killed with SIGKILL and restarted.
func TestEnumPgx(t *testing.T) {
	dir := t.TempDir()
	p := startLogged(t, dir)
	ctx := context.Background()
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)
	mustExec(t, conn, `CREATE TABLE diary (id int PRIMARY KEY, m mood NOT NULL DEFAULT 'ok', ms mood[], UNIQUE (id, m))`)
	if _, err := conn.Exec(ctx, `INSERT INTO diary VALUES ($1, $2, $3), (2, 'sad', NULL)`, 1, "happy", []string{"ok", "sad"}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `INSERT INTO diary (id) VALUES (3)`)
	_, err := conn.Exec(ctx, `INSERT INTO diary VALUES (4, $1)`, "nope")
	if sqlState(err) != "22P02" || !strings.Contains(err.Error(), `invalid input value for enum mood: "nope"`) {
		t.Fatalf("a label the enum lacks: %v, want 22P02", err)
	}

	var typOID uint32
	if err := conn.QueryRow(ctx, `SELECT oid FROM pg_type WHERE typname = 'mood' AND typtype = 'e'`).Scan(&typOID); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT m FROM diary LIMIT 1`)
	if err != nil {
		t.Fatal(err)
	}
	if got := rows.FieldDescriptions()[0].DataTypeOID; got != typOID {
		t.Errorf("RowDescription type OID %d, want the enum's %d", got, typOID)
	}
	rows.Close()

	order := func(c *pgx.Conn, q string) []string {
		t.Helper()
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return got
	}
	if got, want := order(conn, `SELECT m FROM diary ORDER BY m`), []string{"sad", "ok", "happy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ORDER BY m: %v, want the enum's order %v", got, want)
	}
	mustExec(t, conn, `ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'`)
	mustExec(t, conn, `ALTER TYPE mood RENAME VALUE 'happy' TO 'glad'`)
	mustExec(t, conn, `ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'`)
	mustExec(t, conn, `INSERT INTO diary VALUES (5, 'meh', '{meh,glad}')`)

	// With the type registered, pgx reads and writes it in binary.
	mood, err := conn.LoadType(ctx, "mood")
	if err != nil {
		t.Fatalf("LoadType: %v", err)
	}
	conn.TypeMap().RegisterType(mood)
	if _, err := conn.Exec(ctx, `INSERT INTO diary VALUES ($1, $2)`, 6, "glad"); err != nil {
		t.Fatal(err)
	}
	// A client may name the enum's OID for a parameter in Parse.
	if _, err := conn.PgConn().Prepare(ctx, "bymood", `SELECT count(*) FROM diary WHERE m = $1`, []uint32{typOID}); err != nil {
		t.Fatalf("Parse with the enum's OID: %v", err)
	}
	res := conn.PgConn().ExecPrepared(ctx, "bymood", [][]byte{[]byte("glad")}, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "2" {
		t.Fatalf("a parameter of the enum's OID: %v %q, want 2 rows", res.Err, res.Rows)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"diary"}, []string{"id", "m"}, pgx.CopyFromRows([][]any{{7, "sad"}, {8, "meh"}}))
	if err != nil || n != 2 {
		t.Fatalf("COPY FROM (binary): %d rows, %v", n, err)
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"diary"}, []string{"id", "m"}, pgx.CopyFromRows([][]any{{9, "happy"}}))
	if sqlState(err) != "22P02" {
		t.Fatalf("COPY FROM of a renamed-away label: %v, want 22P02", err)
	}

	check := func(c *pgx.Conn) {
		t.Helper()
		want := []string{"2 sad", "7 sad", "5 meh", "8 meh", "3 fine", "1 glad", "6 glad"}
		if got := order(c, `SELECT id || ' ' || m::text FROM diary ORDER BY m, id`); !reflect.DeepEqual(got, want) {
			t.Errorf("rows by the enum's order: %v, want %v", got, want)
		}
		if got := order(c, `SELECT ms::text FROM diary WHERE ms IS NOT NULL ORDER BY id`); !reflect.DeepEqual(got, []string{"{fine,sad}", "{meh,glad}"}) {
			t.Errorf("enum arrays after RENAME VALUE: %v", got)
		}
		if got := order(c, `SELECT m::text FROM diary WHERE m > 'meh' AND m < 'glad'`); !reflect.DeepEqual(got, []string{"fine"}) {
			t.Errorf("range over the enum's order: %v, want [fine]", got)
		}
		var buf bytes.Buffer
		if _, err := c.PgConn().CopyTo(ctx, &buf, `COPY (SELECT id, m FROM diary WHERE id < 4 ORDER BY id) TO STDOUT`); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != "1\tglad\n2\tsad\n3\tfine\n" {
			t.Errorf("COPY TO STDOUT: %q", got)
		}
		if got := order(c, `SELECT enum_range(NULL::mood)::text`); !reflect.DeepEqual(got, []string{"{sad,meh,fine,glad}"}) {
			t.Errorf("enum_range: %v", got)
		}
	}
	check(conn)

	p.kill()
	p = startLogged(t, dir)
	conn = p.connect(t)
	check(conn)
	mustExec(t, conn, `INSERT INTO diary VALUES (10, 'glad')`)
	_, err = conn.Exec(ctx, `DROP TYPE mood`)
	if sqlState(err) != "2BP01" {
		t.Fatalf("DROP TYPE of a type a column has: %v, want 2BP01", err)
	}
	mustExec(t, conn, `DROP TYPE mood CASCADE`)
	if got := order(conn, `SELECT column_name::text FROM information_schema.columns WHERE table_name = 'diary' ORDER BY ordinal_position`); !reflect.DeepEqual(got, []string{"id"}) {
		t.Errorf("columns after DROP TYPE ... CASCADE: %v, want [id]", got)
	}
	noPanic(t, p.log())
}

// TestEnumClients runs testdata/clients/enum_check.py (psycopg 3 in text
// and binary, asyncpg's introspection of the enum's OID, SQLAlchemy's
// Enum through create_all, a round trip, reflection and drop_all) and
// compares its output with PostgreSQL 15's for the same script
// (enum_check.out).
func TestEnumClients(t *testing.T) {
	out := runAsyncpg(t, "enum_check.py")
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", "enum_check.out"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("cairn answered\n%s\nPostgreSQL answered\n%s", out, want)
	}
}

// TestEnumBinaryParameter binds enum parameters in binary, as asyncpg
// sends them: a label the enum lacks is 22P02 as in text. It was taken
// as it came, so SELECT $1::mood answered "nope" and $1::mood < 'ok'
// compared it (an INSERT caught it later, at the column).
func TestEnumBinaryParameter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)
	var oid uint32
	if err := conn.QueryRow(ctx, `SELECT 'mood'::regtype::oid`).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`SELECT $1::mood::text`, `SELECT ($1::mood < 'ok')::text`} {
		for label, want := range map[string]string{"happy": "", "nope": "22P02"} {
			res := conn.PgConn().ExecParams(ctx, q, [][]byte{[]byte(label)}, []uint32{oid}, []int16{1}, nil).Read()
			if sqlState(res.Err) != want {
				t.Errorf("%s with %q in binary: %v, want %q", q, label, res.Err, want)
			}
		}
	}
}
