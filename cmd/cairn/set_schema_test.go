package main

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSetSchemaSessionsAndRestart moves a table with a serial and an
// identity column, a unique key and flushed and unflushed rows to another
// schema while another session draws from its sequence: a session whose
// search path has only the new schema sees the table once the move
// commits (not before), a write by the old name waits for the move and
// then finds no table, the sequence hands out no value twice across the
// move, and after kill -9 and a restart the table is still in its
// new schema with its rows, its key enforced and its sequences going on
// from where they were (its files stay in the folder of its old schema,
// which outlives the schema).
func TestSetSchemaSessionsAndRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startLogged(t, dir, "--flush-rows", "100")
	conn := p.connect(t)
	for _, q := range []string{
		`CREATE SCHEMA s1`,
		`CREATE SCHEMA s2`,
		`CREATE TABLE s1.mt (id serial PRIMARY KEY, g int GENERATED ALWAYS AS IDENTITY, v text UNIQUE)`,
		`INSERT INTO s1.mt (v) SELECT 'r' || i FROM generate_series(1, 250) i`,
		`CHECKPOINT`,
		`INSERT INTO s1.mt (v) VALUES ('tail')`,
	} {
		mustExec(t, conn, q)
	}
	if dirs, _ := filepath.Glob(filepath.Join(dir, "tables", "s1", "*")); len(dirs) == 0 {
		t.Fatalf("no table folder under tables/s1 after a flush")
	}

	other := p.connect(t)
	mustExec(t, other, `SET search_path = s2`)
	var n int
	if err := other.QueryRow(ctx, `SELECT count(*) FROM mt`).Scan(&n); sqlState(err) != "42P01" {
		t.Fatalf("before the move, a session on s2 reads mt: %d, %v", n, err)
	}

	// A session drawing from the sequence by its old name meanwhile.
	drawer := p.connect(t)
	var mu sync.Mutex
	var drawn []int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			var v int64
			if err := drawer.QueryRow(ctx, `SELECT nextval('s1.mt_id_seq')`).Scan(&v); err != nil {
				if sqlState(err) != "42P01" {
					t.Errorf("nextval by the old name: %v", err)
				}
				return
			}
			mu.Lock()
			drawn = append(drawn, v)
			mu.Unlock()
		}
	}()
	time.Sleep(50 * time.Millisecond)

	mustExec(t, conn, `BEGIN`)
	mustExec(t, conn, `ALTER TABLE s1.mt SET SCHEMA s2`)
	if err := other.QueryRow(ctx, `SELECT count(*) FROM mt`).Scan(&n); sqlState(err) != "42P01" {
		t.Fatalf("before the move commits, a session on s2 reads mt: %d, %v", n, err)
	}
	// A write by the old name waits for the move, then finds no table
	// there, as PostgreSQL's waits for the move's lock.
	writer := p.connect(t)
	wrote := make(chan error, 1)
	go func() {
		_, err := writer.Exec(ctx, `INSERT INTO s1.mt (v) VALUES ('w')`)
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Fatalf("a write by the old name did not wait for the move: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	mustExec(t, conn, `COMMIT`)
	if err := <-wrote; sqlState(err) != "42P01" {
		t.Fatalf("a write by the old name after the move: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	if err := other.QueryRow(ctx, `SELECT count(*) FROM mt`).Scan(&n); err != nil || n != 251 {
		t.Fatalf("after the move, a session on s2 reads %d rows, %v", n, err)
	}
	var next int64
	if err := conn.QueryRow(ctx, `SELECT nextval('s2.mt_id_seq')`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, v := range drawn {
		if v >= next {
			t.Fatalf("nextval after the move gave %d, which the old name had handed out", next)
		}
	}
	t.Logf("%d values drawn by the old name, then %d", len(drawn), next)
	mu.Unlock()
	// The old schema, empty now, goes; the table's folder in it stays.
	mustExec(t, conn, `DROP SCHEMA s1`)

	p.kill()
	p = startLogged(t, dir, "--flush-rows", "100")
	conn = p.connect(t)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM s2.mt`).Scan(&n); err != nil || n != 251 {
		t.Fatalf("after the restart: %d rows, %v", n, err)
	}
	if _, err := conn.Exec(ctx, `SELECT * FROM s1.mt`); sqlState(err) != "3F000" {
		t.Fatalf("s1.mt after the restart: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO s2.mt (v) VALUES ('r7')`); sqlState(err) != "23505" {
		t.Fatalf("the unique key after the restart: %v", err)
	}
	var id, g int64
	if err := conn.QueryRow(ctx, `INSERT INTO s2.mt (v) VALUES ('new') RETURNING id, g`).Scan(&id, &g); err != nil {
		t.Fatal(err)
	}
	if id <= next || g <= 251 {
		t.Fatalf("after the restart the sequences gave id %d (had given %d) and g %d (had given 251)", id, next, g)
	}
	var nsp string
	if err := conn.QueryRow(ctx, `SELECT relnamespace::regnamespace::text FROM pg_class WHERE relname = 'mt_id_seq'`).Scan(&nsp); err != nil || nsp != "s2" {
		t.Fatalf("the sequence's schema after the restart: %q, %v", nsp, err)
	}
	noPanic(t, p.log())
}
