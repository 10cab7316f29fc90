package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodePostgres runs node-postgres (pg, the driver of most JavaScript
// agent frameworks) against a server: JS values as parameters (objects as
// JSONB, arrays as real[]), a filtered vector search, type parsing of
// results, an error's SQLSTATE, a rolled-back transaction, an enum column
// (whose array node-postgres leaves as text, as with PostgreSQL). .ci/run
// installs the package (npm ci in testdata/clients/node).
func TestNodePostgres(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pg")); err != nil {
		t.Fatalf("node-postgres is not installed: run npm ci --prefix %s (.ci/run does)", dir)
	}
	ts := startServer(t, "")
	cmd := exec.Command(node, "check.js", "postgres://cairn@"+ts.Addr+"/cairn")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("check.js failed: %v\n%s", err, out)
	}
	want := `insert 1 string
row [["fix oom",{"repo":"x"},[0.5,0.25],1]]
types true 1.5 true null
error 42703 column "nope" does not exist
count 1
enum [[1,"happy","{ok,sad}"],[2,"sad",null]]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("check.js printed:\n%s\nwant:\n%s", got, want)
	}
}
