package storage

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// The reader fuzzers start from a real data directory (templateDataDir: a
// checkpointed table with a column of each storage shape, a deletion vector
// and a unique index), replace one file with the fuzzer's bytes and read it
// back the way recovery and scans do. Whatever the bytes, the reader must
// answer an error, never panic: a damaged file must not take a server down
// at startup or in the middle of a scan.

// fuzzTemplate is a checkpointed data directory held in memory: its files
// by path relative to the directory.
type fuzzTemplate struct {
	files map[string][]byte
	def   *catalog.TableDef
	// segment and manifest are the paths of the table's one segment file
	// and its manifest.
	segment, manifest string
}

// templateDataDir builds the template: table public.t with one flushed
// segment of five rows, one of them deleted.
func templateDataDir(f *testing.F) *fuzzTemplate {
	dir := f.TempDir()
	db := openDB(f, dir, Options{})
	int4s := types.ArrayOf(types.Int4T, 1)
	def := createTable(f, db, "t", []catalog.ColumnDef{
		col("id", types.Int8T), col("v", types.TextT), col("emb", types.Float4ArrayT), col("ok", types.BoolT),
		col("x", types.Float8T), col("d", types.DateT), col("ts", types.TimestampTZT), col("by", types.ByteaT),
		col("u", types.UUIDT), col("ia", int4s), col("s", types.Int2T)}, 0)
	tx := db.Begin()
	if err := tx.CreateIndex(&catalog.IndexDef{Schema: catalog.PublicSchema, Name: "t_v", Table: def.ID, Method: "btree", Columns: []int{2}, Unique: true}); err != nil {
		f.Fatal(err)
	}
	mustCommit(f, tx)
	uuid := []byte("0123456789abcdef")
	tx = db.Begin()
	rec := makeRecord(f, def,
		[]any{1, "one", []float32{1, 2, 3}, true, 1.5, 19000, 1700000000000000, []byte{0, 1}, uuid, []any{1, nil, 3}, 7},
		[]any{2, "two words", []float32{}, false, -0.0, 0, 0, []byte{}, uuid, []any{}, -1},
		[]any{3, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		[]any{4, "héllo", []float32{0.5}, true, 1e300, -1, -1, []byte("xyz"), uuid, []any{nil}, 32767},
		[]any{5, "", []float32{-1, -2}, false, 2.0, 3, 5, []byte{0xff}, uuid, []any{5}, 0})
	if err := tx.Insert(def.ID, rec); err != nil {
		f.Fatal(err)
	}
	mustCommit(f, tx)
	tx = db.Begin()
	if err := tx.Delete(def.ID, []int64{2}); err != nil {
		f.Fatal(err)
	}
	mustCommit(f, tx)
	if err := db.Close(); err != nil { // the final checkpoint writes the segment, manifest and catalog.json
		f.Fatal(err)
	}
	tpl := &fuzzTemplate{files: map[string][]byte{}, def: def}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		tpl.files[rel] = b
		switch {
		case strings.HasSuffix(rel, ".parquet"):
			tpl.segment = rel
		case filepath.Base(rel) == manifestName:
			tpl.manifest = rel
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	if tpl.segment == "" || tpl.manifest == "" || tpl.files[catalogFileName] == nil {
		f.Fatalf("template data directory lacks a segment, manifest or catalog: %v", tpl.files)
	}
	if n := openAndScan(tpl.write(f, "", nil)); n != 4 {
		f.Fatalf("the template data directory scans %d rows, want 4", n)
	}
	return tpl
}

// write writes the template to a fresh directory with file rel replaced by
// data, returning the directory.
func (tpl *fuzzTemplate) write(t testing.TB, rel string, data []byte) string {
	dir := t.TempDir()
	for name, b := range tpl.files {
		if name == rel {
			b = data
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openAndScan opens dir as a database and, when it opens, scans every
// column of every table (row IDs too) and closes it, returning the rows it
// read (-1 when the database does not open). Errors are expected; a panic
// fails the fuzzer.
func openAndScan(dir string) int {
	db, err := Open(dir, Options{Logger: quietLogger(), CacheBytes: -1})
	if err != nil {
		return -1
	}
	defer db.Close()
	tx := db.Begin()
	defer tx.Rollback()
	rows := 0
	for id, def := range tx.Catalog().Tables {
		cols := make([]int, len(def.Columns))
		for i := range cols {
			cols[i] = i
		}
		r, err := tx.Scan(context.Background(), id, cols, true)
		if err != nil {
			continue
		}
		for r.Next() {
			rows += int(r.Record().NumRows())
		}
		r.Release()
	}
	return rows
}

// FuzzManifest feeds arbitrary bytes as a table's manifest.json to the
// manifest reader and to a database opening (and scanning) with it.
func FuzzManifest(f *testing.F) {
	tpl := templateDataDir(f)
	f.Add(tpl.files[tpl.manifest])
	f.Add([]byte(`{"version":1,"table_id":1,"segments":[{"file":"../x","rows":1}]}`))
	f.Add([]byte(`{"version":1,"segments":null,"deleted":"AAAA"}`))
	f.Add([]byte(`{"next_row_id":-9223372036854775808,"next_segment":-1,"lsn":18446744073709551615}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := tpl.write(t, tpl.manifest, data)
		if _, _, _, err := readManifest(filepath.Dir(filepath.Join(dir, tpl.manifest))); err != nil {
			return // Open stops at the same error
		}
		openAndScan(dir)
	})
}

// FuzzCatalog feeds arbitrary bytes as catalog.json to a database opening
// (and scanning every table the catalog then names).
func FuzzCatalog(f *testing.F) {
	tpl := templateDataDir(f)
	f.Add(tpl.files[catalogFileName])
	f.Add([]byte(`{"lsn":0,"catalog":{}}`))
	f.Add([]byte(`{"catalog":{"tables":{"1":{"id":1,"schema":"public","name":"t","columns":[{"id":1,"name":"a","type":{"family":99}}]}}}}`))
	f.Add([]byte(`{"catalog":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := tpl.write(t, catalogFileName, data)
		if _, err := readCatalogFile(filepath.Join(dir, catalogFileName)); err != nil {
			return // Open stops at the same error
		}
		openAndScan(dir)
	})
}

// FuzzSegment feeds arbitrary bytes as a Parquet segment file to the
// segment reader: the footer, the row IDs and every column of every row
// group, decoded as the table's Arrow types, and then to a database that
// opens and scans it.
func FuzzSegment(f *testing.F) {
	tpl := templateDataDir(f)
	seg := tpl.files[tpl.segment]
	f.Add(seg)
	f.Add(seg[:len(seg)/2])
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	cols := make([]segColumn, len(tpl.def.Columns))
	for i, c := range tpl.def.Columns {
		cols[i] = segColumn{Name: c.Name, ID: c.ID}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "seg-000001.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		footerGroups(path)
		if !readSegment(&segment{name: filepath.Base(path), path: path, columns: cols, rows: 5}, tpl.def) {
			return // Open's check of the segment stops at the same error
		}
		openAndScan(tpl.write(t, tpl.segment, data))
	})
}

// readSegment decodes every column of every row group of seg as def's
// types, stopping at the first error; it reports whether the file opened.
func readSegment(seg *segment, def *catalog.TableDef) bool {
	sf, err := openSegment(seg)
	if err != nil {
		return false
	}
	defer sf.close()
	for g := 0; g < sf.numRowGroups(); g++ {
		if _, err := sf.readRowIDs(g); err != nil {
			return true
		}
		for _, c := range def.Columns {
			var a arrow.Array
			if a, err = sf.readColumn(g, c.ID, c.Type.Arrow()); err != nil {
				return true
			}
			a.Release()
		}
	}
	return true
}

// TestSegmentDamagedFooterLength opens the FuzzSegment input of 13 bytes
// whose footer length says about 1.5 GB: before checkParquetFooter,
// parquet-go allocated that much and took seconds to refuse it.
func TestSegmentDamagedFooterLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg-000001.parquet")
	if err := os.WriteFile(path, fuzzSeed(t, "FuzzSegment/footer-length-1gb"), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err1 := footerGroups(path)
	_, err2 := openSegment(&segment{name: filepath.Base(path), path: path})
	runtime.ReadMemStats(&after)
	if err1 == nil || err2 == nil {
		t.Fatalf("a damaged footer opened: %v, %v", err1, err2)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("opening a 13-byte segment allocated %d MB", alloc>>20)
	}
}

// fuzzSeed reads the bytes of a []byte regression seed in testdata/fuzz.
func fuzzSeed(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/fuzz/" + name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	v, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(v)
}

// TestWALRecordDamagedIPCLength decodes the FuzzWALRecord crashers whose
// Arrow IPC stream declares a message of about 1.7 GB (ipc-metadata-length-2gb)
// or a column buffer of 16 TB (ipc-buffer-length-16tb, a fatal out of memory)
// in records of a few hundred bytes: the decoder must refuse them without
// allocating what they declare (checkIPCFraming, streamAllocator).
func TestWALRecordDamagedIPCLength(t *testing.T) {
	for _, seed := range []string{"ipc-metadata-length-2gb", "ipc-buffer-length-16tb"} {
		payload := fuzzSeed(t, "FuzzWALRecord/"+seed)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeWALRecord(payload)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: decodeWALRecord accepted a damaged IPC stream", seed)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: decoding a %d-byte record allocated %d MB", seed, len(payload), alloc>>20)
		}
	}
}
