package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/wire"
)

// server is a cairn server over a data directory, as cmd/cairn runs it.
type server struct {
	db  *storage.DB
	srv *wire.Server
	url string
}

// startServer starts a server on 127.0.0.1:0 over dir with small flush
// thresholds, so that inserts make many segments and compactions.
func startServer(t *testing.T, dir string) *server {
	t.Helper()
	return startServerOpts(t, dir, storage.Options{FlushRows: 16})
}

// startServerOpts starts a server on 127.0.0.1:0 over dir with opts.
func startServerOpts(t testing.TB, dir string, opts storage.Options) *server {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	opts.Logger = logger
	db, err := storage.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{db: db, srv: &wire.Server{Engine: session.NewEngine(db, session.Options{Logger: logger}), Logger: logger}}
	go s.srv.Serve(l)
	host, port, _ := net.SplitHostPort(l.Addr().String())
	s.url = "host=" + host + " port=" + port + " user=cairn dbname=cairn sslmode=disable"
	t.Cleanup(s.stop)
	return s
}

// stop shuts the server down cleanly (its storage checkpoints); safe
// to call twice.
func (s *server) stop() {
	if s.srv == nil {
		return
	}
	s.srv.Shutdown(context.Background())
	s.db.Close()
	s.srv = nil
}

// exportCols lists the columns of the test table, one of each type the
// exporter maps.
const exportCols = "id, n, s, f4, f8, txt, b, by, u, d, tm, ts, tz, j, v"

// exportRow formats the row of rows' current position the same way for
// both sides: Go values printed with %v.
func exportRow(vals []any) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%v", v)
	}
	return b.String()
}

// cairnRows is what cairn's SELECT returns for the test table, formatted
// by exportRow, ordered by id.
func cairnRows(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT "+exportCols+" FROM docs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var (
			id        int64
			n         *int32
			s         *int16
			f4        *float32
			f8        *float64
			txt, j    *string
			b         *bool
			by        []byte
			u         *[16]byte
			d, ts, tz *time.Time
			tm        pgtype.Time
			v         []float32
		)
		if err := rows.Scan(&id, &n, &s, &f4, &f8, &txt, &b, &by, &u, &d, &tm, &ts, &tz, &j, &v); err != nil {
			t.Fatal(err)
		}
		var tmv any
		if tm.Valid {
			tmv = tm.Microseconds
		}
		out = append(out, exportRow([]any{id, deref(n), deref(s), deref(f4), deref(f8), deref(txt), deref(b), by,
			deref(u), day(d), tmv, utc(ts), utc(tz), deref(j), v}))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func day(p *time.Time) any {
	if p == nil {
		return nil
	}
	return p.Format("2006-01-02")
}

func utc(p *time.Time) any {
	if p == nil {
		return nil
	}
	return p.UTC().Format(time.RFC3339Nano)
}

// icebergRows reads the exported table through iceberg-go's own scan
// (its Hadoop catalog, name mapping and position deletes), formatted by
// exportRow, ordered by id.
func icebergRows(t *testing.T, warehouse, name, cols string) []string {
	t.Helper()
	return scanRows(t, loadTable(t, warehouse, name), nil, cols)
}

// loadTable loads table public.name of the Hadoop catalog at warehouse
// (configured from the AWS environment for an s3:// one, as the exporter
// is).
func loadTable(t *testing.T, warehouse, name string) *table.Table {
	t.Helper()
	cat, err := hadoop.NewCatalog("check", warehouse, icebergProps(warehouse))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(context.Background(), table.Identifier{"public", name})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// scanRows reads tbl through iceberg-go's scan, at snapshot (nil: the
// current one), formatted by exportRow, ordered by id.
func scanRows(t *testing.T, tbl *table.Table, snapshot *int64, cols string) []string {
	t.Helper()
	ctx := context.Background()
	opts := []table.ScanOption{table.WithSelectedFields(strings.Split(cols, ", ")...)}
	if snapshot != nil {
		opts = append(opts, table.WithSnapshotID(*snapshot))
	}
	at, err := tbl.Scan(opts...).ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	rd := array.NewTableReader(at, 1024)
	defer rd.Release()
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		col := func(name string) arrow.Array {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("iceberg scan has no column %q: %s", name, rec.Schema())
			}
			return rec.Column(idx[0])
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			vals := make([]any, 0, 15)
			for _, name := range strings.Split(cols, ", ") {
				vals = append(vals, arrowValue(t, col(name), i))
			}
			out = append(out, exportRow(vals))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b string) int {
		var x, y int64
		fmt.Sscan(a, &x)
		fmt.Sscan(b, &y)
		return int(x - y)
	})
	return out
}

// arrowValue is value i of a in the Go form cairnRows scans it to.
func arrowValue(t *testing.T, a arrow.Array, i int) any {
	if a.IsNull(i) {
		if _, ok := a.(*array.List); ok {
			return []float32(nil)
		}
		if _, ok := a.(*array.Binary); ok {
			return []byte(nil)
		}
		return nil
	}
	switch a := a.(type) {
	case array.ExtensionArray:
		return arrowValue(t, a.Storage(), i)
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Binary:
		return a.Value(i)
	case *array.FixedSizeBinary:
		return [16]byte(a.Value(i))
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return a.Value(i).ToTime(arrow.Microsecond).UTC().Format(time.RFC3339Nano)
	case *array.List:
		start, end := a.ValueOffsets(i)
		return a.ListValues().(*array.Float32).Float32Values()[start:end]
	}
	t.Fatalf("iceberg scan returned a %s column", a.DataType())
	return nil
}

// TestExport writes a table through a real server (inserts across many
// flushes and compactions, updates, deletes, a renamed column), stops it,
// exports the data directory and reads the table back through
// iceberg-go's scan: the same rows as cairn's SELECT.
func TestExport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	warehouse := filepath.Join(t.TempDir(), "warehouse")
	srv := startServer(t, dir)
	conn, err := pgx.Connect(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`CREATE TABLE docs (id int8 PRIMARY KEY, n int4, s int2, f4 float4, f8 float8, body text, b bool,
		by bytea, u uuid, d date, tm time, ts timestamp, tz timestamptz, j jsonb, v real[])`)
	// One insert of 600 rows makes a full segment (compaction merges
	// segments of fewer than 16*16/2 rows, and rewrites those of which a
	// quarter is deleted: the updates and deletes below take about 23% of
	// it), which keeps the column renamed below under its old name; 10
	// inserts of 10 rows make small segments that flushes write and
	// compactions merge.
	for batch := 0; batch < 11; batch++ {
		from, to := batch*10+591, batch*10+600
		if batch == 0 {
			from = 1
		}
		exec(`INSERT INTO docs SELECT g, g * 7, (g % 100)::int2, g / 4.0, g / 3.0, 'doc ' || g, g % 2 = 0,
			decode(lpad(to_hex(g), 4, '0'), 'hex'), ('00000000-0000-0000-0000-' || lpad(to_hex(g), 12, '0'))::uuid,
			date '2024-01-01' + g::int4, time '08:00' + g * interval '1 second', timestamp '2024-01-01 00:00' + g * interval '1 minute',
			timestamptz '2024-01-01 00:00+02' + g * interval '1 hour', ('{"g": ' || g || '}')::jsonb, ARRAY[g, g + 0.5]::real[]
			FROM generate_series($1::int8, $2::int8) g`, from, to)
		if batch == 0 {
			if err := srv.db.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
	}
	exec(`INSERT INTO docs (id) VALUES (1000)`) // a row of NULLs
	exec(`UPDATE docs SET body = 'updated ' || id, v = ARRAY[-1, -2]::real[] WHERE id % 10 = 3`)
	exec(`DELETE FROM docs WHERE id % 10 = 7 OR id BETWEEN 100 AND 120`)
	exec(`ALTER TABLE docs RENAME COLUMN body TO txt`)
	exec(`INSERT INTO docs (id, txt) VALUES (2000, 'after the rename')`)
	exec(`UPDATE docs SET txt = 'updated again' WHERE id = 5`)
	// A dropped list column that a segment file still holds (one
	// segment: no compaction rewrites it).
	exec(`CREATE TABLE notes (id int8, gone real[], keep text)`)
	exec(`INSERT INTO notes SELECT g, ARRAY[g]::real[], 'k' || g FROM generate_series(1, 20) g`)
	// SQL CHECKPOINT is a no-op in cairn; the storage's flushes the tail.
	if err := srv.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	exec(`ALTER TABLE notes DROP COLUMN gone`)
	var wantNotes []string
	{
		rows, err := conn.Query(ctx, "SELECT id, keep FROM notes ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var keep string
			if err := rows.Scan(&id, &keep); err != nil {
				t.Fatal(err)
			}
			wantNotes = append(wantNotes, exportRow([]any{id, keep}))
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	exec(`CREATE TABLE empty (id int8)`)
	want := cairnRows(t, conn)
	wantDuck := duckRows(t, conn)
	conn.Close(ctx)

	// While the server runs the data directory is not exported.
	var out bytes.Buffer
	if err := run(ctx, []string{"export", "--data-dir", dir, "--warehouse", warehouse}, &out); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("export of a running server's data directory: %v", err)
	}
	srv.stop()

	if err := run(ctx, []string{"export", "--data-dir", dir, "--warehouse", warehouse, "public.docs", "notes"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "public.docs -> ") {
		t.Fatalf("export printed %q", out.String())
	}
	_, tables, err := storage.ReadCommitted(dir)
	if err != nil {
		t.Fatal(err)
	}
	deleted, dropped, renamed := 0, 0, 0
	for _, s := range slices.Concat(tables[0].Segments, tables[1].Segments) {
		deleted += len(s.DeletedPositions)
		for id, name := range s.Columns {
			def := tables[0].Def
			if strings.Contains(s.Path, fmt.Sprint("/", tables[1].Def.ID, "/")) {
				def = tables[1].Def
			}
			if i, c := def.ColumnByID(id); i < 0 {
				dropped++
			} else if c.Name != name {
				renamed++
			}
		}
	}
	t.Logf("%d segments, %d deleted positions, %d dropped and %d renamed columns in files", len(tables[0].Segments), deleted, dropped, renamed)
	if deleted == 0 || dropped == 0 || renamed == 0 {
		t.Fatal("the test meant to export position deletes, a dropped column and a renamed one")
	}
	got := icebergRows(t, warehouse, "docs", exportCols)
	if len(got) != len(want) {
		t.Fatalf("iceberg scan: %d rows, cairn: %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d:\niceberg: %s\ncairn:   %s", i, got[i], want[i])
		}
	}

	if got := icebergRows(t, warehouse, "notes", "id, keep"); !slices.Equal(got, wantNotes) {
		t.Fatalf("notes: iceberg scan\n%q\ncairn\n%q", got, wantNotes)
	}

	t.Run("duckdb", func(t *testing.T) {
		checkDuckDB(t, loadTable(t, warehouse, "docs"), func(p string) string { return strings.TrimPrefix(p, "file://") }, wantDuck)
	})

	// A second export of the same version commits nothing; the new
	// table is exported.
	out.Reset()
	if err := run(ctx, []string{"export", "--data-dir", dir, "--warehouse", warehouse}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "public.docs -> unchanged") {
		t.Fatalf("second export printed %q", out.String())
	}
	if got := icebergRows(t, warehouse, "docs", exportCols); !slices.Equal(got, want) {
		t.Fatalf("after a second export: %d rows, want %d", len(got), len(want))
	}
	if got := icebergRows(t, warehouse, "empty", "id"); len(got) != 0 {
		t.Fatalf("empty table: %q", got)
	}
}

// TestExportRefusesUncheckpointed: a data directory left by a server that
// did not stop cleanly (here a copy taken while it ran) has commits only
// in its write-ahead log; the export refuses it rather than miss them.
func TestExportRefusesUncheckpointed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv := startServer(t, dir)
	conn, err := pgx.Connect(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE t (id int8); INSERT INTO t VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copied, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	err = run(ctx, []string{"export", "--data-dir", copied, "--warehouse", t.TempDir()}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "only in its write-ahead log") {
		t.Fatalf("export of an unclean data directory: %v", err)
	}
	// Neither is a folder that is no data directory exported.
	err = run(ctx, []string{"export", "--data-dir", t.TempDir(), "--warehouse", t.TempDir()}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not a cairn data directory") {
		t.Fatalf("export of an empty folder: %v", err)
	}
}

// TestExportUnsupportedType: a column with no Iceberg counterpart fails
// the export naming it, and writes nothing for that table.
func TestExportUnsupportedType(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	warehouse := t.TempDir()
	srv := startServer(t, dir)
	conn, err := pgx.Connect(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE spans (id int8, took interval); INSERT INTO spans VALUES (1, '1 day')`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	srv.stop()
	err = run(ctx, []string{"export", "--data-dir", dir, "--warehouse", warehouse}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `export public.spans: column "took" (interval)`) {
		t.Fatalf("export of an interval column: %v", err)
	}
	if ents, err := os.ReadDir(warehouse); err != nil || len(ents) != 0 {
		t.Fatalf("warehouse after a failed export: %v %v", ents, err)
	}
}

// duckRows is cairn's SELECT of some columns of docs in the form
// testdata/clients/duckdb/check.js prints: "id|n|txt|v", JSON values.
func duckRows(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT id, n, txt, v FROM docs ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var n *int32
		var txt *string
		var v []float32
		if err := rows.Scan(&id, &n, &txt, &v); err != nil {
			t.Fatal(err)
		}
		js := func(x any) string {
			b, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		out = append(out, fmt.Sprintf("%d|%s|%s|%s", id, js(n), js(txt), js(v)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkDuckDB has DuckDB (npm @duckdb/node-api, installed by
// testdata/setup/clients.sh) read the files the current snapshot of tbl
// lists as an Iceberg reader does, data files minus the rows of its
// position-delete files, and compares with cairn's rows. local gives the
// local copy of a file of the snapshot.
func checkDuckDB(t *testing.T, tbl *table.Table, local func(path string) string, want []string) {
	node, err := osexec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", "duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Fatalf("@duckdb/node-api is not installed: run npm ci --prefix %s (testdata/setup/clients.sh does)", dir)
	}
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ents, err := liveEntries(fs, tbl.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	type dataFile struct {
		File string `json:"file"`
		Path string `json:"path"`
	}
	spec := struct {
		Data    []dataFile `json:"data"`
		Deletes []string   `json:"deletes"`
	}{Deletes: []string{}}
	for _, p := range slices.Sorted(maps.Keys(ents.data)) {
		spec.Data = append(spec.Data, dataFile{local(p), p})
	}
	for _, p := range slices.Sorted(maps.Keys(ents.deletes)) {
		spec.Deletes = append(spec.Deletes, local(p))
	}
	if len(spec.Deletes) == 0 {
		t.Fatal("the test meant DuckDB to apply position deletes")
	}
	arg, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(node, "check.js", string(arg))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check.js: %v\n%s", err, stderr.String())
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(want) {
		t.Fatalf("duckdb: %d rows, cairn: %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d:\nduckdb: %s\ncairn:  %s", i, got[i], want[i])
		}
	}
}
