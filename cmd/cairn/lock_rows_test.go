package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

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
