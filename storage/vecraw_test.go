package storage

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// cachedColumn reports whether the column cache holds any row group of
// column colID.
func cachedColumn(db *DB, colID int) bool {
	db.cache.mu.Lock()
	defer db.cache.mu.Unlock()
	for k := range db.cache.entries {
		if k.col == int32(colID) {
			return true
		}
	}
	return false
}

// TestRawVectors checks the raw vector files of indexed vector columns: an
// index build writes one per segment, searches re-rank from it and
// FetchRows of a few rows reads from it without decoding the column into
// the cache, giving back exactly the stored vectors and NULLs; many rows
// are read from the segment as before; and a corrupt file after a restart
// only means the column is read from the segment.
func TestRawVectors(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	embID := def.Columns[1].ID
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_emb", Table: def.ID, Method: "hnsw",
		Columns: []int{embID}, Options: map[string]string{"m": "8", "ef_construction": "32"}}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	const n, dim = 3000, 24
	vecs := clustered(rand.New(rand.NewSource(3)), n, dim)
	var batch [][]any
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			batch = append(batch, []any{i, nil})
		} else {
			batch = append(batch, []any{i, vecs[i]})
		}
	}
	tx = db.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, batch...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := db.BuildVectorIndexes(context.Background(), def.ID, nil); err != nil {
		t.Fatal(err)
	}
	seg := db.published.Load().tables[def.ID].segments[0]
	if _, err := os.Stat(vecRawPath(seg.path, embID)); err != nil {
		t.Fatalf("no raw vector file: %v", err)
	}
	rowIDs := map[int]int64{} // id -> row ID
	tx = db.Begin()
	for _, r := range scanRows(t, tx, def.ID, true) {
		rowIDs[r[0].(int)] = r[2].(int64)
	}
	tx.Rollback()

	// check fetches ids and compares their vectors with what was stored.
	check := func(what string, ids []int) {
		t.Helper()
		var want []int64
		for _, id := range ids {
			want = append(want, rowIDs[id])
		}
		tx := db.Begin()
		defer tx.Rollback()
		rec, err := tx.FetchRows(context.Background(), def.ID, []int{0, 1}, want)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		if int(rec.NumRows()) != len(ids) {
			t.Fatalf("%s: %d rows of %d", what, rec.NumRows(), len(ids))
		}
		idCol, embCol := rec.Column(0).(*array.Int64), rec.Column(1)
		for i := 0; i < len(ids); i++ {
			id := int(idCol.Value(i))
			got := vectorAt(embCol, i)
			switch {
			case id%7 == 3 && !embCol.IsNull(i):
				t.Fatalf("%s: row %d: a NULL vector came back as %v", what, id, got)
			case id%7 != 3 && !slices.Equal(got, vecs[id]):
				t.Fatalf("%s: row %d: vector %v, stored %v", what, id, got, vecs[id])
			}
		}
	}
	search := func() {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		q := vecs[100]
		hits, err := tx.VectorSearch(context.Background(), def.ID, ix, q, 5, VectorEffort{Ef: 40}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 5 || hits[0].Dist > 1e-5 || hits[0].RowID != rowIDs[100] {
			t.Fatalf("search: %v, want row %d first", hits, rowIDs[100])
		}
	}

	db.cache.clear()
	search()
	check("few rows", []int{5, 3, 2999, 10, 11, 12, 1000})
	if cachedColumn(db, embID) {
		t.Fatal("a search and a fetch of a few rows decoded the vector column into the cache")
	}
	// A scan reads the indexed column from the raw file, rows and NULLs
	// as stored, when the cache has no room for it (here: a budget of a
	// few bytes), without decoding it into the cache.
	db.cache.mu.Lock()
	budget := db.cache.budget
	db.cache.budget = 1024
	db.cache.mu.Unlock()
	tx = db.Begin()
	sc, err := tx.Scan(context.Background(), def.ID, []int{0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for sc.Next() {
		rec := sc.Record()
		ids, emb := rec.Column(0).(*array.Int64), rec.Column(1)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := int(ids.Value(i))
			if got := vectorAt(emb, i); id%7 == 3 && !emb.IsNull(i) || id%7 != 3 && !slices.Equal(got, vecs[id]) {
				t.Fatalf("scan: row %d: vector %v (NULL %v), stored %v", id, got, emb.IsNull(i), vecs[id])
			}
			scanned++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sc.Release()
	tx.Rollback()
	if scanned != n || cachedColumn(db, embID) {
		t.Fatalf("scan: %d rows of %d, column cached %v", scanned, n, cachedColumn(db, embID))
	}
	db.cache.mu.Lock()
	db.cache.budget = budget
	db.cache.mu.Unlock()
	// A window that starts inside the file, as a later row group's does.
	raw := segRawVectors(seg, embID)
	lt := arrow.ListOf(arrow.PrimitiveTypes.Float32)
	win, err := raw.column(lt, 1000, 37)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := raw.open(false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < win.Len(); i++ {
		want := rd.vector(1000 + i)
		if got := vectorAt(win, i); win.IsNull(i) != (want == nil) || !slices.Equal(got, want) {
			t.Fatalf("window row %d: %v, file %v", i, got, want)
		}
	}
	win.Release()
	if _, err := raw.column(lt, n-5, 50); err == nil {
		t.Fatal("a window past the file's rows read")
	}

	// A third of the segment's rows are still read from the raw file;
	// more than half of them are decoded from the segment.
	var third, most []int
	for id := 0; id < int(seg.rows); id++ {
		if id%3 == 0 {
			third = append(third, id)
		}
		if id%5 != 0 {
			most = append(most, id)
		}
	}
	check("a third of the rows", third)
	if cachedColumn(db, embID) {
		t.Fatal("a fetch of a third of the rows decoded the vector column into the cache")
	}
	check("most rows", most)
	if !cachedColumn(db, embID) {
		t.Fatal("a fetch of most rows did not read the column")
	}

	// A corrupt raw file: the column is read instead.
	db.Close()
	path := vecRawPath(seg.path, embID)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	search()
	check("corrupt raw file", []int{5, 3, 2999})
	if !cachedColumn(db, embID) {
		t.Fatal("with a corrupt raw file the column was not read from the segment")
	}
}

// TestVectorIndexMemoryReserved checks that a loaded vector index's memory
// is reserved in the column cache's budget while it is loaded, and given
// back when the index is dropped and when its table is.
func TestVectorIndexMemoryReserved(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{CacheBytes: 64 << 20})
	defer db.Close()
	reserved := func() int64 {
		db.cache.mu.Lock()
		defer db.cache.mu.Unlock()
		return db.cache.reserved
	}
	for round, drop := range []string{"index", "table"} {
		name := "mem" + strconv.Itoa(round)
		def := createTable(t, db, name, []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
		ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: name + "_emb", Table: def.ID, Method: "hnsw",
			Columns: []int{def.Columns[1].ID}, Options: map[string]string{"m": "8", "ef_construction": "32"}}
		tx := db.Begin()
		if err := tx.CreateIndex(ix); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
		vecs := clustered(rand.New(rand.NewSource(5)), 2000, 16)
		var batch [][]any
		for i, v := range vecs {
			batch = append(batch, []any{i, v})
		}
		tx = db.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, batch...)); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
		if err := db.BuildVectorIndexes(context.Background(), def.ID, nil); err != nil {
			t.Fatal(err)
		}
		var want int64
		for _, seg := range db.published.Load().tables[def.ID].segments {
			for _, x := range seg.x.vec {
				want += x.Bytes()
			}
		}
		if want == 0 || reserved() != want {
			t.Fatalf("%s: %d bytes reserved for indexes of %d bytes", drop, reserved(), want)
		}
		tx = db.Begin()
		if drop == "index" {
			if err := tx.DropIndex(catalog.PublicSchema, ix.Name); err != nil {
				t.Fatal(err)
			}
		} else if err := tx.DropTable(def.ID); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
		deadline := time.Now().Add(10 * time.Second)
		for reserved() != 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if r := reserved(); r != 0 {
			t.Fatalf("after dropping the %s: %d bytes still reserved", drop, r)
		}
	}
}

// TestRawReaderLayouts reads vectors from a raw file whose vectors start
// at an offset that is not a multiple of 4 (files written before the
// padding) and at one that is, one at a time and in blocks of more rows
// than one read takes, through the file kept open for all readers and,
// with rawFilesKeptMax files kept already, through a reader's own.
func TestRawReaderLayouts(t *testing.T) {
	const rows = rawBlockRows + 3
	vecs := make([][]float32, rows)
	present := make([]byte, (rows+7)/8)
	for r := range vecs {
		if r%3 == 1 {
			continue // NULL
		}
		vecs[r] = []float32{float32(r) + 0.5, -2, float32(-r) * 0.125}
		present[r>>3] |= 1 << (r & 7)
	}
	for _, crowded := range []bool{false, true} {
		if crowded {
			rawFilesKept.Add(rawFilesKeptMax)
			defer rawFilesKept.Add(-rawFilesKeptMax)
		}
		for _, body := range []int{5, 8} {
			readLayout(t, vecs, present, body, crowded)
		}
	}
}

// readLayout writes vecs as a raw file whose vectors start at offset body
// and reads them back; crowded: no room is left to keep its file open.
func readLayout(t *testing.T, vecs [][]float32, present []byte, body int, crowded bool) {
	rows := len(vecs)
	data := make([]byte, body)
	for _, v := range vecs {
		for i := 0; i < 3; i++ {
			x := float32(0)
			if v != nil {
				x = v[i]
			}
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
	}
	path := filepath.Join(t.TempDir(), "v.vraw")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	raw := &rawVectors{path: path, dim: 3, rows: rows, present: present, body: int64(body)}
	rd, err := raw.open(false)
	if err != nil {
		t.Fatal(err)
	}
	if rd.own != crowded || (raw.file == nil) != crowded {
		t.Fatalf("body at %d, %d files kept: reader's own file %v, kept file %v", body, rawFilesKept.Load(), rd.own, raw.file != nil)
	}
	for row, want := range vecs {
		if got := rd.vector(row); !slices.Equal(got, want) {
			t.Errorf("body at %d: row %d = %v, want %v", body, row, got, want)
		}
	}
	seen := 0
	rd.each(func(row int, got []float32) {
		seen++
		if !slices.Equal(got, vecs[row]) {
			t.Errorf("body at %d, in order: row %d = %v, want %v", body, row, got, vecs[row])
		}
	})
	if want := rows - rows/3; seen != want {
		t.Errorf("body at %d: each gave %d rows, want %d", body, seen, want)
	}
	if err := rd.close(); err != nil {
		t.Fatal(err)
	}
}
