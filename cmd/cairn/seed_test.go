package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestSeedAgentMemory runs the SQL of seeds/004 (agent debugging memory)
// as written, with parameters sent by pgx in binary and as text.
func TestSeedAgentMemory(t *testing.T) {
	ts := startServer(t, "")
	conn := ts.connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE SCHEMA IF NOT EXISTS ws`)
	create := `CREATE TABLE IF NOT EXISTS "ws"."debug_memory" (id BIGSERIAL PRIMARY KEY, task TEXT, outcome TEXT, error_trace TEXT, tools_used TEXT, metadata JSONB, embedding FLOAT4[]) USING deeplake`
	mustExec(t, conn, create)
	mustExec(t, conn, create) // IF NOT EXISTS: a no-op the second time

	insert := `INSERT INTO "ws"."debug_memory" (task, outcome, error_trace, tools_used, metadata, embedding) VALUES ($1, $2, $3, $4, $5::jsonb, $6::float4[])`
	meta, _ := json.Marshal(map[string]any{"agent_id": "swe-01", "repo": "data-pipeline", "error_type": "MemoryError", "resolution_time_min": 45})
	emb := []float32{0.25, -0.5, 0.125, 1}
	// Binary float4[] parameter.
	mustExec(t, conn, insert, "Fix OOM crash in data pipeline when processing 50GB parquet files",
		"Root cause: pandas.read_parquet() loads entire file into memory.", "MemoryError: Unable to allocate 47.3 GiB",
		"pyarrow.dataset, memory_profiler, htop", string(meta), emb)
	// The seed's Python passes the embedding as the text "{...}".
	mustExec(t, conn, insert, "ETL job killed by OOM when loading large CSV exports", "streamed the CSV", "Killed", "htop",
		`{"agent": "swe-02", "repo": "etl"}`, "{0.5,0.5,0.5,0.5}")

	rows, err := conn.Query(ctx, `SELECT id, task, metadata->>'repo', embedding FROM "ws"."debug_memory" WHERE metadata->>'repo' = $1 ORDER BY id`, "data-pipeline")
	if err != nil {
		t.Fatal(err)
	}
	var got [][]float32
	for rows.Next() {
		var id int64
		var task, repo string
		var e []float32
		if err := rows.Scan(&id, &task, &repo, &e); err != nil {
			t.Fatal(err)
		}
		if id != 1 || repo != "data-pipeline" || !strings.HasPrefix(task, "Fix OOM") {
			t.Fatalf("unexpected row %d %q %q", id, task, repo)
		}
		got = append(got, e)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(got) != 1 || len(got[0]) != 4 || got[0][1] != -0.5 {
		t.Fatalf("embedding round trip: %v", got)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ws.debug_memory WHERE metadata @> '{"agent": "swe-02"}'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("jsonb containment: n=%d err=%v", n, err)
	}
}

// TestPsql drives the server with the psql client: the way a person
// connects.
func TestPsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	script := `CREATE TABLE notes (id serial PRIMARY KEY, body text, score float4[]);
INSERT INTO notes (body, score) VALUES ('first', '{1,2}'), ('second', NULL);
SELECT id, body, score FROM notes ORDER BY id;
SELECT nope FROM notes;
SELECT count(*) AS n FROM notes;
`
	cmd := exec.Command(psql, "-X", "-h", host, "-p", port, "-U", "anyone", "-d", "cairn", "-v", "VERBOSITY=verbose", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	out, _ := cmd.CombinedOutput()
	text := string(out)
	for _, want := range []string{
		"CREATE TABLE",
		"INSERT 0 2",
		"  1 | first  | {1,2}",
		"  2 | second | ",
		"(2 rows)",
		`ERROR:  42703: column "nope" does not exist`,
		" n \n---\n 2\n(1 row)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("psql output lacks %q:\n%s", want, text)
		}
	}
}
