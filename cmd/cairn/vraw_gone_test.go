package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRawVectorsGone: a segment's raw vector file (seg-N.colM.vraw, kept
// beside it for a vector index) that is gone when a statement first opens
// it, as when a concurrent DROP INDEX deletes it between the statement
// finding it and opening it, has the statement decode the column from the
// segment. ON CONFLICT DO UPDATE, UPDATE, a scan and an index search used
// to fail with XX000 "open ...vraw: no such file or directory" (found by
// TestChaos, whose sessions drop and create an hnsw index while others
// write).
func TestRawVectorsGone(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE rg (id int PRIMARY KEY, e real[])`)
	mustExec(t, conn, `INSERT INTO rg SELECT g, ARRAY[g, 1, 2, 3]::real[] FROM generate_series(1, 200) g`)
	mustExec(t, conn, `CHECKPOINT`)
	mustExec(t, conn, `CREATE INDEX rg_e ON rg USING hnsw (e)`)
	raws, _ := filepath.Glob(filepath.Join(ts.Dir, "tables", "*", "*", "*.vraw"))
	if len(raws) == 0 {
		t.Fatal("no raw vector file was written")
	}
	for _, f := range raws {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO rg VALUES (7, '{0,0,0,1}') ON CONFLICT (id) DO UPDATE SET e = excluded.e`,
		`UPDATE rg SET id = id + 1000 WHERE id = 8`,
	} {
		mustExec(t, conn, q)
	}
	var n int
	var sum float64
	if err := conn.QueryRow(ctx, `SELECT count(*), sum(e[1]) FROM rg`).Scan(&n, &sum); err != nil || n != 200 || sum != 20093 {
		t.Errorf("scan: %d rows, sum %v, %v", n, sum, err)
	}
	var id int
	if err := conn.QueryRow(ctx, `SELECT id FROM rg ORDER BY e <#> '{50,1,2,3}'::real[] LIMIT 1`).Scan(&id); err != nil || id != 50 {
		t.Errorf("search: id %d, %v", id, err)
	}
}
