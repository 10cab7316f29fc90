package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/cairn-db/cairn/storage/objstore"
)

// startFakeS3 serves an in-memory S3 bucket (gofakes3, on 127.0.0.1) from
// the test process and points the standard AWS environment, which the
// server processes the test starts inherit, at it. gofakes3 is a Go module,
// so the test needs nothing installed.
func startFakeS3(t *testing.T, bucket string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_PROFILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL": srv.URL,
		"AWS_ACCESS_KEY_ID": "cairn", "AWS_SECRET_ACCESS_KEY": "cairn-secret", "AWS_SESSION_TOKEN": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// TestKill9DurabilityObjectStore is TestKill9Durability with the durable
// state in S3 (--storage): every server starts on an empty data
// directory, so whatever it serves came from the bucket — after a SIGKILL
// (the log objects of acknowledged commits) and after a clean stop (the
// final checkpoint).
func TestKill9DurabilityObjectStore(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	startFakeS3(t, "cairn-e2e")
	kill9Durability(t, func() *process { return startProcess(t, t.TempDir(), "--storage", "s3://cairn-e2e/db") })
	st, err := objstore.Open(context.Background(), "s3://cairn-e2e/db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(context.Background(), "checkpoint"); err != nil {
		t.Fatalf("no checkpoint object in the bucket: %v", err)
	}
}

// TestSeveralServersOneBucket runs three servers on one bucket: each sees
// the others' commits (rows and DDL) in its next statement, and while two
// of them insert at once — disjoint keys, and one key both want — every
// acknowledged insert is seen by all three, a lost log race is 40001
// (retried), and the shared primary key holds.
func TestSeveralServersOneBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	ctx := context.Background()
	startFakeS3(t, "cairn-many")
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

	// Two writers at once; each insert retried on 40001 until it commits.
	var mu sync.Mutex
	acked := map[int]bool{1: true, 2: true}
	retries := 0
	dup := 0
	insert := func(conn *pgx.Conn, id int, who string) error {
		for {
			_, err := conn.Exec(ctx, `INSERT INTO acct (id, who) VALUES ($1, $2)`, id, who)
			mu.Lock()
			switch sqlState(err) {
			case "40001":
				retries++
				mu.Unlock()
				continue
			case "":
				acked[id] = true
			case "23505":
				dup++
			}
			mu.Unlock()
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
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
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if dup != 1 {
		t.Fatalf("%d inserts of the shared key failed with 23505, want 1", dup)
	}
	t.Logf("%d lost log races retried", retries)
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
	startFakeS3(t, "cairn-stale")
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
