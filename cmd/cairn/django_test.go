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

// TestDjango runs Django (Debian's python3-django, over psycopg2) against
// a server: `migrate` of contenttypes, auth and an agent-memory app —
// whose foreign keys Django declares DEFERRABLE INITIALLY DEFERRED, and
// whose second migration adds a column with one (ALTER TABLE ... ADD
// COLUMN ... REFERENCES; SET CONSTRAINTS ... IMMEDIATE) — then the ORM:
// JSON lookups, annotate(Count) grouped by the primary key alone,
// savepoints, cascades, many-to-many, a fixture with forward references
// and an orphan caught at COMMIT. The output must be what PostgreSQL 15
// printed for the same script (django_check.out).
func TestDjango(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import django, psycopg2").Run(); err != nil {
		t.Fatalf("%s cannot import django and psycopg2 (testdata/setup/clients.sh installs them): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	dir := filepath.Join("..", "..", "testdata", "clients", "django")
	want, err := os.ReadFile(filepath.Join(dir, "django_check.out"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-B", filepath.Join(dir, "django_check.py"), host, port, "cairn", "cairn").CombinedOutput()
	if err != nil {
		t.Fatalf("django_check.py failed (%v):\n%s", err, out)
	}
	if string(out) != string(want) {
		t.Errorf("cairn answered\n%s\nPostgreSQL 15 answered\n%s", out, want)
	}
}
