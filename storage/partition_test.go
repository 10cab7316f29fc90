package storage

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// readPartitions reads every partition in its own goroutine and returns
// the rows (as scanRows formats them, sorted) and each partition's count.
func readPartitions(t *testing.T, tx *Tx, id uint64, n int) ([]string, []int) {
	t.Helper()
	def := tx.Catalog().Tables[id]
	cols := make([]int, len(def.Columns))
	for i := range cols {
		cols[i] = i
	}
	rs, err := tx.ScanPartitions(context.Background(), id, cols, true, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 1 || len(rs) > n {
		t.Fatalf("%d partitions for n=%d", len(rs), n)
	}
	out := make([][]string, len(rs))
	errs := make([]error, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.Release()
			for r.Next() {
				rec := r.Record()
				for k := 0; k < int(rec.NumRows()); k++ {
					row := make([]any, rec.NumCols())
					for c := range row {
						row[c] = goValue(rec.Column(c), k)
					}
					row[len(row)-1] = rec.Column(len(row) - 1).(*array.Int64).Value(k)
					out[i] = append(out[i], fmt.Sprint(row))
				}
			}
			errs[i] = r.Err()
		}()
	}
	wg.Wait()
	var all []string
	counts := make([]int, len(rs))
	for i := range rs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		all = append(all, out[i]...)
		counts[i] = len(out[i])
	}
	slices.Sort(all)
	return all, counts
}

func scanStrings(t *testing.T, tx *Tx, id uint64) []string {
	var out []string
	for _, r := range scanRows(t, tx, id, true) {
		out = append(out, fmt.Sprint(r))
	}
	slices.Sort(out)
	return out
}

func TestScanPartitions(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := createTable(t, db, "p", []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)})
	next := 0
	add := func(n int) {
		var rows [][]any
		for i := 0; i < n; i++ {
			rows = append(rows, []any{next, fmt.Sprint("v", next)})
			next++
		}
		insert(t, db, def, rows...)
	}
	// Segments of several sizes (one with several row groups), a tail of
	// small and large batches.
	add(9000)
	add(3000)
	db.flushTable(def.ID, true)
	add(20000)
	db.flushTable(def.ID, true)
	add(5)
	add(7000)
	for i := 0; i < 30; i++ {
		add(1)
	}
	// Committed deletions: a run, scattered rows, a whole small batch.
	tx := db.Begin()
	var del []int64
	for _, r := range scanRows(t, tx, def.ID, true) {
		k := r[0].(int)
		if k >= 100 && k < 2000 || k%97 == 0 || k >= 32000 && k < 32005 {
			del = append(del, r[2].(int64))
		}
	}
	tx.Delete(def.ID, del)
	mustCommit(t, tx)

	check := func(tx *Tx) {
		t.Helper()
		want := scanStrings(t, tx, def.ID)
		for _, n := range []int{1, 2, 3, 4, 7, 16, 1000} {
			got, counts := readPartitions(t, tx, def.ID, n)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d: %d rows from partitions, %d from Scan", n, len(got), len(want))
			}
			if n > 1 && len(counts) > 1 {
				lo, hi := slices.Min(counts), slices.Max(counts)
				if hi > 2*lo+2*minPartitionRows {
					t.Errorf("n=%d: unbalanced partitions %v", n, counts)
				}
			}
		}
	}
	tx = db.Begin()
	check(tx)
	// The transaction's own deletions and inserts (some deleted again).
	rows := scanRows(t, tx, def.ID, true)
	var mine []int64
	for _, r := range rows[:500] {
		mine = append(mine, r[2].(int64))
	}
	tx.Delete(def.ID, mine)
	var own [][]any
	for i := 0; i < 6000; i++ {
		own = append(own, []any{100000 + i, "own"})
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, own...)); err != nil {
		t.Fatal(err)
	}
	ownRows := scanRows(t, tx, def.ID, true)
	var ownDel []int64
	for _, r := range ownRows {
		if k := r[0].(int); k >= 100000 && k%3 == 0 {
			ownDel = append(ownDel, r[2].(int64))
		}
	}
	tx.Delete(def.ID, ownDel)
	check(tx)
	tx.Rollback()

	// A truncated table in the transaction: only its own rows.
	tx = db.Begin()
	tx.Truncate(def.ID)
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "x"})); err != nil {
		t.Fatal(err)
	}
	check(tx)
	tx.Rollback()

	// An empty table gives one empty reader.
	empty := createTable(t, db, "e", []catalog.ColumnDef{col("id", types.Int8T)})
	tx = db.Begin()
	defer tx.Rollback()
	if got, counts := readPartitions(t, tx, empty.ID, 4); len(got) != 0 || len(counts) != 1 {
		t.Fatalf("empty table: %d rows, %d partitions", len(got), len(counts))
	}
}

func TestSplitUnits(t *testing.T) {
	units := []scanUnit{{hi: 65536}, {hi: 34464}, {hi: 10}, {own: true, hi: 1}}
	for n := 1; n <= 9; n++ {
		parts := splitUnits(slices.Clone(units), n)
		total := 0
		var sizes []int
		for _, p := range parts {
			s := 0
			for _, u := range p {
				if u.lo >= u.hi {
					t.Fatalf("n=%d: empty unit %+v", n, u)
				}
				s += u.rows()
			}
			sizes = append(sizes, s)
			total += s
		}
		if total != 100011 || len(parts) > n {
			t.Fatalf("n=%d: %d rows in %d parts", n, total, len(parts))
		}
		if slices.Max(sizes)-slices.Min(sizes) > 2 {
			t.Fatalf("n=%d: sizes %v", n, sizes)
		}
	}
}
