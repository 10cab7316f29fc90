package storage

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func openDB(t testing.TB, dir string, opts Options) *DB {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return db
}

// mustCommit commits tx or fails the test.
func mustCommit(t testing.TB, tx *Tx) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// createTable creates public.name with the given columns (name, type) and
// returns its definition. pk lists primary key column positions.
func createTable(t testing.TB, db *DB, name string, cols []catalog.ColumnDef, pk ...int) *catalog.TableDef {
	t.Helper()
	tx := db.Begin()
	def := &catalog.TableDef{Schema: catalog.PublicSchema, Name: name, Columns: cols}
	for _, p := range pk {
		def.PrimaryKey = append(def.PrimaryKey, p+1)
	}
	d, err := tx.CreateTable(def)
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	mustCommit(t, tx)
	return d
}

func col(name string, typ types.T) catalog.ColumnDef { return catalog.ColumnDef{Name: name, Type: typ} }

// makeRecord builds a record for def from rows of Go values (nil = NULL).
func makeRecord(t testing.TB, def *catalog.TableDef, rows ...[]any) arrow.Record {
	t.Helper()
	fields := make([]arrow.Field, len(def.Columns))
	for i, c := range def.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			appendValue(t, b.Field(i), v)
		}
	}
	return b.NewRecord()
}

func appendValue(t testing.TB, b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int16Builder:
		bb.Append(int16(v.(int)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int)))
	case *array.Int64Builder:
		bb.Append(int64(v.(int)))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(int)))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.FixedSizeBinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.(int)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int)))
	case *array.MonthDayNanoIntervalBuilder:
		bb.Append(v.(arrow.MonthDayNanoInterval))
	case *array.ListBuilder:
		bb.Append(true)
		switch vals := v.(type) {
		case []float32:
			vb := bb.ValueBuilder().(*array.Float32Builder)
			vb.AppendValues(vals, nil)
		case []any:
			for _, e := range vals {
				appendValue(t, bb.ValueBuilder(), e)
			}
		default:
			t.Fatalf("list value %T", v)
		}
	default:
		t.Fatalf("builder %T", b)
	}
}

// scanRows reads the whole table through tx as Go values; with rowID the
// last value of each row is its row ID. Rows are sorted by their string
// form unless keepOrder.
func scanRows(t testing.TB, tx *Tx, id uint64, withRowID bool) [][]any {
	t.Helper()
	def := tx.Catalog().Tables[id]
	cols := make([]int, len(def.Columns))
	for i := range cols {
		cols[i] = i
	}
	r, err := tx.Scan(context.Background(), id, cols, withRowID)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	defer r.Release()
	var out [][]any
	for r.Next() {
		rec := r.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = goValue(rec.Column(c), i)
			}
			if withRowID {
				row[len(row)-1] = rec.Column(len(row) - 1).(*array.Int64).Value(i)
			}
			out = append(out, row)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("scan: %v", err)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

func goValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int64:
		return int(x.Value(i))
	case *array.Int32:
		return int(x.Value(i))
	case *array.Int16:
		return int(x.Value(i))
	case *array.String:
		return x.Value(i)
	case *array.List:
		s, e := x.ValueOffsets(i)
		var out []any
		for k := s; k < e; k++ {
			out = append(out, goValue(x.ListValues(), int(k)))
		}
		return out
	}
	return a.GetOneForMarshal(i)
}

func sqlstate(err error) string {
	if err == nil {
		return ""
	}
	return pgerr.From(err).Code
}

// copyDir copies a data directory as it is on disk (a crash image).
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	// Two passes: a flush or compaction running meanwhile may write a
	// segment after the walk listed its folder and then a manifest naming
	// it, which the walk reads later; the second pass copies the files the
	// first did not see. (A real crash image is taken at one instant.)
	for pass := 0; pass < 2; pass++ {
		err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
			if os.IsNotExist(err) {
				return nil // removed while we walked (a crash image may miss it)
			}
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			target := filepath.Join(dst, rel)
			if info.IsDir() {
				return os.MkdirAll(target, 0o755)
			}
			if _, err := os.Stat(target); pass > 0 && err == nil {
				return nil
			}
			b, err := os.ReadFile(p)
			if os.IsNotExist(err) {
				return nil
			}
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func rowsString(rows [][]any) string { return fmt.Sprint(rows) }

func sleepMS(n int) { time.Sleep(time.Duration(n) * time.Millisecond) }

// freeze pauses checkpoints, flushes, compactions, commits and file
// removal until the returned function is called.
func (db *DB) freeze() func() {
	db.ckptMu.Lock()
	db.rtMu.RLock()
	rts := make([]*tableRT, 0, len(db.rts))
	for _, rt := range db.rts {
		rts = append(rts, rt)
	}
	db.rtMu.RUnlock()
	sort.Slice(rts, func(i, j int) bool { return rts[i].id < rts[j].id })
	for _, rt := range rts {
		rt.flushMu.Lock()
	}
	db.mu.Lock()
	db.pinMu.Lock()
	return func() {
		db.pinMu.Unlock()
		db.mu.Unlock()
		for _, rt := range rts {
			rt.flushMu.Unlock()
		}
		db.ckptMu.Unlock()
	}
}

func mkRowIDs(n int) *array.Int64 {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		b.Append(int64(i + 1))
	}
	return b.NewInt64Array()
}
