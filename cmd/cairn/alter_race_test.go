package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestConcurrentAlterTableKeepsBoth runs two ALTER TABLE ... ADD
// CONSTRAINT on one table at once, as pg_restore -j does: the primary key
// is built outside the commit lock while the foreign key commits, and the
// key's statement then runs again. Both constraints must be there after
// (the retry once wrote back the table as it was bound, dropping the
// foreign key, or the key).
func TestConcurrentAlterTableKeepsBoth(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE parent (id int PRIMARY KEY)`)
	mustExec(t, a, `INSERT INTO parent SELECT g FROM generate_series(1, 5000) g`)
	for i := 0; i < 8; i++ {
		table := fmt.Sprintf("child%d", i)
		mustExec(t, a, `CREATE TABLE `+table+` (id int NOT NULL, p int)`)
		mustExec(t, a, `INSERT INTO `+table+` SELECT g, g FROM generate_series(1, 5000) g`)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for k, stmt := range []string{
			`ALTER TABLE ONLY ` + table + ` ADD CONSTRAINT ` + table + `_pkey PRIMARY KEY (id)`,
			`ALTER TABLE ONLY ` + table + ` ADD CONSTRAINT ` + table + `_fk FOREIGN KEY (p) REFERENCES parent (id)`,
		} {
			conn := a
			if k == 1 {
				conn = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[k] = conn.Exec(ctx, stmt)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
		var n int
		if err := a.QueryRow(ctx, `SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'f')`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Fatalf("%s has %d of its 2 constraints after two concurrent ALTER TABLE", table, n)
		}
	}
}

// TestDDLRacingDropAndRename runs GRANT, COMMENT ON COLUMN, ALTER COLUMN
// SET DEFAULT and ADD FOREIGN KEY on a table other sessions keep
// dropping, recreating and renaming a column of. Each statement is bound
// against one catalog and runs against a newer one: it may fail (the
// table or column is gone), but with a proper error, never an internal
// one (they were nil dereferences and index panics, XX000).
func TestDDLRacingDropAndRename(t *testing.T) {
	ts := startServer(t, "")
	ctx, stopChurn := context.WithCancel(context.Background())
	defer stopChurn()
	admin := ts.connect(t)
	mustExec(t, admin, `CREATE TABLE race_ref (x int PRIMARY KEY)`)
	mustExec(t, admin, `CREATE TABLE race_t (x int PRIMARY KEY, y int)`)
	var churners sync.WaitGroup
	for _, stmts := range [][]string{
		{`DROP TABLE IF EXISTS race_t`, `CREATE TABLE IF NOT EXISTS race_t (x int PRIMARY KEY, y int)`},
		{`ALTER TABLE race_t RENAME COLUMN y TO y2`, `ALTER TABLE race_t RENAME COLUMN y2 TO y`},
	} {
		conn := ts.connect(t)
		churners.Add(1)
		go func() {
			defer churners.Done()
			for ctx.Err() == nil {
				for _, s := range stmts {
					conn.Exec(ctx, s) // fails when the other churner got there first: expected
				}
			}
		}()
	}
	checks := []string{
		`GRANT SELECT ON race_t TO PUBLIC`,
		`REVOKE SELECT ON race_t FROM PUBLIC`,
		`COMMENT ON COLUMN race_t.y IS 'c'`,
		`ALTER TABLE race_t ALTER COLUMN y SET DEFAULT 5`,
		`ALTER TABLE race_t ADD FOREIGN KEY (y) REFERENCES race_ref (x)`,
		`ALTER TABLE race_t ALTER COLUMN y SET NOT NULL`,
		`ALTER TABLE race_t ALTER COLUMN y DROP NOT NULL`,
		`ALTER TABLE race_t ALTER COLUMN y TYPE int`,
		`ALTER TABLE race_t ADD CHECK (y > 0)`,
		`ALTER TABLE race_t ADD UNIQUE (y)`,
		`CREATE INDEX ON race_t (y)`,
		`ALTER TABLE race_t DROP COLUMN y`,
		`ALTER TABLE race_t ADD COLUMN y int`,
		`COMMENT ON TABLE race_t IS 't'`,
		`CREATE POLICY p ON race_t USING (y > 0)`,
		`INSERT INTO race_t (x, y) VALUES (1, 1) ON CONFLICT (x) DO UPDATE SET y = excluded.y`,
		`UPDATE race_t SET y = y + 1`,
		`SELECT y FROM race_t`,
		`DELETE FROM race_t WHERE y > 5`,
	}
	var checkers sync.WaitGroup
	internal := make(chan string, 2)
	for range 2 {
		conn := ts.connect(t)
		checkers.Add(1)
		go func() {
			defer checkers.Done()
			for i := range 500 {
				stmt := checks[i%len(checks)]
				var pe *pgconn.PgError
				if _, err := conn.Exec(context.Background(), stmt); errors.As(err, &pe) && pe.Code == "XX000" {
					internal <- stmt + ": " + pe.Message
					return
				}
			}
		}()
	}
	checkers.Wait()
	stopChurn()
	churners.Wait()
	close(internal)
	for msg := range internal {
		t.Error(msg)
	}
}

// TestAddColumnDefaultRacingInserts adds columns with a DEFAULT (one NOT
// NULL too) to a table other sessions keep inserting into, each in a
// transaction of two INSERTs, and in single autocommit INSERTs. Every row
// must end up with each column's default, as in PostgreSQL, whose ALTER
// waits for the inserters. The ALTER's fill rewrote only the rows its
// snapshot held: rows committed during the fill, or written under the
// old definition and committed after it, kept NULL (thousands of them in
// a second). Such an insert now fails with 40001 and is retried.
func TestAddColumnDefaultRacingInserts(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl := ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE ar (id int PRIMARY KEY, v text)`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := ts.connect(t)
			for next := w; ; next += 4 * 20 {
				select {
				case <-stop:
					return
				default:
				}
				err := func() error {
					if w%2 == 1 {
						_, err := conn.Exec(ctx, `INSERT INTO ar (id, v) SELECT g, 'x' FROM generate_series($1::int, $1::int + 76, 4) g`, next)
						return err
					}
					tx, err := conn.Begin(ctx)
					if err != nil {
						return err
					}
					defer tx.Rollback(ctx)
					for half := range 2 {
						if _, err := tx.Exec(ctx, `INSERT INTO ar (id, v) SELECT g, 'x' FROM generate_series($1::int, $1::int + 36, 4) g`, next+half*40); err != nil {
							return err
						}
					}
					return tx.Commit(ctx)
				}()
				var pe *pgconn.PgError
				if err != nil && !(errors.As(err, &pe) && pe.Code == "40001") {
					errs <- err
					return
				}
			}
		}()
	}
	for k := range 4 {
		time.Sleep(50 * time.Millisecond)
		notNull := ""
		if k == 3 {
			notNull = " NOT NULL"
		}
		mustExec(t, ddl, fmt.Sprintf(`ALTER TABLE ar ADD COLUMN c%d int%s DEFAULT %d`, k, notNull, k))
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("insert: %v", err)
	}
	var rows, missing int
	if err := ddl.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE c0 IS DISTINCT FROM 0 OR c1 IS DISTINCT FROM 1
		OR c2 IS DISTINCT FROM 2 OR c3 IS DISTINCT FROM 3) FROM ar`).Scan(&rows, &missing); err != nil {
		t.Fatal(err)
	}
	if missing > 0 {
		t.Errorf("%d of %d rows lack a default of the columns ALTER TABLE added", missing, rows)
	}
	t.Logf("%d rows", rows)
}

// gatedReader gives its data once gate is closed.
type gatedReader struct {
	gate <-chan struct{}
	data *strings.Reader
}

func (r *gatedReader) Read(p []byte) (int, error) {
	<-r.gate
	return r.data.Read(p)
}

// TestCopyAcrossAddColumn runs a COPY FROM STDIN whose data comes only
// after another session's ALTER TABLE ADD COLUMN ... DEFAULT committed:
// the COPY, bound before, is bound again against the new catalog and
// inserts its rows with the default, as PostgreSQL's (which waits for the
// ALTER) does. It used to run again as bound, failing each time with
// 40001 ("altered by a concurrent transaction"), for ten seconds of
// retries.
func TestCopyAcrossAddColumn(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, cp := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE ca (id int PRIMARY KEY, v text)`)
	mustExec(t, ddl, `INSERT INTO ca VALUES (1, 'a')`)
	gate := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := cp.PgConn().CopyFrom(ctx, &gatedReader{gate, strings.NewReader("2\tb\n3\tc\n")}, `COPY ca (id, v) FROM STDIN`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // the COPY waits for its data
	mustExec(t, ddl, `ALTER TABLE ca ADD COLUMN c int DEFAULT 5`)
	close(gate)
	start := time.Now()
	if err := <-done; err != nil {
		t.Fatalf("COPY after %v: %v", time.Since(start), err)
	}
	var n int
	if err := ddl.QueryRow(ctx, `SELECT count(*) FROM ca WHERE c = 5`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows with the default: %d (%v), want 3", n, err)
	}
}

// TestAddForeignKeyRacingParentDelete deletes a referenced parent row
// while ALTER TABLE ADD FOREIGN KEY runs on the child table, in both
// orders: the ALTER's validation saw the parent row, the delete was
// checked against no foreign key, and both committed, leaving a child
// row whose parent is gone under a valid constraint. PostgreSQL's ALTER
// locks the parent table: a DELETE in a transaction after the ALTER waits
// for it; one before it makes the second to commit fail with 40001.
func TestAddForeignKeyRacingParentDelete(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, del := ts.connect(t), ts.connect(t)
	orphans := func() int {
		t.Helper()
		var n int
		if err := ddl.QueryRow(ctx, `SELECT count(*) FROM fc LEFT JOIN fp ON fp.id = fc.pid WHERE fp.id IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	setup := func() {
		t.Helper()
		mustExec(t, ddl, `DROP TABLE IF EXISTS fc, fp`)
		mustExec(t, ddl, `CREATE TABLE fp (id int PRIMARY KEY)`)
		mustExec(t, ddl, `CREATE TABLE fc (pid int)`)
		mustExec(t, ddl, `INSERT INTO fp VALUES (1), (2)`)
		mustExec(t, ddl, `INSERT INTO fc VALUES (1), (2)`)
	}

	// The ALTER first, its transaction still open: the DELETE waits for
	// it, as PostgreSQL's waits for its lock, and then meets the foreign
	// key.
	setup()
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE fc ADD CONSTRAINT fc_pid FOREIGN KEY (pid) REFERENCES fp (id)`)
	mustExec(t, del, `BEGIN`)
	done := make(chan error, 1)
	go func() {
		_, err := del.Exec(ctx, `DELETE FROM fp WHERE id = 2`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("ALTER first: the DELETE ended while the ALTER was open: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, ddl, `COMMIT`)
	select {
	case err := <-done:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23503" {
			t.Fatalf("ALTER first: the DELETE after the ALTER committed: %v, want 23503", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ALTER first: the DELETE still waits after the ALTER committed")
	}
	mustExec(t, del, `ROLLBACK`)
	if n := orphans(); n != 0 {
		t.Errorf("ALTER first: %d child rows without their parent", n)
	}

	// The DELETE first, its transaction still open.
	setup()
	mustExec(t, del, `BEGIN`)
	mustExec(t, del, `DELETE FROM fp WHERE id = 2`)
	mustExec(t, ddl, `ALTER TABLE fc ADD CONSTRAINT fc_pid FOREIGN KEY (pid) REFERENCES fp (id)`)
	expectCode(t, del, `COMMIT`, "40001")
	if n := orphans(); n != 0 {
		t.Errorf("DELETE first: %d child rows without their parent", n)
	}
}

// TestNotValidConstraintConcurrentWriters: a CHECK or FOREIGN KEY added
// NOT VALID promises nothing of the rows written before it, so writers
// whose rows were written under the old definition commit (PostgreSQL's
// writers would have committed before the ALTER); its VALIDATE
// CONSTRAINT is a rule every row must meet, so a writer of rows its
// snapshot did not see fails with 40001 and the constraint stays true.
func TestNotValidConstraintConcurrentWriters(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, w := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE nvp (id int PRIMARY KEY)`)
	mustExec(t, ddl, `CREATE TABLE nvc (id int, pid int, v int)`)
	mustExec(t, ddl, `INSERT INTO nvp VALUES (1), (2)`)

	// Written before the ALTER, committed after it: kept.
	mustExec(t, w, `BEGIN`)
	mustExec(t, w, `INSERT INTO nvc VALUES (1, 1, -1)`)
	mustExec(t, w, `DELETE FROM nvp WHERE id = 2`)
	mustExec(t, ddl, `INSERT INTO nvc VALUES (2, 2, 5)`)
	mustExec(t, ddl, `ALTER TABLE nvc ADD CONSTRAINT nvc_v CHECK (v > 0) NOT VALID`)
	mustExec(t, ddl, `ALTER TABLE nvc ADD CONSTRAINT nvc_fk FOREIGN KEY (pid) REFERENCES nvp (id) NOT VALID`)
	mustExec(t, w, `COMMIT`)
	expectCode(t, w, `INSERT INTO nvc VALUES (3, 1, -3)`, "23514")
	expectCode(t, w, `INSERT INTO nvc VALUES (3, 7, 3)`, "23503")
	expectCode(t, ddl, `ALTER TABLE nvc VALIDATE CONSTRAINT nvc_v`, "23514")
	expectCode(t, ddl, `ALTER TABLE nvc VALIDATE CONSTRAINT nvc_fk`, "23503")
	mustExec(t, ddl, `DELETE FROM nvc WHERE id IN (1, 2)`)

	// A row written under the NOT VALID check's absence, committed after
	// its VALIDATE: the writer fails, the validated check holds.
	mustExec(t, ddl, `ALTER TABLE nvc DROP CONSTRAINT nvc_v`)
	mustExec(t, w, `BEGIN`)
	mustExec(t, w, `INSERT INTO nvc VALUES (4, 1, -4)`)
	mustExec(t, ddl, `ALTER TABLE nvc ADD CONSTRAINT nvc_v CHECK (v > 0) NOT VALID`)
	mustExec(t, ddl, `ALTER TABLE nvc VALIDATE CONSTRAINT nvc_v`)
	expectCode(t, w, `COMMIT`, "40001")
	var bad int
	if err := ddl.QueryRow(ctx, `SELECT count(*) FROM nvc WHERE v <= 0`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("rows breaking the validated check: %d (%v)", bad, err)
	}

	// The constraints and their validity survive a restart.
	ts.stop()
	ts = startServer(t, ts.Dir)
	ddl = ts.connect(t)
	rows, err := ddl.Query(ctx, `SELECT conname || ':' || convalidated FROM pg_constraint WHERE conrelid = 'nvc'::regclass ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if strings.Join(got, " ") != "nvc_fk:false nvc_v:true" {
		t.Fatalf("after a restart: %v", got)
	}
	expectCode(t, ddl, `INSERT INTO nvc VALUES (5, 9, 5)`, "23503")
}

// TestWriterWaitsForFencingAlter: an autocommit INSERT into a table whose
// ALTER TABLE ... ADD COLUMN ... DEFAULT is still open in another
// transaction waits for it, as PostgreSQL's waits for the ALTER's lock,
// and then commits with the column's default (it failed with 40001 after
// about ten seconds of retries); lock_timeout bounds the wait (55P03),
// and a statement_timeout ends it (57014).
func TestWriterWaitsForFencingAlter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, w := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE wf (id int PRIMARY KEY)`)
	mustExec(t, ddl, `INSERT INTO wf SELECT g FROM generate_series(1, 100) g`)
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE wf ADD COLUMN c int NOT NULL DEFAULT 7`)

	done := make(chan error, 1)
	go func() {
		_, err := w.Exec(ctx, `INSERT INTO wf (id) VALUES (101)`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the INSERT ended while the ALTER was open: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, ddl, `COMMIT`)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the INSERT after the ALTER committed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the INSERT still waits after the ALTER committed")
	}
	var c int
	if err := ddl.QueryRow(ctx, `SELECT c FROM wf WHERE id = 101`).Scan(&c); err != nil || c != 7 {
		t.Fatalf("the waiting INSERT's row: c = %d (%v), want the default 7", c, err)
	}

	// Bounded waits.
	mustExec(t, ddl, `BEGIN`)
	mustExec(t, ddl, `ALTER TABLE wf ADD CONSTRAINT wf_c CHECK (c > 0)`)
	mustExec(t, w, `SET lock_timeout = '200ms'`)
	expectCode(t, w, `INSERT INTO wf VALUES (102, 1)`, "55P03")
	mustExec(t, w, `SET lock_timeout = 0`)
	mustExec(t, w, `SET statement_timeout = '200ms'`)
	expectCode(t, w, `INSERT INTO wf VALUES (103, 1)`, "57014")
	mustExec(t, w, `SET statement_timeout = 0`)
	mustExec(t, ddl, `ROLLBACK`)
	mustExec(t, w, `INSERT INTO wf VALUES (104, -1)`)
}

// TestAlterTypeRacingInserts rewrites a column (ALTER COLUMN ... TYPE
// between integer and bigint, which gives the values a new column) of a
// table other sessions keep inserting into. Every row must keep its
// value: a row committed under the old definition while the rewrite ran
// must fail to commit (40001) or make the ALTER fail, never end up with
// the new column NULL.
func TestAlterTypeRacingInserts(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl := ts.connect(t)
	mustExec(t, ddl, `CREATE TABLE atr (id int PRIMARY KEY, v int)`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := ts.connect(t)
			for next := w; ; next += 2 * 20 {
				select {
				case <-stop:
					return
				default:
				}
				_, err := conn.Exec(ctx, `INSERT INTO atr (id, v) SELECT g, g FROM generate_series($1::int, $1::int + 38, 2) g`, next)
				var pe *pgconn.PgError
				if err != nil && !(errors.As(err, &pe) && pe.Code == "40001") {
					errs <- err
					return
				}
			}
		}()
	}
	altered := 0
	for k := range 6 {
		time.Sleep(30 * time.Millisecond)
		typ := []string{"bigint", "integer"}[k%2]
		_, err := ddl.Exec(ctx, `ALTER TABLE atr ALTER COLUMN v TYPE `+typ)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			altered++
		case !errors.As(err, &pe) || pe.Code != "40001":
			t.Fatalf("alter: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("insert: %v", err)
	}
	var rows, wrong int
	if err := ddl.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE v IS DISTINCT FROM id) FROM atr`).Scan(&rows, &wrong); err != nil {
		t.Fatal(err)
	}
	if wrong > 0 {
		t.Errorf("%d of %d rows lost their value to ALTER COLUMN ... TYPE", wrong, rows)
	}
	t.Logf("%d rows, %d of 6 ALTERs applied", rows, altered)
}

// TestAlterDomainRacingWriter: rows written to a column of a domain under
// its old definition and committed after ALTER DOMAIN ... ADD CONSTRAINT
// committed were checked by neither; the writer fails with 40001, as the
// writer of a table whose ALTER TABLE added a rule does.
func TestAlterDomainRacingWriter(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	ddl, w := ts.connect(t), ts.connect(t)
	mustExec(t, ddl, `CREATE DOMAIN dpos AS int`)
	mustExec(t, ddl, `CREATE TABLE dr (v dpos)`)
	mustExec(t, w, `BEGIN`)
	mustExec(t, w, `INSERT INTO dr VALUES (-5)`)
	mustExec(t, ddl, `ALTER DOMAIN dpos ADD CONSTRAINT dpos_pos CHECK (VALUE > 0)`)
	expectCode(t, w, `COMMIT`, "40001")
	var n int
	if err := ddl.QueryRow(ctx, `SELECT count(*) FROM dr WHERE v <= 0`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows breaking the domain's new check: %d (%v)", n, err)
	}
	// Written after the ALTER: checked at the INSERT.
	expectCode(t, w, `INSERT INTO dr VALUES (-6)`, "23514")
	mustExec(t, w, `INSERT INTO dr VALUES (6)`)
}
