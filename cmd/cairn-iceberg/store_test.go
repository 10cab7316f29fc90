package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
func startS3(t *testing.T) {
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

// TestExportStore: a server on S3 takes inserts (rows only its log holds
// at first), updates, deletes, a column rename, checkpoints and
// compactions; after each change an export reads the bucket (never
// writing to cairn's keys) and commits a snapshot that iceberg-go's scan
// reads as the rows cairn returns. Older snapshots stay readable by time
// travel until cairn deletes a segment they use; then the export expires
// them. DuckDB reads the last snapshot's files.
func TestExportStore(t *testing.T) {
	ctx := context.Background()
	startS3(t)
	st, err := objstore.NewS3(ctx, testBucket, "db", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Replaced segments go at the checkpoint after the one that finds
	// them unreferenced.
	srv := startServerOpts(t, t.TempDir(), storage.Options{Store: st, FlushRows: 16, StoreRetention: time.Millisecond})
	conn, err := pgx.Connect(ctx, srv.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	storageURL, warehouse := "s3://"+testBucket+"/db", "s3://"+testBucket+"/warehouse"
	cache := t.TempDir()
	bucket := bucketStore(t)
	var versions []version
	// export exports, checks the new snapshot against cairn's rows and
	// that the bucket's cairn keys are as they were, and returns what
	// it printed.
	export := func(label string) string {
		t.Helper()
		before := cairnKeys(t, bucket, "db/")
		var out bytes.Buffer
		if err := run(ctx, []string{"export", "--storage", storageURL, "--warehouse", warehouse, "--cache-dir", cache, "docs"}, &out); err != nil {
			t.Fatalf("%s: %v", label, err)
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
		return out.String()
	}

	exec(`CREATE TABLE docs (id int8 PRIMARY KEY, n int4, s int2, f4 float4, f8 float8, body text, b bool,
		by bytea, u uuid, d date, tm time, ts timestamp, tz timestamptz, j jsonb, v real[])`)
	insertDocs(t, conn, 1, 10)
	// A segment holding the column under its old name.
	if err := srv.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	exec(`ALTER TABLE docs RENAME COLUMN body TO txt`)
	insertDocs(t, conn, 11, 12)
	exec(`INSERT INTO docs (id) VALUES (1000)`) // a row of NULLs
	if out := export("a segment and inserts in the log"); !strings.Contains(out, "+2 -0 data files") {
		t.Fatalf("first export: %q", out)
	}
	exec(`UPDATE docs SET txt = 'updated ' || id, v = ARRAY[-1, -2]::real[] WHERE id % 10 = 3`)
	exec(`DELETE FROM docs WHERE id % 10 = 7`)
	export("updates and deletes in the log")
	if out := export("no change"); !strings.Contains(out, "public.docs -> unchanged") {
		t.Fatalf("an export of the same version: %q", out)
	}
	versions = versions[:len(versions)-1]
	if err := srv.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
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

	// Checkpoints flush a segment each; past 8 segments one compacts,
	// and the next deletes the segments it replaced.
	for r := 0; r < 12; r++ {
		insertDocs(t, conn, 100+r*10, 109+r*10)
		exec(fmt.Sprintf(`UPDATE docs SET n = -n WHERE id = %d`, 100+r*10))
		if err := srv.db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		export(fmt.Sprintf("round %d", r))
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

	// The warehouse holds no file that no snapshot uses.
	used := map[string]bool{tbl.MetadataLocation(): true}
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := &exporter{snapFiles: map[string]snapshotFiles{}}
	for _, s := range tbl.Metadata().Snapshots() {
		f, err := e.filesOf(fs, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range slices.Concat(f.data, f.deletes, f.metadata) {
			used[p] = true
		}
	}
	for key := range cairnKeys(t, bucket, "warehouse/public/docs/") {
		p := "s3://" + testBucket + "/" + key
		if !used[p] && !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, ".metadata.json") && !strings.HasSuffix(p, "version-hint.text") {
			t.Errorf("warehouse file %s is used by no snapshot", p)
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
// travel), and the last is the final state.
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
			"--follow", "--interval", "20ms"}, &out)
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
	// The rounds go on until one has exported the final state.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got := scanRows(t, loadTable(t, warehouse, "accounts"), nil, "id, balance"); slices.Equal(got, want) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("follow has not exported the final state:\n%s", diffRows(got, want))
		}
	}
	stop()
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "cairn-iceberg:") {
		t.Fatalf("a round failed:\n%s", out.String())
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
