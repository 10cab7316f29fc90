package storage

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// TestBatchesIPCAsIPCWriter checks that the WAL's IPC streams, written
// from a cached schema message and per-batch payloads, are the bytes
// ipc.Writer writes, and decode to the batches: NULLs, lists, sliced
// arrays, several batches of a layout, a layout seen before.
func TestBatchesIPCAsIPCWriter(t *testing.T) {
	def := &catalog.TableDef{Columns: []catalog.ColumnDef{col("id", types.Int8T), col("task", types.TextT),
		col("emb", types.Float4ArrayT), col("ok", types.BoolT), col("meta", types.JSONBT)}}
	checkColumns(def)
	rec := makeRecord(t, def,
		[]any{1, "first", []float32{1, 2, 3}, true, `{"a": 1}`},
		[]any{nil, nil, nil, nil, nil},
		[]any{3, "", []float32{}, false, `[]`},
		[]any{4, "fourth, longer than the others", []float32{0.5}, nil, nil})
	cols := rec.Columns()
	sliced := make([]*tailBatch, 0, 2)
	for _, r := range [][2]int64{{1, 3}, {0, 4}} {
		sc := make([]arrow.Array, len(cols))
		for i, c := range cols {
			sc[i] = array.NewSlice(c, r[0], r[1])
		}
		sliced = append(sliced, &tailBatch{colIDs: []int{1, 2, 4, 5, 7}, cols: sc,
			rowIDs: array.NewSlice(mkRowIDs(4), r[0], r[1]).(*array.Int64), n: int(r[1] - r[0])})
	}
	// The same column IDs with a list whose elements may not be NULL: a
	// layout of its own (a list type's fingerprint leaves that out).
	lb := array.NewBuilder(memory.DefaultAllocator, arrow.ListOfNonNullable(arrow.PrimitiveTypes.Float32)).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Float32Builder).Append(1)
	nonNull := lb.NewArray()
	ids := mkRowIDs(1)
	for _, name := range []string{"one", "sliced", "non-null elements"} {
		batches := map[string][]*tailBatch{
			"one":               {{colIDs: []int{1, 2, 4, 5, 7}, cols: cols, rowIDs: mkRowIDs(4), n: 4}},
			"sliced":            sliced,
			"non-null elements": {{colIDs: []int{1, 2, 4, 5, 7}, cols: []arrow.Array{array.NewSlice(cols[0], 0, 1), array.NewSlice(cols[1], 0, 1), nonNull, array.NewSlice(cols[3], 0, 1), array.NewSlice(cols[4], 0, 1)}, rowIDs: ids, n: 1}},
		}[name]
		for round := 0; round < 2; round++ { // the second finds the layout cached
			got, err := appendBatchesIPC([]byte("head"), batches)
			if err != nil {
				t.Fatal(err)
			}
			want, err := appendBatchesIPCWriter([]byte("head"), batchIPCSchema(batches[0]), batches)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: %d bytes, ipc.Writer wrote %d", name, len(got), len(want))
			}
			decoded, err := decodeBatchesIPC(got[len("head"):], batches[0].colIDs)
			if err != nil {
				t.Fatal(err)
			}
			if len(decoded) != len(batches) {
				t.Fatalf("%s: %d batches decoded, want %d", name, len(decoded), len(batches))
			}
			for i, d := range decoded {
				for c := range d.cols {
					if !array.Equal(d.cols[c], batches[i].cols[c]) {
						t.Fatalf("%s: batch %d column %d: %v, want %v", name, i, c, d.cols[c], batches[i].cols[c])
					}
				}
				if !array.Equal(d.rowIDs, batches[i].rowIDs) {
					t.Fatalf("%s: batch %d row IDs %v, want %v", name, i, d.rowIDs, batches[i].rowIDs)
				}
			}
		}
	}
}
