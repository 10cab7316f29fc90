package storage

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// allTypesTable has a column of every Arrow type storage maps.
func allTypesColumns() []catalog.ColumnDef {
	return []catalog.ColumnDef{
		col("b", types.BoolT),
		col("i2", types.Int2T),
		col("i4", types.Int4T),
		col("i8", types.Int8T),
		col("o", types.OidT),
		col("f4", types.Float4T),
		col("f8", types.Float8T),
		col("n", types.NumericT),
		col("s", types.TextT),
		col("by", types.ByteaT),
		col("u", types.UUIDT),
		col("d", types.T{Family: types.DateFamily, Mod: -1}),
		col("tm", types.TimeT),
		col("ts", types.T{Family: types.TimestampFamily, Mod: -1}),
		col("tz", types.TimestampTZT),
		col("iv", types.IntervalT),
		col("emb", types.Float4ArrayT),
		col("emb2", types.ArrayOf(types.Float4T, 2)),
		col("txts", types.ArrayOf(types.TextT, 1)),
		col("ints", types.ArrayOf(types.Int8T, 1)),
		col("bools", types.ArrayOf(types.BoolT, 1)),
		col("uuids", types.ArrayOf(types.UUIDT, 1)),
		col("vec", types.VectorOf(3)),
	}
}

func allTypesRows() [][]any {
	u := []byte("0123456789abcdef")
	iv := arrow.MonthDayNanoInterval{Months: 1, Days: -2, Nanoseconds: 3_000_000_000}
	return [][]any{
		{true, 1, 2, 3, 4, float32(1.5), 2.5, "1.25", "hello", []byte{0, 1, 2}, u, 19000, 3_600_000_000, 1_700_000_000_000_000, 1_700_000_000_000_001, iv,
			[]float32{1, 2, 3}, []any{[]any{float32(1), float32(2)}, []any{float32(3), nil}}, []any{"a", nil, "c"}, []any{1, 2}, []any{true, nil, false}, []any{u}, []float32{0.5, 0.25, 0.125}},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
			nil, nil, nil, nil, nil, nil, nil},
		{false, -1, -2, -3, 0, float32(-0.5), -2.5, "-7", "", []byte{}, u, 0, 0, -1, 0, arrow.MonthDayNanoInterval{},
			[]float32{}, []any{}, []any{}, []any{nil}, []any{}, []any{nil}, []float32{}},
		{true, 32767, 1 << 30, 1 << 40, 1 << 31, float32(3), 1e300, "1e10", strings.Repeat("x", 1000), []byte("bytes"), u, -1, 1, 2, 3, iv,
			[]any{float32(1), nil, float32(3)}, []any{nil, []any{}}, []any{""}, []any{}, []any{false}, []any{}, []float32{1, 1, 1}},
	}
}

// scanRecord reads all of table id as one record (the tests' tables are
// small).
func scanRecord(t *testing.T, tx *Tx, id uint64) []arrow.Array {
	t.Helper()
	def := tx.Catalog().Tables[id]
	cols := make([]int, len(def.Columns))
	for i := range cols {
		cols[i] = i
	}
	r, err := tx.Scan(context.Background(), id, cols, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	parts := make([][]arrow.Array, len(cols))
	for r.Next() {
		for i := range cols {
			a := r.Record().Column(i)
			a.Retain()
			parts[i] = append(parts[i], a)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]arrow.Array, len(cols))
	for i := range cols {
		a, err := concatArrays(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a
	}
	return out
}

func checkSameColumns(t *testing.T, def *catalog.TableDef, want arrow.Record, got []arrow.Array) {
	t.Helper()
	for i, c := range def.Columns {
		if !array.Equal(want.Column(i), got[i]) {
			t.Errorf("column %s (%s):\n got %v\nwant %v", c.Name, got[i].DataType(), got[i], want.Column(i))
		}
	}
}

func TestAllTypesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := createTable(t, db, "all", allTypesColumns())
	rec := makeRecord(t, def, allTypesRows()...)
	tx := db.Begin()
	if err := tx.Insert(def.ID, rec); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	check := func(stage string, db *DB) {
		t.Run(stage, func(t *testing.T) {
			tx := db.Begin()
			defer tx.Rollback()
			checkSameColumns(t, def, rec, scanRecord(t, tx, def.ID))
		})
	}
	check("tail", db)
	// WAL replay.
	img := crashImage(t, db)
	db2 := openDB(t, img, Options{})
	check("replayed", db2)
	db2.Close()
	// Parquet segment.
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if n := len(db.published.Load().tables[def.ID].segments); n != 1 {
		t.Fatalf("%d segments after checkpoint", n)
	}
	check("segment", db)
	db.Close()
	db = openDB(t, dir, Options{})
	check("reopened", db)
	db.Close()
}

func TestCorruptFilesNamed(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	db.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "tables", "public", "*", "seg-*.parquet"))
	if len(segs) != 1 {
		t.Fatalf("segments: %v", segs)
	}
	// A damaged segment: Open rebuilds the primary key index from it and
	// fails naming the file.
	good, _ := os.ReadFile(segs[0])
	bad := append([]byte{}, good...)
	for i := 4; i < len(bad)-8 && i < 200; i++ {
		bad[i] ^= 0x5a
	}
	os.WriteFile(segs[0], bad, 0o644)
	_, err := Open(dir, Options{Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), segs[0]) {
		t.Fatalf("Open with corrupt segment: %v", err)
	}
	// A truncated footer.
	os.WriteFile(segs[0], good[:len(good)-20], 0o644)
	_, err = Open(dir, Options{Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), segs[0]) {
		t.Fatalf("Open with truncated segment: %v", err)
	}
	os.WriteFile(segs[0], good, 0o644)
	// A damaged manifest.
	man := filepath.Join(filepath.Dir(segs[0]), manifestName)
	os.WriteFile(man, []byte("{not json"), 0o644)
	_, err = Open(dir, Options{Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), man) {
		t.Fatalf("Open with corrupt manifest: %v", err)
	}
}

// TestListLevelsRoundTrip writes a real[] column whose lists are of every
// kind a page's levels can hold, in runs long enough to cross pages and
// row groups (NULL lists, empty lists, lists with NULL elements, and
// lists of 1 to 600 present elements, the run feedLists takes whole),
// and checks that reading it gives every list back.
func TestListLevelsRoundTrip(t *testing.T) {
	const rows, chunk = 12000, 1500
	rng := rand.New(rand.NewSource(7))
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Float32)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	for range rows {
		switch k := rng.Intn(10); {
		case k == 0:
			lb.AppendNull()
		case k == 1:
			lb.Append(true)
		default:
			lb.Append(true)
			for range 1 + rng.Intn(600) {
				if k == 2 && rng.Intn(50) == 0 {
					vb.AppendNull()
				} else {
					vb.Append(rng.Float32())
				}
			}
		}
	}
	want := lb.NewListArray()
	defer want.Release()
	specs := []segColumnSpec{{id: 1, name: "embedding", typ: types.Float4ArrayT.Arrow()}}
	sw, err := newSegmentWriter(filepath.Join(t.TempDir(), "seg-000001.parquet"), specs)
	if err != nil {
		t.Fatal(err)
	}
	for from := 0; from < rows; from += chunk {
		rids := array.NewInt64Builder(memory.DefaultAllocator)
		for i := from; i < from+chunk; i++ {
			rids.Append(int64(i))
		}
		c := segmentChunk{cols: []arrow.Array{array.NewSlice(want, int64(from), int64(from+chunk))}, rowIDs: rids.NewInt64Array()}
		if err := sw.write(c); err != nil {
			t.Fatal(err)
		}
	}
	seg, err := sw.finish()
	if err != nil {
		t.Fatal(err)
	}
	sf, err := openSegment(seg)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.close()
	read := 0
	for g := 0; g < sf.numRowGroups(); g++ {
		a, err := sf.readColumn(g, 1, specs[0].typ)
		if err != nil {
			t.Fatal(err)
		}
		if w := array.NewSlice(want, int64(read), int64(read+a.Len())); !array.Equal(a, w) {
			t.Fatalf("row group %d (rows %d to %d) reads back differently", g, read, read+a.Len())
		}
		read += a.Len()
		a.Release()
	}
	if read != rows {
		t.Fatalf("read %d lists, wrote %d", read, rows)
	}
}
