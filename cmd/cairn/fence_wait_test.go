package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestSecondAlterWaitsForFencingAlter: an ALTER TABLE, TRUNCATE or DROP
// TABLE of a table (or an ADD FOREIGN KEY referencing it) whose ADD
// COLUMN DEFAULT is open in another transaction waits for it, in
// autocommit and in a transaction block, as PostgreSQL's waits for the
// first ALTER's lock, and then runs on its outcome; the first ALTER
// commits. The second used to go ahead (an ALTER's fill waiting for the
// first one's row locks), and the first one's COMMIT then failed with
// 40001 (or 42P01); in a transaction block it then failed at once with
// 40001.
func TestSecondAlterWaitsForFencingAlter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	for _, tc := range []struct{ stmt, check string }{
		{`ALTER TABLE sa ADD COLUMN y int DEFAULT 7`, `SELECT count(*) FROM sa WHERE x = 5 AND y = 7`},
		{`TRUNCATE sa`, `SELECT 2 - count(*) FROM sa`},
		{`ALTER TABLE sb ADD CONSTRAINT sb_fk FOREIGN KEY (pid) REFERENCES sa`, `SELECT count(*) + 1 FROM pg_constraint WHERE conname = 'sb_fk'`},
		{`DROP TABLE sa CASCADE`, `SELECT 2 + count(*) FROM pg_class WHERE relname = 'sa'`},
	} {
		for _, inTx := range []bool{false, true} {
			mustExec(t, a, `DROP TABLE IF EXISTS sb, sa`)
			mustExec(t, a, `CREATE TABLE sb (pid int)`)
			mustExec(t, a, `INSERT INTO sb VALUES (1)`)
			mustExec(t, a, `CREATE TABLE sa (id int PRIMARY KEY)`)
			mustExec(t, a, `INSERT INTO sa VALUES (1), (2)`)
			mustExec(t, a, `BEGIN`)
			mustExec(t, a, `ALTER TABLE sa ADD COLUMN x int DEFAULT 5`)

			if inTx {
				mustExec(t, b, `BEGIN`)
			}
			done := make(chan error, 1)
			go func() {
				_, err := b.Exec(ctx, tc.stmt)
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("%s (in a transaction: %v) ended while the ALTER was open: %v", tc.stmt, inTx, err)
			case <-time.After(300 * time.Millisecond):
			}
			mustExec(t, a, `COMMIT`)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s (in a transaction: %v) after the ALTER committed: %v", tc.stmt, inTx, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s (in a transaction: %v) still waits after the ALTER committed", tc.stmt, inTx)
			}
			if inTx {
				mustExec(t, b, `COMMIT`)
			}
			var n int
			if err := a.QueryRow(ctx, tc.check).Scan(&n); err != nil || n != 2 {
				t.Fatalf("after %s (in a transaction: %v): %s = %d (%v), want 2", tc.stmt, inTx, tc.check, n, err)
			}
		}
	}
}

// TestDoWaitsForFencingAlter: an autocommit DO block that writes to a
// table whose ADD CHECK is open in another transaction waits for it and
// runs again, as an autocommit INSERT does (its commit failed with 40001
// at once); the notices of the run that failed are not sent.
func TestDoWaitsForFencingAlter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl := ts.connect(t)
	w, notices := noticeConn(t, ts)
	mustExec(t, ddl, `CREATE TABLE dw (id int, v int)`)
	mustExec(t, ddl, `INSERT INTO dw VALUES (1, 1)`)
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE dw ADD CONSTRAINT dw_v CHECK (v > 0)`)

	done := make(chan error, 1)
	go func() {
		_, err := w.Exec(ctx, `DO $$ BEGIN RAISE NOTICE 'once'; INSERT INTO dw VALUES (2, 2); END $$`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the DO ended while the ALTER was open: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, ddl, `COMMIT`)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the DO after the ALTER committed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the DO still waits after the ALTER committed")
	}
	if got := notices(); len(got) != 1 {
		t.Fatalf("notices %q, want one", got)
	}
	var n int
	if err := ddl.QueryRow(ctx, `SELECT count(*) FROM dw`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rows (%v), want 2", n, err)
	}
}

// TestTxWriterWaitsForFencingAlter: a statement of an open READ COMMITTED
// transaction that first writes to a table whose ALTER TABLE (ADD COLUMN
// DEFAULT, ADD CHECK) is open in another transaction waits for it, as
// PostgreSQL's waits for the ALTER's lock, and then runs on the ALTER's
// outcome: its row gets the new column's default, its COMMIT succeeds. It
// used to write at once and fail at COMMIT with 40001. Prepared (pgx's
// default) and simple-protocol statements, INSERT, UPDATE and DELETE.
// A transaction that wrote the table before the ALTER began still fails
// at COMMIT (PostgreSQL's ALTER would have waited for it instead), and
// REPEATABLE READ fails with 40001 at once.
func TestTxWriterWaitsForFencingAlter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, w := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE tf (id int PRIMARY KEY, v int)`)
	mustExec(t, ddl, `INSERT INTO tf SELECT g, g FROM generate_series(1, 10) g`)
	// waits runs stmt in w while ddl holds alter open, and checks that it
	// ends only once ddl commits.
	waits := func(alter string, stmt func() error) {
		t.Helper()
		mustExec(t, ddl, `BEGIN`)
		mustExec(t, ddl, alter)
		done := make(chan error, 1)
		go func() { done <- stmt() }()
		select {
		case err := <-done:
			t.Fatalf("%s: the writer ended while the ALTER was open: %v", alter, err)
		case <-time.After(300 * time.Millisecond):
		}
		mustExec(t, ddl, `COMMIT`)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: the writer after the ALTER committed: %v", alter, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the writer still waits after the ALTER committed", alter)
		}
	}

	mustExec(t, w, `BEGIN`)
	mustExec(t, w, `SELECT count(*) FROM tf`) // a snapshot taken before the ALTER
	waits(`ALTER TABLE tf ADD COLUMN c int NOT NULL DEFAULT 7`, func() error {
		_, err := w.Exec(ctx, `INSERT INTO tf (id, v) VALUES ($1, $2)`, 11, 11)
		return err
	})
	var c int
	if err := w.QueryRow(ctx, `SELECT c FROM tf WHERE id = 11`).Scan(&c); err != nil || c != 7 {
		t.Fatalf("the waiting INSERT's row: c = %d (%v), want the default 7", c, err)
	}
	mustExec(t, w, `COMMIT`)

	mustExec(t, w, `BEGIN`)
	waits(`ALTER TABLE tf ADD CONSTRAINT tf_v CHECK (v > 0)`, func() error {
		_, err := w.Exec(ctx, `UPDATE tf SET v = v + 1 WHERE id = 1`, pgx.QueryExecModeSimpleProtocol)
		return err
	})
	expectCode(t, w, `UPDATE tf SET v = -1 WHERE id = 2`, "23514")
	mustExec(t, w, `ROLLBACK`)

	mustExec(t, w, `BEGIN`)
	waits(`ALTER TABLE tf ADD COLUMN d text DEFAULT 'x'`, func() error {
		_, err := w.Exec(ctx, `DELETE FROM tf WHERE id = 3`)
		return err
	})
	mustExec(t, w, `COMMIT`)
	var n int
	if err := ddl.QueryRow(ctx, `SELECT count(*) FROM tf WHERE d = 'x'`).Scan(&n); err != nil || n != 10 {
		t.Fatalf("after the DELETE: %d rows with d = 'x' (%v), want 10", n, err)
	}

	// Written before the ALTER began: the COMMIT fails.
	mustExec(t, w, `BEGIN`)
	mustExec(t, w, `INSERT INTO tf (id, v) VALUES (20, 20)`)
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE tf ADD COLUMN e int DEFAULT 1`)
	mustExec(t, w, `INSERT INTO tf (id, v) VALUES (21, 21)`)
	mustExec(t, ddl, `COMMIT`)
	expectCode(t, w, `COMMIT`, "40001")

	// REPEATABLE READ: no new snapshot to run again on.
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE tf ADD COLUMN f int DEFAULT 1`)
	mustExec(t, w, `BEGIN ISOLATION LEVEL REPEATABLE READ`)
	expectCode(t, w, `INSERT INTO tf (id, v) VALUES (22, 22)`, "40001")
	mustExec(t, w, `ROLLBACK`)

	// lock_timeout bounds the wait; the transaction is then aborted.
	mustExec(t, w, `SET lock_timeout = '200ms'`)
	mustExec(t, w, `BEGIN`)
	expectCode(t, w, `INSERT INTO tf (id, v) VALUES (23, 23)`, "55P03")
	expectCode(t, w, `SELECT 1`, "25P02")
	mustExec(t, w, `ROLLBACK`)
	mustExec(t, ddl, `COMMIT`)
}

// TestTxWithDDLWaitsForFencingAlter: a transaction that made DDL of its
// own before an ALTER that waited for another transaction's cannot take
// the catalog that one committed: its ALTER fails with 40001 once the
// other commits, and the other's column stays.
func TestTxWithDDLWaitsForFencingAlter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE dw (id int PRIMARY KEY)`)
	mustExec(t, a, `INSERT INTO dw VALUES (1), (2)`)
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `ALTER TABLE dw ADD COLUMN x int DEFAULT 5`)
	mustExec(t, b, `BEGIN`)
	mustExec(t, b, `CREATE TABLE dw_other (id int)`)
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, `ALTER TABLE dw ADD COLUMN y int DEFAULT 7`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the second ALTER ended while the first was open: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, a, `COMMIT`)
	select {
	case err := <-done:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "40001" {
			t.Fatalf("the second ALTER: %v, want 40001", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second ALTER still waits after the first committed")
	}
	mustExec(t, b, `ROLLBACK`)
	var x int
	if err := a.QueryRow(ctx, `SELECT x FROM dw WHERE id = 1`).Scan(&x); err != nil || x != 5 {
		t.Fatalf("the first ALTER's column: x = %d (%v), want 5", x, err)
	}
}

// TestFenceWaitDeadlock: a transaction waiting for another's fencing ALTER
// TABLE while that one waits for a row it locked is a deadlock, which
// fails with 40P01 (as PostgreSQL detects it) instead of both waiting
// forever with the table fenced for every other writer.
func TestFenceWaitDeadlock(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, w := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE fd (id int PRIMARY KEY)`)
	mustExec(t, ddl, `INSERT INTO fd VALUES (0)`)
	mustExec(t, ddl, `CREATE TABLE fd_rows (id int PRIMARY KEY, v int)`)
	mustExec(t, ddl, `INSERT INTO fd_rows VALUES (1, 1)`)
	for _, waiterFirst := range []bool{true, false} {
		mustExec(t, w, `BEGIN`)
		mustExec(t, w, `UPDATE fd_rows SET v = v + 1 WHERE id = 1`)
		mustExec(t, ddl, `BEGIN`)
		mustExec(t, ddl, `ALTER TABLE fd ADD COLUMN c int DEFAULT 1`)
		type result struct {
			conn *pgx.Conn
			err  error
		}
		results := make(chan result, 2)
		run := func(conn *pgx.Conn, stmt string) {
			_, err := conn.Exec(ctx, stmt)
			results <- result{conn, err}
		}
		if waiterFirst {
			go run(w, `INSERT INTO fd (id) VALUES (1)`)
			time.Sleep(200 * time.Millisecond)
			go run(ddl, `UPDATE fd_rows SET v = v + 1 WHERE id = 1`)
		} else {
			go run(ddl, `UPDATE fd_rows SET v = v + 1 WHERE id = 1`)
			time.Sleep(200 * time.Millisecond)
			go run(w, `INSERT INTO fd (id) VALUES (1)`)
		}
		// One of the two is the victim (40P01); the other then goes on.
		// (A victim's aborted transaction may let its locks go before
		// its error reaches the client, so either may be reported first.)
		deadlocks := 0
		for range 2 {
			select {
			case r := <-results:
				var pe *pgconn.PgError
				switch {
				case errors.As(r.err, &pe) && pe.Code == "40P01":
					deadlocks++
				case r.err != nil:
					t.Fatalf("waiter first: %v: %v, want 40P01 or success", waiterFirst, r.err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("waiter first: %v: deadlocked", waiterFirst)
			}
		}
		if deadlocks != 1 {
			t.Fatalf("waiter first: %v: %d statements failed with 40P01, want 1", waiterFirst, deadlocks)
		}
		mustExec(t, w, `ROLLBACK`)
		mustExec(t, ddl, `ROLLBACK`)
	}
}
