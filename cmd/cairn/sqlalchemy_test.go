package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLAlchemy runs SQLAlchemy's PostgreSQL dialect (psycopg2) against a
// server: it creates tables and a view, reflects them the way ORMs, LangChain's
// SQLDatabase and Superset do (each reflection is a catalog query of
// SQLAlchemy's own), uses the ORM and round-trips JSONB and real[] values.
// .ci/run installs python3-sqlalchemy and python3-psycopg2.
func TestSQLAlchemy(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import sqlalchemy, psycopg2").Run(); err != nil {
		t.Fatalf("%s cannot import sqlalchemy and psycopg2 (.ci/run installs python3-sqlalchemy and python3-psycopg2): %v", python, err)
	}
	ts := startServer(t, "")
	script := filepath.Join("..", "..", "testdata", "clients", "sqlalchemy_reflect.py")
	out, err := exec.Command(python, script, "postgresql+psycopg2://cairn@"+ts.Addr+"/cairn").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlalchemy script failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"tables ['authors', 'memories']",
		"columns [('id', 'BIGINT', False), ('author_id', 'INTEGER', True), ('task', 'TEXT', False), ('metadata', 'JSONB', True), ('embedding', 'ARRAY', True)]",
		"pk {'constrained_columns': ['id'], 'name': 'memories_pkey'}",
		"fks [{'name': 'memories_author_id_fkey', 'constrained_columns': ['author_id'], 'referred_schema': None, 'referred_table': 'authors', 'referred_columns': ['id'], 'options': {}}]",
		"indexes [{'name': 'memories_task', 'unique': False, 'column_names': ['task']",
		"uniques [{'name': 'authors_name_key', 'column_names': ['name']}]",
		"views ['recent_memories']  SELECT id, task FROM memories WHERE id > 100;",
		"view columns [('id', 'BIGINT'), ('task', 'TEXT')]",
		"autoload ['id', 'author_id', 'task', 'metadata', 'embedding'] ['id']",
		"orm ['ann']",
		"rows [('fix oom', {'repo': 'x'}, [0.1, 0.2])]",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("sqlalchemy output lacks %q:\n%s", want, out)
		}
	}
}
