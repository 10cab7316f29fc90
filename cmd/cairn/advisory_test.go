package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestAdvisoryLocks checks the advisory locks migration tools take (golang
// migrate, Prisma, Rails): exclusive and shared, re-entrant, the try and
// transaction-level forms, the two-integer key space, waits that end with
// the holder's unlock or the statement's timeout, and release when the
// holding session goes away.
func TestAdvisoryLocks(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	tryB := func(q string) bool {
		t.Helper()
		var ok bool
		if err := b.QueryRow(ctx, q).Scan(&ok); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return ok
	}
	mustExec(t, a, `SELECT pg_advisory_lock(42)`)
	mustExec(t, a, `SELECT pg_advisory_lock(42)`) // re-entrant
	if tryB(`SELECT pg_try_advisory_lock(42)`) {
		t.Fatal("B took key 42 while A held it")
	}
	if !tryB(`SELECT pg_try_advisory_lock(0, 42)`) || !tryB(`SELECT pg_advisory_unlock(0, 42)`) {
		t.Fatal("the key (0, 42) is not the key 42: B should take and release it")
	}
	if tryB(`SELECT pg_advisory_unlock(42)`) {
		t.Fatal("B released a lock it does not hold")
	}

	// B waits for A's two holds to go.
	got := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, `SELECT pg_advisory_lock(42)`)
		got <- err
	}()
	mustExec(t, a, `SELECT pg_advisory_unlock(42)`)
	select {
	case err := <-got:
		t.Fatalf("B took key 42 while A still held it once (%v)", err)
	case <-time.After(150 * time.Millisecond):
	}
	mustExec(t, a, `SELECT pg_advisory_unlock(42)`)
	if err := <-got; err != nil {
		t.Fatalf("B's wait for key 42: %v", err)
	}

	// A wait ends with statement_timeout.
	mustExec(t, a, `SET statement_timeout = '150ms'`)
	_, err := a.Exec(ctx, `SELECT pg_advisory_lock(42)`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("waiting past statement_timeout: %v, want 57014", err)
	}
	mustExec(t, a, `RESET statement_timeout`)

	// Shared holds coexist; an exclusive one waits for them.
	mustExec(t, b, `SELECT pg_advisory_unlock_all()`)
	mustExec(t, a, `SELECT pg_advisory_lock_shared(7)`)
	if !tryB(`SELECT pg_try_advisory_lock_shared(7)`) || tryB(`SELECT pg_try_advisory_lock(7)`) {
		t.Fatal("shared holds of key 7 should coexist and keep out an exclusive one")
	}

	// A transaction-level lock goes with the transaction.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(9)`)
	if tryB(`SELECT pg_try_advisory_lock(9)`) {
		t.Fatal("B took key 9 during A's transaction")
	}
	mustExec(t, a, `COMMIT`)
	if !tryB(`SELECT pg_try_advisory_lock(9)`) {
		t.Fatal("key 9 still held after A's COMMIT")
	}

	// A session's locks end with it.
	c := ts.connect(t)
	mustExec(t, c, `SELECT pg_advisory_lock(99)`)
	c.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for !tryB(`SELECT pg_try_advisory_lock(99)`) {
		if time.Now().After(deadline) {
			t.Fatal("key 99 still held after its session closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
