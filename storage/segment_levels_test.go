package storage

import (
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// TestSegmentArraysRoundTrip writes arrays of every shape through the
// segment writer and reads them back exactly: NULL arrays, NULL elements,
// empty arrays, 2-D arrays with NULL and empty rows, 1-d and 4096-d
// embeddings, in chunks whose levels pass writeChunkLevels and row groups
// of a few rows; given as slices of larger arrays, and with a NULL list
// whose offsets still span values (Arrow allows it; its values must not be
// written).
func TestSegmentArraysRoundTrip(t *testing.T) {
	def := &catalog.TableDef{Name: "t", Columns: []catalog.ColumnDef{
		col("emb", types.Float4ArrayT),
		col("emb2", types.ArrayOf(types.Float4T, 2)),
		col("txts", types.ArrayOf(types.TextT, 1)),
		col("ints", types.ArrayOf(types.Int8T, 1)),
		col("s", types.TextT),
	}}
	if err := checkColumns(def); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	floats := func(n int, nulls bool) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = rng.Float32()
			if nulls && rng.Intn(5) == 0 {
				out[i] = nil
			}
		}
		return out
	}
	var rows [][]any
	for i := range 600 {
		var emb any
		switch i % 7 {
		case 0:
			emb = nil
		case 1:
			emb = []float32{}
		case 2:
			emb = floats(4096, false)
		case 3:
			emb = floats(1, false)
		case 4:
			emb = floats(384, true)
		default:
			emb = floats(384, false)
		}
		var emb2 any
		switch i % 5 {
		case 0:
			emb2 = nil
		case 1:
			emb2 = []any{}
		case 2:
			emb2 = []any{floats(3, true), nil, []any{}, floats(2, false)}
		default:
			emb2 = []any{floats(2, false), floats(2, false)}
		}
		var txts any = []any{"a", nil, ""}
		if i%3 == 0 {
			txts = nil
		}
		var s any = "row"
		if i%4 == 0 {
			s = nil
		}
		rows = append(rows, []any{emb, emb2, txts, []any{int(i), nil}, s})
	}
	rec := makeRecord(t, def, rows...)
	defer rec.Release()

	// A NULL emb whose offsets span three values, in the middle of a chunk.
	gappy := gappyNullList(t)
	defer gappy.Release()

	path := filepath.Join(t.TempDir(), "seg-000001.parquet")
	sw, err := newSegmentWriter(path, segmentSpecs(def))
	if err != nil {
		t.Fatal(err)
	}
	sw.groupRows = 250 // several row groups, a chunk split across two
	var want [][]arrow.Array
	for off := 0; off < len(rows); off += 100 {
		// Slices of the record (offset != 0 from the second chunk on).
		cols := make([]arrow.Array, len(def.Columns))
		for i := range cols {
			cols[i] = array.NewSlice(rec.Column(i), int64(off), int64(off+100))
		}
		if off == 200 {
			cols[0] = gappy
		}
		want = append(want, cols)
		if err := sw.write(segmentChunk{cols: cols, rowIDs: rowIDs(off, 100)}); err != nil {
			t.Fatal(err)
		}
	}
	seg, err := sw.finish()
	if err != nil {
		t.Fatal(err)
	}
	seg.columns = nil
	for _, c := range def.Columns {
		seg.columns = append(seg.columns, segColumn{Name: c.Name, ID: c.ID})
	}
	sf, err := openSegment(seg)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.close()
	if sf.numRowGroups() != 3 {
		t.Fatalf("%d row groups, want 3", sf.numRowGroups())
	}
	for i, c := range def.Columns {
		var parts []arrow.Array
		for g := range sf.numRowGroups() {
			a, err := sf.readColumn(g, c.ID, c.Type.Arrow())
			if err != nil {
				t.Fatalf("column %s group %d: %v", c.Name, g, err)
			}
			parts = append(parts, a)
		}
		got, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		var wantParts []arrow.Array
		for _, w := range want {
			wantParts = append(wantParts, w[i])
		}
		w, err := array.Concatenate(wantParts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got, w) {
			t.Errorf("column %s differs after the round trip", c.Name)
		}
	}
}

// gappyNullList is 100 rows of real[]: row 30 NULL but with offsets over
// three values 9, 9, 9; the other rows {r} (r = the row number).
func gappyNullList(t *testing.T) arrow.Array {
	t.Helper()
	var vals []float32
	offsets := []int32{0}
	valid := make([]byte, 13)
	for r := range 100 {
		if r == 30 {
			vals = append(vals, 9, 9, 9)
		} else {
			vals = append(vals, float32(r))
			valid[r/8] |= 1 << (r % 8)
		}
		offsets = append(offsets, int32(len(vals)))
	}
	child := array.NewData(arrow.PrimitiveTypes.Float32, len(vals),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(vals))}, nil, 0, 0)
	defer child.Release()
	d := array.NewData(types.Float4ArrayT.Arrow(), 100,
		[]*memory.Buffer{memory.NewBufferBytes(valid), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))},
		[]arrow.ArrayData{child}, 1, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// rowIDs is the row IDs [first, first+n).
func rowIDs(first, n int) *array.Int64 {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(first + i))
	}
	return b.NewInt64Array()
}

// TestSegmentWrittenByParquetGo reads testdata/segment-parquet-go.parquet,
// allTypesRows written by the parquet-go segment writer cairn had before:
// data directories keep such files, and they read as they did. The
// segment written now of the same rows has the same Parquet schema.
func TestSegmentWrittenByParquetGo(t *testing.T) {
	def := &catalog.TableDef{Name: "t", Columns: allTypesColumns()}
	if err := checkColumns(def); err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(t, def, allTypesRows()...)
	defer rec.Release()
	n := int(rec.NumRows())
	newPath := filepath.Join(t.TempDir(), "seg-000001.parquet")
	sw, err := newSegmentWriter(newPath, segmentSpecs(def))
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.write(segmentChunk{cols: rec.Columns(), rowIDs: rowIDs(100, n)}); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.finish(); err != nil {
		t.Fatal(err)
	}
	var schemas []string
	for _, path := range []string{"testdata/segment-parquet-go.parquet", newPath} {
		seg := &segment{name: filepath.Base(path), path: path, rows: int64(n)}
		for _, c := range def.Columns {
			seg.columns = append(seg.columns, segColumn{Name: c.Name, ID: c.ID})
		}
		sf, err := openSegment(seg)
		if err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, sf.pf.Schema().String())
		rid, err := sf.readRowIDs(0)
		if err != nil || rid.Len() != n || rid.Value(0) != 100 || rid.Value(n-1) != int64(100+n-1) {
			t.Fatalf("%s: row IDs %v, %v", path, rid, err)
		}
		for i, c := range def.Columns {
			got, err := sf.readColumn(0, c.ID, c.Type.Arrow())
			if err != nil {
				t.Fatalf("%s: column %s: %v", path, c.Name, err)
			}
			if !array.Equal(got, rec.Column(i)) {
				t.Errorf("%s: column %s:\n got %v\nwant %v", path, c.Name, got, rec.Column(i))
			}
		}
		sf.close()
	}
	if schemas[0] != schemas[1] {
		t.Errorf("schema of the parquet-go file:\n%s\nnow:\n%s", schemas[0], schemas[1])
	}
}
