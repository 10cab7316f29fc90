package main

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

// TestAdvisoryXactAbort checks that transaction-level advisory locks go
// when the (sub)transaction that took them aborts, as in PostgreSQL: at
// an error in a transaction block (not at the client's ROLLBACK, which a
// pooled connection may never send), and at ROLLBACK TO for those taken
// after the savepoint; a released savepoint's stay to the commit.
func TestAdvisoryXactAbort(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	free := func(key int) bool {
		t.Helper()
		var ok bool
		if err := b.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			mustExec(t, b, `SELECT pg_advisory_unlock(`+strconv.Itoa(key)+`)`)
		}
		return ok
	}
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(1)`)
	if _, err := a.Exec(ctx, `SELECT 1/0`); sqlState(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	if !free(1) {
		t.Error("a transaction-level advisory lock outlived the error that aborted its block")
	}
	mustExec(t, a, `ROLLBACK`)

	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(2)`)
	mustExec(t, a, `SAVEPOINT s`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(3)`)
	if _, err := a.Exec(ctx, `SELECT 1/0`); sqlState(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	if free(2) || !free(3) {
		t.Errorf("after an error in savepoint s: key 2 (taken before it) free %v, key 3 (after it) free %v; want held, free", !free(2), free(3))
	}
	mustExec(t, a, `ROLLBACK TO s`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(4)`)
	mustExec(t, a, `SAVEPOINT t`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(5)`)
	mustExec(t, a, `RELEASE t`)
	mustExec(t, a, `SAVEPOINT u`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(6)`)
	mustExec(t, a, `SELECT pg_advisory_lock(7)`) // session-level: stays
	mustExec(t, a, `ROLLBACK TO u`)
	for key, want := range map[int]bool{2: false, 4: false, 5: false, 6: true, 7: false} {
		if got := free(key); got != want {
			t.Errorf("after ROLLBACK TO u: key %d free %v, want %v", key, got, want)
		}
	}
	mustExec(t, a, `COMMIT`)
	for _, key := range []int{2, 4, 5} {
		if !free(key) {
			t.Errorf("key %d held after COMMIT", key)
		}
	}
}

// TestAdvisoryLevelsApart checks that a session's session-level and
// transaction-level holds of one key are counted apart, as PostgreSQL's
// lock owners are: pg_advisory_unlock and pg_advisory_unlock_all give
// back session-level holds only (false, with a warning, for a key held
// only by the transaction), and the transaction's end only its own. Both
// were once one count, so pg_advisory_unlock freed a key the transaction
// still held, and the transaction's end then freed the session's hold.
func TestAdvisoryLevelsApart(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, takeNotices := noticeConn(t, ts)
	b := ts.connect(t)
	queryBool := func(conn interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}, q string) bool {
		t.Helper()
		var ok bool
		if err := conn.QueryRow(ctx, q).Scan(&ok); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return ok
	}
	// B takes key k (and gives it back) when A holds it at no level.
	free := func(k int) bool {
		t.Helper()
		if !queryBool(b, `SELECT pg_try_advisory_lock(`+strconv.Itoa(k)+`)`) {
			return false
		}
		mustExec(t, b, `SELECT pg_advisory_unlock(`+strconv.Itoa(k)+`)`)
		return true
	}

	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExecTx(t, tx, `SELECT pg_advisory_xact_lock(1)`)
	if queryBool(tx, `SELECT pg_advisory_unlock(1)`) {
		t.Error("pg_advisory_unlock released a transaction-level hold")
	}
	if got, want := takeNotices(), []string{"WARNING 01000 you don't own a lock of type ExclusiveLock"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("notices %q, want %q", got, want)
	}
	if free(1) {
		t.Error("B took key 1 while A's transaction held it")
	}
	mustExecTx(t, tx, `SELECT pg_advisory_lock(1)`) // and a session-level hold
	mustExecTx(t, tx, `SELECT pg_advisory_xact_lock_shared(2), pg_advisory_lock(3)`)
	mustExecTx(t, tx, `SELECT pg_advisory_unlock_all()`)
	if free(1) || free(2) {
		t.Error("pg_advisory_unlock_all released the transaction's holds")
	}
	if !free(3) {
		t.Error("pg_advisory_unlock_all kept a session-level hold")
	}
	mustExecTx(t, tx, `SELECT pg_advisory_lock(1)`)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if free(1) {
		t.Error("the transaction's end released the session-level hold of key 1")
	}
	if !free(2) {
		t.Error("the transaction's end kept its hold of key 2")
	}
	if !queryBool(a, `SELECT pg_advisory_unlock(1)`) || !free(1) {
		t.Error("pg_advisory_unlock of the session-level hold of key 1")
	}
}

func mustExecTx(t *testing.T, tx pgx.Tx, sql string) {
	t.Helper()
	if _, err := tx.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
