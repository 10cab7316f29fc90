package storage

import (
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// FuzzWALRecord feeds arbitrary payloads to the WAL record decoder: it
// must return an error, never panic.
func FuzzWALRecord(f *testing.F) {
	def := &catalog.TableDef{Columns: []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.Float4ArrayT)}}
	checkColumns(def)
	rec := makeRecord(f, def, []any{1, []float32{1, 2}}, []any{nil, nil})
	tb := &tailBatch{colIDs: []int{1, 2}, cols: rec.Columns(), rowIDs: mkRowIDs(2), n: 2}
	frame, err := encodeWALRecord(&walRecord{lsn: 7, catalog: []byte(`{}`),
		seqs:   []seqEntry{{key: "public.s", last: 3, called: true}},
		tables: []walTableOp{{id: 1, truncate: true, inserts: []*tailBatch{tb}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(frame[walHeaderSize:])
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		decodeWALRecord(p)
	})
}
