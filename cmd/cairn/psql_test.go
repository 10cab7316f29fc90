package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestPsqlCommands runs psql's backslash commands (\dt, \d table, \dn,
// \di, ...) against a server, through the real psql binary: each sends
// the catalog queries of PostgreSQL 15's psql, and the expected output in
// testdata/psql/*.test is what psql prints. Directives:
//
//	psql      run the input with psql -c; expect its output (errors
//	          included), with the trailing newline trimmed
//
// The files were checked against PostgreSQL 15 with the same schema; they
// differ only where cairn differs on purpose (the owner is the connected
// user).
func TestPsqlCommands(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "psql", "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no psql test files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ts := startServer(t, "")
			host, port, _ := strings.Cut(ts.Addr, ":")
			datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
				if d.Cmd != "psql" {
					t.Fatalf("unknown directive %q", d.Cmd)
				}
				cmd := exec.Command(psql, "-X", "-h", host, "-p", port, "-U", "cairn", "-d", "cairn", "-c", d.Input)
				out, _ := cmd.CombinedOutput()
				return strings.TrimRight(string(out), "\n") + "\n"
			})
		})
	}
}
