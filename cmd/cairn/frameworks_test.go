package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFrameworks sends the SQL of the agent frameworks' pgvector stores,
// as each framework sends it (its DDL, upserts, searches, metadata filters,
// keyword search and deletes, through the driver it uses: LangChain,
// LlamaIndex, mem0, Haystack, Semantic Kernel), and compares
// what comes back with what PostgreSQL 15 with pgvector 0.8.6 returned for
// the same script (the .out files beside them). The frameworks themselves
// are not installed: each script in testdata/clients/frameworks reproduces
// its framework's statements from that framework's source.
func TestFrameworks(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import sqlalchemy, psycopg, psycopg2, asyncpg").Run(); err != nil {
		t.Fatalf("%s cannot import sqlalchemy, psycopg, psycopg2 and asyncpg (make setup installs them): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	url := "cairn@" + ts.Addr + "/cairn"
	dsn := "host=" + host + " port=" + port + " user=cairn dbname=cairn"
	dir := filepath.Join("..", "..", "testdata", "clients", "frameworks")
	for _, c := range []struct {
		name, script, golden string
		args                 []string
	}{
		{"langchain-postgres PGVector", "lc_v1.py", "lc_v1.out", []string{"postgresql+psycopg2://" + url}},
		{"langchain-postgres PGVectorStore", "lc_v2.py", "lc_v2.out", []string{"postgresql+asyncpg://" + url}},
		{"langchain-postgres PostgresChatMessageHistory", "lc_chat_history.py", "lc_chat_history.out", []string{dsn}},
		{"llama-index PGVectorStore", "llama.py", "llama.out", []string{"postgresql+psycopg2://" + url, "postgresql+asyncpg://" + url}},
		{"mem0 psycopg", "mem0.py", "mem0_3.out", []string{"3", dsn}},
		{"mem0 psycopg2", "mem0.py", "mem0_2.out", []string{"2", dsn}},
		{"haystack PgvectorDocumentStore", "haystack.py", "haystack.out", []string{dsn}},
		{"semantic-kernel PostgresCollection", "semantic_kernel.py", "semantic_kernel.out", []string{dsn}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, c.golden))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, python, append([]string{"-B", filepath.Join(dir, c.script)}, c.args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s failed (%v):\n%s", c.script, err, out)
			}
			if string(out) != string(want) {
				t.Errorf("%s: cairn answered\n%s\nPostgreSQL with pgvector answered\n%s", c.script, out, want)
			}
		})
	}
}
