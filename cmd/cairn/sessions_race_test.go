package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
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

// TestBoundBeforeConcurrentDDL: outside a transaction block a statement is
// bound at Bind and its transaction begins at Execute; an ALTER TABLE
// another session commits in between no longer fails it with 40001
// (PostgreSQL's statement would wait for the ALTER's lock and plan after
// it): it is bound again against the catalog its snapshot reads. Only a
// statement whose result columns the client was already given, and
// which the ALTER changes, still fails with 40001, which clients retry.
func TestBoundBeforeConcurrentDDL(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl := ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE bd (id int PRIMARY KEY, a text, b int)`)
	mustExec(t, ddl, `INSERT INTO bd VALUES (1, 'x', 10), (2, 'y', 20)`)
	rc := dialStarted(t, ts.Addr)
	// bindThen binds query, then runs alter on another session, then
	// executes the portal and returns what came back.
	bindThen := func(query, alter string) []string {
		t.Helper()
		rc.send(&pgproto3.Parse{Query: query}, &pgproto3.Bind{}, &pgproto3.Flush{})
		for _, want := range []string{"ParseComplete", "BindComplete"} {
			if got, err := rc.receive(); err != nil || got != want {
				t.Fatalf("%s: got %q (%v), want %s", query, got, err, want)
			}
		}
		mustExec(t, ddl, alter)
		rc.send(&pgproto3.Execute{}, &pgproto3.Sync{})
		return rc.readUntilReady()
	}
	check := func(got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	check(bindThen(`SELECT id, a FROM bd ORDER BY id`, `ALTER TABLE bd DROP COLUMN b`),
		"DataRow 1,x", "DataRow 2,y", "CommandComplete", "ReadyForQuery I")
	check(bindThen(`UPDATE bd SET a = 'z' WHERE id = 1`, `ALTER TABLE bd ADD COLUMN c int DEFAULT 7`),
		"CommandComplete", "ReadyForQuery I")
	check(bindThen(`INSERT INTO bd (id, a) VALUES (3, 'w')`, `ALTER TABLE bd DROP COLUMN c`),
		"CommandComplete", "ReadyForQuery I")
	check(bindThen(`SELECT * FROM bd ORDER BY id`, `ALTER TABLE bd ADD COLUMN d int DEFAULT 8`),
		"ErrorResponse ERROR 40001 could not serialize access due to concurrent update", "ReadyForQuery I")
	check(bindThen(`SELECT id FROM bd WHERE a = 'z'`, `DROP TABLE bd`),
		`ErrorResponse ERROR 42P01 relation "bd" does not exist`, "ReadyForQuery I")

	// Simple queries racing ALTER TABLE: none fails; SELECT * returns
	// the columns of the snapshot it read.
	mustExec(t, ddl, `CREATE TABLE bd2 (id int PRIMARY KEY, a text, b int)`)
	mustExec(t, ddl, `INSERT INTO bd2 SELECT g, 'x', g FROM generate_series(1, 200) g`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgconn.Connect(ctx, ts.connString())
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := conn.Exec(ctx, `SELECT * FROM bd2 WHERE id > 100 ORDER BY id LIMIT 5`).ReadAll(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 200 {
		if i%2 == 0 {
			mustExec(t, ddl, `ALTER TABLE bd2 ADD COLUMN c int DEFAULT 3`)
		} else {
			mustExec(t, ddl, `ALTER TABLE bd2 DROP COLUMN c`)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("SELECT racing ALTER TABLE: %v", err)
	}
}

// waitBlockedBy waits until pg_blocking_pids(pid) names holder.
func waitBlockedBy(t *testing.T, conn *pgx.Conn, pid, holder uint32) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if slices.Contains(blockingPIDs(t, conn, pid), int32(holder)) {
			return
		}
	}
	t.Fatalf("pid %d never waited for pid %d", pid, holder)
}

// TestInsertWaitsForDeleterOfKey: inserting a key whose row another
// transaction is deleting (or updating to another key) waits for that
// transaction, as in PostgreSQL: once it commits the key is free and the
// insert succeeds; if it rolls back, the insert fails with 23505 (ON
// CONFLICT DO NOTHING: inserts nothing). The insert used to fail with
// 23505 at once, and DO NOTHING to insert nothing at once, the delete not
// committed yet; an UPDATE moving a row to the key likewise.
func TestInsertWaitsForDeleterOfKey(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b, watch := ts.connect(t), ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE wk (id int PRIMARY KEY, name text UNIQUE)`)
	mustExec(t, a, `INSERT INTO wk VALUES (1, 'one'), (2, 'two'), (3, 'three')`)
	cases := []struct {
		change, insert string
		commit         bool
		wantCode       string
	}{
		{`DELETE FROM wk WHERE id = 1`, `INSERT INTO wk VALUES (1, 'uno')`, true, ""},
		{`UPDATE wk SET id = 20 WHERE id = 2`, `INSERT INTO wk VALUES (2, 'dos')`, true, ""},
		{`UPDATE wk SET name = 'tres' WHERE id = 3`, `INSERT INTO wk VALUES (30, 'three')`, true, ""},
		{`DELETE FROM wk WHERE id = 20`, `INSERT INTO wk VALUES (20, 'veinte')`, false, "23505"},
		{`DELETE FROM wk WHERE id = 30`, `INSERT INTO wk VALUES (30, 'treinta') ON CONFLICT DO NOTHING`, true, ""},
		{`DELETE FROM wk WHERE id = 1`, `INSERT INTO wk VALUES (1, 'ein') ON CONFLICT DO NOTHING`, false, ""},
		{`DELETE FROM wk WHERE id = 20`, `UPDATE wk SET id = 20 WHERE id = 2`, true, ""},
	}
	for _, c := range cases {
		tx, err := a.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExecTx(t, tx, c.change)
		done := make(chan error, 1)
		go func() {
			_, err := b.Exec(ctx, c.insert)
			done <- err
		}()
		waitBlockedBy(t, watch, b.PgConn().PID(), a.PgConn().PID())
		if c.commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; sqlState(err) != c.wantCode || (c.wantCode == "") != (err == nil) {
			t.Errorf("%s after %s (commit %v): %v, want SQLSTATE %q", c.insert, c.change, c.commit, err, c.wantCode)
		}
	}
	rows, _ := watch.Query(ctx, `SELECT id || ' ' || name FROM wk ORDER BY id`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1 uno", "3 tres", "20 dos", "30 treinta"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestSelectForUpdateSeesNewVersion: under READ COMMITTED a SELECT ... FOR
// UPDATE that waited for a transaction updating the row returns the row's
// new version once that commits, as PostgreSQL does, when the new version
// still qualifies, and leaves the row out when it does not. It returned
// no row in both cases, so that the read-then-update pattern took an
// existing account for a missing one.
func TestSelectForUpdateSeesNewVersion(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b, watch := ts.connect(t), ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE fu (id int PRIMARY KEY, bal int)`)
	mustExec(t, a, `INSERT INTO fu VALUES (1, 100), (2, 100)`)
	cases := []struct {
		change, query string
		want          []int
	}{
		{`UPDATE fu SET bal = bal - 10 WHERE id = 1`, `SELECT bal FROM fu WHERE id = 1 FOR UPDATE`, []int{90}},
		{`UPDATE fu SET bal = 0 WHERE id = 2`, `SELECT bal FROM fu WHERE bal > 50 ORDER BY id FOR UPDATE`, []int{90}},
		{`UPDATE fu SET bal = bal + 1`, `SELECT bal FROM fu ORDER BY id FOR UPDATE`, []int{91, 1}},
	}
	for _, c := range cases {
		atx, err := a.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExecTx(t, atx, c.change)
		btx, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []int, 1)
		errs := make(chan error, 1)
		go func() {
			rows, _ := btx.Query(ctx, c.query)
			vals, err := pgx.CollectRows(rows, pgx.RowTo[int])
			got <- vals
			errs <- err
		}()
		waitBlockedBy(t, watch, b.PgConn().PID(), a.PgConn().PID())
		if err := atx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if vals, err := <-got, <-errs; err != nil || !slices.Equal(vals, c.want) {
			t.Errorf("%s after %s: %v (%v), want %v", c.query, c.change, vals, err, c.want)
		}
		if err := btx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
