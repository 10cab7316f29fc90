package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAbortedTxReleasesLocks: a transaction block whose statement failed
// (with no savepoint to go back to) is aborted at once, as in
// PostgreSQL, so its row and key locks go then, not at the client's
// ROLLBACK: another writer of the same row or key proceeds, and the
// survivor of a deadlock goes on while the victim has not rolled back.
// They were held until ROLLBACK, so the other session hung or timed out.
func TestAbortedTxReleasesLocks(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	a, b := srv.connect(t), srv.connect(t)
	mustExec(t, a, `CREATE TABLE lk (id int PRIMARY KEY, v int)`)
	mustExec(t, a, `INSERT INTO lk VALUES (1, 0), (2, 0)`)
	mustExec(t, b, `SET lock_timeout = '2s'`)

	// An error in the block: b takes over the row and the key at once.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `UPDATE lk SET v = 1 WHERE id = 1`)
	mustExec(t, a, `INSERT INTO lk VALUES (3, 3)`)
	if _, err := a.Exec(ctx, `SELECT 1 / 0`); sqlState(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	mustExec(t, b, `UPDATE lk SET v = 2 WHERE id = 1`)
	mustExec(t, b, `INSERT INTO lk VALUES (3, 4)`)
	// The block stays failed until it ends; COMMIT rolls it back.
	if _, err := a.Exec(ctx, `SELECT 1`); sqlState(err) != "25P02" {
		t.Fatalf("in the failed block: %v, want 25P02", err)
	}
	if tag, err := a.Exec(ctx, `COMMIT`); err != nil || tag.String() != "ROLLBACK" {
		t.Fatalf("COMMIT of the failed block: %v %v", tag, err)
	}
	rows, _ := a.Query(ctx, `SELECT v FROM lk ORDER BY id`)
	if got, err := pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil || len(got) != 3 || got[0] != 2 || got[1] != 0 || got[2] != 4 {
		t.Fatalf("rows %v %v, want [2 0 4]", got, err)
	}

	// A deadlock: the survivor's statement completes before the victim
	// rolls back.
	mustExec(t, a, `BEGIN`)
	mustExec(t, b, `BEGIN`)
	mustExec(t, a, `UPDATE lk SET v = 10 WHERE id = 1`)
	mustExec(t, b, `UPDATE lk SET v = 20 WHERE id = 2`)
	errs := make(chan error, 2)
	go func() {
		_, err := a.Exec(ctx, `UPDATE lk SET v = 10 WHERE id = 2`)
		errs <- err
	}()
	time.Sleep(200 * time.Millisecond)
	go func() {
		_, err := b.Exec(ctx, `UPDATE lk SET v = 20 WHERE id = 1`)
		errs <- err
	}()
	var states []string
	for i := 0; i < 2; i++ {
		select {
		case err := <-errs:
			states = append(states, sqlState(err))
		case <-time.After(5 * time.Second):
			t.Fatalf("the deadlock's survivor still waits for the victim's ROLLBACK (so far %v)", states)
		}
	}
	if !(states[0] == "40P01" && states[1] == "" || states[0] == "" && states[1] == "40P01") {
		t.Fatalf("deadlock outcomes %v, want one 40P01 (the victim) and one success", states)
	}
	for _, c := range []*pgx.Conn{a, b} {
		mustExec(t, c, `COMMIT`)
	}
	var sum int64
	if err := a.QueryRow(ctx, `SELECT sum(v) FROM lk WHERE id <= 2`).Scan(&sum); err != nil || (sum != 20 && sum != 40) {
		t.Fatalf("sum %d %v: want one transaction's writes (20 or 40)", sum, err)
	}
}
