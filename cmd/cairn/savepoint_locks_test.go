package main

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestRollbackToSavepointReleasesLocks: as PostgreSQL releases the locks
// of a rolled-back subtransaction, ROLLBACK TO SAVEPOINT releases the row
// locks taken since the savepoint (SELECT ... FOR UPDATE's and an
// UPDATE's), the locks on the primary keys it inserted (one and a run of
// them) and the transaction-level advisory locks, at once: another
// session locks them with NOWAIT, and one already waiting goes on while
// the first transaction is still open. Locks taken before the savepoint,
// and those of a RELEASEd savepoint, stay until the transaction ends.
func TestRollbackToSavepointReleasesLocks(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	a, b := srv.connect(t), srv.connect(t)
	mustExec(t, a, `CREATE TABLE spl (id int PRIMARY KEY, v text)`)
	mustExec(t, a, `INSERT INTO spl SELECT g, 'v' FROM generate_series(1, 5) g`)

	// tryB runs sql in a transaction of b and reports its SQLSTATE ("" when
	// it succeeded).
	lockNoWait := func(id int) string {
		return "SELECT * FROM spl WHERE id = " + strconv.Itoa(id) + " FOR UPDATE NOWAIT"
	}
	insertKey := func(id int) string {
		return "INSERT INTO spl VALUES (" + strconv.Itoa(id) + ", 'b')"
	}
	tryB := func(sql string) string {
		t.Helper()
		mustExec(t, b, `BEGIN`)
		_, err := b.Exec(ctx, sql)
		mustExec(t, b, `ROLLBACK`)
		return sqlState(err)
	}

	mustExec(t, b, `SET lock_timeout = '1s'`)
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT * FROM spl WHERE id = 1 FOR UPDATE`)
	mustExec(t, a, `INSERT INTO spl VALUES (100, 'a')`)
	mustExec(t, a, `SAVEPOINT s1`)
	mustExec(t, a, `SELECT * FROM spl WHERE id = 2 FOR UPDATE`)
	mustExec(t, a, `SAVEPOINT s2`)
	mustExec(t, a, `SELECT * FROM spl WHERE id = 3 FOR UPDATE`)
	mustExec(t, a, `UPDATE spl SET v = 'a' WHERE id = 4`)
	mustExec(t, a, `SELECT pg_advisory_xact_lock(42)`)
	mustExec(t, a, `INSERT INTO spl VALUES (101, 'a')`)
	mustExec(t, a, `INSERT INTO spl SELECT g, 'a' FROM generate_series(200, 299) g`)
	for _, id := range []int{100, 101, 250} {
		if got := tryB(insertKey(id)); got != "55P03" {
			t.Fatalf("key %d inserted by a: b's insert got %q, want 55P03 (lock timeout)", id, got)
		}
	}
	for id := 1; id <= 4; id++ {
		if got := tryB(lockNoWait(id)); got != "55P03" {
			t.Fatalf("row %d locked by a: b's NOWAIT got %q, want 55P03", id, got)
		}
	}
	var ok bool
	if err := b.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(42)`).Scan(&ok); err != nil || ok {
		t.Fatalf("advisory lock held by a: b's try got %v %v, want false", ok, err)
	}

	// b waits for row 3; ROLLBACK TO s2 lets it through.
	waited := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, `UPDATE spl SET v = 'b' WHERE id = 3`)
		waited <- err
	}()
	select {
	case err := <-waited:
		t.Fatalf("b's UPDATE of row 3 did not wait for a's lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, a, `ROLLBACK TO SAVEPOINT s2`)
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("b's UPDATE of row 3 after ROLLBACK TO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("b's UPDATE of row 3 still waits after a's ROLLBACK TO SAVEPOINT")
	}
	for id, want := range map[int]string{1: "55P03", 2: "55P03", 4: ""} {
		if got := tryB(lockNoWait(id)); got != want {
			t.Errorf("after ROLLBACK TO s2, row %d: b's NOWAIT got %q, want %q", id, got, want)
		}
	}
	if err := b.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(42)`).Scan(&ok); err != nil || !ok {
		t.Errorf("after ROLLBACK TO s2, b's try of the advisory lock got %v %v, want true", ok, err)
	}
	for id, want := range map[int]string{100: "55P03", 101: "", 200: "", 250: "", 299: ""} {
		if got := tryB(insertKey(id)); got != want {
			t.Errorf("after ROLLBACK TO s2, key %d: b's insert got %q, want %q", id, got, want)
		}
	}

	// A released savepoint's locks belong to the transaction: ROLLBACK TO
	// an earlier savepoint releases them, the transaction's end does too.
	mustExec(t, a, `SAVEPOINT s3`)
	mustExec(t, a, `SELECT * FROM spl WHERE id = 5 FOR UPDATE`)
	mustExec(t, a, `RELEASE SAVEPOINT s3`)
	if got := tryB(`SELECT * FROM spl WHERE id = 5 FOR UPDATE NOWAIT`); got != "55P03" {
		t.Errorf("row 5, its savepoint released: b's NOWAIT got %q, want 55P03", got)
	}
	mustExec(t, a, `ROLLBACK TO SAVEPOINT s1`)
	for id, want := range map[int]string{1: "55P03", 2: "", 5: ""} {
		if got := tryB(lockNoWait(id)); got != want {
			t.Errorf("after ROLLBACK TO s1, row %d: b's NOWAIT got %q, want %q", id, got, want)
		}
	}
	mustExec(t, a, `COMMIT`)
	if got := tryB(`SELECT * FROM spl WHERE id = 1 FOR UPDATE NOWAIT`); got != "" {
		t.Errorf("after COMMIT, row 1: b's NOWAIT got %q", got)
	}
	var v string
	if err := a.QueryRow(ctx, `SELECT v FROM spl WHERE id = 3`).Scan(&v); err != nil || v != "b" {
		t.Errorf("row 3: %q %v, want b's update", v, err)
	}
}
