package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestTerminatedSessionCommitsNothing: once pg_terminate_backend has
// returned true, the terminated session runs no further statement: a
// COMMIT its client sends right after gets FATAL 57P01 and its
// transaction's update is rolled back, as in PostgreSQL. The COMMIT used
// to run (and commit) now and then: the read deadline pg_terminate_backend
// sets to wake the connection's goroutine loses, at times, against the
// COMMIT's bytes arriving before that goroutine runs. Many sessions race
// at once to make that window likely.
func TestTerminatedSessionCommitsNothing(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	setup := ts.connect(t)
	const workers, rounds = 8, 100
	mustExec(t, setup, `CREATE TABLE term_acct (id int PRIMARY KEY, n int NOT NULL)`)
	mustExec(t, setup, `INSERT INTO term_acct SELECT g, 0 FROM generate_series(1, $1::int) g`, workers)

	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 1; w <= workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			ctl, err := pgx.Connect(ctx, ts.connString())
			if err != nil {
				errs <- err
				return
			}
			defer ctl.Close(ctx)
			for range rounds {
				victim, err := pgconn.Connect(ctx, ts.connString())
				if err != nil {
					errs <- err
					return
				}
				res := victim.Exec(ctx, fmt.Sprintf(`BEGIN; UPDATE term_acct SET n = n + 1 WHERE id = %d`, w))
				if _, err := res.ReadAll(); err != nil {
					errs <- err
					victim.Close(ctx)
					return
				}
				var ok bool
				if err := ctl.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int32(victim.PID())).Scan(&ok); err != nil || !ok {
					errs <- errors.Join(errors.New("pg_terminate_backend did not return true"), err)
					victim.Close(ctx)
					return
				}
				_, err = victim.Exec(ctx, `COMMIT`).ReadAll()
				victim.Close(ctx)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "57P01" {
					errs <- errors.Join(errors.New("COMMIT after pg_terminate_backend did not fail with 57P01"), err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var sum int
	if err := setup.QueryRow(ctx, `SELECT sum(n) FROM term_acct`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != 0 {
		t.Errorf("terminated sessions committed %d updates", sum)
	}
}
