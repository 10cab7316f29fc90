package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// With --password the server asks every client for it by SCRAM-SHA-256:
// pgx and psql get in with it, a wrong one gets 28P01 and the server goes
// on serving.
func TestPasswordSCRAM(t *testing.T) {
	ctx := context.Background()
	logs := &syncBuffer{}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- run(runCtx, []string{"--listen", "127.0.0.1:0", "--http", "off", "--data-dir", t.TempDir(), "--password", "s3cret"}, io.Discard, logs)
	}()
	defer func() {
		stop()
		<-done
	}()
	var addr string
	for i := 0; i < 100 && addr == ""; i++ {
		time.Sleep(50 * time.Millisecond)
		if _, rest, ok := strings.Cut(logs.String(), "postgres="); ok {
			addr = strings.Fields(rest)[0]
		}
	}
	if addr == "" {
		t.Fatalf("server did not start:\n%s", logs.String())
	}
	host, port, _ := strings.Cut(addr, ":")

	_, err := pgx.Connect(ctx, "postgres://agent:wrong@"+addr+"/cairn")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
	if _, err := pgx.Connect(ctx, "postgres://agent@"+addr+"/cairn"); err == nil {
		t.Fatal("no password: connected")
	}
	conn, err := pgx.Connect(ctx, "postgres://agent:s3cret@"+addr+"/cairn")
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	defer conn.Close(ctx)
	var user string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil || user != "agent" {
		t.Fatalf("current_user %q, %v", user, err)
	}

	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	cmd := exec.Command(psql, "-X", "-h", host, "-p", port, "-U", "agent", "-d", "cairn", "-tAc", "SELECT 1 + 1")
	cmd.Env = append(os.Environ(), "PGPASSWORD=s3cret")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Fatalf("psql with the password: %v\n%s", err, out)
	}
	cmd = exec.Command(psql, "-X", "-w", "-h", host, "-p", port, "-U", "agent", "-d", "cairn", "-c", "SELECT 1")
	cmd.Env = append(os.Environ(), "PGPASSWORD=nope")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "password authentication failed") {
		t.Fatalf("psql with a wrong password: %v\n%s", err, out)
	}
}
