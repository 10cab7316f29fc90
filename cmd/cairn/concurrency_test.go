package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/wire"
)

// startServerOpts is startServer with storage options (small flush
// thresholds make flushes and compactions happen under the load).
func startServerOpts(t testing.TB, dir string, opts storage.Options) *testServer {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	opts.Logger = logger
	db, err := storage.Open(dir, opts)
	if err != nil {
		t.Fatalf("open storage: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Engine: session.NewEngine(db, session.Options{Logger: logger}), Logger: logger}
	go srv.Serve(l)
	ts := &testServer{Addr: l.Addr().String(), Dir: dir, db: db, srv: srv}
	t.Cleanup(ts.stop)
	return ts
}

const (
	concAccounts = 24
	concStart    = 1000
	concCounters = 8
	concKeys     = 64
)

// concLog is what the sessions had acknowledged.
type concLog struct {
	mu       sync.Mutex
	counters [concCounters]int64
	itemsIns [concKeys]int64
	itemsDel [concKeys]int64
	docs     [concKeys]int64
	ops      map[string]int64
	retries  map[string]int64
}

func (l *concLog) op(name string, retries int) {
	l.mu.Lock()
	l.ops[name]++
	l.retries[name] += int64(retries)
	l.mu.Unlock()
}

// retryable reports errors a client retries a transaction on.
func retryable(err error) bool {
	switch sqlState(err) {
	case "40001", "40P01":
		return true
	}
	return false
}

// TestConcurrency runs 16 sessions of mixed transfers (READ COMMITTED
// increments, REPEATABLE READ read-modify-write, pipelined transfers),
// upserts, unique inserts and deletes, select-then-update-or-insert
// transactions and consistent reads for a bounded time, then checks the
// invariants: the transfer sum never moves (not even in a reader's
// snapshot), keys stay unique, and every count equals the log of
// acknowledged operations — before and after a restart.
func TestConcurrency(t *testing.T) {
	dur := 15 * time.Second
	if testing.Short() {
		dur = 6 * time.Second
	}
	dir := t.TempDir()
	ts := startServerOpts(t, dir, storage.Options{FlushRows: 300, WALCheckpointBytes: 1 << 20})
	ctx := context.Background()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)`)
	mustExec(t, setup, `CREATE TABLE counters (k int PRIMARY KEY, n bigint NOT NULL)`)
	mustExec(t, setup, `CREATE TABLE items (id bigserial PRIMARY KEY, key text UNIQUE, owner int, note text)`)
	mustExec(t, setup, `CREATE TABLE docs (key text PRIMARY KEY, v bigint NOT NULL, body text)`)
	for i := 0; i < concAccounts; i++ {
		mustExec(t, setup, `INSERT INTO accounts VALUES ($1, $2)`, i, concStart)
	}
	total := int64(concAccounts * concStart)

	log := &concLog{ops: map[string]int64{}, retries: map[string]int64{}}
	var failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w) + time.Now().UnixNano()))
			conn, err := pgx.Connect(ctx, ts.connString())
			if err != nil {
				fail("connect: %v", err)
				return
			}
			defer conn.Close(ctx)
			for time.Now().Before(deadline) && failures.Load() == 0 {
				var err error
				switch x := r.Intn(100); {
				case x < 15:
					err = concTransferRC(ctx, conn, r, log)
				case x < 25:
					err = concTransferRR(ctx, conn, r, log)
				case x < 32:
					err = concTransferPipeline(ctx, conn, r, log)
				case x < 45:
					err = concRead(ctx, conn, total, log)
				case x < 60:
					err = concUpsert(ctx, conn, r, log)
				case x < 80:
					err = concItems(ctx, conn, r, w, log)
				default:
					err = concDocs(ctx, conn, r, log)
				}
				if err != nil {
					fail("session %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("operations %v, retries %v", log.ops, log.retries)
	checkConcurrency(t, ts.connect(t), total, log)

	// The same after a restart.
	ts.stop()
	ts2 := startServerOpts(t, dir, storage.Options{FlushRows: 300})
	checkConcurrency(t, ts2.connect(t), total, log)
}

// concTransferRC moves money with relative updates in a READ COMMITTED
// transaction (the second writer of a row waits, then re-reads it).
func concTransferRC(ctx context.Context, conn *pgx.Conn, r *rand.Rand, log *concLog) error {
	a, b := r.Intn(concAccounts), r.Intn(concAccounts)
	amt := int64(1 + r.Intn(50))
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance - $1 WHERE id = $2`, amt, a); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2`, amt, b)
			return err
		})
		if err == nil {
			log.op("transfer-rc", attempt)
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("transfer rc: %w", err)
		}
	}
}

// concTransferRR reads balances and writes values computed by the client
// in a REPEATABLE READ transaction: only first-committer-wins (40001)
// keeps this from losing updates.
func concTransferRR(ctx context.Context, conn *pgx.Conn, r *rand.Rand, log *concLog) error {
	a, b := r.Intn(concAccounts), r.Intn(concAccounts)
	if a == b {
		return nil
	}
	amt := int64(1 + r.Intn(50))
	for attempt := 0; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
			var ba, bb int64
			if err := tx.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, a).Scan(&ba); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT balance FROM accounts WHERE id = $1`, b).Scan(&bb); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, ba-amt, a); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE accounts SET balance = $1 WHERE id = $2`, bb+amt, b)
			return err
		})
		if err == nil {
			log.op("transfer-rr", attempt)
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("transfer rr: %w", err)
		}
	}
}

// concTransferPipeline sends both updates in one pipeline (an implicit
// transaction: both or neither).
func concTransferPipeline(ctx context.Context, conn *pgx.Conn, r *rand.Rand, log *concLog) error {
	a, b := r.Intn(concAccounts), r.Intn(concAccounts)
	amt := int64(1 + r.Intn(50))
	for attempt := 0; ; attempt++ {
		batch := &pgx.Batch{}
		batch.Queue(`UPDATE accounts SET balance = balance - $1 WHERE id = $2`, amt, a)
		batch.Queue(`UPDATE accounts SET balance = balance + $1 WHERE id = $2`, amt, b)
		err := conn.SendBatch(ctx, batch).Close()
		if err == nil {
			log.op("transfer-pipeline", attempt)
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("transfer pipeline: %w", err)
		}
	}
}

// concRead checks that a statement, and a REPEATABLE READ transaction,
// never see a transfer half done.
func concRead(ctx context.Context, conn *pgx.Conn, total int64, log *concLog) error {
	var sum, n int64
	if err := conn.QueryRow(ctx, `SELECT sum(balance), count(*) FROM accounts`).Scan(&sum, &n); err != nil {
		return err
	}
	if sum != total || n != concAccounts {
		return fmt.Errorf("reader saw sum %d over %d accounts, want %d over %d", sum, n, total, concAccounts)
	}
	err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var s1, s2 int64
		if err := tx.QueryRow(ctx, `SELECT sum(balance) FROM accounts`).Scan(&s1); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT sum(balance) FROM accounts WHERE id % 2 = 0`).Scan(&s2); err != nil {
			return err
		}
		var s3 int64
		if err := tx.QueryRow(ctx, `SELECT sum(balance) FROM accounts WHERE id % 2 = 1`).Scan(&s3); err != nil {
			return err
		}
		if s1 != total || s2+s3 != total {
			return fmt.Errorf("repeatable read saw sums %d and %d+%d, want %d", s1, s2, s3, total)
		}
		return nil
	})
	if err != nil {
		return err
	}
	log.op("read", 0)
	return nil
}

// concUpsert increments a hot counter with INSERT ... ON CONFLICT DO UPDATE
// in autocommit: it must never fail nor lose an increment.
func concUpsert(ctx context.Context, conn *pgx.Conn, r *rand.Rand, log *concLog) error {
	k := r.Intn(concCounters)
	var n int64
	err := conn.QueryRow(ctx, `INSERT INTO counters AS c VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = c.n + EXCLUDED.n RETURNING n`, k).Scan(&n)
	if err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	log.mu.Lock()
	log.counters[k]++
	log.mu.Unlock()
	log.op("upsert", 0)
	return nil
}

// concItems inserts keys from a small space (23505 when taken), inserts
// with ON CONFLICT DO NOTHING, and deletes.
func concItems(ctx context.Context, conn *pgx.Conn, r *rand.Rand, w int, log *concLog) error {
	k := r.Intn(concKeys)
	key := fmt.Sprintf("key-%d", k)
	switch r.Intn(3) {
	case 0:
		_, err := conn.Exec(ctx, `INSERT INTO items (key, owner, note) VALUES ($1, $2, 'plain')`, key, w)
		switch sqlState(err) {
		case "":
			log.mu.Lock()
			log.itemsIns[k]++
			log.mu.Unlock()
		case "23505":
		default:
			return fmt.Errorf("insert item: %w", err)
		}
		log.op("insert", 0)
	case 1:
		rows, err := conn.Query(ctx, `INSERT INTO items (key, owner, note) VALUES ($1, $2, 'nothing') ON CONFLICT (key) DO NOTHING RETURNING id`, key, w)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("insert on conflict do nothing: %w", err)
		}
		log.mu.Lock()
		log.itemsIns[k] += int64(n)
		log.mu.Unlock()
		log.op("insert-do-nothing", 0)
	default:
		tag, err := conn.Exec(ctx, `DELETE FROM items WHERE key = $1`, key)
		if err != nil {
			return fmt.Errorf("delete item: %w", err)
		}
		log.mu.Lock()
		log.itemsDel[k] += tag.RowsAffected()
		log.mu.Unlock()
		log.op("delete", 0)
	}
	return nil
}

// concDocs is the agent tools' SELECT, then UPDATE or INSERT, in a
// transaction.
func concDocs(ctx context.Context, conn *pgx.Conn, r *rand.Rand, log *concLog) error {
	k := r.Intn(concKeys / 4)
	key := fmt.Sprintf("doc-%d", k)
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var v int64
			err := tx.QueryRow(ctx, `SELECT v FROM docs WHERE key = $1`, key).Scan(&v)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				_, err = tx.Exec(ctx, `INSERT INTO docs VALUES ($1, 1, $2)`, key, strings.Repeat("x", 100))
				return err
			case err != nil:
				return err
			}
			tag, err := tx.Exec(ctx, `UPDATE docs SET v = v + 1 WHERE key = $1`, key)
			if err == nil && tag.RowsAffected() != 1 {
				return fmt.Errorf("update of %s touched %d rows", key, tag.RowsAffected())
			}
			return err
		})
		if err == nil {
			log.mu.Lock()
			log.docs[k]++
			log.mu.Unlock()
			log.op("docs", attempt)
			return nil
		}
		// Two sessions inserting the same new key: the second gets 23505
		// (as in PostgreSQL) and tries again, now finding the row.
		if !retryable(err) && sqlState(err) != "23505" {
			return fmt.Errorf("docs: %w", err)
		}
	}
}

// checkConcurrency checks the tables against the log.
func checkConcurrency(t *testing.T, conn *pgx.Conn, total int64, log *concLog) {
	t.Helper()
	ctx := context.Background()
	var sum, n int64
	if err := conn.QueryRow(ctx, `SELECT sum(balance), count(*) FROM accounts`).Scan(&sum, &n); err != nil {
		t.Fatal(err)
	}
	if sum != total || n != concAccounts {
		t.Errorf("accounts: sum %d over %d rows, want %d over %d", sum, n, total, concAccounts)
	}
	counts := func(q string) map[string]int64 {
		out := map[string]int64{}
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			var c int64
			if err := rows.Scan(&k, &c); err != nil {
				t.Fatal(err)
			}
			out[k] = c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := counts(`SELECT k::text, n FROM counters`)
	for k := 0; k < concCounters; k++ {
		if want := log.counters[k]; got[fmt.Sprint(k)] != want {
			t.Errorf("counter %d = %d, want %d acknowledged upserts", k, got[fmt.Sprint(k)], want)
		}
	}
	if dups := counts(`SELECT key, count(*) FROM items GROUP BY key HAVING count(*) > 1`); len(dups) > 0 {
		t.Errorf("items keys repeated: %v", dups)
	}
	if dups := counts(`SELECT id::text, count(*) FROM items GROUP BY id HAVING count(*) > 1`); len(dups) > 0 {
		t.Errorf("items ids repeated: %v", dups)
	}
	got = counts(`SELECT key, count(*) FROM items GROUP BY key`)
	for k := 0; k < concKeys; k++ {
		key := fmt.Sprintf("key-%d", k)
		want := log.itemsIns[k] - log.itemsDel[k]
		if want != 0 && want != 1 || got[key] != want {
			t.Errorf("items %s: %d rows; acknowledged %d inserts, %d deletes", key, got[key], log.itemsIns[k], log.itemsDel[k])
		}
	}
	got = counts(`SELECT key, v FROM docs`)
	rows := counts(`SELECT key, count(*) FROM docs GROUP BY key`)
	for k := 0; k < concKeys/4; k++ {
		key := fmt.Sprintf("doc-%d", k)
		if got[key] != log.docs[k] || log.docs[k] > 0 && rows[key] != 1 {
			t.Errorf("docs %s: v = %d in %d rows, want %d acknowledged increments", key, got[key], rows[key], log.docs[k])
		}
	}
}
