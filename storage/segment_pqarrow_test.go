package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// TestSegmentReadByPqarrow writes a segment with parquet-go and reads it
// with Arrow's own Parquet reader: the files must be plain enough for
// other tools (embeddings as list<float>).
func TestSegmentReadByPqarrow(t *testing.T) {
	def := &catalog.TableDef{Name: "t", Columns: allTypesColumns()}
	if err := checkColumns(def); err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(t, def, allTypesRows()...)
	path := filepath.Join(t.TempDir(), "seg-000001.parquet")
	specs := segmentSpecs(def)
	sw, err := newSegmentWriter(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	n := int(rec.NumRows())
	rb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		rb.Append(int64(100 + i))
	}
	chunk := segmentChunk{cols: rec.Columns(), rowIDs: rb.NewInt64Array()}
	if err := sw.write(chunk); err != nil {
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
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	// The embedding column is a standard 3-level LIST of FLOAT.
	leaf := pr.MetaData().Schema.Column(pr.MetaData().Schema.ColumnIndexByName("emb.list.element"))
	if leaf == nil || leaf.PhysicalType() != parquet.Types.Float || leaf.MaxRepetitionLevel() != 1 || leaf.MaxDefinitionLevel() != 3 {
		t.Fatalf("emb leaf: %v", leaf)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != int64(n) {
		t.Fatalf("rows = %d", tbl.NumRows())
	}
	schema := tbl.Schema()
	if got := schema.Field(schema.FieldIndices("emb")[0]).Type; listShape(got) != "list<float32>" {
		t.Fatalf("emb read as %s", got)
	}
	if got := schema.Field(schema.FieldIndices("emb2")[0]).Type; listShape(got) != "list<list<float32>>" {
		t.Fatalf("emb2 read as %s", got)
	}
	for i, c := range def.Columns {
		idx := schema.FieldIndices(c.Name)
		if len(idx) != 1 {
			t.Fatalf("pqarrow schema lacks %q: %v", c.Name, schema)
		}
		got, err := array.Concatenate(tbl.Column(idx[0]).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		want := rec.Column(i)
		switch c.Name {
		case "iv":
			// Stored as FIXED_LEN_BYTE_ARRAY(16): compare the bytes.
			fb := got.(*array.FixedSizeBinary)
			wi := want.(*array.MonthDayNanoInterval)
			for r := 0; r < n; r++ {
				if wi.IsNull(r) != fb.IsNull(r) || (!wi.IsNull(r) && string(fb.Value(r)) != string(encodeIntervalBytes(wi.Value(r)))) {
					t.Errorf("interval row %d: %v vs %v", r, fb.Value(r), wi.Value(r))
				}
			}
			continue
		case "o", "u", "uuids", "tm", "ts", "tz":
			// pqarrow's own mapping of UINT32 / UUID / TIME / TIMESTAMP:
			// compare values, not types (UUIDs as the bytes under
			// pqarrow's arrow.uuid extension type).
			got = array.MakeFromData(withoutExtensions(got.Data()))
			if got.Len() != want.Len() || got.NullN() != want.NullN() {
				t.Errorf("column %s: %v vs %v", c.Name, got, want)
			}
			for r := 0; r < n; r++ {
				if got.IsNull(r) != want.IsNull(r) || (!got.IsNull(r) && got.ValueStr(r) != want.ValueStr(r)) {
					t.Errorf("column %s row %d: %s vs %s", c.Name, r, got.ValueStr(r), want.ValueStr(r))
				}
			}
			continue
		}
		if !sameValues(got, want) {
			t.Errorf("column %s (%s vs %s):\n got %v\nwant %v", c.Name, got.DataType(), want.DataType(), got, want)
		}
	}
	// Row IDs.
	ridIdx := schema.FieldIndices(catalog.RowIDColumn)[0]
	rid := tbl.Column(ridIdx).Data().Chunk(0).(*array.Int64)
	if rid.Value(0) != 100 || rid.Value(n-1) != int64(100+n-1) {
		t.Fatalf("row ids %v", rid)
	}
}

// withoutExtensions returns d with every extension type, at any list
// depth, replaced by its storage type.
func withoutExtensions(d arrow.ArrayData) arrow.ArrayData {
	switch t := d.DataType().(type) {
	case arrow.ExtensionType:
		return withoutExtensions(array.NewData(t.StorageType(), d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset()))
	case *arrow.ListType:
		child := withoutExtensions(d.Children()[0])
		return array.NewData(arrow.ListOf(child.DataType()), d.Len(), d.Buffers(), []arrow.ArrayData{child}, d.NullN(), d.Offset())
	}
	return d
}

// listShape renders a type without list field names.
func listShape(dt arrow.DataType) string {
	if l, ok := dt.(*arrow.ListType); ok {
		return "list<" + listShape(l.Elem()) + ">"
	}
	return dt.String()
}

// sameValues compares arrays by value, ignoring list field names.
func sameValues(a, b arrow.Array) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if !a.IsNull(i) && a.ValueStr(i) != b.ValueStr(i) {
			return false
		}
	}
	return true
}

func encodeIntervalBytes(v arrow.MonthDayNanoInterval) []byte {
	b := encodeInterval(v)
	return b[:]
}

// TestSegmentFloatListLayout checks the Parquet schema text of an
// embedding column, as DuckDB and pyarrow expect it.
func TestSegmentFloatListLayout(t *testing.T) {
	s, err := segmentSchema([]segColumnSpec{{id: 1, name: "embedding", typ: types.Float4ArrayT.Arrow()}})
	if err != nil {
		t.Fatal(err)
	}
	want := `message cairn {
	required int64 __rowid (INT(64,true));
	optional group embedding (LIST) {
		repeated group list {
			optional float element;
		}
	}
}`
	if got := s.String(); got != want {
		t.Fatalf("schema:\n%s\nwant:\n%s", got, want)
	}
}
