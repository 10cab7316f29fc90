package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockRow is a row of pg_locks.
type lockRow struct {
	locktype     string
	relation     *uint32
	page         *int32
	tuple        *int16
	objid        *uint32
	pid          int32
	mode         string
	granted      bool
	waitingSince *time.Time
}

// locksOf returns the rows of pg_locks of locktype held or waited for by
// pid.
func locksOf(t *testing.T, conn *pgx.Conn, locktype string, pid uint32) []lockRow {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT locktype, relation, page, tuple, objid, pid, mode, granted, waitstart
		FROM pg_locks WHERE locktype = $1 AND pid = $2 ORDER BY granted`, locktype, int32(pid))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (l lockRow, err error) {
		err = r.Scan(&l.locktype, &l.relation, &l.page, &l.tuple, &l.objid, &l.pid, &l.mode, &l.granted, &l.waitingSince)
		return l, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// blockingPIDs is pg_blocking_pids(pid).
func blockingPIDs(t *testing.T, conn *pgx.Conn, pid uint32) []int32 {
	t.Helper()
	var out []int32
	if err := conn.QueryRow(context.Background(), `SELECT pg_blocking_pids($1)`, int32(pid)).Scan(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitLocked waits until pid waits for a lock of locktype.
func waitLocked(t *testing.T, conn *pgx.Conn, locktype string, pid uint32) []lockRow {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ls := locksOf(t, conn, locktype, pid); len(ls) > 0 && !ls[0].granted {
			return ls
		}
	}
	t.Fatalf("pid %d never waited for a %s lock", pid, locktype)
	return nil
}

// TestPgLocks: a session that waits for another's row lock, key lock or
// advisory lock shows in pg_locks with granted false and its wait's
// start, beside the holder's granted lock on the same thing, and
// pg_blocking_pids names the holder; once the holder ends, the waiter
// goes on and nothing is left.
func TestPgLocks(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	holder, waiter, watcher := ts.connect(t), ts.connect(t), ts.connect(t)
	hpid, wpid := holder.PgConn().PID(), waiter.PgConn().PID()
	mustExec(t, holder, `CREATE TABLE lk (id int PRIMARY KEY, v int)`)
	mustExec(t, holder, `INSERT INTO lk VALUES (1, 0), (2, 0)`)
	var relid uint32
	if err := watcher.QueryRow(ctx, `SELECT 'lk'::regclass::oid`).Scan(&relid); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		locktype, hold, wait string
	}{
		{"tuple", `UPDATE lk SET v = 1 WHERE id = 1`, `UPDATE lk SET v = 2 WHERE id = 1`},
		{"object", `INSERT INTO lk VALUES (3, 0)`, `INSERT INTO lk VALUES (3, 1)`},
		{"advisory", `SELECT pg_advisory_xact_lock(77)`, `SELECT pg_advisory_lock_shared(77)`},
	} {
		mustExec(t, holder, `BEGIN`)
		mustExec(t, holder, c.hold)
		done := make(chan error, 1)
		go func() {
			_, err := waiter.Exec(ctx, c.wait)
			done <- err
		}()
		before := time.Now()
		waits := waitLocked(t, watcher, c.locktype, wpid)
		held := locksOf(t, watcher, c.locktype, hpid)
		if len(waits) != 1 || len(held) != 1 || !held[0].granted || held[0].waitingSince != nil || waits[0].waitingSince == nil ||
			waits[0].waitingSince.After(time.Now()) || before.Sub(*waits[0].waitingSince) > 10*time.Second {
			t.Fatalf("%s: the waiter's locks %+v, the holder's %+v", c.locktype, waits, held)
		}
		w, h := waits[0], held[0]
		switch c.locktype {
		case "tuple":
			if w.relation == nil || *w.relation != relid || w.page == nil || w.tuple == nil || *h.page != *w.page || *h.tuple != *w.tuple || w.mode != "ExclusiveLock" {
				t.Errorf("row locks: waiter %+v holder %+v", w, h)
			}
		case "object":
			if w.objid == nil || *w.objid != relid || *h.objid != relid {
				t.Errorf("key locks: waiter %+v holder %+v", w, h)
			}
		case "advisory":
			if *w.objid != 77 || w.mode != "ShareLock" || h.mode != "ExclusiveLock" {
				t.Errorf("advisory locks: waiter %+v holder %+v", w, h)
			}
		}
		if got := blockingPIDs(t, watcher, wpid); len(got) != 1 || got[0] != int32(hpid) {
			t.Errorf("%s: pg_blocking_pids(waiter) = %v, want [%d]", c.locktype, got, hpid)
		}
		if got := blockingPIDs(t, watcher, hpid); len(got) != 0 {
			t.Errorf("%s: pg_blocking_pids(holder) = %v", c.locktype, got)
		}
		mustExec(t, holder, `ROLLBACK`)
		if err := <-done; err != nil {
			t.Fatalf("%s: the waiter after the holder ended: %v", c.locktype, err)
		}
		mustExec(t, waiter, `SELECT pg_advisory_unlock_all()`)
		var left int
		if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_locks`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%s: %d locks left (%v)", c.locktype, left, err)
		}
	}
}
