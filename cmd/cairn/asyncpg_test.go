package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsyncpg runs asyncpg against a server: binary values both ways, its
// type introspection and set_type_codec (which needs pg_type's "char"
// columns), the search functions, COPY, prepared statements, savepoints,
// cursors, records and a pool. .ci/run installs python3-asyncpg.
func TestAsyncpg(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import asyncpg").Run(); err != nil {
		t.Fatalf("%s cannot import asyncpg (.ci/run installs python3-asyncpg): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	script := filepath.Join("..", "..", "testdata", "clients", "asyncpg_check.py")
	out, err := exec.Command(python, script, host, port).CombinedOutput()
	if err != nil {
		t.Fatalf("asyncpg script failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"row 3 task 2 {'i': 2, 'repo': 'web'} [1.0, 0.20000000298023224] 0.5 3",
		"search [2, 4, 6]",
		"hybrid task 0 oom",
		"record (1, 'a', 2.5)",
		"types real[] b'r'",
		"prepared 11 3",
		"count 22 0",
		"cursor 22 [1, 2, 3, 4, 5]",
		"error 22000",
		"pool 22",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("asyncpg output lacks %q:\n%s", want, out)
		}
	}
}
