package storage

import (
	"context"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// vecTable is a table mem(id int8, emb real[]) with a cosine hnsw index,
// and what the test wrote to it: the vector of every live id, so that
// every search can be checked against exact search.
type vecTable struct {
	t    *testing.T
	dir  string
	db   *DB
	def  *catalog.TableDef
	ix   *catalog.IndexDef
	vecs map[int][]float32 // live rows: id column -> vector
	next int               // the next id
}

// newVecTable opens a database in a temporary folder and creates the
// table and its index.
func newVecTable(t *testing.T, opts Options) *vecTable {
	dir := t.TempDir()
	db := openDB(t, dir, opts)
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	v := &vecTable{t: t, dir: dir, db: db, def: def, vecs: map[int][]float32{}}
	v.ix = v.createIndex("mem_emb", catalog.OpClassCosine)
	t.Cleanup(func() { v.db.Close() })
	return v
}

// createIndex commits an hnsw index on emb with the operator class.
func (v *vecTable) createIndex(name, opclass string) *catalog.IndexDef {
	v.t.Helper()
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: name, Table: v.def.ID, Method: "hnsw", OpClass: opclass,
		Columns: []int{v.def.Columns[1].ID}, Options: map[string]string{"m": "16", "ef_construction": "64"}}
	tx := v.db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		v.t.Fatal(err)
	}
	mustCommit(v.t, tx)
	return ix
}

// insert commits the vectors as new rows.
func (v *vecTable) insert(vs [][]float32) {
	v.t.Helper()
	tx := v.db.Begin()
	v.insertIn(tx, vs)
	mustCommit(v.t, tx)
}

// insertIn inserts the vectors as new rows in tx (recorded as live: the
// caller commits tx).
func (v *vecTable) insertIn(tx *Tx, vs [][]float32) {
	v.t.Helper()
	var rows [][]any
	for _, vec := range vs {
		rows = append(rows, []any{v.next, vec})
		v.vecs[v.next] = vec
		v.next++
	}
	if err := tx.Insert(v.def.ID, makeRecord(v.t, v.def, rows...)); err != nil {
		v.t.Fatal(err)
	}
}

// rowIDs returns the row ID of every live id, as tx sees them.
func (v *vecTable) rowIDs(tx *Tx) map[int]int64 {
	v.t.Helper()
	r, err := tx.Scan(context.Background(), v.def.ID, []int{0}, true)
	if err != nil {
		v.t.Fatal(err)
	}
	defer r.Release()
	out := map[int]int64{}
	for r.Next() {
		rec := r.Record()
		ids, rids := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			out[int(ids.Value(i))] = rids.Value(i)
		}
	}
	if err := r.Err(); err != nil {
		v.t.Fatal(err)
	}
	return out
}

// remove deletes the rows with these ids.
func (v *vecTable) remove(ids []int) {
	v.t.Helper()
	tx := v.db.Begin()
	rids := v.rowIDs(tx)
	var del []int64
	for _, id := range ids {
		del = append(del, rids[id])
		delete(v.vecs, id)
	}
	if err := tx.Delete(v.def.ID, del); err != nil {
		v.t.Fatal(err)
	}
	mustCommit(v.t, tx)
}

// update gives the rows with these ids new vectors, as an UPDATE does:
// the old row versions are deleted, new ones inserted with the same id.
func (v *vecTable) update(ids []int, vs [][]float32) {
	v.t.Helper()
	tx := v.db.Begin()
	rids := v.rowIDs(tx)
	var del []int64
	var rows [][]any
	for i, id := range ids {
		if _, ok := rids[id]; !ok {
			v.t.Fatalf("update of id %d, which is not a live row", id)
		}
		del = append(del, rids[id])
		rows = append(rows, []any{id, vs[i]})
		v.vecs[id] = vs[i]
	}
	if err := tx.Delete(v.def.ID, del); err != nil {
		v.t.Fatal(err)
	}
	if err := tx.Insert(v.def.ID, makeRecord(v.t, v.def, rows...)); err != nil {
		v.t.Fatal(err)
	}
	mustCommit(v.t, tx)
}

func (v *vecTable) flush() {
	v.t.Helper()
	if err := v.db.flushTable(v.def.ID, true); err != nil {
		v.t.Fatal(err)
	}
}

// restart closes the database and opens it again over the same folder.
func (v *vecTable) restart() {
	v.t.Helper()
	if err := v.db.Close(); err != nil {
		v.t.Fatal(err)
	}
	v.db = openDB(v.t, v.dir, Options{})
}

// exactIDs is the ids of the k live rows nearest to q among those allow
// accepts (nil: all), by exact cosine distance, ties by row ID.
func (v *vecTable) exactIDs(rids map[int]int64, q []float32, k int, allow func(id int) bool) []int {
	var ids []int
	dist := map[int]float32{}
	for id, vec := range v.vecs {
		if allow == nil || allow(id) {
			ids = append(ids, id)
			dist[id] = cosineDist(vec, q)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if dist[ids[i]] != dist[ids[j]] {
			return dist[ids[i]] < dist[ids[j]]
		}
		return rids[ids[i]] < rids[ids[j]]
	})
	return ids[:min(k, len(ids))]
}

// check searches for every query and compares with exact search: each
// hit is a live row (a deleted row or an old version of an updated one
// would not be) at its exact distance, hits come nearest first, there are
// min(k, live rows) of them, and the mean recall@k is at least minRecall.
// It returns the mean recall.
func (v *vecTable) check(queries [][]float32, k int, minRecall float64) float64 {
	v.t.Helper()
	tx := v.db.Begin()
	defer tx.Rollback()
	rids := v.rowIDs(tx)
	if len(rids) != len(v.vecs) {
		v.t.Fatalf("%d rows, want %d", len(rids), len(v.vecs))
	}
	byRow := map[int64]int{}
	for id, rid := range rids {
		byRow[rid] = id
	}
	total := 0.0
	for _, q := range queries {
		hits, err := tx.VectorSearch(context.Background(), v.def.ID, v.ix, q, k, VectorEffort{Ef: 100}, nil)
		if err != nil {
			v.t.Fatal(err)
		}
		want := v.exactIDs(rids, q, k, nil)
		total += v.checkHits(hits, want, byRow, q)
	}
	mean := total / float64(len(queries))
	if mean < minRecall {
		v.t.Fatalf("mean recall@%d %.3f, want at least %.2f", k, mean, minRecall)
	}
	return mean
}

// checkHits checks hits against the exact answer want (ids) and returns
// the recall.
func (v *vecTable) checkHits(hits []VectorHit, want []int, byRow map[int64]int, q []float32) float64 {
	v.t.Helper()
	if len(hits) != len(want) {
		v.t.Fatalf("%d hits, want %d", len(hits), len(want))
	}
	found := 0
	wanted := map[int]bool{}
	for _, id := range want {
		wanted[id] = true
	}
	for i, h := range hits {
		id, ok := byRow[h.RowID]
		if !ok {
			v.t.Fatalf("hit %d: row %d is not a live row", i, h.RowID)
		}
		if d := cosineDist(v.vecs[id], q); math.Abs(float64(d-h.Dist)) > 1e-4 {
			v.t.Fatalf("hit %d: row %d at distance %v, its vector's is %v", i, h.RowID, h.Dist, d)
		}
		if i > 0 && h.Dist < hits[i-1].Dist {
			v.t.Fatalf("hits not nearest first: %v", hits)
		}
		if wanted[id] {
			found++
		}
	}
	if len(want) == 0 {
		return 1
	}
	return float64(found) / float64(len(want))
}

// vecFiles returns the names of the table's vector index files.
func (v *vecTable) vecFiles() []string {
	v.t.Helper()
	rt := v.db.lookupRT(v.def.ID)
	ents, err := os.ReadDir(rt.dir)
	if err != nil {
		v.t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), vecIndexExt) {
			out = append(out, e.Name())
		}
	}
	return out
}

// wantVecFiles fails unless the index files are exactly one per segment
// for each of the indexes.
func (v *vecTable) wantVecFiles(ixs ...*catalog.IndexDef) {
	v.t.Helper()
	// A search may have just queued a segment's build (one flushed at the
	// last close, say): the files are those once the builder is idle.
	waitVectorBuilds(v.t, v.db)
	var want []string
	for _, seg := range v.db.published.Load().tables[v.def.ID].segments {
		for _, ix := range ixs {
			spec, _ := vectorSpec(ix, v.def)
			want = append(want, filepath.Base(vecIndexPath(seg.path, spec.key)))
		}
	}
	sort.Strings(want)
	got := v.vecFiles()
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		v.t.Fatalf("vector index files %v, want %v", got, want)
	}
}

// TestVectorSearchAfterChanges checks indexed search against exact search
// through the life of a table: after deletes (the nearest rows of every
// query among them), after updates that move rows next to the queries
// (the old versions must not come back, the new ones must be found, in
// the tail and once flushed), after compaction merges the segments, and
// after a restart, which reads the index files without building again.
func TestVectorSearchAfterChanges(t *testing.T) {
	v := newVecTable(t, Options{})
	rng := rand.New(rand.NewSource(11))
	const dim = 24
	data := clustered(rng, 9*500+150+25, dim) // the last 25: queries
	for s := 0; s < 9; s++ {
		v.insert(data[s*500 : (s+1)*500])
		v.flush()
	}
	v.insert(data[9*500 : 9*500+150]) // the unflushed tail
	waitVectorBuilds(t, v.db)
	v.wantVecFiles(v.ix)
	queries := data[9*500+150:]
	v.check(queries, 10, 0.95)

	// Deletes: the three nearest rows of every query and a tenth of the
	// rest.
	tx := v.db.Begin()
	rids := v.rowIDs(tx)
	tx.Rollback()
	gone := map[int]bool{}
	for _, q := range queries {
		for _, id := range v.exactIDs(rids, q, 3, nil) {
			gone[id] = true
		}
	}
	for id := range v.vecs {
		if rng.Intn(10) == 0 {
			gone[id] = true
		}
	}
	var del []int
	for id := range gone {
		del = append(del, id)
	}
	v.remove(del)
	v.check(queries, 10, 0.95)

	// Updates: rows of the segments move next to the queries; they
	// must now be found first, and their old versions never.
	var ids []int
	var moved [][]float32
	for i, q := range queries {
		for _, id := range []int{i * 170, i*170 + 1} {
			if _, ok := v.vecs[id]; !ok {
				continue
			}
			nv := make([]float32, dim)
			for j := range nv {
				nv[j] = q[j] + 0.01*float32(rng.NormFloat64())
			}
			ids = append(ids, id)
			moved = append(moved, nv)
		}
	}
	v.update(ids, moved)
	v.check(queries, 10, 0.95)
	v.flush()
	waitVectorBuilds(t, v.db)
	v.check(queries, 10, 0.95)

	// Compaction merges the segments and drops the deleted rows; the
	// merged segment is indexed and the replaced ones' files go.
	if err := v.db.compactTable(v.def.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(v.db.published.Load().tables[v.def.ID].segments); n >= 10 {
		t.Fatalf("%d segments after compacting the 10 flushes wrote", n)
	}
	v.check(queries, 10, 0.95)
	waitVectorBuilds(t, v.db)
	v.check(queries, 10, 0.95)
	v.wantVecFiles(v.ix)
	for _, seg := range v.db.published.Load().tables[v.def.ID].segments {
		spec, _ := vectorSpec(v.ix, v.def)
		if !v.db.segVectorIndexLoaded(seg, spec) {
			t.Fatalf("segment %s has no index after compaction", seg.path)
		}
	}

	// A restart reads the files: nothing is built again.
	v.restart()
	v.check(queries, 10, 0.95)
	v.db.vecMu.Lock()
	queued := len(v.db.vecQueue) + len(v.db.vecQueued)
	v.db.vecMu.Unlock()
	if queued != 0 {
		t.Fatalf("%d builds queued after a restart", queued)
	}
	v.wantVecFiles(v.ix)
}

// TestVectorSearchFilterSelectivity searches with allowed-row sets of
// every selectivity, from no row to all of them: a search always returns
// min(k, qualifying) rows, all qualifying; when few rows qualify it is
// exact search's answer, and otherwise its recall stays high.
func TestVectorSearchFilterSelectivity(t *testing.T) {
	v := newVecTable(t, Options{})
	rng := rand.New(rand.NewSource(5))
	const dim = 16
	data := clustered(rng, 3*2000+300+15, dim) // the last 15: queries
	for s := 0; s < 3; s++ {
		v.insert(data[s*2000 : (s+1)*2000])
		v.flush()
	}
	v.insert(data[3*2000 : 3*2000+300])
	waitVectorBuilds(t, v.db)
	// Deleted rows: an allowed-row set that holds them finds nothing.
	tx := v.db.Begin()
	everRIDs := v.rowIDs(tx)
	tx.Rollback()
	v.remove([]int{3, 4000, 6100})
	queries := data[3*2000+300:]

	tx = v.db.Begin()
	defer tx.Rollback()
	rids := v.rowIDs(tx)
	byRow := map[int64]int{}
	for id, rid := range rids {
		byRow[rid] = id
	}
	const k = 10
	for _, c := range []struct {
		name string
		keep func(id int) bool
		// exact: the answer must be exact search's (few rows qualify).
		exact     bool
		minRecall float64
	}{
		{"none", func(id int) bool { return false }, true, 1},
		{"one row", func(id int) bool { return id == 4321 }, true, 1},
		{"fewer than k", func(id int) bool { return id%1000 == 7 }, true, 1},
		{"deleted rows only", func(id int) bool { return id == 3 || id == 4000 || id == 6100 }, true, 1},
		{"1%", func(id int) bool { return id%100 == 3 }, false, 0.95},
		{"10%", func(id int) bool { return id%10 == 1 }, false, 0.95},
		{"50%", func(id int) bool { return id%2 == 0 }, false, 0.95},
		{"all rows", func(id int) bool { return true }, false, 0.95},
	} {
		allow := roaring64.New()
		for id := 0; id < v.next; id++ {
			if c.keep(id) {
				allow.Add(uint64(everRIDs[id]))
			}
		}
		live := func(id int) bool { return c.keep(id) }
		total := 0.0
		for _, q := range queries {
			hits, err := tx.VectorSearch(context.Background(), v.def.ID, v.ix, q, k, VectorEffort{Ef: 40}, allow)
			if err != nil {
				t.Fatal(err)
			}
			want := v.exactIDs(rids, q, k, live)
			r := v.checkHits(hits, want, byRow, q)
			for _, h := range hits {
				if !allow.Contains(uint64(h.RowID)) {
					t.Fatalf("%s: row %d does not qualify", c.name, h.RowID)
				}
			}
			if c.exact {
				for i, h := range hits {
					if byRow[h.RowID] != want[i] {
						t.Fatalf("%s: hit %d is id %d, exact search's is %d", c.name, i, byRow[h.RowID], want[i])
					}
				}
			}
			total += r
		}
		mean := total / float64(len(queries))
		t.Logf("%s: mean recall@%d %.3f", c.name, k, mean)
		if mean < c.minRecall {
			t.Fatalf("%s: mean recall@%d %.3f, want at least %.2f", c.name, k, mean, c.minRecall)
		}
	}
}

// TestVectorBuildConcurrentWrites writes from other goroutines while a
// large segment is being indexed: inserts, updates and deletes commit
// while the build runs (it blocks no writer; the bound on a commit is
// generous, for a loaded machine), readers search meanwhile, and
// afterwards search agrees with exact search and no deleted row comes
// back.
func TestVectorBuildConcurrentWrites(t *testing.T) {
	v := newVecTable(t, Options{FlushRows: 1 << 30})
	rng := rand.New(rand.NewSource(3))
	const dim = 64
	data := clustered(rng, 20000+10+2000, dim)
	v.insert(data[:20000])
	queries, extra := data[20000:20010], data[20010:]

	v.flush() // queues the build of the 20,000-row segment
	building := func() bool {
		v.db.vecMu.Lock()
		defer v.db.vecMu.Unlock()
		return v.db.vecRunning
	}
	if !building() {
		t.Fatal("no build running after the flush")
	}
	var mu sync.Mutex // v's maps: the writer owns them while it runs
	duringBuild, slowest := 0, time.Duration(0)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			mu.Lock()
			start := time.Now()
			switch i % 3 {
			case 0:
				v.insert(extra[i%len(extra) : i%len(extra)+1])
			case 1:
				if _, ok := v.vecs[i*7%20000]; ok {
					v.update([]int{i * 7 % 20000}, [][]float32{extra[(i*13)%len(extra)]})
				}
			case 2:
				if _, ok := v.vecs[i*11%20000]; ok {
					v.remove([]int{i * 11 % 20000})
				}
			}
			took := time.Since(start)
			if building() {
				duringBuild++
				slowest = max(slowest, took)
			}
			mu.Unlock()
		}
	}()
	// A reader searches while the build runs: the segment is scored
	// exactly until its index is ready.
	readTx := v.db.Begin()
	if _, err := readTx.VectorSearch(context.Background(), v.def.ID, v.ix, queries[0], 10, VectorEffort{Ef: 100}, nil); err != nil {
		t.Fatal(err)
	}
	readTx.Rollback()
	waitVectorBuilds(t, v.db)
	close(stop)
	<-done
	t.Logf("%d commits during the build, the slowest %v", duringBuild, slowest)
	if duringBuild == 0 {
		t.Fatal("no writer committed while the index was being built")
	}
	if slowest > 5*time.Second {
		t.Fatalf("a commit took %v while the index was being built", slowest)
	}
	spec, _ := vectorSpec(v.ix, v.def)
	seg := v.db.published.Load().tables[v.def.ID].segments[0]
	if !v.db.segVectorIndexLoaded(seg, spec) {
		t.Fatal("the segment has no index after its build")
	}
	v.check(queries, 10, 0.95)
	v.flush()
	waitVectorBuilds(t, v.db)
	v.check(queries, 10, 0.95)
}

// TestVectorIndexFiles checks that a segment keeps the vector index files
// of the indexes the catalog has and no others: DROP INDEX removes its
// files (another index with the same definition keeps them), a build
// that finishes after its index was dropped leaves no file, compaction
// and TRUNCATE remove the replaced segments' files, and a restart
// removes files no index or segment uses and temporary files of a build
// cut short.
func TestVectorIndexFiles(t *testing.T) {
	v := newVecTable(t, Options{})
	l2 := v.createIndex("mem_l2", catalog.OpClassL2)
	twin := v.createIndex("mem_twin", catalog.OpClassCosine) // same key as mem_emb
	rng := rand.New(rand.NewSource(9))
	const dim = 8
	data := clustered(rng, 3*300+7*50+5, dim)
	queries := data[3*300+7*50:]
	for s := 0; s < 3; s++ {
		v.insert(data[s*300 : (s+1)*300])
		v.flush()
	}
	waitVectorBuilds(t, v.db)
	v.wantVecFiles(v.ix, l2)

	drop := func(ix *catalog.IndexDef) {
		t.Helper()
		tx := v.db.Begin()
		if err := tx.DropIndex(ix.Schema, ix.Name); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	drop(twin)
	v.wantVecFiles(v.ix, l2)
	drop(l2)
	v.wantVecFiles(v.ix)
	spec, _ := vectorSpec(l2, v.def)
	for _, seg := range v.db.published.Load().tables[v.def.ID].segments {
		seg.x.mu.Lock()
		_, kept := seg.x.vec[spec.key]
		seg.x.mu.Unlock()
		if kept {
			t.Fatalf("segment %s keeps the dropped index in memory", seg.path)
		}
	}
	v.check(queries, 10, 0.95)

	// A build of an index dropped meanwhile (a transaction that still
	// sees it searched): no file.
	old := v.db.Begin()
	drop(v.ix)
	if _, err := old.VectorSearch(context.Background(), v.def.ID, v.ix, queries[0], 10, VectorEffort{Ef: 100}, nil); err != nil {
		t.Fatal(err)
	}
	old.Rollback()
	waitVectorBuilds(t, v.db)
	v.wantVecFiles()
	v.ix = v.createIndex("mem_emb", catalog.OpClassCosine)
	if err := v.db.BuildVectorIndexes(context.Background(), v.def.ID, nil); err != nil {
		t.Fatal(err)
	}
	v.wantVecFiles(v.ix)

	// Compaction: the replaced segments' files go once no reader uses
	// them.
	for s := 0; s < 7; s++ {
		v.insert(data[900+s*50 : 900+(s+1)*50])
		v.flush()
	}
	if err := v.db.compactTable(v.def.ID); err != nil {
		t.Fatal(err)
	}
	waitVectorBuilds(t, v.db)
	v.wantVecFiles(v.ix)
	v.check(queries, 10, 0.95)

	// A restart removes an unknown index's file, a file of a segment
	// that does not exist, and a temporary file.
	seg := v.db.published.Load().tables[v.def.ID].segments[0]
	if err := v.db.Close(); err != nil {
		t.Fatal(err)
	}
	strays := []string{
		vecIndexPath(seg.path, "0123abcd"),
		vecIndexPath(filepath.Join(filepath.Dir(seg.path), "seg-999999.parquet"), "0123abcd"),
		vecIndexPath(seg.path, spec.key) + ".tmp",
	}
	for _, p := range strays {
		if err := os.WriteFile(p, []byte("stray"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v.db = openDB(t, v.dir, Options{})
	for _, p := range strays {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s left after a restart (%v)", filepath.Base(p), err)
		}
	}
	v.wantVecFiles(v.ix)
	v.check(queries, 10, 0.95)

	// TRUNCATE: no segment, no file.
	tx := v.db.Begin()
	if err := tx.Truncate(v.def.ID); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	clear(v.vecs)
	v.flush()
	if files := v.vecFiles(); len(files) != 0 {
		t.Fatalf("vector index files after TRUNCATE: %v", files)
	}
	v.check(queries, 10, 1)
}

// TestVectorSearchHighDimensions indexes 4,096-dimensional vectors (past
// pgvector's 2,000 for hnsw): the index is built, persisted and read
// back, and search agrees with exact search.
func TestVectorSearchHighDimensions(t *testing.T) {
	v := newVecTable(t, Options{})
	rng := rand.New(rand.NewSource(2))
	const dim = 4096
	data := clustered(rng, 1200+8, dim)
	v.insert(data[:1000])
	v.flush()
	v.insert(data[1000:1200])
	waitVectorBuilds(t, v.db)
	spec, _ := vectorSpec(v.ix, v.def)
	seg := v.db.published.Load().tables[v.def.ID].segments[0]
	if ix := v.db.segVectorIndex(seg, v.def, spec); ix == nil || ix.Dim() != dim {
		t.Fatalf("no %d-dimensional index: %v", dim, ix)
	}
	queries := data[1200:]
	v.check(queries, 10, 0.95)
	v.restart()
	v.check(queries, 10, 0.95)
	v.wantVecFiles(v.ix)
}

// TestVectorIndexDroppedDuringBuild drops an index while a segment's build
// for it runs, and searches with an index a transaction created and has
// not committed: neither leaves a file or an index in memory, and the
// uncommitted index's search is exact search's.
func TestVectorIndexDroppedDuringBuild(t *testing.T) {
	v := newVecTable(t, Options{FlushRows: 1 << 30})
	rng := rand.New(rand.NewSource(4))
	const dim = 64
	data := clustered(rng, 20000+5, dim)
	v.insert(data[:20000])
	v.flush()
	running := func() bool {
		v.db.vecMu.Lock()
		defer v.db.vecMu.Unlock()
		return v.db.vecRunning
	}
	if !running() {
		t.Fatal("no build running after the flush")
	}
	tx := v.db.Begin()
	if err := tx.DropIndex(v.ix.Schema, v.ix.Name); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if !running() {
		t.Fatal("the build ended before the index was dropped")
	}
	waitVectorBuilds(t, v.db)
	v.wantVecFiles()
	spec, _ := vectorSpec(v.ix, v.def)
	seg := v.db.published.Load().tables[v.def.ID].segments[0]
	seg.x.mu.Lock()
	_, kept := seg.x.vec[spec.key]
	seg.x.mu.Unlock()
	if kept {
		t.Fatal("the dropped index is kept in memory")
	}

	// An uncommitted index: its searches are exact and build nothing.
	tx = v.db.Begin()
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_new", Table: v.def.ID, Method: "hnsw", OpClass: catalog.OpClassCosine,
		Columns: []int{v.def.Columns[1].ID}, Options: map[string]string{"m": "16", "ef_construction": "64"}}
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	rids := v.rowIDs(tx)
	byRow := map[int64]int{}
	for id, rid := range rids {
		byRow[rid] = id
	}
	for _, q := range data[20000:] {
		hits, err := tx.VectorSearch(context.Background(), v.def.ID, ix, q, 10, VectorEffort{Ef: 40}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := v.exactIDs(rids, q, 10, nil)
		if r := v.checkHits(hits, want, byRow, q); r != 1 {
			t.Fatalf("uncommitted index: recall %.2f, want exact search's answer", r)
		}
	}
	if running() {
		t.Fatal("a search with an uncommitted index started a build")
	}
	tx.Rollback()
	v.wantVecFiles()
}

// TestVectorBuildSkipsMergedSegments: a table's segments are searched
// together (in parallel) with the same answers as exact search, and a
// build still queued for a segment that compaction has since merged into
// another is skipped: the merged segment has a build of its own.
func TestVectorBuildSkipsMergedSegments(t *testing.T) {
	v := newVecTable(t, Options{})
	rng := rand.New(rand.NewSource(12))
	const dim = 16
	data := clustered(rng, 2*smallSegments*200+20, dim) // the last 20: queries
	for s := 0; s < 2*smallSegments; s++ {
		v.insert(data[s*200 : (s+1)*200])
		v.flush()
	}
	waitVectorBuilds(t, v.db)
	queries := data[2*smallSegments*200:]
	v.check(queries, 10, 0.95)
	old := v.db.published.Load().tables[v.def.ID].segments
	if err := v.db.compactTable(v.def.ID); err != nil {
		t.Fatal(err)
	}
	waitVectorBuilds(t, v.db)
	if n := len(v.db.published.Load().tables[v.def.ID].segments); n != 1 {
		t.Fatalf("%d segments after compacting %d small ones, want 1", n, len(old))
	}
	v.check(queries, 10, 0.95)
	builds := v.db.counters.vectorBuilds.Load()
	spec, _ := vectorSpec(v.ix, v.def)
	for _, seg := range old {
		if !seg.x.merged.Load() {
			t.Fatalf("segment %s not marked merged", seg.path)
		}
		if err := v.db.buildVectorIndex(context.Background(), vecBuild{seg: seg, def: v.def, spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.db.counters.vectorBuilds.Load(); n != builds {
		t.Fatalf("%d builds of merged segments ran", n-builds)
	}
}

// TestCreateIndexWaitsForMergedSegments: when compaction merges a table's
// segments while CREATE INDEX waits for their builds (a bulk load's
// merges go on after the COPY), the builds of the replaced segments are
// skipped and CREATE INDEX returns once the merged segment is indexed.
func TestCreateIndexWaitsForMergedSegments(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	v := &vecTable{t: t, db: db, def: def, vecs: map[int][]float32{}}
	t.Cleanup(func() { v.db.Close() })
	rng := rand.New(rand.NewSource(13))
	const dim = 16
	data := clustered(rng, 2*smallSegments*100+20, dim)
	for s := 0; s < 2*smallSegments; s++ {
		v.insert(data[s*100 : (s+1)*100])
		v.flush()
	}
	v.ix = v.createIndex("mem_emb", catalog.OpClassCosine)

	// The first build waits until the compaction is done.
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	testHookVectorBuild = func(*segment) {
		once.Do(func() { close(started); <-release })
	}
	defer func() { testHookVectorBuild = nil }()
	var progress atomic.Int64
	built := make(chan error, 1)
	go func() {
		built <- db.BuildVectorIndexes(context.Background(), def.ID, func(rows int64) { progress.Add(rows) })
	}()
	<-started
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	segs := db.head.Load().tables[def.ID].segments
	if len(segs) != 1 {
		t.Fatalf("%d segments after the compaction, want 1", len(segs))
	}
	spec, _ := vectorSpec(v.ix, def)
	if !db.segVectorIndexLoaded(segs[0], spec) {
		t.Fatal("CREATE INDEX returned before the merged segment was indexed")
	}
	if n := db.counters.vectorBuilds.Load(); n != 1 {
		t.Fatalf("%d builds, want 1 (the merged segment's)", n)
	}
	if p := progress.Load(); p != segs[0].rows {
		t.Fatalf("progress told %d rows, want the merged segment's %d", p, segs[0].rows)
	}
	v.check(data[2*smallSegments*100:], 10, 0.95)
}
