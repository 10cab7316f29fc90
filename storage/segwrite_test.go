package storage

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// listShapeColumns are columns whose pages take every path of the
// segment writer: embeddings (the bulk path), 2-D arrays, text arrays,
// nullable scalars.
func listShapeColumns() []catalog.ColumnDef {
	return []catalog.ColumnDef{
		col("id", types.Int8T),
		col("emb", types.Float4ArrayT),
		col("emb2", types.ArrayOf(types.Float4T, 2)),
		col("txts", types.ArrayOf(types.TextT, 1)),
		col("s", types.TextT),
		col("f", types.Float8T),
		col("small", types.Int2T),
	}
}

// listShapeRows are n rows cycling through NULL lists, empty lists, NULL
// elements and embeddings of 1, 3, 384 and 4,096 dimensions.
func listShapeRows(n int, rng *rand.Rand) [][]any {
	vec := func(d int) []float32 {
		v := make([]float32, d)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	var rows [][]any
	for i := 0; i < n; i++ {
		var emb, emb2, txts, s, f, small any
		switch i % 9 {
		case 0:
			emb = nil
		case 1:
			emb = []float32{}
		case 2:
			emb = []any{float32(1), nil, float32(3)}
		case 3:
			emb = []any{nil}
		case 4:
			emb = vec(1)
		case 5:
			emb = vec(4096)
		default:
			emb = vec(384)
		}
		switch i % 5 {
		case 0:
			emb2 = []any{[]any{float32(1), float32(2)}, []any{float32(3), nil}}
		case 1:
			emb2 = []any{nil, []any{}}
		case 2:
			emb2 = []any{}
		case 3:
			emb2 = []any{[]any{float32(i)}}
		}
		switch i % 4 {
		case 0:
			txts = []any{"a", nil, strings.Repeat("c", i%50)}
		case 1:
			txts = []any{}
		case 2:
			txts = []any{nil}
		}
		if i%7 != 0 {
			s = fmt.Sprintf("row %d %s", i, strings.Repeat("x", i%300))
			small = i%65536 - 32768
		}
		if i%11 != 0 {
			f = float64(i) / 3
		}
		rows = append(rows, []any{i, emb, emb2, txts, s, f, small})
	}
	return rows
}

// TestSegmentWriterShapes writes lists of every shape, across several
// pages and row groups, and reads them back equal through cairn's reader,
// Arrow's pqarrow and parquet-go's row reader; a damaged page fails its
// checksum.
func TestSegmentWriterShapes(t *testing.T) {
	def := &catalog.TableDef{Name: "t", Columns: listShapeColumns()}
	for i := range def.Columns {
		def.Columns[i].ID = i + 1
	}
	rec := makeRecord(t, def, listShapeRows(6000, rand.New(rand.NewSource(1)))...)
	defer rec.Release()
	n := int(rec.NumRows())
	path := filepath.Join(t.TempDir(), "seg-000001.parquet")
	specs := segmentSpecs(def)
	sw, err := newSegmentWriter(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		rb.Append(int64(1000 + i))
	}
	rids := rb.NewInt64Array()
	// Chunks of uneven sizes, as COPY hands them over.
	for lo := 0; lo < n; {
		hi := min(n, lo+1+lo%1777)
		c := segmentChunk{rowIDs: array.NewSlice(rids, int64(lo), int64(hi)).(*array.Int64)}
		for _, a := range rec.Columns() {
			c.cols = append(c.cols, array.NewSlice(a, int64(lo), int64(hi)))
		}
		if err := sw.write(c); err != nil {
			t.Fatal(err)
		}
		lo = hi
	}
	seg, err := sw.finish()
	if err != nil {
		t.Fatal(err)
	}
	if seg.rows != int64(n) || seg.minRow != 1000 || seg.maxRow != int64(1000+n-1) {
		t.Fatalf("segment rows %d [%d, %d]", seg.rows, seg.minRow, seg.maxRow)
	}
	seg.columns = nil
	for i, c := range def.Columns {
		seg.columns = append(seg.columns, segColumn{Name: c.Name, ID: specs[i].id})
	}

	// cairn's reader, row group by row group.
	sf, err := openSegment(seg)
	if err != nil {
		t.Fatal(err)
	}
	if sf.numRowGroups() < 2 {
		t.Fatalf("%d row groups: the test wants several", sf.numRowGroups())
	}
	got := make([][]arrow.Array, len(specs))
	var gotIDs []arrow.Array
	for g := 0; g < sf.numRowGroups(); g++ {
		for i, s := range specs {
			a, err := sf.readColumn(g, s.id, s.typ)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], a)
		}
		ids, err := sf.readRowIDs(g)
		if err != nil {
			t.Fatal(err)
		}
		gotIDs = append(gotIDs, ids)
	}
	sf.close()
	for i, c := range def.Columns {
		a, err := array.Concatenate(got[i], memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(a, rec.Column(i)) {
			t.Errorf("cairn reader: column %s differs", c.Name)
		}
	}
	if ids, _ := array.Concatenate(gotIDs, memory.DefaultAllocator); !array.Equal(ids, rids) {
		t.Errorf("cairn reader: row IDs differ")
	}

	// pqarrow.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for i, c := range def.Columns {
		idx := tbl.Schema().FieldIndices(c.Name)
		if len(idx) != 1 {
			t.Fatalf("pqarrow schema lacks %q", c.Name)
		}
		a, err := array.Concatenate(tbl.Column(idx[0]).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(array.MakeFromData(retyped(a.Data(), c.Type.Arrow())), rec.Column(i)) {
			t.Errorf("pqarrow: column %s differs", c.Name)
		}
	}

	// parquet-go's own row reader (levels and values as it assembles them).
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != int64(n) {
		t.Fatalf("parquet-go: %d rows", pf.NumRows())
	}
	rows := make([]parquet.Row, 1)
	r := parquet.NewReader(pf)
	emb := pf.Schema().Columns()
	embLeaf := -1
	for i, p := range emb {
		if p[0] == "emb" {
			embLeaf = i
		}
	}
	for i := 0; i < n; i += 997 {
		if err := r.SeekToRow(int64(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadRows(rows); err != nil {
			t.Fatal(err)
		}
		var floats []float32
		nulls := 0
		for _, v := range rows[0] {
			if v.Column() == embLeaf {
				if v.IsNull() {
					nulls++
				} else {
					floats = append(floats, v.Float())
				}
			}
		}
		want := rec.Column(1).(*array.List)
		lo, hi := want.ValueOffsets(i)
		wantNN := 0
		vals := want.ListValues().(*array.Float32)
		for k := lo; k < hi; k++ {
			if vals.IsValid(int(k)) {
				if floats[wantNN] != vals.Value(int(k)) {
					t.Fatalf("parquet-go row %d: element %d", i, k-lo)
				}
				wantNN++
			}
		}
		if wantNN != len(floats) {
			t.Fatalf("parquet-go row %d: %d floats, want %d", i, len(floats), wantNN)
		}
	}
	r.Close()

	// A flipped byte inside the first embedding page fails its checksum.
	md := pf.Metadata()
	var off int64
	for _, cc := range md.RowGroups[0].Columns {
		if cc.MetaData.PathInSchema[0] == "emb" {
			off = cc.MetaData.DataPageOffset
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[off+4096] ^= 0x40
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	sf, err = openSegment(&segment{name: "bad.parquet", path: bad, rows: seg.rows, columns: seg.columns})
	if err != nil {
		t.Fatal(err)
	}
	defer sf.close()
	if _, err := sf.readColumn(0, specs[1].id, specs[1].typ); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("damaged page read with %v", err)
	}
}

// retyped is d as type dt, which differs at most in the names of list
// fields (pqarrow's "element" for Arrow's "item").
func retyped(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	var children []arrow.ArrayData
	if l, ok := dt.(*arrow.ListType); ok {
		children = []arrow.ArrayData{retyped(d.Children()[0], l.Elem())}
	}
	return array.NewData(dt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
}

// TestSegmentWriterStatistics checks the column chunks' statistics: null
// counts, and bounds of top-level scalars in their column order (NaN
// left out, zeros signed as the format asks).
func TestSegmentWriterStatistics(t *testing.T) {
	def := &catalog.TableDef{Name: "t", Columns: []catalog.ColumnDef{
		col("i", types.Int4T), col("o", types.OidT), col("f", types.Float4T), col("s", types.TextT), col("emb", types.Float4ArrayT),
	}}
	nan := float32(math.NaN())
	rec := makeRecord(t, def,
		[]any{5, 1, nan, "pear", []float32{1}},
		[]any{-7, 4000000000, float32(0), nil, nil},
		[]any{nil, 3, float32(2.5), "apple", []any{nil}},
		[]any{2, nil, nil, "zebra", []float32{}},
	)
	path := filepath.Join(t.TempDir(), "seg-000001.parquet")
	sw, err := newSegmentWriter(path, segmentSpecs(def))
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewInt64Builder(memory.DefaultAllocator)
	rb.AppendValues([]int64{10, 11, 12, 13}, nil)
	if err := sw.write(segmentChunk{cols: rec.Columns(), rowIDs: rb.NewInt64Array()}); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.finish(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"__rowid": "nulls 0 [10, 13]",
		"i":       "nulls 1 [-7, 5]",
		"o":       "nulls 1 [1, 4000000000]",
		"f":       "nulls 1 [-0, 2.5]",
		"s":       "nulls 1 [apple, zebra]",
		"emb":     "nulls 3 none",
	}
	for _, cc := range pf.Metadata().RowGroups[0].Columns {
		md := cc.MetaData
		name := md.PathInSchema[0]
		s := md.Statistics
		got := fmt.Sprintf("nulls %d ", s.NullCount)
		if s.MinValue == nil {
			got += "none"
		} else {
			switch md.Type {
			case 1: // INT32
				if name == "o" {
					got += fmt.Sprintf("[%d, %d]", le.Uint32(s.MinValue), le.Uint32(s.MaxValue))
				} else {
					got += fmt.Sprintf("[%d, %d]", int32(le.Uint32(s.MinValue)), int32(le.Uint32(s.MaxValue)))
				}
			case 2: // INT64
				got += fmt.Sprintf("[%d, %d]", int64(le.Uint64(s.MinValue)), int64(le.Uint64(s.MaxValue)))
			case 4: // FLOAT
				got += fmt.Sprintf("[%v, %v]", math.Float32frombits(le.Uint32(s.MinValue)), math.Float32frombits(le.Uint32(s.MaxValue)))
			default:
				got += fmt.Sprintf("[%s, %s]", s.MinValue, s.MaxValue)
			}
		}
		if got != want[name] {
			t.Errorf("%s: %s, want %s", name, got, want[name])
		}
	}
}

// TestSpilledListShapesRoundTrip inserts the list shapes in one
// transaction that spills them to segments, and scans them back equal,
// before and after a restart.
func TestSpilledListShapesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{SpillBytes: 256 << 10, FlushRows: 1 << 30})
	def := createTable(t, db, "shapes", listShapeColumns())
	rows := listShapeRows(1500, rand.New(rand.NewSource(2)))
	want := makeRecord(t, def, rows...)
	defer want.Release()
	tx := db.Begin()
	for lo := 0; lo < len(rows); lo += 100 {
		if err := tx.Insert(def.ID, makeRecord(t, def, rows[lo:lo+100]...)); err != nil {
			t.Fatal(err)
		}
	}
	if len(tx.tables[def.ID].spilled) == 0 {
		t.Fatal("the transaction did not spill")
	}
	mustCommit(t, tx)
	check := func(db *DB) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		checkSameColumns(t, def, want, scanRecord(t, tx, def.ID))
	}
	check(db)
	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	check(db)
}
