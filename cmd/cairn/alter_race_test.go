package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
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
