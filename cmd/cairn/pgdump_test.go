package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pgDumpSchema is a database as cairn's users keep one: tables with text,
// jsonb, float4[] embeddings, vector, timestamptz, serial and identity
// columns, defaults, NOT NULL, CHECK, PRIMARY KEY, UNIQUE and FOREIGN
// KEY (with referential actions, which the dump keeps); a sequence that has handed out values; btree, hnsw, deeplake_index
// and trigram indexes; views (one reading another, so that only the
// dependencies pg_dump reads order them, one WITH LOCAL CHECK OPTION); comments; grants on tables,
// columns, a schema and a sequence, default privileges; row-level
// security (forced) and policies; a second schema; a deeplake table;
// stored generated columns; domains; CHECKs, defaults and expression and
// partial indexes whose text PostgreSQL prints with the casts its
// analysis adds (shapes); UNIQUE NULLS NOT DISTINCT keys (nnd). (A varchar column's IN list is left out: its
// text, (ARRAY['x'::character varying])::text[], reads back as
// ARRAY[('x'::character varying)::text], in PostgreSQL as in cairn, so a
// restored schema's dump differs from the source's.)
const pgDumpSchema = `
CREATE ROLE reader;
CREATE ROLE writer;
CREATE TABLE memories (
  id bigserial PRIMARY KEY,
  scope text NOT NULL DEFAULT 'global',
  body text NOT NULL CHECK (length(body) > 0),
  meta jsonb DEFAULT '{}',
  emb float4[],
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scope, body)
);
CREATE TABLE tags (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  memory_id bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE ON UPDATE CASCADE,
  tag text NOT NULL
);
CREATE TABLE vecs (id int PRIMARY KEY, v vector(3));
CREATE SEQUENCE counter START 100;
SELECT nextval('counter');
SELECT nextval('counter');
CREATE INDEX memories_scope_idx ON memories (scope);
CREATE INDEX memories_body_trgm ON memories USING gin (body gin_trgm_ops);
CREATE INDEX memories_body_dl ON memories USING deeplake_index (body) WITH (index_type = 'bm25');
CREATE INDEX vecs_hnsw ON vecs USING hnsw (v vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE VIEW recent AS SELECT id, body FROM memories WHERE created_at > '2020-01-01';
CREATE VIEW a_tagged AS SELECT r.id, t.tag FROM recent r JOIN tags t ON t.memory_id = r.id;
CREATE VIEW scoped AS SELECT id, scope, body FROM memories WHERE scope <> 'hidden' WITH LOCAL CHECK OPTION;
COMMENT ON TABLE memories IS 'agent memories';
COMMENT ON COLUMN memories.body IS 'the text';
GRANT SELECT ON memories TO reader;
GRANT SELECT, INSERT ON tags TO writer;
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
CREATE POLICY scope_pol ON memories FOR SELECT TO reader USING (scope = 'global');
CREATE SCHEMA app;
CREATE TABLE app.notes (id serial PRIMARY KEY, note text DEFAULT 'n/a', at timestamptz DEFAULT now());
CREATE INDEX notes_note ON app.notes (note);
INSERT INTO memories (scope, body, meta, emb, created_at) VALUES
  ('global', 'first memory', '{"a": 1}', '{0.1,0.2,0.3}', '2024-01-02 03:04:05+00'),
  ('proj', E'it''s a "quote"\ttab\nand a line', '{"b": [1, 2.5, null]}', NULL, '2024-02-02 03:04:05.123456+00'),
  ('proj', 'null meta', NULL, '{1e-7,-2,3.25}', '2025-01-01 00:00:00+00');
INSERT INTO tags (memory_id, tag) VALUES (1, 'x'), (1, 'y'), (3, 'z');
INSERT INTO vecs VALUES (1, '[1,2,3]'), (2, '[0.5,0.25,1]');
INSERT INTO app.notes (note) VALUES ('one'), (NULL);
GRANT SELECT (id, body) ON memories TO writer;
GRANT USAGE ON SCHEMA app TO reader;
GRANT USAGE ON SEQUENCE counter TO writer;
ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT SELECT ON TABLES TO reader;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
CREATE POLICY ins_pol ON memories AS RESTRICTIVE FOR INSERT TO writer WITH CHECK (scope <> 'secret');
CREATE TABLE dl (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding float4[]) USING deeplake;
INSERT INTO dl (task, metadata, embedding) VALUES ('t1', '{"k": "v"}', '{1,2}');
CREATE INDEX dl_emb ON dl USING deeplake_index (embedding DESC);
CREATE TABLE chk (a int, b int, CONSTRAINT a_lt_b CHECK (a < b), c varchar(10) DEFAULT 'x', d numeric(10,2), e uuid, f bytea, g date, h interval, i bool DEFAULT true);
INSERT INTO chk VALUES (1, 2, 'yy', 3.14, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\xdeadbeef', '2024-01-01', '1 day 2 hours', false);
COMMENT ON TABLE chk IS 'it''s checked';
CREATE TABLE docs (id int PRIMARY KEY, body text NOT NULL, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED, n int GENERATED ALWAYS AS (length(body) * 2) STORED CHECK (n > 0));
INSERT INTO docs (id, body) VALUES (1, 'quick foxes'), (2, 'lazy dogs');
CREATE DOMAIN app.email AS text CONSTRAINT email_fmt CHECK (VALUE ~ '^[^@]+@[^@]+$');
CREATE DOMAIN posint AS integer NOT NULL DEFAULT 1 CHECK (VALUE > 0);
CREATE TABLE contacts (id int PRIMARY KEY, mail app.email, n posint, code varchar(5));
INSERT INTO contacts (id, mail) VALUES (1, 'a@b'), (2, NULL);
ALTER DOMAIN posint ADD CONSTRAINT lt100 CHECK (VALUE < 100) NOT VALID;
CREATE DOMAIN shortcode AS varchar(8) CHECK (length(VALUE) >= 2 AND VALUE <> 'none');
CREATE TABLE shapes (
  id int PRIMARY KEY,
  b varchar(20) DEFAULT 'x' CHECK (b <> 'w'),
  t text CHECK (t IN ('x', 'y', 'z')),
  c text CHECK (c LIKE 'a%' OR c IS NULL),
  n numeric(10,2) DEFAULT 0 CHECK (n BETWEEN 0 AND 100.5),
  d date DEFAULT '2024-01-01' CHECK (d > '2020-01-01'),
  f float8 DEFAULT -1 CHECK (f <> 0),
  code shortcode,
  g numeric GENERATED ALWAYS AS (n * 2 + 1) STORED,
  CONSTRAINT shapes_case CHECK (CASE WHEN id > 10 THEN c IS NOT NULL ELSE true END),
  CONSTRAINT shapes_len CHECK (length(b) < 10 AND coalesce(c, '') <> 'bad')
);
INSERT INTO shapes (id, b, c, n, code) VALUES (1, 'y', 'abc', 12.5, 'ab'), (2, 'z', NULL, 0, NULL);
CREATE INDEX shapes_lower ON shapes (lower(b));
CREATE INDEX shapes_sum ON shapes ((id + 1));
CREATE INDEX shapes_part ON shapes (c) WHERE b <> 'x' AND n > 0;
ALTER TABLE shapes ADD CONSTRAINT shapes_nv CHECK (id < 1000) NOT VALID;
CREATE TABLE nnd (a int, b int, UNIQUE NULLS NOT DISTINCT (a, b));
INSERT INTO nnd VALUES (1, NULL), (NULL, 3), (NULL, 2);
CREATE UNIQUE INDEX nnd_b ON nnd (b) NULLS NOT DISTINCT;
`

// pgDumpTables are the tables of pgDumpSchema, whose rows a restore must
// carry, and the views, whose rows follow from them.
var pgDumpTables = []string{"public.memories", "public.tags", "public.vecs", "app.notes", "public.dl", "public.chk", "public.docs", "public.recent", "public.a_tagged", "public.scoped", "public.contacts", "public.shapes", "public.nnd"}

// pgBinary finds a PostgreSQL 15 client program: Debian's postgresql-15
// directory first (where pg_dump 15 is, whatever PATH's pg_dump is), then
// PATH.
func pgBinary(t *testing.T, name string) string {
	t.Helper()
	if p := filepath.Join("/usr/lib/postgresql/15/bin", name); fileExists(p) {
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (PostgreSQL 15's client programs are on every machine of this project)", name)
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// pgRun runs a PostgreSQL client program against the server at addr as
// cairn, and returns its standard output; any failure fails the test.
func pgRun(t *testing.T, addr, prog string, args ...string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(pgBinary(t, prog), append([]string{"-h", host, "-p", port, "-U", "cairn"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.Contains(stderr.String(), "ERROR") {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// restrictLine matches the \restrict and \unrestrict lines pg_dump 15.14
// and later write, whose key is new each run.
var restrictLine = regexp.MustCompile(`(?m)^\\(un)?restrict .*$`)

// dumpText is pg_dump's plain output with args, without its run-specific
// \restrict lines.
func dumpText(t *testing.T, addr string, args ...string) string {
	t.Helper()
	return restrictLine.ReplaceAllString(pgRun(t, addr, "pg_dump", append(args, "cairn")...), "")
}

// tableRows are a relation's rows as psql prints them unaligned, in
// order: what the restore must reproduce, read without pg_dump.
func tableRows(t *testing.T, addr, table string) string {
	t.Helper()
	return pgRun(t, addr, "psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c", "SELECT * FROM "+table+" ORDER BY 1, 2")
}

// firstDifference shows where two dumps part: the first line that
// differs, with its number, in each.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, want %q", i+1, gl, wl)
		}
	}
	return "no line differs"
}

// freshServer starts an empty server with the roles pgDumpSchema grants
// to: pg_dump carries no roles (pg_dumpall --roles-only does), so they
// are created first, as on PostgreSQL.
func freshServer(t *testing.T) *testServer {
	t.Helper()
	ts := startServer(t, "")
	pgRun(t, ts.Addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c", "CREATE ROLE reader", "-c", "CREATE ROLE writer")
	return ts
}

// TestPgDumpRestore dumps a database with PostgreSQL 15's pg_dump in the
// plain, custom and directory formats (the last with -j 2: its workers
// share the leader's exported snapshot) (and plain with --inserts, and as
// --schema-only plus --data-only), restores each into a fresh server
// (psql -v ON_ERROR_STOP=1 -f, pg_restore --exit-on-error), and checks
// that the restored database has the same rows in every table and view,
// the same schema (pg_dump --schema-only of both), the same data dump
// (sequence values included), and sequences that go on where they were.
func TestPgDumpRestore(t *testing.T) {
	src := startServer(t, "")
	pgRun(t, src.Addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c", pgDumpSchema)
	wantSchema := dumpText(t, src.Addr, "--schema-only")
	wantData := dumpText(t, src.Addr, "--data-only")
	wantRows := map[string]string{}
	for _, table := range pgDumpTables {
		wantRows[table] = tableRows(t, src.Addr, table)
	}
	if !strings.Contains(wantRows["public.memories"], "first memory") || !strings.Contains(wantSchema, "CREATE POLICY scope_pol") ||
		!strings.Contains(wantSchema, "REFERENCES public.memories(id) ON UPDATE CASCADE ON DELETE CASCADE") ||
		!strings.Contains(wantSchema, "tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, body)) STORED") ||
		!strings.Contains(wantRows["public.docs"], "'fox':2 'quick':1") || !strings.Contains(wantSchema, "WITH LOCAL CHECK OPTION") ||
		!strings.Contains(wantSchema, "CREATE DOMAIN public.posint AS integer NOT NULL DEFAULT 1") || !strings.Contains(wantSchema, "ADD CONSTRAINT lt100 CHECK ((VALUE < 100)) NOT VALID") ||
		!strings.Contains(wantSchema, "CONSTRAINT shapes_t_check CHECK ((t = ANY (ARRAY['x'::text, 'y'::text, 'z'::text])))") ||
		!strings.Contains(wantSchema, "CREATE INDEX shapes_part ON public.shapes USING btree (c) WHERE (((b)::text <> 'x'::text) AND (n > (0)::numeric))") ||
		!strings.Contains(wantSchema, "ADD CONSTRAINT nnd_a_b_key UNIQUE NULLS NOT DISTINCT (a, b)") ||
		!strings.Contains(wantSchema, "CREATE UNIQUE INDEX nnd_b ON public.nnd USING btree (b) NULLS NOT DISTINCT") {
		t.Fatalf("the source database is not what the test built:\n%s\n%s", wantRows["public.memories"], wantSchema)
	}

	psqlFile := func(t *testing.T, addr, file string) {
		pgRun(t, addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-f", file)
	}
	cases := []struct {
		name    string
		restore func(t *testing.T, dir, addr string)
	}{
		{"plain", func(t *testing.T, dir, addr string) {
			file := filepath.Join(dir, "dump.sql")
			pgRun(t, src.Addr, "pg_dump", "-Fp", "-f", file, "cairn")
			psqlFile(t, addr, file)
		}},
		{"inserts", func(t *testing.T, dir, addr string) {
			file := filepath.Join(dir, "dump.sql")
			pgRun(t, src.Addr, "pg_dump", "--inserts", "-f", file, "cairn")
			psqlFile(t, addr, file)
		}},
		{"schema-then-data", func(t *testing.T, dir, addr string) {
			schema, data := filepath.Join(dir, "schema.sql"), filepath.Join(dir, "data.sql")
			pgRun(t, src.Addr, "pg_dump", "--schema-only", "-f", schema, "cairn")
			pgRun(t, src.Addr, "pg_dump", "--data-only", "-f", data, "cairn")
			psqlFile(t, addr, schema)
			psqlFile(t, addr, data)
		}},
		{"custom", func(t *testing.T, dir, addr string) {
			file := filepath.Join(dir, "dump.custom")
			pgRun(t, src.Addr, "pg_dump", "-Fc", "-f", file, "cairn")
			pgRun(t, addr, "pg_restore", "--exit-on-error", "-d", "cairn", file)
		}},
		{"directory", func(t *testing.T, dir, addr string) {
			out := filepath.Join(dir, "dump.dir")
			pgRun(t, src.Addr, "pg_dump", "-Fd", "-j", "2", "-f", out, "cairn")
			// One connection: pg_restore -j adds a table's keys from
			// several sessions at once, and cairn's concurrent ALTER
			// TABLEs of one table do not yet see each other.
			pgRun(t, addr, "pg_restore", "--exit-on-error", "-d", "cairn", out)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := freshServer(t)
			c.restore(t, t.TempDir(), dst.Addr)
			for _, table := range pgDumpTables {
				if got := tableRows(t, dst.Addr, table); got != wantRows[table] {
					t.Errorf("%s: restored rows\n%s\nwant\n%s", table, got, wantRows[table])
				}
			}
			if got := dumpText(t, dst.Addr, "--schema-only"); got != wantSchema {
				t.Errorf("restored schema differs: %s", firstDifference(got, wantSchema))
			}
			if got := dumpText(t, dst.Addr, "--data-only"); got != wantData {
				t.Errorf("restored data differs: %s", firstDifference(got, wantData))
			}
			// Sequences go on where they were: the serial and the
			// identity column draw their next values, the sequence too.
			got := pgRun(t, dst.Addr, "psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", "cairn",
				"-c", "SELECT nextval('counter')",
				"-c", "INSERT INTO memories (body) VALUES ('after restore') RETURNING id",
				"-c", "INSERT INTO tags (memory_id, tag) VALUES (4, 'w') RETURNING id",
				"-c", "INSERT INTO app.notes DEFAULT VALUES RETURNING id")
			if want := "102\n4\nINSERT 0 1\n4\nINSERT 0 1\n3\nINSERT 0 1\n"; got != want {
				t.Errorf("sequences after restore: got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestPgDumpTable dumps one table with pg_dump -t: the restore has that
// table, its sequence, indexes, constraints, comments, grants and policy,
// and nothing else.
func TestPgDumpTable(t *testing.T) {
	src := startServer(t, "")
	pgRun(t, src.Addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c", pgDumpSchema)
	file := filepath.Join(t.TempDir(), "memories.sql")
	pgRun(t, src.Addr, "pg_dump", "-t", "memories", "-f", file, "cairn")
	dst := freshServer(t)
	pgRun(t, dst.Addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-f", file)
	if got, want := tableRows(t, dst.Addr, "memories"), tableRows(t, src.Addr, "memories"); got != want {
		t.Errorf("restored rows\n%s\nwant\n%s", got, want)
	}
	got := pgRun(t, dst.Addr, "psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c",
		"SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1")
	want := "memories|r\nmemories_body_dl|i\nmemories_body_trgm|i\nmemories_id_seq|S\nmemories_pkey|i\nmemories_scope_body_key|i\nmemories_scope_idx|i\n"
	if got != want {
		t.Errorf("relations after restoring pg_dump -t memories:\n%s\nwant\n%s", got, want)
	}
}

// TestExportedSnapshot: a transaction that adopts another's exported
// snapshot (what pg_dump -j's workers do) reads what the exporter reads,
// not what committed after; an identifier no open transaction exported
// is refused, and so is a READ COMMITTED importer.
func TestExportedSnapshot(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	leader, worker, writer := ts.connect(t), ts.connect(t), ts.connect(t)
	mustExec(t, writer, "CREATE TABLE t (id int)")
	mustExec(t, writer, "INSERT INTO t VALUES (1)")
	mustExec(t, leader, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
	var id string
	if err := leader.QueryRow(ctx, "SELECT pg_export_snapshot()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	mustExec(t, writer, "INSERT INTO t VALUES (2)")
	mustExec(t, worker, "BEGIN")
	mustExec(t, worker, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
	mustExec(t, worker, "SET TRANSACTION SNAPSHOT '"+id+"'")
	var n int
	if err := worker.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the worker counts %d rows (%v), the exported snapshot has 1", n, err)
	}
	mustExec(t, worker, "COMMIT")
	mustExec(t, worker, "BEGIN ISOLATION LEVEL READ COMMITTED")
	if _, err := worker.Exec(ctx, "SET TRANSACTION SNAPSHOT '"+id+"'"); sqlState(err) != "0A000" {
		t.Fatalf("READ COMMITTED import: %v, want 0A000", err)
	}
	mustExec(t, worker, "ROLLBACK")
	mustExec(t, leader, "COMMIT")
	mustExec(t, worker, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	if _, err := worker.Exec(ctx, "SET TRANSACTION SNAPSHOT '"+id+"'"); sqlState(err) != "22023" {
		t.Fatalf("importing the snapshot of an ended transaction: %v, want 22023", err)
	}
	mustExec(t, worker, "ROLLBACK")
}

// pgDumpShapes is the part of pgDumpSchema that PostgreSQL 15 itself can
// restore (no cairn-only types, methods or roles): the domains and the
// table whose CHECKs, defaults, generated column and expression and
// partial indexes PostgreSQL prints with the casts its analysis adds.
func pgDumpShapes(t *testing.T) string {
	t.Helper()
	at := strings.Index(pgDumpSchema, "CREATE DOMAIN shortcode")
	if at < 0 {
		t.Fatal("pgDumpSchema has no shapes")
	}
	return "CREATE DOMAIN posint AS integer NOT NULL DEFAULT 1 CHECK (VALUE > 0);\n" + pgDumpSchema[at:]
}

// TestPgDumpIntoPostgres restores cairn's pg_dump of pgDumpShapes into
// PostgreSQL 15 (the server LOGIC_TEST_PG names, in a database of its
// own; skipped without one), and checks that PostgreSQL's pg_dump of what
// it restored is cairn's dump, the table's owner aside: the expressions
// cairn prints read back as PostgreSQL prints them.
func TestPgDumpIntoPostgres(t *testing.T) {
	conn := os.Getenv("LOGIC_TEST_PG")
	if conn == "" {
		t.Skip("LOGIC_TEST_PG names no PostgreSQL server")
	}
	src := startServer(t, "")
	pgRun(t, src.Addr, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "cairn", "-c", pgDumpShapes(t))
	file := filepath.Join(t.TempDir(), "shapes.sql")
	pgRun(t, src.Addr, "pg_dump", "-f", file, "cairn")
	want := dumpText(t, src.Addr)

	pg := func(dbname string, prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(pgBinary(t, prog), append(args, "-d", conn+" dbname="+dbname)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || strings.Contains(stderr.String(), "ERROR") {
			t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	pg("postgres", "psql", "-X", "-q", "-c", "DROP DATABASE IF EXISTS cairn_dump_restore", "-c", "CREATE DATABASE cairn_dump_restore")
	pg("cairn_dump_restore", "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file)
	got := restrictLine.ReplaceAllString(pg("cairn_dump_restore", "pg_dump"), "")
	// The owners are the restoring role; the server versions differ.
	for _, re := range []*regexp.Regexp{regexp.MustCompile(`(?m)^(ALTER (TABLE|DOMAIN) .* OWNER TO ).*;$`), regexp.MustCompile(`(?m)^(-- Dumped from database version ).*$`)} {
		got, want = re.ReplaceAllString(got, "${1}x"), re.ReplaceAllString(want, "${1}x")
	}
	if got != want {
		t.Errorf("PostgreSQL's dump of the restored schema differs: %s", firstDifference(got, want))
	}
}
