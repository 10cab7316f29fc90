package storage

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// BenchmarkEncodeWALRecord times the record of a one-row UPDATE (a row
// deleted, its new version inserted): the WAL encoding every small
// commit pays before its fsync.
func BenchmarkEncodeWALRecord(b *testing.B) {
	def := &catalog.TableDef{Columns: []catalog.ColumnDef{col("id", types.Int8T), col("path", types.TextT), col("task", types.TextT)}}
	checkColumns(def)
	rec := makeRecord(b, def, []any{42, "/hivemind/sessions/42", "updated 42"})
	tb := &tailBatch{colIDs: []int{1, 2, 3}, cols: rec.Columns(), rowIDs: mkRowIDs(1), n: 1}
	deletes := roaring64.BitmapOf(41)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := encodeWALRecord(&walRecord{lsn: uint64(i + 1),
			tables: []walTableOp{{id: 7, deletes: deletes, inserts: []*tailBatch{tb}}}}); err != nil {
			b.Fatal(err)
		}
	}
}
