package storage

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// The tests hand leadership over in seconds, not tens of them.
func init() { leaseTTL = 2 * time.Second }

// waitLeads waits until db holds the lease (another server's lapsed).
func waitLeads(t *testing.T, db *DB) {
	t.Helper()
	if waitLeader(t, db) != db {
		t.Fatal("another server took the lease")
	}
}

// waitLeader waits until one of dbs holds the lease and returns it:
// which of several servers takes over a lease that lapsed is whichever
// tries first after it lapsed (its tending tick, or a commit).
func waitLeader(t *testing.T, dbs ...*DB) *DB {
	t.Helper()
	for deadline := time.Now().Add(3 * leaseTTL); ; {
		for _, db := range dbs {
			if db.home.(*objectHome).leads() {
				return db
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no server took the lease")
		}
		time.Sleep(leaseTTL / 20)
	}
}

// adoptNow catches db up with the log and adopts the newest checkpoint,
// as its background tending does.
func adoptNow(t *testing.T, db *DB) {
	t.Helper()
	db.home.(*objectHome).ckptReadAt.Store(0) // (read at most once a second)
	if err := db.CatchUp(); err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	db.ckptMu.Lock()
	err := db.home.(*objectHome).adoptNewer()
	db.ckptMu.Unlock()
	if err != nil {
		t.Fatalf("adopting the checkpoint: %v", err)
	}
}

// tailRows is the number of rows table id holds in memory on db.
func tailRows(db *DB, id uint64) int64 {
	if ts := db.published.Load().tables[id]; ts != nil {
		return ts.tailRows
	}
	return 0
}

// deleteKeys deletes the rows of kvTable def whose id is in keys.
func deleteKeys(t *testing.T, db *DB, def *catalog.TableDef, keys ...int) {
	t.Helper()
	tx := db.Begin()
	var ids []int64
	for _, r := range scanRows(t, tx, def.ID, true) {
		if slices.Contains(keys, r[0].(int)) {
			ids = append(ids, r[len(r)-1].(int64))
		}
	}
	if err := tx.Delete(def.ID, ids); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
}

// keysOf is the sorted ids of kvTable def on db, after a catch-up.
func keysOf(t *testing.T, db *DB, def *catalog.TableDef) []int {
	t.Helper()
	if err := db.CatchUp(); err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	tx := db.Begin()
	defer tx.Rollback()
	var out []int
	for _, r := range scanRows(t, tx, def.ID, false) {
		out = append(out, r[0].(int))
	}
	slices.Sort(out)
	return out
}

// TestSeveralWritersCheckpoint: three servers write in turns across
// several checkpoints of the leader. Every server sees every acknowledged
// row, the servers that do not lead drop the rows a checkpoint holds from
// memory once they adopt it, a key deleted and compacted away may be
// inserted again on any server, and a server that starts from the bucket
// sees everything.
func TestSeveralWritersCheckpoint(t *testing.T) {
	st := fakeS3(t)
	opts := Options{Store: st, FlushRows: 30}
	a := openDB(t, t.TempDir(), opts)
	defer a.Close()
	b := openDB(t, t.TempDir(), opts)
	defer b.Close()
	c := openDB(t, t.TempDir(), opts)
	defer c.Close()
	if !a.home.(*objectHome).leads() || b.home.(*objectHome).leads() || c.home.(*objectHome).leads() {
		t.Fatal("the first server to open the store should lead, and only it")
	}
	def := kvTable(t, a, "t")
	servers := []*DB{a, b, c}
	var want []int
	next := 0
	deletes := 0
	for round := range 6 {
		for _, db := range servers {
			if err := db.CatchUp(); err != nil {
				t.Fatal(err)
			}
			insert(t, db, def, kvRows(next, next+40)...)
			for i := next; i < next+40; i++ {
				want = append(want, i)
			}
			next += 40
		}
		// Each server deletes a few rows of another's.
		victims := []int{round*120 + 1, round*120 + 41, round*120 + 81}
		for i, db := range servers {
			if err := db.CatchUp(); err != nil {
				t.Fatal(err)
			}
			deleteKeys(t, db, def, victims[(i+1)%3])
		}
		deletes += len(victims)
		want = slices.DeleteFunc(want, func(k int) bool { return slices.Contains(victims, k) })
		for _, db := range []*DB{b, c} {
			if err := db.CatchUp(); err != nil {
				t.Fatal(err)
			}
			if tailRows(db, def.ID) == 0 {
				t.Fatalf("round %d: a server that does not lead holds no rows in memory before the checkpoint", round)
			}
		}
		if err := a.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		for _, db := range servers {
			adoptNow(t, db)
			if n := tailRows(db, def.ID); n != 0 {
				t.Fatalf("round %d: server %d keeps %d rows in memory after the checkpoint", round, slices.Index(servers, db), n)
			}
			if got := keysOf(t, db, def); !slices.Equal(got, want) {
				t.Fatalf("round %d: server %d sees %v, want %v", round, slices.Index(servers, db), got, want)
			}
		}
	}
	// The leader compacts its segments (more than smallSegments small
	// ones), dropping deleted rows; the others drop their row IDs from
	// the deleted set and the unique indexes as they adopt that: a
	// deleted key can be inserted again on every server, an existing one
	// cannot.
	for deadline := time.Now().Add(10 * time.Second); a.counters.compactions.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the leader never compacted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, db := range servers {
		adoptNow(t, db)
		if n := db.published.Load().tables[def.ID].deleted.GetCardinality(); n >= uint64(deletes) {
			t.Fatalf("server %d keeps %d deleted row IDs of %d deletes after the compaction", slices.Index(servers, db), n, deletes)
		}
	}
	for _, db := range servers {
		if err := db.CatchUp(); err != nil {
			t.Fatal(err)
		}
		tx := db.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{2, "dup"})); sqlstate(err) != "23505" {
			t.Fatalf("an existing key on server %d: %v", slices.Index(servers, db), err)
		}
		tx.Rollback()
	}
	for i, db := range servers {
		if err := db.CatchUp(); err != nil {
			t.Fatal(err)
		}
		insert(t, db, def, []any{[]int{1, 41, 81}[i], "again"})
	}
	want = append(want, 1, 41, 81)
	slices.Sort(want)
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, db := range servers {
		adoptNow(t, db)
		if got := keysOf(t, db, def); !slices.Equal(got, want) {
			t.Fatalf("server %d sees %v, want %v", slices.Index(servers, db), got, want)
		}
	}
	d := openDB(t, t.TempDir(), opts)
	defer d.Close()
	if got := keysOf(t, d, def); !slices.Equal(got, want) {
		t.Fatalf("a new server sees %v, want %v", got, want)
	}
	if n := tailRows(d, def.ID); n != 0 {
		t.Fatalf("a new server replays %d rows the checkpoint holds", n)
	}
}

// TestLogRetention: a checkpoint deletes the log objects before the one
// before it only once they have been unreferenced for the retention
// window, so that a server that fell two checkpoints behind inside it
// still catches up.
func TestLogRetention(t *testing.T) {
	st := fakeS3(t)
	const retention = 1500 * time.Millisecond
	a := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: retention})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: retention})
	defer b.Close()
	def := kvTable(t, a, "t")
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	defer b.freezeTending()()
	for i := range 3 {
		insert(t, a, def, kvRows(i*10, i*10+10)...)
		if err := a.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	if keys := storeKeys(t, st, "log/"); !slices.Contains(keys, logKey(1)) {
		t.Fatalf("log objects deleted inside the retention window: %v", keys)
	}
	// b read nothing for three checkpoints: it still catches up.
	if got := keysOf(t, b, def); len(got) != 30 {
		t.Fatalf("the server behind sees %v", got)
	}
	time.Sleep(retention)
	insert(t, a, def, kvRows(30, 31)...)
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	keys := storeKeys(t, st, "log/")
	if slices.Contains(keys, logKey(1)) {
		t.Fatalf("log objects past the retention window are still there: %v", keys)
	}
	if ckpt := a.home.(*objectHome).ckpt; len(keys) == 0 || keys[0] > logKey(ckpt.LogFrom) {
		t.Fatalf("the log objects checkpoint %d needs are gone: %v", ckpt.Seq, keys)
	}
	var manifests []string
	for _, k := range storeKeys(t, st, "tables/") {
		if isManifestKey(k) {
			manifests = append(manifests, k)
		}
	}
	// The last two checkpoints' manifests: the older one became garbage
	// only now.
	if len(manifests) != 2 {
		t.Fatalf("manifests past the retention window: %v", manifests)
	}
}

// freezeTending stops db's background tending of the lease, catch-up and
// adoption until the returned function is called (before db.Close).
func (db *DB) freezeTending() func() {
	h := db.home.(*objectHome)
	h.lead.op.Lock()
	return h.lead.op.Unlock
}

// TestLeaderDiesMidCheckpoint: the leader's checkpoint fails half-way
// (its store put fails), and the leader dies (no Close, its lease left to
// lapse). Another server takes the lease, checkpoints, and every server,
// and one that starts from the bucket, sees every acknowledged row.
func TestLeaderDiesMidCheckpoint(t *testing.T) {
	for _, failing := range []string{"segment", "manifest", "checkpoint"} {
		t.Run(failing, func(t *testing.T) {
			st := &faultyStore{Store: fakeS3(t)}
			opts := Options{Store: st, FlushRows: 20, StoreRetention: -1}
			a := openDB(t, t.TempDir(), opts)
			b := openDB(t, t.TempDir(), opts)
			defer b.Close()
			c := openDB(t, t.TempDir(), opts)
			defer c.Close()
			def := kvTable(t, a, "t")
			insert(t, a, def, kvRows(0, 30)...)
			if err := b.CatchUp(); err != nil {
				t.Fatal(err)
			}
			insert(t, b, def, kvRows(30, 60)...)
			st.setFail(func(op, key string) bool {
				switch failing {
				case "segment":
					return op == "put" && strings.HasSuffix(key, ".parquet")
				case "manifest":
					return op == "put" && isManifestKey(key)
				}
				return op == "put" && key == storeCheckpointKey
			})
			if err := a.Checkpoint(); err == nil {
				t.Fatal("the checkpoint succeeded in spite of the failing store")
			}
			st.setFail(nil)
			a.crash()

			if err := c.CatchUp(); err != nil {
				t.Fatal(err)
			}
			insert(t, c, def, kvRows(60, 90)...)
			if err := waitLeader(t, b, c).Checkpoint(); err != nil {
				t.Fatal(err)
			}
			want := make([]int, 90)
			for i := range want {
				want[i] = i
			}
			for _, db := range []*DB{b, c} {
				adoptNow(t, db)
				if got := keysOf(t, db, def); !slices.Equal(got, want) {
					t.Fatalf("%v, want 0..89", got)
				}
				if n := tailRows(db, def.ID); n != 0 {
					t.Fatalf("%d rows left in memory", n)
				}
			}
			d := openDB(t, t.TempDir(), opts)
			defer d.Close()
			if got := keysOf(t, d, def); !slices.Equal(got, want) {
				t.Fatalf("a new server sees %v, want 0..89", got)
			}
		})
	}
}

// TestTwoLeadersOneCheckpoint: two servers that both believe they lead
// (a lease lapsed on one clock, not yet on the other) both checkpoint;
// the checkpoint object's PutIfMatch lets only the first through, and the
// second adopts it before its next checkpoint.
func TestTwoLeadersOneCheckpoint(t *testing.T) {
	st := fakeS3(t)
	opts := Options{Store: st, FlushRows: 10, StoreRetention: -1}
	a := openDB(t, t.TempDir(), opts)
	defer a.Close()
	b := openDB(t, t.TempDir(), opts)
	defer b.Close()
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 25)...)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	insert(t, b, def, kvRows(25, 50)...)
	hb := b.home.(*objectHome)
	defer b.freezeTending()()
	hb.setLease("not the lease's", time.Now()) // b believes it leads
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	err := b.Checkpoint()
	if err == nil || !strings.Contains(err.Error(), "checkpoint object changed") {
		t.Fatalf("the second leader's checkpoint: %v", err)
	}
	// b flushed its rows to segments no checkpoint names; it adopts a's.
	insert(t, a, def, kvRows(50, 60)...)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if err := b.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	want := make([]int, 60)
	for i := range want {
		want[i] = i
	}
	for _, db := range []*DB{a, b} {
		adoptNow(t, db)
		if got := keysOf(t, db, def); !slices.Equal(got, want) {
			t.Fatalf("%v, want 0..59", got)
		}
	}
	if seq := hb.ckpt.Seq; seq != 2 || a.home.(*objectHome).ckpt.Seq != 2 {
		t.Fatalf("checkpoints %d and %d, want 2 (a's, then b's on top)", a.home.(*objectHome).ckpt.Seq, seq)
	}
	d := openDB(t, t.TempDir(), opts)
	defer d.Close()
	if got := keysOf(t, d, def); !slices.Equal(got, want) {
		t.Fatalf("a new server sees %v, want 0..59", got)
	}
	for _, k := range storeKeys(t, st, "tables/") {
		if base := k[strings.LastIndexByte(k, '/')+1:]; strings.HasSuffix(base, ".parquet") && !strings.Contains(base, "-") {
			t.Fatalf("segment %s carries no server's name", k)
		}
	}
}

// TestSeveralWritersConcurrently: three servers take concurrent writers
// (retrying on 40001) while the leader checkpoints every few KiB of log
// and the others adopt its checkpoints in the background. Every
// acknowledged row is on every server, and on one started afterwards.
func TestSeveralWritersConcurrently(t *testing.T) {
	st := fakeS3(t)
	opts := Options{Store: st, FlushRows: 40, WALCheckpointBytes: 8 << 10}
	var servers []*DB
	for range 3 {
		db := openDB(t, t.TempDir(), opts)
		defer db.Close()
		servers = append(servers, db)
	}
	def := kvTable(t, servers[0], "t")
	var mu sync.Mutex
	var acked []int
	var wg sync.WaitGroup
	stop := time.Now().Add(3 * time.Second)
	for s, db := range servers {
		for w := range 2 {
			wg.Go(func() {
				for i := 0; time.Now().Before(stop); i++ {
					key := (s*2+w)*100000 + i
					for {
						if err := db.CatchUp(); err != nil {
							t.Error(err)
							return
						}
						tx := db.Begin()
						err := tx.Insert(def.ID, makeRecord(t, def, []any{key, "v"}))
						if err == nil {
							err = tx.Commit()
						} else {
							tx.Rollback()
						}
						if err == nil {
							break
						}
						if sqlstate(err) != "40001" {
							t.Error(err)
							return
						}
					}
					mu.Lock()
					acked = append(acked, key)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	slices.Sort(acked)
	if h := servers[0].home.(*objectHome); h.ckpt.Seq < 2 {
		t.Fatalf("%d checkpoints while %d rows were written", h.ckpt.Seq, len(acked))
	}
	if err := servers[0].CatchUp(); err != nil {
		t.Fatal(err)
	}
	if err := servers[0].Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for i, db := range servers {
		adoptNow(t, db)
		if got := keysOf(t, db, def); !slices.Equal(got, acked) {
			t.Fatalf("server %d sees %d rows, want the %d acknowledged", i, len(got), len(acked))
		}
		if n := tailRows(db, def.ID); n != 0 {
			t.Fatalf("server %d keeps %d rows in memory", i, n)
		}
	}
	d := openDB(t, t.TempDir(), opts)
	defer d.Close()
	if got := keysOf(t, d, def); !slices.Equal(got, acked) {
		t.Fatalf("a new server sees %d rows, want the %d acknowledged", len(got), len(acked))
	}
	// (Not the checkpoint count: servers[0]'s worker may be writing it.)
	t.Logf("%d rows", len(acked))
}

// BenchmarkAdoptCheckpoint measures a server adopting the leader's
// checkpoint (gofakes3 in the process): per op, the leader commits 10 x
// 1,000 rows, checkpoints and commits one more row (a log object past
// the checkpoint to read again), then the follower adopts.
func BenchmarkAdoptCheckpoint(b *testing.B) {
	st := fakeS3(b)
	opts := Options{Store: st}
	leader := openDB(b, b.TempDir(), opts)
	defer leader.Close()
	follower := openDB(b, b.TempDir(), opts)
	defer follower.Close()
	defer follower.freezeTending()()
	def := createTable(b, leader, "t", []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)}, 0)
	next := 0
	commit := func(n int) {
		tx := leader.Begin()
		if err := tx.Insert(def.ID, makeRecord(b, def, kvRows(next, next+n)...)); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		next += n
	}
	h := follower.home.(*objectHome)
	for b.Loop() {
		b.StopTimer()
		for range 10 {
			commit(1000)
		}
		if err := leader.Checkpoint(); err != nil {
			b.Fatal(err)
		}
		commit(1)
		if err := follower.CatchUp(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		follower.ckptMu.Lock()
		err := h.adoptNewer()
		follower.ckptMu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
		if n := tailRows(follower, def.ID); n != 1 {
			b.Fatalf("%d rows in memory after adopting", n)
		}
	}
}

// TestLeaderRestartsOnItsCache: a leader that crashed and restarts on its
// own data directory takes its lease back at once; one on another
// directory waits for the lease to lapse.
func TestLeaderRestartsOnItsCache(t *testing.T) {
	st := fakeS3(t)
	dir := t.TempDir()
	a := openDB(t, dir, Options{Store: st})
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 5)...)
	a.crash()
	other := openDB(t, t.TempDir(), Options{Store: st})
	defer other.Close()
	if other.home.(*objectHome).leads() {
		t.Fatal("another server took the crashed leader's lease before it lapsed")
	}
	a = openDB(t, dir, Options{Store: st})
	defer a.Close()
	if !a.home.(*objectHome).leads() {
		t.Fatal("the leader restarted on its data directory does not lead")
	}
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if seq := a.home.(*objectHome).ckpt.Seq; seq != 1 {
		t.Fatalf("checkpoint %d", seq)
	}
}
