package storage

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
)

// loadEmbeddings commits rows [0, n) of embeddingTable in batches and
// flushes them to one segment per batch.
func loadEmbeddings(t testing.TB, db *DB, def *catalog.TableDef, n, batch int) {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	for from := 0; from < n; from += batch {
		tx := db.Begin()
		rec := embeddingRecord(def, from, min(batch, n-from), rng)
		if err := tx.Insert(def.ID, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		mustCommit(t, tx)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
}

// scanSum scans (id, embedding) and returns the row count, the sum of the
// IDs and of the floats, and the address of each batch's float data.
func scanSum(t testing.TB, db *DB, def *catalog.TableDef) (rows int, ids int64, sum float64, addrs []uintptr) {
	t.Helper()
	tx := db.Begin()
	defer tx.Rollback()
	r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.Record()
		rows += int(rec.NumRows())
		for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
			ids += v
		}
		fs := rec.Column(1).(*array.List).ListValues().(*array.Float32).Float32Values()
		for _, v := range fs {
			sum += float64(v)
		}
		addrs = append(addrs, uintptr(unsafe.Pointer(unsafe.SliceData(fs))))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return
}

func TestColumnCacheHitMissEviction(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	def := embeddingTable(t, db)
	loadEmbeddings(t, db, def, 6000, 2000)
	// The flushes warmed the cache: the first scan decodes nothing.
	st := db.CacheStats()
	if st.Entries == 0 || st.Misses != 0 {
		t.Fatalf("after flush: %+v", st)
	}
	rows, ids, sum, addrs := scanSum(t, db, def)
	if rows != 6000 || ids != 6000*5999/2 {
		t.Fatalf("%d rows, id sum %d", rows, ids)
	}
	if st2 := db.CacheStats(); st2.Misses != 0 || st2.Hits == 0 {
		t.Fatalf("warm scan: %+v", st2)
	}
	// A second scan hands out the very same arrays (zero copy).
	_, _, sum2, addrs2 := scanSum(t, db, def)
	if sum2 != sum || fmt.Sprint(addrs) != fmt.Sprint(addrs2) {
		t.Fatalf("second scan: sum %v vs %v, buffers %v vs %v", sum2, sum, addrs2, addrs)
	}
	db.Close()

	// Reopened: cold, then warm.
	db = openDB(t, dir, Options{})
	_, _, sum3, _ := scanSum(t, db, def)
	st = db.CacheStats()
	if sum3 != sum || st.Misses == 0 {
		t.Fatalf("cold scan: sum %v, %+v", sum3, st)
	}
	_, _, sum4, _ := scanSum(t, db, def)
	if st2 := db.CacheStats(); sum4 != sum || st2.Misses != st.Misses {
		t.Fatalf("warm scan after reopen: %+v -> %+v", st, st2)
	}
	db.Close()

	// A budget for about one segment's embeddings: entries are evicted,
	// the budget holds, results stay right.
	budget := int64(2000*embedDim*4) + 200<<10
	db = openDB(t, dir, Options{CacheBytes: budget})
	defer db.Close()
	for i := 0; i < 3; i++ {
		rows, _, s, _ := scanSum(t, db, def)
		st := db.CacheStats()
		if rows != 6000 || s != sum || st.Bytes > st.Budget {
			t.Fatalf("pass %d: %d rows, sum %v, %+v", i, rows, s, st)
		}
	}
	if st := db.CacheStats(); st.Evictions == 0 || st.Budget != budget {
		t.Fatalf("no eviction under a small budget: %+v", st)
	}
}

func TestColumnCacheDisabled(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30, CacheBytes: -1})
	defer db.Close()
	def := embeddingTable(t, db)
	loadEmbeddings(t, db, def, 3000, 1000)
	for i := 0; i < 2; i++ {
		if rows, ids, _, _ := scanSum(t, db, def); rows != 3000 || ids != 3000*2999/2 {
			t.Fatalf("%d rows", rows)
		}
	}
	if st := db.CacheStats(); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("disabled cache holds %+v", st)
	}
}

// TestColumnCacheReaderOutlivesEviction keeps a scanned record while the
// cache drops everything: the record stays intact.
func TestColumnCacheReaderOutlivesEviction(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := embeddingTable(t, db)
	loadEmbeddings(t, db, def, 2000, 1000)
	tx := db.Begin()
	defer tx.Rollback()
	r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	rec := r.Record()
	rec.Retain()
	r.Release()
	want := fmt.Sprint(rec.Column(0).(*array.Int64).Int64Values()[:5], rec.Column(1).(*array.List).ListValues().(*array.Float32).Float32Values()[:8])
	db.cache.clear()
	if st := db.CacheStats(); st.Entries != 0 {
		t.Fatalf("%+v", st)
	}
	// Reading again decodes new arrays; the old record is unaffected.
	scanSum(t, db, def)
	got := fmt.Sprint(rec.Column(0).(*array.Int64).Int64Values()[:5], rec.Column(1).(*array.List).ListValues().(*array.Float32).Float32Values()[:8])
	if got != want {
		t.Fatalf("record changed after eviction: %s vs %s", got, want)
	}
	rec.Release()
}

func TestColumnCacheUnit(t *testing.T) {
	c := newColCache(10_000)
	mk := func(n int) arrow.ArrayData {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := 0; i < n; i++ {
			b.Append(int64(i))
		}
		a := b.NewArray()
		d := a.Data()
		d.Retain()
		a.Release()
		return d
	}
	loads := 0
	get := func(k int, n int) arrow.Array {
		a, err := c.get(cacheKey{path: "p", group: int32(k)}, func() (arrow.ArrayData, error) {
			loads++
			return mk(n), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := get(1, 500) // 4000 bytes
	b := get(2, 500)
	if loads != 2 || c.used > c.budget {
		t.Fatalf("loads %d used %d", loads, c.used)
	}
	get(1, 500).Release() // hit; 1 is now the most recent
	if loads != 2 {
		t.Fatal("miss on a cached key")
	}
	get(3, 500).Release() // evicts 2
	if _, ok := c.entries[cacheKey{path: "p", group: 2}]; ok {
		t.Fatal("least recently used entry kept")
	}
	if _, ok := c.entries[cacheKey{path: "p", group: 1}]; !ok {
		t.Fatal("recently used entry evicted")
	}
	// b survives its eviction.
	if b.Len() != 500 || b.(*array.Int64).Value(499) != 499 {
		t.Fatal("evicted array damaged")
	}
	// Too large for the budget: returned, not kept.
	big := get(4, 5000)
	if big.Len() != 5000 || c.entries[cacheKey{path: "p", group: 4}] != nil {
		t.Fatal("oversized entry")
	}
	// Releasing a handed-out array too often does not hurt the cache.
	a.Release()
	a.Release()
	again := get(1, 500)
	if again.(*array.Int64).Value(7) != 7 {
		t.Fatal("cache damaged by over-release")
	}
	c.dropPath("p")
	if c.used != 0 || len(c.entries) != 0 {
		t.Fatalf("dropPath left %d bytes", c.used)
	}
	b.Release()
	big.Release()
	again.Release()
}

// TestColumnCacheCompaction: compaction's replaced segments leave the
// cache (and the disk, with their text index files) once no snapshot
// reads them.
func TestColumnCacheCompaction(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	for b := 0; b < 2*smallSegments+2; b++ {
		insert(t, db, def, []any{b, fmt.Sprint("value ", b)})
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	old := db.Begin()
	countRows(t, old, def.ID)
	paths := func() map[string]bool {
		out := map[string]bool{}
		db.cache.mu.Lock()
		defer db.cache.mu.Unlock()
		for k := range db.cache.entries {
			out[k.path] = true
		}
		return out
	}
	before := paths()
	if len(before) != 2*smallSegments+2 {
		t.Fatalf("%d cached segments", len(before))
	}
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	// The old snapshot still reads the old files.
	if n := countRows(t, old, def.ID); n != 2*smallSegments+2 {
		t.Fatalf("old snapshot reads %d rows", n)
	}
	old.Rollback()
	live := map[string]bool{}
	for _, s := range db.published.Load().tables[def.ID].segments {
		live[s.path] = true
	}
	for p := range paths() {
		if !live[p] {
			t.Errorf("cache still holds replaced segment %s", p)
		}
	}
	for p := range before {
		if live[p] {
			continue
		}
		for _, f := range []string{p, textIndexPath(p)} {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("%s not removed: %v", f, err)
			}
		}
	}
	tx := db.Begin()
	defer tx.Rollback()
	if got := rowsString(scanRows(t, tx, def.ID, false)); !strings.HasPrefix(got, "[[0 value 0] [1 value 1]") {
		t.Fatalf("after compaction: %s", got)
	}
}

// TestCompactionLeavesTheCache: compaction reads the segments it replaces
// without keeping their columns in the column cache (a bulk load's merges
// would otherwise fill it with columns about to be deleted).
func TestCompactionLeavesTheCache(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	for b := 0; b < 2*smallSegments+1; b++ {
		insert(t, db, def, []any{b, fmt.Sprint("value ", b)})
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	db.cache.clear()
	replaced := map[string]bool{}
	for _, seg := range db.published.Load().tables[def.ID].segments {
		replaced[seg.path] = true
	}
	// cachedColumns counts the replaced segments' cached columns (the
	// merged segment's own may be warmed as it is written).
	cachedColumns := func() int {
		db.cache.mu.Lock()
		defer db.cache.mu.Unlock()
		n := 0
		for k := range db.cache.entries {
			if k.col != rowIDCacheCol && replaced[k.path] {
				n++
			}
		}
		return n
	}
	if n := cachedColumns(); n != 0 {
		t.Fatalf("%d columns cached before the compaction", n)
	}
	// An older snapshot keeps the replaced segments (and what the cache
	// holds of them) after the compaction.
	old := db.Begin()
	defer old.Rollback()
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	if n := cachedColumns(); n != 0 {
		t.Fatalf("the compaction left %d columns in the cache", n)
	}
	tx := db.Begin()
	defer tx.Rollback()
	rows := scanRows(t, tx, def.ID, false)
	if len(rows) != 2*smallSegments+1 {
		t.Fatalf("%d rows after the compaction", len(rows))
	}
}
