package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestSelectForUpdateQueue runs the job-queue pattern agents use to share
// work: workers each claim the next free job with SELECT ... FOR UPDATE
// SKIP LOCKED LIMIT 1 and mark it done in the same transaction. Every job
// must be done exactly once, and a worker must never take a job another
// holds.
func TestSelectForUpdateQueue(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE jobs (id int PRIMARY KEY, state text NOT NULL, worker int)`)
	mustExec(t, setup, `INSERT INTO jobs SELECT g, 'new', NULL FROM generate_series(1, 60) g`)

	const workers = 6
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 1; w <= workers; w++ {
		conn := ts.connect(t)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				tx, err := conn.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				var id int
				err = tx.QueryRow(ctx, `SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&id)
				if err != nil {
					_ = tx.Rollback(ctx)
					if err.Error() == "no rows in result set" {
						return
					}
					errs <- err
					return
				}
				time.Sleep(2 * time.Millisecond) // hold the claim while others look
				if _, err := tx.Exec(ctx, `UPDATE jobs SET state = 'done', worker = $1 WHERE id = $2 AND state = 'new'`, w, id); err != nil {
					errs <- err
					return
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("worker: %v", err)
	}
	var done, workersUsed int
	if err := setup.QueryRow(ctx, `SELECT count(*), count(DISTINCT worker) FROM jobs WHERE state = 'done'`).Scan(&done, &workersUsed); err != nil {
		t.Fatal(err)
	}
	if done != 60 {
		t.Fatalf("%d of 60 jobs done", done)
	}
	if workersUsed < 2 {
		t.Fatalf("only %d worker(s) claimed jobs: SKIP LOCKED serialised them", workersUsed)
	}
}

// TestSelectForUpdateWaits checks the other wait policies: NOWAIT fails
// with 55P03 on a locked row, and a plain FOR UPDATE waits for the holder,
// then takes the next row: the one the holder changed no longer qualifies.
func TestSelectForUpdateWaits(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	holder, other := ts.connect(t), ts.connect(t)
	mustExec(t, holder, `CREATE TABLE q (id int PRIMARY KEY, state text)`)
	mustExec(t, holder, `INSERT INTO q VALUES (1, 'new'), (2, 'new')`)
	mustExec(t, holder, `BEGIN`)
	mustExec(t, holder, `SELECT id FROM q WHERE id = 1 FOR UPDATE`)

	_, err := other.Exec(ctx, `SELECT id FROM q WHERE id = 1 FOR UPDATE NOWAIT`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("FOR UPDATE NOWAIT of a locked row: %v, want 55P03", err)
	}
	var skipped int
	if err := other.QueryRow(ctx, `SELECT id FROM q ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&skipped); err != nil || skipped != 2 {
		t.Fatalf("SKIP LOCKED took %d (%v), want 2", skipped, err)
	}

	got := make(chan int, 1)
	go func() {
		var id int
		if err := other.QueryRow(ctx, `SELECT id FROM q WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE`).Scan(&id); err != nil {
			t.Error(err)
		}
		got <- id
	}()
	select {
	case id := <-got:
		t.Fatalf("FOR UPDATE returned %d without waiting for the holder", id)
	case <-time.After(200 * time.Millisecond):
	}
	mustExec(t, holder, `UPDATE q SET state = 'taken' WHERE id = 1`)
	mustExec(t, holder, `COMMIT`)
	if id := <-got; id != 2 {
		t.Fatalf("FOR UPDATE after the holder took row 1 returned %d, want 2", id)
	}
}

// TestSelectForShare: FOR SHARE and FOR KEY SHARE lock a row shared, as
// in PostgreSQL: many transactions at once, with NOWAIT too, while FOR
// UPDATE fails with NOWAIT, passes the row with SKIP LOCKED and otherwise,
// like an UPDATE, waits for every holder. Two holders that both go on to
// update the row deadlock (40P01 for one). A clause's mode applies to the
// tables it names, and ROLLBACK TO SAVEPOINT releases a shared lock.
func TestSelectForShare(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b, c := ts.connect(t), ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE q (id int PRIMARY KEY, state text)`)
	mustExec(t, a, `CREATE TABLE owners (id int PRIMARY KEY, name text)`)
	mustExec(t, a, `INSERT INTO q VALUES (1, 'new'), (2, 'new')`)
	mustExec(t, a, `INSERT INTO owners VALUES (1, 'ann')`)
	sqlstate := func(err error) string {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return pgErr.Code
		}
		return ""
	}
	quick := func(conn *pgx.Conn, sql string) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := conn.Exec(ctx, sql)
		return err
	}

	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT * FROM q WHERE id = 1 FOR SHARE`)
	mustExec(t, b, `BEGIN`)
	if err := quick(b, `SELECT * FROM q WHERE id = 1 FOR KEY SHARE`); err != nil {
		t.Fatalf("FOR KEY SHARE beside FOR SHARE: %v", err)
	}
	if err := quick(b, `SELECT * FROM q WHERE id = 1 FOR SHARE NOWAIT`); err != nil {
		t.Fatalf("FOR SHARE NOWAIT beside FOR SHARE: %v", err)
	}
	if err := quick(c, `SELECT * FROM q WHERE id = 1 FOR UPDATE NOWAIT`); sqlstate(err) != "55P03" {
		t.Fatalf("FOR UPDATE NOWAIT of a shared row: %v, want 55P03", err)
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT id FROM q ORDER BY id FOR UPDATE SKIP LOCKED) s`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("FOR UPDATE SKIP LOCKED took %d rows (%v), want 1 (row 2)", n, err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'tuple' AND mode = 'ShareLock' AND granted`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("pg_locks shows %d shared row locks (%v), want 2", n, err)
	}

	updated := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, `UPDATE q SET state = 'changed' WHERE id = 1`)
		updated <- err
	}()
	for _, holder := range []*pgx.Conn{a, b} {
		select {
		case err := <-updated:
			t.Fatalf("UPDATE of a row held FOR SHARE did not wait (%v)", err)
		case <-time.After(200 * time.Millisecond):
		}
		mustExec(t, holder, `COMMIT`)
	}
	if err := <-updated; err != nil {
		t.Fatalf("UPDATE after the shared holders ended: %v", err)
	}

	// Two shared holders that both update the row: one deadlock.
	mustExec(t, a, `BEGIN`)
	mustExec(t, b, `BEGIN`)
	mustExec(t, a, `SELECT * FROM q WHERE id = 2 FOR SHARE`)
	mustExec(t, b, `SELECT * FROM q WHERE id = 2 FOR SHARE`)
	first := make(chan error, 1)
	go func() {
		_, err := a.Exec(ctx, `UPDATE q SET state = 'a' WHERE id = 2`)
		first <- err
	}()
	time.Sleep(100 * time.Millisecond)
	errB := quick(b, `UPDATE q SET state = 'b' WHERE id = 2`)
	if sqlstate(errB) == "40P01" {
		mustExec(t, b, `ROLLBACK`)
		if err := <-first; err != nil {
			t.Fatalf("the update left after the deadlock: %v", err)
		}
		mustExec(t, a, `COMMIT`)
	} else if err := <-first; sqlstate(err) != "40P01" || errB != nil {
		t.Fatalf("both shared holders updated the row: %v / %v, want 40P01 for one", err, errB)
	} else {
		mustExec(t, a, `ROLLBACK`)
		mustExec(t, b, `COMMIT`)
	}

	// FOR SHARE OF q FOR UPDATE OF o: each table in its clause's mode.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SELECT * FROM q JOIN owners o ON o.id = q.id WHERE q.id = 1 FOR SHARE OF q FOR UPDATE OF o`)
	if err := quick(b, `SELECT * FROM q WHERE id = 1 FOR SHARE NOWAIT`); err != nil {
		t.Fatalf("FOR SHARE NOWAIT of the row locked FOR SHARE OF q: %v", err)
	}
	if err := quick(b, `SELECT * FROM owners WHERE id = 1 FOR SHARE NOWAIT`); sqlstate(err) != "55P03" {
		t.Fatalf("FOR SHARE NOWAIT of the row locked FOR UPDATE OF o: %v, want 55P03", err)
	}
	mustExec(t, a, `ROLLBACK`)

	// ROLLBACK TO SAVEPOINT releases the shared lock taken after it.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `SAVEPOINT s`)
	mustExec(t, a, `SELECT * FROM q WHERE id = 1 FOR SHARE`)
	if err := quick(c, `SELECT * FROM q WHERE id = 1 FOR UPDATE NOWAIT`); sqlstate(err) != "55P03" {
		t.Fatalf("FOR UPDATE NOWAIT of a shared row: %v, want 55P03", err)
	}
	mustExec(t, a, `ROLLBACK TO SAVEPOINT s`)
	if err := quick(c, `SELECT * FROM q WHERE id = 1 FOR UPDATE NOWAIT`); err != nil {
		t.Fatalf("FOR UPDATE NOWAIT after the shared lock's savepoint was rolled back: %v", err)
	}
	mustExec(t, a, `COMMIT`)
}

// TestForShareThenUpdateUnderContention: sessions that each lock a
// counter row FOR SHARE and then update it deadlock with one another (as
// in PostgreSQL: two shared holders each wait for the other's lock), get
// 40P01 or 40001, roll back and retry; none hangs, and every committed
// increment is there.
func TestForShareThenUpdateUnderContention(t *testing.T) {
	ts := startServer(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE counter (id int PRIMARY KEY, v int)`)
	mustExec(t, setup, `INSERT INTO counter VALUES (1, 0), (2, 0)`)
	const sessions, rounds = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := 0; s < sessions; s++ {
		conn := ts.connect(t)
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			n := 0
			for n < rounds {
				id := 1 + (s+n)%2
				tx, err := conn.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				_, err = tx.Exec(ctx, `SELECT v FROM counter WHERE id = $1 FOR SHARE`, id)
				if err == nil {
					_, err = tx.Exec(ctx, `UPDATE counter SET v = v + 1 WHERE id = $1`, id)
				}
				if err == nil {
					err = tx.Commit(ctx)
				}
				var pgErr *pgconn.PgError
				switch {
				case err == nil:
					n++
				case errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001"):
					_ = tx.Rollback(ctx)
				default:
					_ = tx.Rollback(ctx)
					errs <- err
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("session: %v", err)
	}
	var total int
	if err := setup.QueryRow(ctx, `SELECT sum(v) FROM counter`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != sessions*rounds {
		t.Fatalf("counters sum to %d after %d committed increments", total, sessions*rounds)
	}
}
