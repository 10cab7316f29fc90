package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAsyncpgErrors checks that an error in asyncpg's prepare (Parse,
// Describe, Flush and a wait, no Sync) reaches the client at once rather
// than sitting in the server's output buffer while the client waits for
// it: a syntax error, an unknown table, then the connection still works.
// The script runs under a deadline, so a regression fails instead of
// hanging.
func TestAsyncpgErrors(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import asyncpg").Run(); err != nil {
		t.Fatalf("%s cannot import asyncpg (.ci/run installs python3-asyncpg): %v", python, err)
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	script := filepath.Join("..", "..", "testdata", "clients", "asyncpg_errors.py")
	out, err := exec.CommandContext(ctx, python, script, host, port).CombinedOutput()
	if err != nil {
		t.Fatalf("asyncpg script failed (%v):\n%s", err, out)
	}
	for _, want := range []string{
		"syntax 42601",
		"unknown 42P01 relation \"no_such_table\" does not exist",
		"prepare unknown 42P01",
		"after 2",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("asyncpg output lacks %q:\n%s", want, out)
		}
	}
}
