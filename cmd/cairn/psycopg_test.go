package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPsycopg runs psycopg 3 and psycopg2 against a server the way Python
// agents use them: typed parameters, executemany, the search functions,
// binary results, TypeInfo lookups, COPY, and named (server-side) cursors
// streamed with DECLARE / FETCH, WITH HOLD among them. .ci/run installs
// python3-psycopg and python3-psycopg2.
func TestPsycopg(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import psycopg, psycopg2").Run(); err != nil {
		t.Fatalf("%s cannot import psycopg and psycopg2 (.ci/run installs python3-psycopg and python3-psycopg2): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	script := filepath.Join("..", "..", "testdata", "clients", "psycopg_check.py")
	out, err := exec.Command(python, script, "host="+host+" port="+port+" user=cairn dbname=cairn").CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg script failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"search [(1, True), (3, True), (5, True)]",
		"hybrid task 0 oom",
		"binary (2, {'repo': 'api'}, [1.0, 0.009999999776482582, 0.0, 0.0])",
		"typeinfo 3802 _float4",
		"count 503",
		"named (101, 'task 100') 10 392 503",
		"withhold [1, 2, 3, 4, 5]",
		"psycopg2 named 167 [1, 4, 7]",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("psycopg output lacks %q:\n%s", want, out)
		}
	}
}
