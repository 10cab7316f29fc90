package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestTransactionStates follows ReadyForQuery's transaction status and
// what other sessions see: writes are invisible until COMMIT, an error
// aborts the transaction ('E', 25P02, COMMIT answers ROLLBACK), savepoints
// undo part of one, and blocks of statements are all-or-nothing.
func TestTransactionStates(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE kv (k text PRIMARY KEY, v int NOT NULL)`)
	status := func(want byte) {
		t.Helper()
		if got := a.PgConn().TxStatus(); got != want {
			t.Fatalf("transaction status %q, want %q", got, want)
		}
	}
	count := func(conn *pgx.Conn, where string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM kv WHERE `+where).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	status('I')
	mustExec(t, a, `BEGIN`)
	status('T')
	mustExec(t, a, `INSERT INTO kv VALUES ('a', 1)`)
	if count(a, `k = 'a'`) != 1 || count(b, `k = 'a'`) != 0 {
		t.Fatal("own write invisible, or uncommitted write visible to another session")
	}
	// SELECT, then UPDATE or INSERT, as agent tools do.
	for _, k := range []string{"a", "b"} {
		var v int
		err := a.QueryRow(ctx, `SELECT v FROM kv WHERE k = $1`, k).Scan(&v)
		if err == pgx.ErrNoRows {
			mustExec(t, a, `INSERT INTO kv VALUES ($1, 1)`, k)
		} else if err != nil {
			t.Fatal(err)
		} else {
			mustExec(t, a, `UPDATE kv SET v = v + 1 WHERE k = $1`, k)
		}
	}
	if count(a, `(k = 'a' AND v = 2) OR (k = 'b' AND v = 1)`) != 2 {
		t.Fatal("select-then-update-or-insert in a transaction")
	}
	mustExec(t, a, `SAVEPOINT s`)
	mustExec(t, a, `INSERT INTO kv VALUES ('c', 1)`)
	if _, err := a.Exec(ctx, `INSERT INTO kv VALUES ('a', 9)`); sqlState(err) != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	status('E')
	if _, err := a.Exec(ctx, `SELECT 1`); sqlState(err) != "25P02" {
		t.Fatalf("in an aborted transaction: %v", err)
	}
	mustExec(t, a, `ROLLBACK TO SAVEPOINT s`)
	status('T')
	if count(a, `k = 'c'`) != 0 {
		t.Fatal("ROLLBACK TO kept a later insert")
	}
	mustExec(t, a, `COMMIT`)
	status('I')
	if count(b, `true`) != 2 {
		t.Fatal("the other session does not see the commit")
	}

	// COMMIT of an aborted transaction rolls it back.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `INSERT INTO kv VALUES ('d', 1)`)
	a.Exec(ctx, `SELECT nope`)
	status('E')
	tag, err := a.Exec(ctx, `COMMIT`)
	if err != nil || tag.String() != "ROLLBACK" {
		t.Fatalf("COMMIT of an aborted transaction: %q %v", tag, err)
	}
	status('I')
	if count(b, `k = 'd'`) != 0 {
		t.Fatal("an aborted transaction committed")
	}

	// A simple query of several statements is one transaction.
	if _, err := a.PgConn().Exec(ctx, `INSERT INTO kv VALUES ('e', 1); INSERT INTO kv VALUES ('a', 1)`).ReadAll(); sqlState(err) != "23505" {
		t.Fatalf("multi-statement query: %v", err)
	}
	status('I')
	if count(b, `k = 'e'`) != 0 {
		t.Fatal("a failed multi-statement query kept its first statement")
	}
	// So is a pipeline up to Sync.
	batch := &pgx.Batch{}
	batch.Queue(`INSERT INTO kv VALUES ('f', 1)`)
	batch.Queue(`INSERT INTO kv VALUES ('a', 1)`)
	if err := a.SendBatch(ctx, batch).Close(); sqlState(err) != "23505" {
		t.Fatalf("pipeline: %v", err)
	}
	if count(b, `k = 'f'`) != 0 {
		t.Fatal("a failed pipeline kept its first statement")
	}
	batch = &pgx.Batch{}
	batch.Queue(`INSERT INTO kv VALUES ('f', 1)`)
	batch.Queue(`UPDATE kv SET v = v + 10 WHERE k = 'f'`)
	if err := a.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if count(b, `k = 'f' AND v = 11`) != 1 {
		t.Fatal("pipeline did not commit")
	}
	// A failed autocommit statement leaves nothing behind.
	if _, err := a.Exec(ctx, `INSERT INTO kv VALUES ('g', 1), ('a', 1)`); sqlState(err) != "23505" {
		t.Fatalf("duplicate in a multi-row insert: %v", err)
	}
	if count(b, `k = 'g'`) != 0 {
		t.Fatal("a failed statement kept some of its rows")
	}
}

// lock_timeout bounds a wait for a row another transaction holds: the
// waiting statement fails with 55P03 (and its transaction with it), the
// holder is unaffected, and without the setting the waiter gets the row
// once the holder commits.
func TestLockTimeout(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	holder, waiter := ts.connect(t), ts.connect(t)
	mustExec(t, holder, `CREATE TABLE lt (k int PRIMARY KEY, v int)`)
	mustExec(t, holder, `INSERT INTO lt VALUES (1, 0)`)
	mustExec(t, holder, `BEGIN`)
	mustExec(t, holder, `UPDATE lt SET v = 1 WHERE k = 1`)
	mustExec(t, waiter, `SET lock_timeout = '150ms'`)
	start := time.Now()
	_, err := waiter.Exec(ctx, `UPDATE lt SET v = 2 WHERE k = 1`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("UPDATE of a locked row under lock_timeout: %v, want 55P03", err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("waited %v for a 150ms lock_timeout", waited)
	}
	mustExec(t, waiter, `RESET lock_timeout`)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, `UPDATE lt SET v = v + 10 WHERE k = 1`)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	mustExec(t, holder, `COMMIT`)
	if err := <-done; err != nil {
		t.Fatalf("UPDATE after the holder committed: %v", err)
	}
	var v int
	if err := waiter.QueryRow(ctx, `SELECT v FROM lt WHERE k = 1`).Scan(&v); err != nil || v != 11 {
		t.Fatalf("v = %d (%v), want 11", v, err)
	}
}

// Agents that start together each make sure their schema, table and index
// exist: every CREATE ... IF NOT EXISTS succeeds, whichever commits first,
// and all of them can use the one table that results.
func TestConcurrentCreateIfNotExists(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	const agents = 8
	errs := make(chan error, agents)
	for a := 0; a < agents; a++ {
		go func(a int) {
			conn, err := pgx.Connect(ctx, ts.connString())
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			for _, stmt := range []string{
				`CREATE SCHEMA IF NOT EXISTS agents`,
				`CREATE TABLE IF NOT EXISTS agents.memory (id bigserial PRIMARY KEY, agent int, task text)`,
				`CREATE INDEX IF NOT EXISTS memory_agent ON agents.memory (agent)`,
				fmt.Sprintf(`INSERT INTO agents.memory (agent, task) VALUES (%d, 'hello')`, a),
			} {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					errs <- fmt.Errorf("agent %d: %s: %w", a, stmt, err)
					return
				}
			}
			errs <- nil
		}(a)
	}
	for a := 0; a < agents; a++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	conn := ts.connect(t)
	var rows, agentsSeen int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT agent) FROM agents.memory`).Scan(&rows, &agentsSeen); err != nil {
		t.Fatal(err)
	}
	if rows != agents || agentsSeen != agents {
		t.Fatalf("%d rows from %d agents, want %d from %d", rows, agentsSeen, agents, agents)
	}
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'agents'`).Scan(&tables); err != nil || tables != 1 {
		t.Fatalf("%d tables in schema agents (%v), want 1", tables, err)
	}
}
