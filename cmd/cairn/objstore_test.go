package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage/objstore"
	"github.com/cairn-db/cairn/storage/objstore/objstoretest"
)

// TestKill9DurabilityObjectStore is TestKill9Durability with the durable
// state in S3 (--storage): every server starts on an empty data
// directory, so whatever it serves came from the bucket — after a SIGKILL
// (the log objects of acknowledged commits) and after a clean stop of the
// server that took the killed one's lease over (the final checkpoint).
func TestKill9DurabilityObjectStore(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	objstoretest.Serve(t, "cairn-e2e")
	st, err := objstore.Open(context.Background(), "s3://cairn-e2e/db")
	if err != nil {
		t.Fatal(err)
	}
	// The killed server's lease on the background work lapses (10 s
	// after its last renewal) before the clean stop, so that the
	// restarted server leads and checkpoints as it stops.
	settle := func() {
		rc, _, err := st.Get(context.Background(), "leader")
		if err != nil {
			t.Fatal(err)
		}
		var lease struct {
			Expires int64 `json:"expires_unix_ms"`
		}
		err = json.NewDecoder(rc).Decode(&lease)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(time.UnixMilli(lease.Expires)) + 3*time.Second)
	}
	kill9Durability(t, func() *process { return startProcess(t, t.TempDir(), "--storage", "s3://cairn-e2e/db") }, settle)
	if _, err := st.Stat(context.Background(), "checkpoint"); err != nil {
		t.Fatalf("no checkpoint object in the bucket: %v", err)
	}
}

// TestSeveralServersOneBucket runs three servers on one bucket: each sees
// the others' commits (rows and DDL) in its next statement, and while two
// of them insert at once — disjoint keys, autocommit and in transaction
// blocks of several statements, and one key both want — every
// acknowledged insert is seen by all three, a lost log race never reaches
// these inserts as 40001 (the server runs an autocommit insert again, and
// rebases a block's commit onto the other server's), and the shared
// primary key holds.
func TestSeveralServersOneBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	ctx := context.Background()
	objstoretest.Serve(t, "cairn-many")
	var servers []*process
	var conns []*pgx.Conn
	for range 3 {
		p := startProcess(t, t.TempDir(), "--storage", "s3://cairn-many/db")
		servers = append(servers, p)
		conns = append(conns, p.connect(t))
	}
	a, b, c := conns[0], conns[1], conns[2]
	mustExec(t, a, `CREATE TABLE acct (id int PRIMARY KEY, who text)`)
	mustExec(t, a, `INSERT INTO acct VALUES (1, 'a'), (2, 'a')`)
	for i, conn := range []*pgx.Conn{b, c} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM acct`).Scan(&n); err != nil || n != 2 {
			t.Fatalf("server %d sees %d rows of server 0 (%v)", i+1, n, err)
		}
	}
	mustExec(t, a, `ALTER TABLE acct ADD COLUMN note text`)
	mustExec(t, a, `CREATE UNIQUE INDEX acct_who_note ON acct (who, note)`)
	mustExec(t, a, `UPDATE acct SET note = 'x' WHERE id = 1`)
	var note string
	if err := b.QueryRow(ctx, `SELECT note FROM acct WHERE id = 1`).Scan(&note); err != nil || note != "x" {
		t.Fatalf("server 1 after ADD COLUMN on server 0: %q %v", note, err)
	}
	if _, err := c.Exec(ctx, `INSERT INTO acct VALUES (3, 'a', 'x')`); sqlState(err) != "23505" {
		t.Fatalf("server 2 inserting a key of server 0's new unique index: %v", err)
	}

	// Two writers at once, autocommit and in blocks: a 40001 is a failure.
	var mu sync.Mutex
	acked := map[int]bool{1: true, 2: true}
	dup := 0
	insert := func(conn *pgx.Conn, id int, who string) error {
		_, err := conn.Exec(ctx, `INSERT INTO acct (id, who) VALUES ($1, $2)`, id, who)
		mu.Lock()
		defer mu.Unlock()
		switch sqlState(err) {
		case "":
			acked[id] = true
		case "23505":
			dup++
		}
		return err
	}
	// block inserts ids in a transaction block, a statement each.
	block := func(conn *pgx.Conn, ids ...int) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		for _, id := range ids {
			if _, err := tx.Exec(ctx, `INSERT INTO acct (id, who) VALUES ($1, 'block')`, id); err != nil {
				return fmt.Errorf("insert %d in a block: %w", id, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit of a block: %w", err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			acked[id] = true
		}
		return nil
	}
	// Each server runs autocommit inserts on one connection and blocks on
	// another, so that the other server's inserts commit while a block
	// runs (a block does not catch up): its commit loses the log.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w, conn := range []*pgx.Conn{b, c} {
		wg.Go(func() {
			for i := range 40 {
				if err := insert(conn, 100+w*1000+i, fmt.Sprint("w", w)); err != nil {
					errs <- err
					return
				}
			}
			if err := insert(conn, 99, fmt.Sprint("w", w)); err != nil && sqlState(err) != "23505" {
				errs <- err
			}
		})
		blocks := servers[w+1].connect(t)
		wg.Go(func() {
			for i := range 15 {
				id := 500 + w*1000 + 3*i
				if err := block(blocks, id, id+1, id+2); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if dup != 1 {
		t.Fatalf("%d inserts of the shared key failed with 23505, want 1", dup)
	}
	for i, conn := range conns {
		rows, err := conn.Query(ctx, `SELECT id FROM acct`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			if got[id] {
				t.Fatalf("server %d: key %d twice", i, id)
			}
			got[id] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, acked) {
			t.Fatalf("server %d sees %d rows, %d acknowledged", i, len(got), len(acked))
		}
	}

	// Tables created at once on two servers, in transaction blocks (which
	// are not run again after another server's commit): each commits (a
	// 40001 is a failure), under an ID of its own.
	errs = make(chan error, 2)
	for w, conn := range []*pgx.Conn{b, c} {
		wg.Go(func() {
			for i := range 6 {
				name := fmt.Sprintf("made_%d_%d", w, i)
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, `CREATE TABLE `+name+` (id int)`); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, `INSERT INTO `+name+` VALUES ($1)`, i)
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("server %d: CREATE TABLE %s and an insert in a block: %w", w+1, name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, conn := range conns {
		var tables, oids, rows int
		err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT oid) FROM pg_class WHERE relname LIKE 'made\_%' AND relkind = 'r'`).Scan(&tables, &oids)
		if err == nil {
			err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM made_0_5) + (SELECT count(*) FROM made_1_5)`).Scan(&rows)
		}
		if err != nil || tables != 12 || oids != 12 || rows != 2 {
			t.Fatalf("server %d sees %d of the 12 tables created at once, %d OIDs, %d rows of the last two (%v)", i, tables, oids, rows, err)
		}
	}

	for _, p := range servers {
		p.kill()
	}
	// A server started afterwards reads all of it from the bucket.
	d := startProcess(t, t.TempDir(), "--storage", "s3://cairn-many/db").connect(t)
	var n int
	if err := d.QueryRow(ctx, `SELECT count(*) FROM acct`).Scan(&n); err != nil || n != len(acked) {
		t.Fatalf("a new server sees %d rows, want %d (%v)", n, len(acked), err)
	}
}

// TestSeveralServersInvariants is the multi-server proof (issue 14): three
// servers on one bucket take concurrent writers — transfers between
// accounts, inserts racing for the same unique keys, an append-only log
// with bigserial ids — retrying on 40001; one server is killed with
// SIGKILL mid-write and restarted on an empty cache directory, killed
// again and restarted on its old one, then the leader (the first server,
// which checkpoints every 16 KiB of log while all three write) is killed
// mid-write and restarted, and the writers go on. Then every
// server, and a fourth one started afterwards, must show: the accounts'
// sum unchanged; each key inserted once, by the one insert acknowledged
// for it; every acknowledged log row, under an id no other row has; and
// no row that a client was told failed (a row nobody was told of can only
// come from a statement the kill cut off).
func TestSeveralServersInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	objstoretest.Serve(t, "cairn-proof")
	storage := []string{"--storage", "s3://cairn-proof/db", "--wal-checkpoint-bytes", "16384"}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	var servers []*logProcess
	for _, d := range dirs {
		servers = append(servers, startLogged(t, d, storage...))
	}
	defer func() {
		if t.Failed() {
			for i, p := range servers {
				t.Logf("server %d's log:\n%s", i, lastLines(p.log(), 40))
			}
		}
	}()
	setup := servers[0].connect(t)
	const balance = 1000
	mustExec(t, setup, `CREATE TABLE acct (id int PRIMARY KEY, balance int NOT NULL)`)
	mustExec(t, setup, `INSERT INTO acct SELECT g, $1::int FROM generate_series(1, $2::int) g`, balance, proofAccounts)
	mustExec(t, setup, `CREATE TABLE keys (k int PRIMARY KEY, who text)`)
	mustExec(t, setup, `CREATE TABLE log (id bigserial, who text)`)

	w := &proofWriters{acked: map[string]int64{}, cut: map[string]bool{}, keyWon: map[int]string{}}
	// Each round starts writers on every live server and lets them run.
	round := func(name string, d time.Duration) chan struct{} {
		stop := make(chan struct{})
		for i, p := range servers {
			w.start(t, p, fmt.Sprintf("%s/s%d", name, i), stop)
		}
		time.Sleep(d)
		return stop
	}
	stop := round("r0", 1500*time.Millisecond)
	servers[1].kill() // mid-write: its writers are cut off
	close(stop)
	w.wg.Wait()

	servers[1] = startLogged(t, t.TempDir(), storage...) // an empty cache
	stop = round("r1", 1500*time.Millisecond)
	servers[1].kill()
	close(stop)
	w.wg.Wait()

	servers[1] = startLogged(t, dirs[1], storage...) // its old cache
	close(round("r2", 1500*time.Millisecond))
	w.wg.Wait()

	stop = round("r3", 1500*time.Millisecond)
	servers[0].kill() // the leader, mid-write and maybe mid-checkpoint
	close(stop)
	w.wg.Wait()
	servers[0] = startLogged(t, dirs[0], storage...)
	close(round("r4", 1500*time.Millisecond))
	w.wg.Wait()
	if w.err != nil {
		t.Fatal(w.err)
	}
	t.Logf("%d acknowledged log rows, %d keys won, %d transfers, %d retries on 40001, %d statements cut off",
		len(w.acked), len(w.keyWon), w.transfers, w.retries, len(w.cut))
	if len(w.acked) == 0 || len(w.keyWon) == 0 || w.transfers == 0 {
		t.Fatal("a writer made no progress")
	}

	// The leader checkpointed while the others wrote (before, no server
	// checkpointed once two had written).
	st, err := objstore.Open(context.Background(), "s3://cairn-proof/db")
	if err != nil {
		t.Fatal(err)
	}
	var ckpt struct {
		Seq int `json:"seq"`
	}
	if rc, _, err := st.Get(context.Background(), "checkpoint"); err != nil {
		t.Fatal(err)
	} else {
		err = json.NewDecoder(rc).Decode(&ckpt)
		rc.Close()
		if err != nil || ckpt.Seq < 2 {
			t.Fatalf("checkpoint %d (%v): the leader did not checkpoint while several servers wrote", ckpt.Seq, err)
		}
	}

	fresh := startLogged(t, t.TempDir(), storage...)
	servers = append(servers, fresh)
	var first string
	for i, p := range servers {
		got := w.check(t, p.connect(t), proofAccounts*balance)
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("server %d sees other rows than server 0", i)
		}
	}
}

// proofAccounts is the number of accounts TestSeveralServersInvariants
// transfers between.
const proofAccounts = 8

// proofWriters runs TestSeveralServersInvariants's clients and keeps what
// each was told.
type proofWriters struct {
	wg sync.WaitGroup
	mu sync.Mutex
	// acked: log rows acknowledged (payload -> id); cut: log rows and key
	// inserts whose statement a kill cut off (payload); keyWon: the
	// acknowledged insert of each key.
	acked     map[string]int64
	cut       map[string]bool
	keyWon    map[int]string
	nextKey   int
	transfers int
	retries   int
	err       error
}

// start runs one writer of each kind on p until stop is closed or the
// test kills the server (any other error fails the test).
func (w *proofWriters) start(t *testing.T, p *logProcess, name string, stop chan struct{}) {
	ctx := context.Background()
	for kind := range 3 {
		conn := p.connect(t)
		w.wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				switch kind {
				case 0:
					err = w.transfer(ctx, conn, n)
				case 1:
					err = w.insertKey(ctx, conn, name)
				case 2:
					err = w.appendLog(ctx, conn, fmt.Sprintf("%s#%d", name, n))
				}
				if err == nil {
					continue
				}
				if sqlState(err) == "" {
					select {
					case <-p.done:
						return // the server was killed
					case <-time.After(5 * time.Second):
					}
				}
				w.fail(fmt.Errorf("%s: %w", name, err))
				return
			}
		})
	}
}

// fail records the test's first error.
func (w *proofWriters) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// retry runs f until it returns anything but 40001.
func (w *proofWriters) retry(f func() error) error {
	for {
		err := f()
		if sqlState(err) != "40001" {
			return err
		}
		w.mu.Lock()
		w.retries++
		w.mu.Unlock()
	}
}

// transfer moves an amount between two accounts in one transaction.
func (w *proofWriters) transfer(ctx context.Context, conn *pgx.Conn, n int) error {
	from, to, amount := 1+n%proofAccounts, 1+(n*3+1)%proofAccounts, 1+n%17
	if from == to {
		to = 1 + to%proofAccounts
	}
	err := w.retry(func() error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `UPDATE acct SET balance = balance - $1 WHERE id = $2`, amount, from); err != nil {
			return fmt.Errorf("debiting %d: %w", from, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE acct SET balance = balance + $1 WHERE id = $2`, amount, to); err != nil {
			return fmt.Errorf("crediting %d: %w", to, err)
		}
		return tx.Commit(ctx)
	})
	if err == nil {
		w.mu.Lock()
		w.transfers++
		w.mu.Unlock()
	}
	return err
}

// insertKey inserts the lowest key no insert was acknowledged for yet:
// the writers of every server race for it.
func (w *proofWriters) insertKey(ctx context.Context, conn *pgx.Conn, who string) error {
	w.mu.Lock()
	k := w.nextKey
	w.mu.Unlock()
	err := w.retry(func() error {
		_, err := conn.Exec(ctx, `INSERT INTO keys VALUES ($1, $2)`, k, who)
		return err
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		if prev, ok := w.keyWon[k]; ok && w.err == nil {
			w.err = fmt.Errorf("key %d acknowledged to %s and to %s", k, prev, who)
		}
		w.keyWon[k] = who
		w.nextKey = max(w.nextKey, k+1)
	case sqlState(err) == "23505":
		w.nextKey = max(w.nextKey, k+1)
		return nil
	case sqlState(err) == "":
		w.cut[fmt.Sprint(k, who)] = true
	}
	return err
}

// appendLog inserts one log row and notes the id it was given.
func (w *proofWriters) appendLog(ctx context.Context, conn *pgx.Conn, payload string) error {
	var id int64
	err := w.retry(func() error {
		return conn.QueryRow(ctx, `INSERT INTO log (who) VALUES ($1) RETURNING id`, payload).Scan(&id)
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.acked[payload] = id
	case sqlState(err) == "":
		w.cut[payload] = true
	}
	return err
}

// check verifies the invariants on one server and returns what it sees.
func (w *proofWriters) check(t *testing.T, conn *pgx.Conn, total int) string {
	t.Helper()
	ctx := context.Background()
	var sum, n int
	if err := conn.QueryRow(ctx, `SELECT sum(balance), count(*) FROM acct`).Scan(&sum, &n); err != nil {
		t.Fatal(err)
	}
	if sum != total || n != proofAccounts {
		t.Fatalf("accounts: sum %d over %d rows, want %d over %d", sum, n, total, proofAccounts)
	}
	var seen strings.Builder
	fmt.Fprintln(&seen, "sum", sum)
	keys := map[int]string{}
	rows, err := conn.Query(ctx, `SELECT k, who FROM keys ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k int
		var who string
		if err := rows.Scan(&k, &who); err != nil {
			t.Fatal(err)
		}
		if prev, ok := keys[k]; ok {
			t.Fatalf("key %d twice: %s and %s", k, prev, who)
		}
		keys[k] = who
		if won, ok := w.keyWon[k]; ok && won != who {
			t.Fatalf("key %d holds %s's insert, acknowledged to %s", k, who, won)
		} else if !ok && !w.cut[fmt.Sprint(k, who)] {
			t.Fatalf("key %d holds %s's insert, which was not acknowledged (nor cut off)", k, who)
		}
		fmt.Fprintln(&seen, "key", k, who)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for k, who := range w.keyWon {
		if keys[k] != who {
			t.Fatalf("key %d acknowledged to %s is missing", k, who)
		}
	}
	ids := map[int64]string{}
	rows, err = conn.Query(ctx, `SELECT id, who FROM log ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]int64{}
	for rows.Next() {
		var id int64
		var who string
		if err := rows.Scan(&id, &who); err != nil {
			t.Fatal(err)
		}
		if prev, ok := ids[id]; ok {
			t.Fatalf("log id %d handed out twice: %s and %s", id, prev, who)
		}
		if _, ok := logged[who]; ok {
			t.Fatalf("log row %s committed twice", who)
		}
		ids[id], logged[who] = who, id
		if ack, ok := w.acked[who]; ok && ack != id {
			t.Fatalf("log row %s has id %d, acknowledged with %d", who, id, ack)
		} else if !ok && !w.cut[who] {
			t.Fatalf("log row %s (id %d) was not acknowledged (nor cut off)", who, id)
		}
		fmt.Fprintln(&seen, "log", id, who)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, who := range slices.Sorted(maps.Keys(w.acked)) {
		if _, ok := logged[who]; !ok {
			t.Fatalf("acknowledged log row %s (id %d) is missing", who, w.acked[who])
		}
	}
	return seen.String()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestMaxStalenessFlag: with --max-staleness a server skips the catch-up
// while its last one is younger (it may not see a commit of another
// server yet) and sees it once the bound passed; without --storage the
// flag is refused.
func TestMaxStalenessFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	var stderr strings.Builder
	args := []string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "off", "--max-staleness", "1s"}
	if code := run(context.Background(), args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "--max-staleness needs --storage") {
		t.Fatalf("--max-staleness without --storage: exit %d, %q", code, stderr.String())
	}
	ctx := context.Background()
	objstoretest.Serve(t, "cairn-stale")
	a := startProcess(t, t.TempDir(), "--storage", "s3://cairn-stale/db").connect(t)
	b := startProcess(t, t.TempDir(), "--storage", "s3://cairn-stale/db", "--max-staleness", "2s").connect(t)
	mustExec(t, a, `CREATE TABLE t (id int)`)
	time.Sleep(2100 * time.Millisecond)
	count := func() int {
		var n int
		if err := b.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows before the insert", n)
	}
	mustExec(t, a, `INSERT INTO t VALUES (1)`)
	if n := count(); n != 0 {
		t.Fatalf("within --max-staleness the server caught up: %d rows", n)
	}
	time.Sleep(2100 * time.Millisecond)
	if n := count(); n != 1 {
		t.Fatalf("after --max-staleness: %d rows, want 1", n)
	}
}
