package storage

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/objstore"
	"github.com/cairn-db/cairn/storage/objstore/objstoretest"
)

// The object home's tests run against S3 as gofakes3 serves it on
// loopback (in-process, conditional puts checked under its lock), through
// the real AWS SDK client, as the objstore conformance suite does.

// fakeS3 serves a fresh in-memory bucket on 127.0.0.1 and returns a store
// on it.
func fakeS3(t testing.TB) objstore.Store {
	t.Helper()
	objstoretest.Serve(t, "cairn")
	st, err := objstore.Open(context.Background(), "s3://cairn/db")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// crash stops db as a killed process stops: background work ends and
// nothing more is flushed, checkpointed or put; the directory is released.
func (db *DB) crash() {
	if db.closed.Swap(true) {
		return
	}
	close(db.quit)
	db.wg.Wait()
	db.lock.Close()
}

// storeKeys lists the keys under prefix.
func storeKeys(t testing.TB, st objstore.Store, prefix string) []string {
	t.Helper()
	var out []string
	for info, err := range st.List(context.Background(), prefix) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info.Key)
	}
	return out
}

// parquetFiles lists the table's segment files (not their sidecars).
func parquetFiles(t *testing.T, db *DB, def *catalog.TableDef) []string {
	var out []string
	for _, f := range segmentFiles(t, db, def) {
		if strings.HasSuffix(f, ".parquet") {
			out = append(out, f)
		}
	}
	return out
}

// TestObjectHomeRestartOnEmptyCache: rows committed before and after a
// checkpoint, deletions, a unique key and a sequence are all there when a
// server opens the store with an empty data directory; Close leaves a
// checkpoint and no log objects, and a replaced segment is deleted from the
// store. It runs against S3 and against a directory as the object store
// (objstore.Local, as for a shared file system).
func TestObjectHomeRestartOnEmptyCache(t *testing.T) {
	t.Run("s3", func(t *testing.T) { restartOnEmptyCache(t, fakeS3(t)) })
	t.Run("directory", func(t *testing.T) {
		st, err := objstore.Open(context.Background(), filepath.Join(t.TempDir(), "store"))
		if err != nil {
			t.Fatal(err)
		}
		restartOnEmptyCache(t, st)
	})
}

func restartOnEmptyCache(t *testing.T, st objstore.Store) {
	db := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: -1})
	def := kvTable(t, db, "t")
	tx := db.Begin()
	if err := tx.CreateSequence(&catalog.SequenceDef{Schema: "public", Name: "s"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	for range 3 {
		tx := db.Begin()
		if _, err := tx.NextVal("public", "s"); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	insert(t, db, def, kvRows(0, 100)...)
	// A checkpoint deletes the log objects the one before it covered.
	for range 2 {
		if err := db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	if keys := storeKeys(t, st, "log/"); len(keys) != 0 {
		t.Fatalf("log objects a checkpoint covers are still there: %v", keys)
	}
	insert(t, db, def, kvRows(100, 200)...)
	if keys := storeKeys(t, st, "log/"); len(keys) != 1 {
		t.Fatalf("log objects after one commit: %v", keys)
	}
	tx = db.Begin()
	var del []int64
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[0].(int) < 10 {
			del = append(del, r[2].(int64))
		}
	}
	if err := tx.Delete(def.ID, del); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	// Two segments merged into one: the first two go from the store once a
	// checkpoint no longer names them.
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
	before := parquetFiles(t, db, def)
	if len(before) != 2 {
		t.Fatalf("segments %v, want 2", before)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Close's checkpoint keeps the log objects it covers (the two
	// commits since the last one) for servers tailing the log.
	if keys := storeKeys(t, st, "log/"); len(keys) != 2 {
		t.Fatalf("log objects after Close: %v", keys)
	}
	if keys := storeKeys(t, st, "checkpoint"); len(keys) != 1 {
		t.Fatalf("checkpoint object: %v", keys)
	}

	db = openDB(t, t.TempDir(), Options{Store: st, StoreRetention: -1})
	if n := countKV(t, db, def); n != 190 {
		t.Fatalf("%d rows after a restart on an empty data directory, want 190", n)
	}
	tx = db.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{50, "again"})); sqlstate(err) != "23505" {
		t.Fatalf("duplicate key after restart: %v, want 23505", err)
	}
	tx.Rollback()
	tx = db.Begin()
	v, err := tx.NextVal("public", "s")
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	if v != 4 {
		t.Fatalf("nextval after restart = %d, want 4", v)
	}
	// Compaction replaces the segments; the next checkpoint deletes them.
	insert(t, db, def, kvRows(200, 300)...)
	for i := range 2 * smallSegments {
		insert(t, db, def, kvRows(1000+i, 1001+i)...)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	after := parquetFiles(t, db, def)
	if len(after) >= len(before)+2*smallSegments {
		t.Fatalf("no compaction: %v", after)
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, k := range storeKeys(t, st, "tables/") {
		if strings.HasSuffix(k, ".parquet") {
			stored = append(stored, k[strings.LastIndexByte(k, '/')+1:])
		}
	}
	for _, name := range before {
		if slices.Contains(stored, name) && !slices.Contains(after, name) {
			t.Fatalf("compacted-away segment %s still in the store: %v (live %v)", name, stored, after)
		}
	}
	want := countKV(t, db, def)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, t.TempDir(), Options{Store: st})
	defer db.Close()
	if n := countKV(t, db, def); n != want {
		t.Fatalf("%d rows after compaction and restart, want %d", n, want)
	}
}

// TestObjectHomeCrashKeepsAcknowledgedCommits: a server that stops without
// a checkpoint loses no commit it acknowledged — small ones, a large one
// that spilled segments of its own, a table created since the checkpoint
// — on an empty data directory, and on the stale cache of the crashed
// server after another one wrote more.
func TestObjectHomeCrashKeepsAcknowledgedCommits(t *testing.T) {
	st := fakeS3(t)
	opts := Options{Store: st, SpillBytes: 4 << 10, FlushRows: 1 << 30}
	dir1 := t.TempDir()
	db := openDB(t, dir1, opts)
	def := kvTable(t, db, "t")
	insert(t, db, def, kvRows(0, 50)...)
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	insertBatches(t, tx, def, 1000, 3000)
	if n := len(tx.tables[def.ID].spilled); n < 2 {
		t.Fatalf("spilled %d segments, want several", n)
	}
	mustCommit(t, tx)
	insert(t, db, def, kvRows(50, 60)...)
	def2 := kvTable(t, db, "t2")
	insert(t, db, def2, kvRows(0, 7)...)
	db.crash()
	if keys := storeKeys(t, st, "log/"); len(keys) < 4 {
		t.Fatalf("log objects after the crash: %v", keys)
	}

	db = openDB(t, t.TempDir(), opts)
	if n := countKV(t, db, def); n != 2060 {
		t.Fatalf("%d rows after the crash, want 2060", n)
	}
	if n := countKV(t, db, def2); n != 7 {
		t.Fatalf("%d rows of the table created after the checkpoint, want 7", n)
	}
	m, err := db.Begin().TextSearch(context.Background(), def.ID, 1, []string{"w2999"})
	if err != nil || len(m.RowIDs) != 1 {
		t.Fatalf("text search over a spilled segment: %v %v", m.RowIDs, err)
	}
	insert(t, db, def2, kvRows(7, 9)...)
	db.crash()

	// The first server's cache is stale: it has neither the second one's
	// commits nor its checkpoint.
	db = openDB(t, dir1, opts)
	defer db.Close()
	if n := countKV(t, db, def2); n != 9 {
		t.Fatalf("%d rows of t2 on the stale cache, want 9", n)
	}
	if n := countKV(t, db, def); n != 2060 {
		t.Fatalf("%d rows of t on the stale cache, want 2060", n)
	}
}

// TestObjectHomeIndexesSurvive: a segment's vector index and text index go
// to the store with it; a server with an empty data directory fetches them
// (and the segment) when a search first needs them, rather than building
// them again.
func TestObjectHomeIndexesSurvive(t *testing.T) {
	st := fakeS3(t)
	db := openDB(t, t.TempDir(), Options{Store: st})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("body", types.TextT), col("emb", types.ArrayOf(types.Float4T, 1))})
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_emb", Table: def.ID, Method: "hnsw",
		Columns: []int{def.Columns[2].ID}, Options: map[string]string{"m": "16", "ef_construction": "64"}}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	const dim = 16
	var rows [][]any
	for i := range 1500 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32((i*31+j*17)%97) / 97
		}
		rows = append(rows, []any{i, fmt.Sprintf("note%d shared", i), v})
	}
	insert(t, db, def, rows...)
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
	waitVectorBuilds(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, t.TempDir(), Options{Store: st})
	defer db.Close()
	cached := func(pattern string) []string {
		m, _ := filepath.Glob(filepath.Join(db.lookupRT(def.ID).dir, pattern))
		return m
	}
	if m := cached("seg-*"); len(m) != 0 {
		t.Fatalf("files fetched before anything read them: %v", m)
	}
	tx = db.Begin()
	defer tx.Rollback()
	hits, err := tx.VectorSearch(context.Background(), def.ID, ix, rows[700][2].([]float32), 5, VectorEffort{Ef: 64}, nil)
	if err != nil || len(hits) != 5 || hits[0].Dist > 1e-5 {
		t.Fatalf("vector search after restart: %v %v", hits, err)
	}
	db.vecMu.Lock()
	queued := len(db.vecQueue) + len(db.vecQueued)
	db.vecMu.Unlock()
	if queued != 0 {
		t.Fatalf("%d vector index builds queued: the index file did not come from the store", queued)
	}
	m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{"note1234"})
	if err != nil || len(m.RowIDs) != 1 {
		t.Fatalf("text search after restart: %v %v", m.RowIDs, err)
	}
	for _, pattern := range []string{"*" + textIndexExt, "*" + vecIndexExt, "*.parquet"} {
		if m := cached(pattern); len(m) != 1 {
			t.Fatalf("cached %s after the searches: %v", pattern, m)
		}
	}
}

// TestObjectHomeLostRace: two servers on one store race for the same log
// object; the loser catches up with the winner's commit and its commit,
// rebased onto it, commits, the winner sees it in its next transaction,
// and a restart sees exactly the acknowledged commits.
func TestObjectHomeLostRace(t *testing.T) {
	st := fakeS3(t)
	db1 := openDB(t, t.TempDir(), Options{Store: st})
	def := kvTable(t, db1, "t")
	db2 := openDB(t, t.TempDir(), Options{Store: st})
	defer db2.crash()
	insert(t, db1, def, kvRows(0, 3)...)
	if err := db2.CatchUp(); err != nil {
		t.Fatal(err)
	}
	tx := db2.Begin()
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[[0 v] [1 v] [2 v]]" {
		t.Fatalf("the second server's snapshot: %s", got)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(10, 11)...)); err != nil {
		t.Fatal(err)
	}
	insert(t, db1, def, kvRows(3, 4)...) // takes the log object tx's commit wants
	lost := db2.epoch()
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit of the losing server: %v", err)
	}
	if db2.epoch() == lost {
		t.Fatal("the commit did not lose the log")
	}
	if err := db1.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if got := rowsString(scanRows(t, db1.Begin(), def.ID, false)); got != "[[0 v] [1 v] [10 v] [2 v] [3 v]]" {
		t.Fatalf("the first server after the second's commit: %s", got)
	}
	insert(t, db1, def, kvRows(4, 5)...)
	db1.crash()
	db := openDB(t, t.TempDir(), Options{Store: st})
	defer db.Close()
	if got := rowsString(scanRows(t, db.Begin(), def.ID, false)); got != "[[0 v] [1 v] [10 v] [2 v] [3 v] [4 v]]" {
		t.Fatalf("rows %s", got)
	}
}

// TestObjectHomeKeepsLocalDatabases: a data directory holding a local
// database is never taken (and cleared) as an object store's cache, and a
// cache is never opened or exported as a local database.
func TestObjectHomeKeepsLocalDatabases(t *testing.T) {
	st := fakeS3(t)
	local := t.TempDir()
	db := openDB(t, local, Options{})
	def := kvTable(t, db, "t")
	insert(t, db, def, kvRows(0, 3)...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(local, Options{Store: st, Logger: quietLogger()}); err == nil || !strings.Contains(err.Error(), "holds a local database") {
		t.Fatalf("opening a local database as a cache: %v", err)
	}
	db = openDB(t, local, Options{})
	if n := countKV(t, db, def); n != 3 {
		t.Fatalf("local database has %d rows after the refusal, want 3", n)
	}
	db.Close()
	cache := t.TempDir()
	openDB(t, cache, Options{Store: st}).Close()
	if _, err := Open(cache, Options{Logger: quietLogger()}); err == nil || !strings.Contains(err.Error(), "cache of an object store") {
		t.Fatalf("opening a cache as a local database: %v", err)
	}
	if _, _, err := ReadCommitted(cache); err == nil || !strings.Contains(err.Error(), "cache of an object store") {
		t.Fatalf("exporting a cache: %v", err)
	}
}

// BenchmarkObjectHomeCommit measures one-row commits against gofakes3 on
// loopback from 1 and 8 sessions; puts/commit shows the group commit.
func BenchmarkObjectHomeCommit(b *testing.B) {
	for _, sessions := range []int{1, 8} {
		b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) {
			st := fakeS3(b)
			db := openDB(b, b.TempDir(), Options{Store: st})
			defer db.Close()
			def := createTable(b, db, "t", []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)})
			recs := make(chan int, b.N)
			for i := range b.N {
				recs <- i
			}
			close(recs)
			first := db.wal.(*objLog).next
			b.ResetTimer()
			var wg sync.WaitGroup
			for range sessions {
				wg.Go(func() {
					for i := range recs {
						tx := db.Begin()
						if err := tx.Insert(def.ID, makeRecord(b, def, []any{i, "v"})); err != nil {
							b.Error(err)
							return
						}
						if err := tx.Commit(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(db.wal.(*objLog).next-first)/float64(b.N), "puts/commit")
		})
	}
}

// faultyStore is a real store whose puts and deletes of chosen keys fail,
// as a server that dies between two of them leaves the bucket.
type faultyStore struct {
	objstore.Store
	mu   sync.Mutex
	fail func(op, key string) bool
}

func (s *faultyStore) failing(op, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil && s.fail(op, key) {
		return fmt.Errorf("injected failure: %s %s", op, key)
	}
	return nil
}

func (s *faultyStore) setFail(fail func(op, key string) bool) {
	s.mu.Lock()
	s.fail = fail
	s.mu.Unlock()
}

func (s *faultyStore) Put(ctx context.Context, key string, r io.Reader) (objstore.Info, error) {
	if err := s.failing("put", key); err != nil {
		return objstore.Info{}, err
	}
	return s.Store.Put(ctx, key, r)
}

func (s *faultyStore) PutIfAbsent(ctx context.Context, key string, r io.Reader) (objstore.Info, error) {
	if err := s.failing("put", key); err != nil {
		return objstore.Info{}, err
	}
	return s.Store.PutIfAbsent(ctx, key, r)
}

func (s *faultyStore) PutIfMatch(ctx context.Context, key string, r io.Reader, etag string) (objstore.Info, error) {
	if err := s.failing("put", key); err != nil {
		return objstore.Info{}, err
	}
	return s.Store.PutIfMatch(ctx, key, r, etag)
}

func (s *faultyStore) Delete(ctx context.Context, key string) error {
	if err := s.failing("delete", key); err != nil {
		return err
	}
	return s.Store.Delete(ctx, key)
}

// TestObjectHomeCheckpointCutShort: a checkpoint that stops before its
// checkpoint object is put (its manifests and catalog put or not) leaves
// the previous checkpoint and the whole log in force; one that stops after
// it, before its deletions, leaves garbage that the next server's
// checkpoint deletes. No commit is lost either way.
func TestObjectHomeCheckpointCutShort(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(op, key string) bool
	}{
		{"manifest", func(op, key string) bool { return op == "put" && isManifestKey(key) }},
		{"catalog", func(op, key string) bool { return op == "put" && strings.HasPrefix(key, storeCatalogPrefix) }},
		{"checkpoint", func(op, key string) bool { return op == "put" && key == storeCheckpointKey }},
		{"deletions", func(op, key string) bool { return op == "delete" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &faultyStore{Store: fakeS3(t)}
			db := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: -1})
			def := kvTable(t, db, "t")
			insert(t, db, def, kvRows(0, 10)...)
			if err := db.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			insert(t, db, def, kvRows(10, 20)...)
			tx := db.Begin()
			if err := tx.Delete(def.ID, []int64{1, 2}); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
			st.setFail(tc.fail)
			err := db.Checkpoint()
			if (err == nil) != (tc.name == "deletions") {
				t.Fatalf("checkpoint: %v", err)
			}
			insert(t, db, def, kvRows(20, 25)...)
			db.crash()
			st.setFail(nil)

			db = openDB(t, t.TempDir(), Options{Store: st, StoreRetention: -1})
			defer db.Close()
			if n := countKV(t, db, def); n != 23 {
				t.Fatalf("%d rows, want 23", n)
			}
			// The crashed server's lease lapses first (lead.go).
			waitLeads(t, db)
			insert(t, db, def, kvRows(25, 26)...)
			for range 2 {
				if err := db.Checkpoint(); err != nil {
					t.Fatal(err)
				}
			}
			if keys := storeKeys(t, st, "log/"); len(keys) != 0 {
				t.Fatalf("log objects after the next checkpoints: %v", keys)
			}
			var manifests []string
			for _, k := range storeKeys(t, st, "tables/") {
				if isManifestKey(k) {
					manifests = append(manifests, k)
				}
			}
			if len(manifests) != 1 || len(storeKeys(t, st, storeCatalogPrefix)) != 1 {
				t.Fatalf("after the next checkpoint: manifests %v, catalogs %v", manifests, storeKeys(t, st, storeCatalogPrefix))
			}
		})
	}
}

// gatedStore is a real store whose next put of a log object, once armed,
// waits until released: a group commit held in flight.
type gatedStore struct {
	objstore.Store
	mu      sync.Mutex
	entered chan struct{} // closed when the held put arrives
	release chan struct{} // closed to let it go on
}

// hold arms the gate for the next log put.
func (s *gatedStore) hold() {
	s.mu.Lock()
	s.entered, s.release = make(chan struct{}), make(chan struct{})
	s.mu.Unlock()
}

func (s *gatedStore) PutIfAbsent(ctx context.Context, key string, r io.Reader) (objstore.Info, error) {
	s.mu.Lock()
	entered, release := s.entered, s.release
	if strings.HasPrefix(key, storeLogPrefix) {
		s.entered, s.release = nil, nil
	}
	s.mu.Unlock()
	if entered != nil && strings.HasPrefix(key, storeLogPrefix) {
		close(entered)
		<-release
	}
	return s.Store.PutIfAbsent(ctx, key, r)
}

// TestObjectHomeFlushDuringGroupCommit: a flush swaps a table while a
// group commit is in flight and a later commit is waiting behind it;
// the group commit must then publish its commits with the flush, or the
// next lost log race (which returns the head to the published state)
// drops acknowledged commits. (It did: TestSeveralServersInvariants lost
// acknowledged rows of the leader, and a restart found duplicate keys.)
func TestObjectHomeFlushDuringGroupCommit(t *testing.T) {
	for _, laterFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("later_commit_before_flush=%v", laterFirst), func(t *testing.T) {
			st := fakeS3(t)
			g1 := &gatedStore{Store: st}
			db1 := openDB(t, t.TempDir(), Options{Store: g1, StoreRetention: -1})
			defer db1.crash()
			def := kvTable(t, db1, "t")
			db2 := openDB(t, t.TempDir(), Options{Store: st})
			defer db2.crash()
			if !db1.home.(*objectHome).leads() {
				t.Fatal("the first server does not lead")
			}
			// A durable tail batch too big for the next commits to merge
			// into: the flush below takes it.
			insert(t, db1, def, kvRows(0, tailMergeRows)...)

			commit := func(from int) chan error {
				done := make(chan error, 1)
				go func() {
					tx := db1.Begin()
					if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(from, from+1)...)); err != nil {
						done <- err
						return
					}
					done <- tx.Commit()
				}()
				return done
			}
			appended := func(lsn uint64) {
				for {
					db1.mu.Lock()
					last := db1.lastLSN
					db1.mu.Unlock()
					if last >= lsn {
						return
					}
					sleepMS(1)
				}
			}
			flush := func() {
				if err := db1.flushTable(def.ID, true); err != nil {
					t.Fatal(err)
				}
			}
			g1.hold()
			entered, release := g1.entered, g1.release
			first := db1.lastLSN + 1
			acked := commit(100000) // its group commit waits in the put
			<-entered
			var later chan error
			if laterFirst {
				later = commit(100001) // appended, waits behind the put
				appended(first + 1)
				flush()
			} else {
				flush()
				later = commit(100001)
				appended(first + 1)
			}
			// The later commit's group commit waits too; meanwhile the
			// other server takes the log object it wants.
			g1.hold()
			entered2, release2 := g1.entered, g1.release
			close(release)
			if err := <-acked; err != nil {
				t.Fatalf("the first commit: %v", err)
			}
			<-entered2
			if err := db2.CatchUp(); err != nil {
				t.Fatal(err)
			}
			insert(t, db2, def, kvRows(200000, 200001)...)
			close(release2)
			if err := <-later; err != nil {
				t.Fatalf("the later commit, rebased after its lost race: %v", err)
			}
			want := tailMergeRows + 3
			if n := countKV(t, db1, def); n != want {
				t.Fatalf("the server sees %d rows after its lost race, want %d (an acknowledged commit is gone)", n, want)
			}
			if err := db1.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			db1.crash()
			db := openDB(t, t.TempDir(), Options{Store: st})
			defer db.Close()
			if n := countKV(t, db, def); n != want {
				t.Fatalf("a new server sees %d rows, want %d", n, want)
			}
		})
	}
}

// TestObjectHomeDiskCacheBounded: with DiskCacheBytes the data directory
// keeps about that much of the table's files; reads of evicted segments,
// text and vector indexes and raw vectors fetch them again and answer as
// before; nothing the store lacks is evicted; and a restart on the
// bounded cache trims what an earlier run left.
func TestObjectHomeDiskCacheBounded(t *testing.T) {
	st := fakeS3(t)
	dir := t.TempDir()
	db := openDB(t, dir, Options{Store: st, FlushRows: 1 << 30})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("body", types.TextT), col("emb", types.ArrayOf(types.Float4T, 1))})
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_emb", Table: def.ID, Method: "hnsw",
		Columns: []int{def.Columns[2].ID}, Options: map[string]string{"m": "16", "ef_construction": "64"}}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	const dim, perSeg, segs = 16, 150, 4
	var rows [][]any
	for s := range segs {
		var part [][]any
		for i := s * perSeg; i < (s+1)*perSeg; i++ {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32((i*31+j*17)%97)/97 + 0.01
			}
			part = append(part, []any{i, fmt.Sprintf("note%d shared", i), v})
		}
		insert(t, db, def, part...)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, part...)
	}
	waitVectorBuilds(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	tableBytes := func(db *DB) int64 {
		var n int64
		filepath.WalkDir(db.lookupRT(def.ID).dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() != manifestName {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		return n
	}
	full := tableBytes(db)
	raws, _ := filepath.Glob(filepath.Join(db.lookupRT(def.ID).dir, "*"+vecRawExt))
	var rawBytes int64
	for _, p := range raws {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		rawBytes += fi.Size()
	}
	// Raw vector files stay (diskcache.go); a third of the rest fits.
	limit := rawBytes + (full-rawBytes)/3

	// A fresh cache, bounded to a third of the table's evictable files.
	db = openDB(t, t.TempDir(), Options{Store: st, DiskCacheBytes: limit})
	db.home.(*objectHome).cache.grace = 0
	check := func(db *DB) {
		t.Helper()
		for round := range 3 {
			if n := countKV(t, db, def); n != len(rows) {
				t.Fatalf("round %d: %d rows, want %d", round, n, len(rows))
			}
			tx := db.Begin()
			for _, probe := range []int{5, perSeg + 7, 3*perSeg + 11, len(rows) - 1} {
				hits, err := tx.VectorSearch(context.Background(), def.ID, ix, rows[probe][2].([]float32), 3, VectorEffort{Ef: 64}, nil)
				if err != nil || len(hits) == 0 || hits[0].Dist > 1e-5 {
					t.Fatalf("round %d: vector search for row %d: %v %v", round, probe, hits, err)
				}
				rec, err := tx.FetchRows(context.Background(), def.ID, []int{0, 2}, []int64{hits[0].RowID})
				if err != nil || rec.NumRows() != 1 {
					t.Fatalf("round %d: fetch of row %d: %v", round, probe, err)
				}
				rec.Release()
				m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{fmt.Sprintf("note%d", probe)})
				if err != nil || len(m.RowIDs) != 1 {
					t.Fatalf("round %d: text search for row %d: %v %v", round, probe, m.RowIDs, err)
				}
			}
			tx.Rollback()
			// The biggest file read last may stay beyond the budget.
			if got := tableBytes(db); got > limit+full/segs {
				t.Fatalf("round %d: %d bytes cached, budget %d (all files %d)", round, got, limit, full)
			}
		}
	}
	check(db)
	// Rows written now are durable only in the log and then in segments
	// this server writes: a checkpoint puts them, and only then may they go.
	late := []any{len(rows), fmt.Sprintf("note%d late", len(rows)), append([]float32{-1}, make([]float32, dim-1)...)}
	insert(t, db, def, late)
	rows = append(rows, late)
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
	check(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// A restart on a cache an unbounded run filled trims it.
	db = openDB(t, dir, Options{Store: st, DiskCacheBytes: limit})
	defer db.Close()
	if got := tableBytes(db); got > limit {
		t.Fatalf("restart kept %d bytes cached, budget %d", got, limit)
	}
	db.home.(*objectHome).cache.grace = 0
	check(db)
}
