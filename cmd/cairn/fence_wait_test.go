package main

import (
	"context"
	"testing"
	"time"
)

// TestSecondAlterWaitsForFencingAlter: an ALTER TABLE, TRUNCATE or DROP
// TABLE of a table (or an ADD FOREIGN KEY referencing it) whose ADD
// COLUMN DEFAULT is open in another
// transaction waits for it (in autocommit) or fails at once with 40001
// (in a transaction), as PostgreSQL's waits for the first ALTER's lock;
// the first ALTER commits. The second used to go ahead (an ALTER's fill
// waiting for the first one's row locks), and the first one's COMMIT
// then failed with 40001 (or 42P01).
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
		mustExec(t, a, `DROP TABLE IF EXISTS sb, sa`)
		mustExec(t, a, `CREATE TABLE sb (pid int)`)
		mustExec(t, a, `INSERT INTO sb VALUES (1)`)
		mustExec(t, a, `CREATE TABLE sa (id int PRIMARY KEY)`)
		mustExec(t, a, `INSERT INTO sa VALUES (1), (2)`)
		mustExec(t, a, `BEGIN`)
		mustExec(t, a, `ALTER TABLE sa ADD COLUMN x int DEFAULT 5`)

		mustExec(t, b, `BEGIN`)
		expectCode(t, b, tc.stmt, "40001")
		mustExec(t, b, `ROLLBACK`)

		done := make(chan error, 1)
		go func() {
			_, err := b.Exec(ctx, tc.stmt)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("%s ended while the ALTER was open: %v", tc.stmt, err)
		case <-time.After(300 * time.Millisecond):
		}
		mustExec(t, a, `COMMIT`)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s after the ALTER committed: %v", tc.stmt, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waits after the ALTER committed", tc.stmt)
		}
		var n int
		if err := a.QueryRow(ctx, tc.check).Scan(&n); err != nil || n != 2 {
			t.Fatalf("after %s: %s = %d (%v), want 2", tc.stmt, tc.check, n, err)
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
