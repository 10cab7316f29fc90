package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/objstore"
	"github.com/cairn-db/cairn/storage/objstore/objstoretest"
)

// The tests of export --storage run a real cairn server (in process, as
// cmd/cairn runs it) on an S3 server of their own, gofakes3 in process on
// loopback, driven through the real AWS SDK by both cairn and iceberg-go;
// the Iceberg warehouse is in the same bucket, so that iceberg-go's scan
// (whose file IO serves one bucket) reads the segments too.

const testBucket = "cairn-test"

// startS3 serves a fresh in-memory S3 holding testBucket on 127.0.0.1 and
// points the standard AWS environment at it (objstoretest.Serve), and
// clears CAIRN_STORAGE, which export's --storage defaults to.
func startS3(t testing.TB) {
	t.Helper()
	objstoretest.Serve(t, testBucket)
	t.Setenv("CAIRN_STORAGE", "")
}

// bucketStore is the whole test bucket as an object store (no prefix).
func bucketStore(t *testing.T) objstore.Store {
	t.Helper()
	st, err := objstore.NewS3(context.Background(), testBucket, "", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// cairnKeys lists the keys and ETags under prefix of st but the leader's
// lease, which the server renews on its own.
func cairnKeys(t *testing.T, st objstore.Store, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for info, err := range st.List(context.Background(), prefix) {
		if err != nil {
			t.Fatal(err)
		}
		if info.Key != prefix+"leader" {
			out[info.Key] = info.ETag
		}
	}
	return out
}

// insertDocs inserts the rows from to to of the test table.
func insertDocs(t *testing.T, conn *pgx.Conn, from, to int) {
	t.Helper()
	_, err := conn.Exec(context.Background(), `INSERT INTO docs SELECT g, g * 7, (g % 100)::int2, g / 4.0, g / 3.0, 'doc ' || g, g % 2 = 0,
		decode(lpad(to_hex(g), 4, '0'), 'hex'), ('00000000-0000-0000-0000-' || lpad(to_hex(g), 12, '0'))::uuid,
		date '2024-01-01' + g::int4, time '08:00' + g * interval '1 second', timestamp '2024-01-01 00:00' + g * interval '1 minute',
		timestamptz '2024-01-01 00:00+02' + g * interval '1 hour', ('{"g": ' || g || '}')::jsonb, ARRAY[g, g + 0.5]::real[]
		FROM generate_series($1::int8, $2::int8) g`, from, to)
	if err != nil {
		t.Fatal(err)
	}
}

// version is a snapshot an export committed and the rows cairn returned
// when it was taken.
type version struct {
	snapshot int64
	rows     []string
}

// readCounter counts what an object store serves: the keys of the
// objects read (Get and GetRange; a Get of a missing key is not counted),
// the bytes read and the number of listings, until take.
type readCounter struct {
	objstore.Store
	mu    sync.Mutex
	keys  []string
	bytes int64
	lists int
}

// reads is what a readCounter counted.
type reads struct {
	bytes       int64
	gets, lists int
	// logs and ckpts are the keys read under log/ and catalog/.
	logs, ckpts []string
}

func (c *readCounter) Get(ctx context.Context, key string) (io.ReadCloser, objstore.Info, error) {
	rc, info, err := c.Store.Get(ctx, key)
	if err != nil {
		return nil, info, err
	}
	c.mu.Lock()
	c.keys = append(c.keys, key)
	c.mu.Unlock()
	return countedReader{rc, c}, info, nil
}

func (c *readCounter) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	rc, err := c.Store.GetRange(ctx, key, off, n)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.keys = append(c.keys, key)
	c.mu.Unlock()
	return countedReader{rc, c}, nil
}

func (c *readCounter) List(ctx context.Context, prefix string) iter.Seq2[objstore.Info, error] {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Store.List(ctx, prefix)
}

// take returns what was counted since the last take.
func (c *readCounter) take() reads {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := reads{bytes: c.bytes, gets: len(c.keys), lists: c.lists}
	for _, k := range c.keys {
		switch {
		case strings.HasPrefix(k, "log/"):
			r.logs = append(r.logs, k)
		case strings.HasPrefix(k, "catalog/"):
			r.ckpts = append(r.ckpts, k)
		}
	}
	c.keys, c.bytes, c.lists = nil, 0, 0
	return r
}

// countedReader adds the bytes read through it to its readCounter.
type countedReader struct {
	io.ReadCloser
	c *readCounter
}

func (r countedReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.c.mu.Lock()
	r.c.bytes += int64(n)
	r.c.mu.Unlock()
	return n, err
}

// metadataFiles lists the vN.metadata.json files of table public.name in
// the warehouse at prefix of st.
func metadataFiles(t *testing.T, st objstore.Store, prefix, name string) []string {
	t.Helper()
	var out []string
	for key := range cairnKeys(t, st, prefix+"public/"+name+"/metadata/") {
		if strings.HasSuffix(key, ".metadata.json") {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// TestExportStore: a server on S3 takes inserts (rows only its log holds
// at first), updates, deletes, a column rename, checkpoints and
// compactions; after each change an export reads the bucket (never
// writing to cairn's keys) and commits a snapshot that iceberg-go's scan
// reads as the rows cairn returns. The first export is a command's; the
// others are the rounds of one exporter, as --follow runs them: each
// reads only the log objects put since the round before (and the
// checkpoint object), unless the log objects it had not read are gone —
// then it starts over from the latest checkpoint. Older snapshots stay
// readable by time travel until cairn deletes a segment they use; then the
// export expires them. A table dropped or renamed in cairn leaves the
// warehouse; each table keeps the last --metadata-versions metadata files.
// DuckDB reads the last snapshot's files.
func TestExportStore(t *testing.T) {
	ctx := context.Background()
	startS3(t)
	st, err := objstore.NewS3(ctx, testBucket, "db", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Replaced segments go at the checkpoint after the one that finds
	// them unreferenced, log objects at the second checkpoint after the
	// one they precede.
	srv := startServerOpts(t, t.TempDir(), storage.Options{Store: st, FlushRows: 16, StoreRetention: time.Millisecond})
	conn, exec := connectExec(t, srv.url)
	checkpoint := func() {
		t.Helper()
		if err := srv.db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	const metaVersions = 3
	storageURL, warehouse := "s3://"+testBucket+"/db", "s3://"+testBucket+"/warehouse"
	cache := t.TempDir()
	bucket := bucketStore(t)

	// The rounds after the first export: one exporter, its reads counted.
	counter := &readCounter{Store: st}
	src := &source{store: counter, url: storageURL, reader: storage.NewStoreReader(counter, cache)}
	defer src.reader.Close()
	var roundOut bytes.Buffer
	e := newExporter(src, &roundOut, t.TempDir(), metaVersions)
	rounds := 0
	// applied are the log objects the exporter's rounds read.
	applied := map[string]bool{}

	var versions []version
	// export exports (the first time as a command, then as a round of e),
	// checks the new snapshot against cairn's rows and that the bucket's
	// cairn keys are as they were, and returns what it printed and what
	// the round read.
	export := func(label string) (string, reads) {
		t.Helper()
		before := cairnKeys(t, bucket, "db/")
		var out string
		var r reads
		if versions == nil {
			var b bytes.Buffer
			args := []string{"export", "--storage", storageURL, "--warehouse", warehouse, "--cache-dir", cache,
				"--metadata-versions", strconv.Itoa(metaVersions), "docs"}
			if err := run(ctx, args, &b); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			out = b.String()
		} else {
			roundOut.Reset()
			counter.take()
			start := time.Now()
			if err := e.round(ctx, warehouse, nil, false); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			took := time.Since(start)
			out, r = roundOut.String(), counter.take()
			rounds++
			t.Logf("%s: round %d read %d objects (%d log objects, %d catalogs), %d bytes, %d listings in %v",
				label, rounds, r.gets, len(r.logs), len(r.ckpts), r.bytes, r.lists, took.Round(time.Millisecond))
			if rounds > 1 {
				for _, k := range r.logs {
					if applied[k] {
						t.Errorf("%s: the round read log object %s again", label, k)
					}
				}
			}
			for _, k := range r.logs {
				applied[k] = true
			}
		}
		if after := cairnKeys(t, bucket, "db/"); !maps.Equal(before, after) {
			t.Fatalf("%s: the export changed cairn's keys in the bucket", label)
		}
		want := cairnRows(t, conn)
		tbl := loadTable(t, warehouse, "docs")
		if got := scanRows(t, tbl, nil, exportCols); !slices.Equal(got, want) {
			t.Fatalf("%s: iceberg scan (%d rows) differs from cairn (%d rows)\n%s", label, len(got), len(want), diffRows(got, want))
		}
		versions = append(versions, version{tbl.CurrentSnapshot().SnapshotID, want})
		if n := len(metadataFiles(t, bucket, "warehouse/", "docs")); n > metaVersions+1 {
			t.Fatalf("%s: %d metadata files; the table keeps %d besides the current one", label, n, metaVersions)
		}
		return out, r
	}

	exec(`CREATE TABLE docs (id int8 PRIMARY KEY, n int4, s int2, f4 float4, f8 float8, body text, b bool,
		by bytea, u uuid, d date, tm time, ts timestamp, tz timestamptz, j jsonb, v real[])`)
	insertDocs(t, conn, 1, 10)
	// A segment holding the column under its old name.
	checkpoint()
	exec(`ALTER TABLE docs RENAME COLUMN body TO txt`)
	insertDocs(t, conn, 11, 12)
	exec(`INSERT INTO docs (id) VALUES (1000)`) // a row of NULLs
	// The segment, and a file for each of the tail's two batches (the
	// 2-row and the 1-row commit: a smaller batch joins a larger one only
	// once as many rows follow it, as a binary counter carries).
	if out, _ := export("a segment and inserts in the log"); !strings.Contains(out, "+3 -0 data files") {
		t.Fatalf("first export: %q", out)
	}
	exec(`UPDATE docs SET txt = 'updated ' || id, v = ARRAY[-1, -2]::real[] WHERE id % 10 = 3`)
	exec(`DELETE FROM docs WHERE id % 10 = 7`)
	export("updates and deletes in the log") // the exporter's first round: all of the log
	exec(`UPDATE docs SET n = 0 WHERE id = 1`)
	if _, r := export("one update"); len(r.logs) != 1 || len(r.ckpts) != 0 {
		t.Fatalf("a round after one commit read log objects %v and catalogs %v", r.logs, r.ckpts)
	}
	if out, r := export("no change"); !strings.Contains(out, "public.docs -> unchanged") || len(r.logs) != 0 {
		t.Fatalf("a round of the same version read log objects %v: %q", r.logs, out)
	}
	versions = versions[:len(versions)-1]
	checkpoint()
	export("checkpointed: the tail in segments")
	insertDocs(t, conn, 13, 20)
	exec(`DELETE FROM docs WHERE id = 2`)
	export("one more insert and delete")

	// Every version so far is readable by time travel.
	tbl := loadTable(t, warehouse, "docs")
	for i, v := range versions {
		if got := scanRows(t, tbl, &v.snapshot, exportCols); !slices.Equal(got, v.rows) {
			t.Fatalf("time travel to version %d: %s", i, diffRows(got, v.rows))
		}
	}

	// A table of its own, then renamed, then dropped: each round has the
	// warehouse follow.
	exec(`CREATE TABLE extra (id int8, note text); INSERT INTO extra VALUES (1, 'one'), (2, 'two')`)
	export("a second table")
	if got := icebergRows(t, warehouse, "extra", "id, note"); !slices.Equal(got, []string{"1 | one", "2 | two"}) {
		t.Fatalf("extra: %q", got)
	}
	exec(`ALTER TABLE extra RENAME TO extra2`)
	if out, _ := export("renamed"); !strings.Contains(out, "public.extra -> dropped") {
		t.Fatalf("a round after the rename: %q", out)
	}
	if got := icebergRows(t, warehouse, "extra2", "id, note"); !slices.Equal(got, []string{"1 | one", "2 | two"}) {
		t.Fatalf("extra2: %q", got)
	}
	exec(`DROP TABLE extra2`)
	if out, _ := export("dropped"); !strings.Contains(out, "public.extra2 -> dropped") {
		t.Fatalf("a round after the drop: %q", out)
	}
	cat, err := hadoop.NewCatalog("check", warehouse, icebergProps(warehouse))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"extra", "extra2"} {
		if _, err := cat.LoadTable(ctx, table.Identifier{"public", name}); !errors.Is(err, catalog.ErrNoSuchTable) {
			t.Fatalf("public.%s after the drop: %v", name, err)
		}
		if keys := cairnKeys(t, bucket, "warehouse/public/"+name+"/"); len(keys) != 0 {
			t.Fatalf("public.%s's files are left: %v", name, slices.Collect(maps.Keys(keys)))
		}
	}

	// Checkpoints flush a segment each; past 8 segments one compacts,
	// and the next deletes the segments it replaced.
	for r := 0; r < 12; r++ {
		insertDocs(t, conn, 100+r*10, 109+r*10)
		exec(fmt.Sprintf(`UPDATE docs SET n = -n WHERE id = %d`, 100+r*10))
		checkpoint()
		if _, rd := export(fmt.Sprintf("round %d", r)); len(rd.ckpts) != 0 {
			t.Fatalf("round %d read the catalog (started over) though no log object it needed was gone", r)
		}
	}

	// The exporter pauses while checkpoints replace the log objects it
	// has not read and the leader deletes them: its next round starts
	// over from the latest checkpoint.
	var next int
	for k := range applied {
		n, _ := strconv.Atoi(strings.TrimPrefix(k, "log/"))
		next = max(next, n+1)
	}
	for r := 0; r < 4; r++ {
		insertDocs(t, conn, 300+r*10, 309+r*10)
		exec(fmt.Sprintf(`DELETE FROM docs WHERE id = %d`, 301+r*10))
		checkpoint()
	}
	if _, err := st.Stat(ctx, fmt.Sprintf("log/%020d", next)); !errors.Is(err, objstore.ErrNotExist) {
		t.Fatalf("log object %d, the next the exporter reads, is still there (%v): the test meant checkpoints to delete it", next, err)
	}
	if _, r := export("unread log objects deleted"); len(r.ckpts) != 1 {
		t.Fatalf("the round after the log objects it needed were deleted read catalogs %v: it should start over from the checkpoint", r.ckpts)
	}
	exec(`DELETE FROM docs WHERE id = 302`)
	if _, r := export("after starting over"); len(r.ckpts) != 0 || len(r.logs) != 1 {
		t.Fatalf("the round after starting over read log objects %v and catalogs %v", r.logs, r.ckpts)
	}

	tbl = loadTable(t, warehouse, "docs")
	kept := 0
	for i, v := range versions {
		if tbl.Metadata().SnapshotByID(v.snapshot) == nil {
			continue
		}
		kept++
		if got := scanRows(t, tbl, &v.snapshot, exportCols); !slices.Equal(got, v.rows) {
			t.Fatalf("time travel to version %d: %s", i, diffRows(got, v.rows))
		}
	}
	t.Logf("%d versions exported, %d snapshots left", len(versions), kept)
	if kept == len(versions) || kept < 2 {
		t.Fatalf("%d of %d snapshots left: the test meant compactions to expire some and keep others", kept, len(versions))
	}

	// The warehouse holds no file that no snapshot uses, and the metadata
	// files the table's metadata log names (the last few).
	used := map[string]bool{tbl.MetadataLocation(): true}
	for ent := range tbl.Metadata().PreviousFiles() {
		used[ent.MetadataFile] = true
	}
	if len(used) != metaVersions+1 {
		t.Fatalf("the table's metadata log names %d files; it keeps %d besides the current one", len(used)-1, metaVersions)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ex := &exporter{snapFiles: map[string]snapshotFiles{}}
	for _, s := range tbl.Metadata().Snapshots() {
		f, err := ex.filesOf(fs, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range slices.Concat(f.data, f.deletes, f.metadata) {
			used[p] = true
		}
	}
	for key := range cairnKeys(t, bucket, "warehouse/public/docs/") {
		p := "s3://" + testBucket + "/" + key
		if !used[p] && !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, "version-hint.text") {
			t.Errorf("warehouse file %s is used by no snapshot nor the metadata log", p)
		}
	}

	t.Run("duckdb", func(t *testing.T) {
		dir := t.TempDir()
		local := func(p string) string {
			key := strings.TrimPrefix(p, "s3://"+testBucket+"/")
			rc, _, err := bucket.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			path := filepath.Join(dir, strings.ReplaceAll(key, "/", "_"))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := io.Copy(f, rc); err != nil {
				t.Fatal(err)
			}
			return path
		}
		checkDuckDB(t, loadTable(t, warehouse, "docs"), local, duckRows(t, conn))
	})
}

// TestExportFollow: export --follow runs while sessions move money
// between accounts (every commit keeps the total) and checkpoints flush
// and compact: every snapshot it commits is a committed version (the
// total and the number of accounts are right in each, read by time
// travel), the last is the final state, read from cairn's segments once
// the rounds adopted the last checkpoint, and the table keeps
// --metadata-versions older metadata files.
func TestExportFollow(t *testing.T) {
	ctx := context.Background()
	startS3(t)
	st, err := objstore.NewS3(ctx, testBucket, "db", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The default retention: no segment goes during the test, so every
	// snapshot stays to be checked (TestExportStore checks expiry).
	srv := startServerOpts(t, t.TempDir(), storage.Options{Store: st, FlushRows: 64})
	conn, err := pgx.Connect(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const accounts, balance = 40, 100
	if _, err := conn.Exec(ctx, `CREATE TABLE accounts (id int8 PRIMARY KEY, balance int8 NOT NULL);
		INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 40) g`); err != nil {
		t.Fatal(err)
	}
	warehouse := "s3://" + testBucket + "/warehouse"
	fctx, stop := context.WithCancel(ctx)
	var out bytes.Buffer
	followed := make(chan error, 1)
	go func() {
		followed <- run(fctx, []string{"export", "--storage", "s3://" + testBucket + "/db", "--warehouse", warehouse,
			"--follow", "--interval", "20ms", "--metadata-versions", "2"}, &out)
	}()
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Go(func() {
			c, err := pgx.Connect(ctx, srv.url)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close(ctx)
			for i := 0; i < 150; i++ {
				from, to := (i*7+w)%accounts+1, (i*13+w+5)%accounts+1
				if from == to {
					continue
				}
				// UPDATE ... FROM is not needed: one statement moves the
				// amount between the two rows.
				_, err := c.Exec(ctx, `UPDATE accounts SET balance = balance + CASE WHEN id = $1 THEN -3 ELSE 3 END WHERE id IN ($1, $2)`, from, to)
				if err != nil && !strings.Contains(err.Error(), "40001") {
					t.Error(err)
					return
				}
				if i%40 == 0 {
					if err := srv.db.Checkpoint(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err := srv.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	var want []string
	rows, err := conn.Query(ctx, "SELECT id, balance FROM accounts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, b int64
		if err := rows.Scan(&id, &b); err != nil {
			t.Fatal(err)
		}
		want = append(want, exportRow([]any{id, b}))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// The rounds go on until one has exported the final state, from
	// cairn's segments only: the rounds apply the log objects put since
	// the round before, and adopt the last checkpoint, whose segments
	// hold every row (no tail file is left).
	tailFiles := func(tbl *table.Table) (n int) {
		fs, err := tbl.FS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := liveEntries(fs, tbl.CurrentSnapshot())
		if err != nil {
			t.Fatal(err)
		}
		for p := range ents.data {
			if strings.Contains(p, "/data/tail-") {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tbl := loadTable(t, warehouse, "accounts")
		got := scanRows(t, tbl, nil, "id, balance")
		tails := tailFiles(tbl)
		if slices.Equal(got, want) && tails == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("follow has not exported the final state from segments (%d tail files):\n%s", tails, diffRows(got, want))
		}
	}
	stop()
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "cairn-iceberg:") {
		t.Fatalf("a round failed:\n%s", out.String())
	}
	// The table keeps its last two metadata files besides the current one.
	if files := metadataFiles(t, bucketStore(t), "warehouse/", "accounts"); len(files) != 3 {
		t.Fatalf("%d metadata files: %v", len(files), files)
	}
	tbl := loadTable(t, warehouse, "accounts")
	snaps := tbl.Metadata().Snapshots()
	t.Logf("%d snapshots", len(snaps))
	if len(snaps) < 2 || len(snaps) != strings.Count(out.String(), "(snapshot ") {
		t.Fatalf("follow committed %d snapshots:\n%s", len(snaps), out.String())
	}
	for _, s := range snaps {
		rows := scanRows(t, tbl, &s.SnapshotID, "id, balance")
		total := 0
		for _, r := range rows {
			_, b, _ := strings.Cut(r, " | ")
			n, _ := strconv.Atoi(b)
			total += n
		}
		if len(rows) != accounts || total != accounts*balance {
			t.Fatalf("snapshot %d (%s): %d accounts holding %d", s.SnapshotID, s.Summary.Properties["cairn.lsn"], len(rows), total)
		}
	}
}

// diffRows shows the first rows where got and want differ.
func diffRows(got, want []string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)) && b.Len() < 2000; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "row %d:\n  iceberg: %s\n  cairn:   %s\n", i, g, w)
		}
	}
	return b.String()
}

// TestExportDropsNamespaces: a cairn schema dropped with its tables
// leaves the warehouse, its namespace too, once no table of it is left;
// a namespace that also holds a table of another writer, or that held
// no table of this cairn when the exporter first listed the warehouse,
// stays. A schema created again comes back; an exporter started afresh
// drops it again with its tables.
func TestExportDropsNamespaces(t *testing.T) {
	ctx := context.Background()
	startS3(t)
	st, err := objstore.NewS3(ctx, testBucket, "db", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServerOpts(t, t.TempDir(), storage.Options{Store: st})
	_, exec := connectExec(t, srv.url)
	warehouse := "s3://" + testBucket + "/warehouse"
	cat, err := hadoop.NewCatalog("check", warehouse, icebergProps(warehouse))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	// A namespace of another writer, empty, that a cairn schema of the
	// same name then uses.
	if err := cat.CreateNamespace(ctx, table.Identifier{"theirs"}, nil); err != nil {
		t.Fatal(err)
	}
	exec(`CREATE SCHEMA solo; CREATE TABLE solo.a (id int8); CREATE TABLE solo.b (id int8);
		CREATE SCHEMA mixed; CREATE TABLE mixed.c (id int8);
		CREATE SCHEMA theirs; CREATE TABLE theirs.d (id int8);
		INSERT INTO solo.a VALUES (1); INSERT INTO solo.b VALUES (2); INSERT INTO mixed.c VALUES (3); INSERT INTO theirs.d VALUES (4)`)
	src := &source{store: st, url: "s3://" + testBucket + "/db", reader: storage.NewStoreReader(st, t.TempDir())}
	defer src.reader.Close()
	var out bytes.Buffer
	e := newExporter(src, &out, t.TempDir(), 3)
	round := func(label string) string {
		t.Helper()
		out.Reset()
		if err := e.round(ctx, warehouse, nil, true); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return out.String()
	}
	exists := func(ns string) bool {
		t.Helper()
		ok, err := cat.CheckNamespaceExists(ctx, table.Identifier{ns})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	round("first")
	// A table of another writer beside mixed.c.
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64})
	if _, err := cat.CreateTable(ctx, table.Identifier{"mixed", "other"}, sc); err != nil {
		t.Fatal(err)
	}

	exec(`DROP TABLE solo.a`)
	if got := round("a table of two"); strings.Contains(got, "namespace dropped") || !exists("solo") {
		t.Fatalf("dropping one of a schema's two tables: %q", got)
	}
	exec(`DROP SCHEMA solo CASCADE; DROP SCHEMA mixed CASCADE; DROP SCHEMA theirs CASCADE`)
	got := round("the schemas")
	for _, want := range []string{"solo.b -> dropped", "mixed.c -> dropped", "theirs.d -> dropped", "solo -> namespace dropped"} {
		if !strings.Contains(got, want) {
			t.Fatalf("a round after dropping the schemas: %q, want %q", got, want)
		}
	}
	if strings.Contains(got, "mixed -> namespace") || strings.Contains(got, "theirs -> namespace") {
		t.Fatalf("a round after dropping the schemas dropped a namespace of another writer: %q", got)
	}
	if exists("solo") || !exists("mixed") || !exists("theirs") {
		t.Fatalf("namespaces solo %v, mixed %v, theirs %v; want only solo gone", exists("solo"), exists("mixed"), exists("theirs"))
	}
	if keys := cairnKeys(t, bucketStore(t), "warehouse/solo/"); len(keys) != 0 {
		t.Fatalf("solo's keys are left: %v", slices.Collect(maps.Keys(keys)))
	}
	if _, err := cat.LoadTable(ctx, table.Identifier{"mixed", "other"}); err != nil {
		t.Fatalf("the other writer's table: %v", err)
	}

	exec(`CREATE SCHEMA solo; CREATE TABLE solo.a (id int8); INSERT INTO solo.a VALUES (5)`)
	round("solo again")
	tbl, err := cat.LoadTable(ctx, table.Identifier{"solo", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanRows(t, tbl, nil, "id"); !slices.Equal(got, []string{"5"}) {
		t.Fatalf("solo.a again: %q", got)
	}

	// An exporter started afresh finds solo holding only this cairn's
	// tables, and drops it with them.
	e = newExporter(src, &out, t.TempDir(), 3)
	exec(`DROP SCHEMA solo CASCADE`)
	if got := round("a new exporter"); !strings.Contains(got, "solo -> namespace dropped") || exists("solo") {
		t.Fatalf("a new exporter's round after dropping solo again: %q", got)
	}
}

// connectExec connects to url for the rest of the test and returns the
// connection with an exec that fails the test on any error.
func connectExec(t *testing.T, url string) (*pgx.Conn, func(sql string)) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn, func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}
