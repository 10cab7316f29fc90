package main

import (
	"context"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestForeignKeyRace has sessions insert child rows referencing random
// parents while others delete random parents (after deleting their NO
// ACTION children) and one adds new ones (parent keys are never used
// again, so that no orphan is hidden by its parent coming back), in autocommit or in transaction
// blocks that pause before COMMIT, so that a
// child's check and a parent's delete interleave both ways. A statement
// may fail only with 23503 (the reference was checked and refused) or
// 40001 (a concurrent commit won); afterwards no child row may reference
// a missing parent, in the NO ACTION table nor in the ON DELETE CASCADE
// one.
func TestForeignKeyRace(t *testing.T) {
	const hot = 12 // the parents in play: the newest ones
	dur := 4 * time.Second
	if testing.Short() {
		dur = 2 * time.Second
	}
	ts := startServer(t, t.TempDir())
	ctx := context.Background()
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE parent (id int PRIMARY KEY, note text)`)
	mustExec(t, setup, `CREATE TABLE child (id bigserial PRIMARY KEY, pid int REFERENCES parent (id))`)
	mustExec(t, setup, `CREATE TABLE child_c (id bigserial PRIMARY KEY, pid int REFERENCES parent (id) ON DELETE CASCADE)`)
	mustExec(t, setup, `INSERT INTO parent SELECT g, 'p' FROM generate_series(0, $1) g`, hot-1)
	var top atomic.Int64 // parent keys below it exist or existed
	top.Store(hot)

	var failures atomic.Int64
	var stats [4]atomic.Int64 // child inserts, parent deletes, 23503s, 40001s
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	// run executes one statement, counting the errors allowed: in
	// autocommit, or half of the time in a transaction block that waits a
	// moment before COMMIT, so that other sessions commit in between.
	run := func(conn *pgx.Conn, r *rand.Rand, sql string, args ...any) bool {
		var err error
		if r.Intn(2) == 0 {
			_, err = conn.Exec(ctx, sql, args...)
		} else {
			err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, sql, args...); err != nil {
					return err
				}
				time.Sleep(time.Duration(r.Intn(2000)) * time.Microsecond)
				return nil
			})
		}
		switch sqlState(err) {
		case "":
			return true
		case "23503":
			stats[2].Add(1)
		case "40001":
			stats[3].Add(1)
		default:
			fail("%s: %v", sql, err)
		}
		return false
	}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
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
				p := top.Load() - 1 - int64(r.Intn(hot))
				switch {
				case w < 5: // children
					table := "child"
					if r.Intn(2) == 0 {
						table = "child_c"
					}
					if run(conn, r, `INSERT INTO `+table+` (pid) VALUES ($1)`, p) {
						stats[0].Add(1)
					}
				case w < 7: // a parent goes
					run(conn, r, `DELETE FROM child WHERE pid = $1`, p)
					if run(conn, r, `DELETE FROM parent WHERE id = $1`, p) {
						stats[1].Add(1)
					}
				default: // a parent comes
					if run(conn, r, `INSERT INTO parent VALUES ($1, 'p')`, top.Load()) {
						top.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("child inserts %d, parent deletes %d, 23503 %d, 40001 %d", stats[0].Load(), stats[1].Load(), stats[2].Load(), stats[3].Load())
	if stats[0].Load() == 0 || stats[1].Load() == 0 {
		t.Fatalf("the load did not both insert children and delete parents")
	}
	for _, table := range []string{"child", "child_c"} {
		var orphans int64
		if err := setup.QueryRow(ctx, `SELECT count(*) FROM `+table+` c WHERE NOT EXISTS (SELECT 1 FROM parent p WHERE p.id = c.pid)`).Scan(&orphans); err != nil {
			t.Fatal(err)
		}
		if orphans != 0 {
			t.Errorf("%d rows of %s reference a missing parent", orphans, table)
		}
	}
}

// TestForeignKeyIsolation checks a child row's parent check against
// commits made since the transaction's snapshot, as PostgreSQL's RI check
// does: READ COMMITTED reads the latest committed parents; REPEATABLE
// READ needs a parent its snapshot sees (23503 for one added since) that
// is still there (40001 for one deleted since).
func TestForeignKeyIsolation(t *testing.T) {
	ts := startServer(t, t.TempDir())
	fkIsolation(t, ts.connect(t), ts.connect(t))
}

func fkIsolation(t *testing.T, a, b *pgx.Conn) {
	ctx := context.Background()
	mustExec(t, a, `DROP TABLE IF EXISTS fk_iso_child, fk_iso_parent`)
	mustExec(t, a, `CREATE TABLE fk_iso_parent (id int PRIMARY KEY)`)
	mustExec(t, a, `CREATE TABLE fk_iso_child (id int, pid int REFERENCES fk_iso_parent (id))`)
	mustExec(t, a, `INSERT INTO fk_iso_parent VALUES (1), (2)`)
	for _, tc := range []struct {
		level, change string
		pid           int
		code          string
	}{
		{"READ COMMITTED", `INSERT INTO fk_iso_parent VALUES (10)`, 10, ""},
		{"READ COMMITTED", `DELETE FROM fk_iso_parent WHERE id = 1`, 1, "23503"},
		{"REPEATABLE READ", `INSERT INTO fk_iso_parent VALUES (11)`, 11, "23503"},
		{"REPEATABLE READ", `DELETE FROM fk_iso_parent WHERE id = 2`, 2, "40001"},
		{"REPEATABLE READ", `UPDATE fk_iso_parent SET id = id WHERE id = 10`, 10, ""},
	} {
		mustExec(t, a, `BEGIN ISOLATION LEVEL `+tc.level)
		mustExec(t, a, `SELECT count(*) FROM fk_iso_parent`) // the snapshot
		mustExec(t, b, tc.change)
		_, err := a.Exec(ctx, `INSERT INTO fk_iso_child VALUES (1, $1)`, tc.pid)
		if got := sqlState(err); got != tc.code {
			t.Errorf("%s, after %s: child of %d: %v, want %q", tc.level, tc.change, tc.pid, err, tc.code)
		}
		mustExec(t, a, `ROLLBACK`)
	}
}
