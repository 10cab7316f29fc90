package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runAsyncpg runs a script of testdata/clients with /usr/bin/python3
// against a fresh server (host and port as its arguments) under a 60 s
// deadline, so a client that hangs fails the test, and returns its output.
func runAsyncpg(t *testing.T, script string) string {
	t.Helper()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import asyncpg").Run(); err != nil {
		t.Fatalf("%s cannot import asyncpg (make setup installs python3-asyncpg): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	path := filepath.Join("..", "..", "testdata", "clients", script)
	out, err := exec.CommandContext(ctx, python, path, host, port).CombinedOutput()
	if err != nil {
		t.Fatalf("%s failed (%v):\n%s", script, err, out)
	}
	return string(out)
}

// TestAsyncpg runs asyncpg against a server: binary values both ways, its
// type introspection and set_type_codec (which needs pg_type's "char"
// columns), the search functions, COPY, prepared statements, savepoints,
// cursors, records and a pool.
func TestAsyncpg(t *testing.T) {
	out := runAsyncpg(t, "asyncpg_check.py")
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
		if !strings.Contains(out, want) {
			t.Errorf("asyncpg output lacks %q:\n%s", want, out)
		}
	}
}

// TestAsyncpgErrors checks that an error in asyncpg's prepare (Parse,
// Describe, Flush and a wait, no Sync) reaches the client at once rather
// than sitting in the server's output buffer while the client waits for
// it: a syntax error, an unknown table, then the connection still works.
// Before the fix the script hung until runAsyncpg's deadline. A prepared
// statement a DDL changed the result of is asyncpg's
// InvalidCachedStatementError, which its statement cache recovers from.
func TestAsyncpgErrors(t *testing.T) {
	out := runAsyncpg(t, "asyncpg_errors.py")
	for _, want := range []string{
		"syntax 42601",
		"unknown 42P01 relation \"no_such_table\" does not exist",
		"prepare unknown 42P01",
		"after 2",
		"cached before 2 2",
		"prepared after DDL InvalidCachedStatementError 0A000",
		"cache after DDL (1, 'a', 7)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("asyncpg output lacks %q:\n%s", want, out)
		}
	}
}
