package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/objstore"
)

// Options configure a DB. The zero value gives the defaults.
type Options struct {
	// FlushRows is the number of tail rows a table collects in memory before
	// a background flush writes them to a Parquet segment (default 65536).
	FlushRows int
	// WALCheckpointBytes is the WAL size that triggers a checkpoint
	// (default 64 MiB).
	WALCheckpointBytes int64
	// Logger receives recovery and background-work messages (default
	// slog.Default()).
	Logger *slog.Logger
	// CacheBytes is the memory budget of the decoded column cache, which
	// keeps segment row groups decoded as Arrow arrays for every reader
	// (cache.go). 0 means DefaultCacheBytes(); a negative value turns the
	// cache off (every scan decodes the Parquet pages again).
	CacheBytes int64
	// DisableTextIndex turns off the BM25 text indexes (textunit.go):
	// segments are written without a .bm25 file, and TextStats and
	// TextSearch return ErrNoTextIndex.
	DisableTextIndex bool
	// SpillBytes is how much a transaction inserts into a table in memory
	// before it writes those rows to a segment file of its own (spill.go;
	// default DefaultSpillBytes).
	SpillBytes int64
	// Store, when set, is where the database's durable state lives: the
	// write-ahead log, checkpoints, catalog, manifests and every segment
	// and index file go to the object store (objhome.go), and the data
	// directory is a cache of it that may start empty. nil keeps
	// everything in the data directory.
	Store objstore.Store
	// DiskCacheBytes, with Store, bounds the bytes of segment and index
	// files the data directory keeps as a cache of the store
	// (diskcache.go): the least recently read are deleted beyond it and
	// fetched again when read. 0 (the default): unbounded, every file
	// fetched stays.
	DiskCacheBytes int64
	// MaxStaleness, with Store, is how old the last catch-up with the log
	// of other servers on the store (tail.go) may be for a transaction
	// to begin without one: 0 (the default) catches up before every
	// transaction, one GET of the object store, so that it sees every
	// commit acknowledged before it began on any server.
	MaxStaleness time.Duration
	// StoreRetention, with Store, is how long an object no checkpoint
	// names any more (a replaced segment, an old manifest or catalog, a
	// log object two checkpoints old, the files of a checkpoint that lost
	// its race) stays in the store before the leader deletes it
	// (lead.go): a reader or a server behind may still need it. 0 means
	// DefaultStoreRetention; a negative value deletes at once.
	StoreRetention time.Duration
}

// DefaultCacheBytes is the default column cache budget: 40% of the
// machine's physical memory, at most 4 GiB (1 GiB when the memory size is
// unknown).
func DefaultCacheBytes() int64 {
	m := physicalMemory()
	if m <= 0 {
		return 1 << 30
	}
	return min(m/10*4, 4<<30)
}

// DefaultFlushRows and DefaultWALCheckpointBytes are the Options defaults.
const (
	DefaultFlushRows          = 65536
	DefaultWALCheckpointBytes = 64 << 20
)

// smallSegments is how many small segments (below half of mergeRows) a
// table keeps: with more, compaction merges them (mergePlan).
const smallSegments = 4

// mergeSpills makes compaction merge the segments one transaction spilled
// (a bulk load writes one per core and 64 MiB: a 100k-row COPY left five,
// and a top-10 through the HNSW index walked five graphs). A variable so
// that tests of spilled segments can keep them apart.
var mergeSpills = true

// DB is an open data directory. Its methods are safe for concurrent use; a
// Tx is not (one goroutine at a time). The order its mutexes (and every
// other lock of storage and exec) may be taken in is written down in
// locks.go.
type DB struct {
	dir  string
	opts Options
	log  *slog.Logger
	// home is where the durable bytes go (home.go).
	home home

	// mu serialises commits (validation and WAL append), flush and
	// compaction publication and checkpoint rotation.
	mu        sync.Mutex
	head      atomic.Pointer[dbState] // newest state, maybe not yet durable
	published atomic.Pointer[dbState] // newest durable state; Begin reads it
	// syncing is the head a group commit in flight (syncLocked) took
	// and publishes once its records are durable; a flush or compaction
	// that swaps a table meanwhile swaps it there too (mu).
	syncing  *dbState
	lastLSN  uint64    // LSN of the last record appended (mu)
	wal      walWriter // (mu)
	walBytes int64     // bytes appended since the last rotation (mu)
	broken   error     // set when the WAL could not be written (mu)
	// logEpoch counts the group commits that lost the log to another
	// server (tail.go): a record appended in an older epoch was dropped
	// unless a group commit had put it before (mu). epochEnds[e %
	// len(epochEnds)] is durableLSN when epoch e ended: the records of
	// epoch e up to it were put (mu).
	logEpoch  uint64
	epochEnds [64]uint64
	closed    atomic.Bool
	seqs      map[string]*seqState // sequence runtime state by key (mu)

	// keyUndo says how to take back what the commits not yet durable
	// did to the unique indexes, should their group commit lose the log
	// (rebase.go), oldest first; only on an object store (mu).
	keyUndo []keyUndo

	rtMu sync.RWMutex
	rts  map[uint64]*tableRT

	// syncMu makes one goroutine fsync the WAL for every commit waiting.
	syncMu     sync.Mutex
	durableLSN atomic.Uint64
	// commits counts the transactions that wrote and are durable.
	commits atomic.Uint64
	// observer and counters feed /metrics (metrics.go).
	observer atomic.Pointer[Observer]
	counters metricCounters

	// idxMu guards the unique indexes and their consistency with the
	// head's deleted row IDs.
	idxMu sync.RWMutex

	pinMu    sync.Mutex
	pins     map[*pin]struct{}
	obsolete []obsoleteFile

	// nextTableID is the next table ID this server would draw; on an
	// object store tables take their IDs from tableIDs instead
	// (tableid.go).
	nextTableID atomic.Uint64
	tableIDs    tableIDClaim

	ckptMu sync.Mutex
	lock   *os.File

	workMu       sync.Mutex
	pendingFlush map[uint64]bool
	// spillMerges are, by table, the files of segments a committed
	// transaction spilled, which compaction merges (workMu).
	spillMerges map[uint64][]string
	pendingCkpt bool
	work        chan struct{}
	quit        chan struct{}
	wg          sync.WaitGroup

	// cache holds decoded segment columns (cache.go).
	cache *colCache

	// locks are the row and key write locks of open transactions
	// (locks.go).
	locks lockTable

	// vecMu guards the queue of vector index builds (vector.go): the
	// builds waiting, the keys of those waiting or running, and whether
	// the builder runs; vecDone is signalled as each build ends.
	vecMu      sync.Mutex
	vecDone    *sync.Cond
	vecQueue   []vecBuild
	vecQueued  map[string]bool
	vecRunning bool
	// vecMem is the memory of each loaded vector index by build key
	// (segment path | index key), reserved in the column cache's budget
	// while the index is loaded (accountVectorIndex).
	vecMem map[string]int64

	// sideMu guards the queue of text and trigram index builds of
	// spilled segments (sidebuild.go) and whether its builder runs.
	sideMu      sync.Mutex
	sideQueue   []sidecarBuild
	sideRunning bool
}

// newDB returns the DB of data directory dir with opts' defaults filled
// in, not yet opened: no home, lock, state or background work.
func newDB(dir string, opts Options) (*DB, error) {
	if opts.FlushRows <= 0 {
		opts.FlushRows = DefaultFlushRows
	}
	if opts.WALCheckpointBytes <= 0 {
		opts.WALCheckpointBytes = DefaultWALCheckpointBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.SpillBytes <= 0 {
		opts.SpillBytes = DefaultSpillBytes
	}
	if opts.StoreRetention == 0 {
		opts.StoreRetention = DefaultStoreRetention
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultCacheBytes()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	db := &DB{
		dir:          abs,
		opts:         opts,
		log:          opts.Logger.With("component", "storage"),
		seqs:         map[string]*seqState{},
		rts:          map[uint64]*tableRT{},
		pins:         map[*pin]struct{}{},
		pendingFlush: map[uint64]bool{},
		spillMerges:  map[uint64][]string{},
		vecQueued:    map[string]bool{},
		vecMem:       map[string]int64{},
		work:         make(chan struct{}, 1),
		quit:         make(chan struct{}),
		cache:        newColCache(opts.CacheBytes),
	}
	db.vecDone = sync.NewCond(&db.vecMu)
	return db, nil
}

// Open opens the data directory dir, creating it if missing, and recovers
// it: loads catalog.json and the table manifests, replays the WAL records
// they do not cover, truncates a torn record at the end of the log and
// rebuilds the unique indexes. Background flushing and compaction run until
// Close.
func Open(dir string, opts Options) (*DB, error) {
	db, err := newDB(dir, opts)
	if err != nil {
		return nil, err
	}
	opts = db.opts
	abs := db.dir
	if opts.Store != nil {
		db.home = newObjectHome(db, opts.Store)
	} else {
		db.home = localHome{db}
	}
	if err := mkdirAllDurable(abs); err != nil {
		return nil, err
	}
	if db.lock, err = lockDir(abs); err != nil {
		return nil, err
	}
	for _, d := range []string{db.walDir(), db.tablesDir()} {
		if err := mkdirAllDurable(d); err != nil {
			db.lock.Close()
			return nil, err
		}
	}
	err = db.home.prepare()
	if err == nil {
		err = db.recover()
	}
	if err != nil {
		if db.wal != nil {
			db.wal.close(false)
		}
		db.lock.Close()
		return nil, err
	}
	db.wg.Add(1)
	go db.worker()
	if h, ok := db.home.(*objectHome); ok {
		h.startLeading()
	} else {
		db.wg.Add(1)
		go db.warmKeyIndexes()
	}
	// Tails recovered from the log may already be due for a flush.
	for id, ts := range db.published.Load().tables {
		if ts.tailRows >= int64(db.opts.FlushRows) {
			db.requestFlush(id)
		}
	}
	return db, nil
}

func (db *DB) walDir() string    { return filepath.Join(db.dir, "wal") }
func (db *DB) tablesDir() string { return filepath.Join(db.dir, "tables") }

// tableDirFor is the folder of a new table.
func (db *DB) tableDirFor(schema string, id uint64) string {
	return filepath.Join(db.tablesDir(), escapeName(schema), strconv.FormatUint(id, 10))
}

// escapeName makes a schema name safe as a folder name.
func escapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

// Catalog returns the latest committed catalog. It is immutable.
func (db *DB) Catalog() *catalog.Catalog { return db.published.Load().cat }

// Commits is the number of transactions that wrote something and
// committed (durably) since the database was opened; read-only
// transactions commit nothing and are not counted.
func (db *DB) Commits() uint64 { return db.commits.Load() }

// Dir returns the data directory.
func (db *DB) Dir() string { return db.dir }

// LocalOnly reports whether the database is this server's alone (a data
// directory, not an object store other servers may share): what is
// private to its sessions, such as their temporary schemas named by
// backend pid, can then live in its catalog without clashing with
// another server's.
func (db *DB) LocalOnly() bool {
	_, local := db.home.(localHome)
	return local
}

// errClosed is returned by operations on a closed DB.
func errClosed() error {
	return pgerr.New(pgerrcode.AdminShutdown, "terminating connection due to administrator command").
		WithDetail("the storage engine is closed")
}

// Close stops background work, flushes every tail to a segment, writes the
// manifests and catalog.json (a checkpoint), fsyncs and releases the
// directory. Transactions still open must not be used afterwards.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	close(db.quit)
	db.wg.Wait()
	err := db.checkpoint(true)
	db.forgetVectorIndexes("") // their memory leaves the process's limit
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.wal != nil {
		if cerr := db.wal.close(err == nil); err == nil {
			err = cerr
		}
		db.wal = nil
	}
	db.pinMu.Lock()
	db.gcLocked(true)
	db.pinMu.Unlock()
	db.cache.clear()
	db.lock.Close()
	return err
}

// rt returns the runtime of table id, creating it (with a folder under the
// given schema) when missing.
func (db *DB) rt(id uint64, schema string) *tableRT {
	db.rtMu.RLock()
	rt := db.rts[id]
	db.rtMu.RUnlock()
	if rt != nil {
		return rt
	}
	db.rtMu.Lock()
	defer db.rtMu.Unlock()
	if rt = db.rts[id]; rt == nil {
		rt = &tableRT{id: id, dir: db.tableDirFor(schema, id), uniq: map[string]*uniqueIndex{}}
		rt.nextSeg.Store(1)
		db.rts[id] = rt
	}
	return rt
}

// lookupRT returns the runtime of table id or nil.
func (db *DB) lookupRT(id uint64) *tableRT {
	db.rtMu.RLock()
	defer db.rtMu.RUnlock()
	return db.rts[id]
}

// setHead installs a new head state (db.mu held).
func (db *DB) setHead(s *dbState) { db.head.Store(s) }

// publishLocked makes s the state new transactions see, if it is newer
// than the current one (db.mu held; s must be durable).
func (db *DB) publishLocked(s *dbState) {
	if cur := db.published.Load(); cur == nil || s.version > cur.version {
		db.pinMu.Lock()
		db.published.Store(s)
		db.gcLocked(false)
		db.pinMu.Unlock()
	}
}

// publishHeadIfDurable publishes the head when it holds no commit that is
// still waiting for its fsync (db.mu held).
func (db *DB) publishHeadIfDurable() {
	if h := db.head.Load(); h.lsn <= db.durableLSN.Load() {
		db.publishLocked(h)
	}
}

// appendWAL assigns the next LSN to rec, appends it (without fsync) and
// returns the LSN (db.mu held).
func (db *DB) appendWALLocked(rec *walRecord) (uint64, error) {
	if db.broken != nil {
		return 0, db.broken
	}
	if db.wal == nil {
		return 0, errClosed()
	}
	rec.lsn = db.lastLSN + 1
	if h, ok := db.home.(*objectHome); ok {
		rec.origin = h.origin
	}
	frame, err := encodeWALRecord(rec)
	if err != nil {
		return 0, err
	}
	if err := db.wal.append(frame); err != nil {
		if errors.Is(err, errWALUnusable) {
			db.broken = err
		}
		return 0, err
	}
	db.lastLSN = rec.lsn
	db.walBytes += int64(len(frame))
	return rec.lsn, nil
}

// waitDurable returns once the WAL is fsynced up to lsn, fsyncing it if no
// one else is: commits waiting together share one fsync (group commit).
// It publishes the newest durable state. epoch is db.logEpoch when the
// record was appended: a record of an older epoch that no group commit
// had put by the epoch's end was dropped when its group commit lost the
// log to another server (tail.go): errLostRace, on which Tx.Commit
// rebases the commit (rebase.go).
func (db *DB) waitDurable(lsn, epoch uint64) error {
	db.syncMu.Lock()
	defer db.syncMu.Unlock()
	db.mu.Lock()
	cur := db.logEpoch
	put := cur-epoch <= uint64(len(db.epochEnds)) && lsn <= db.epochEnds[epoch%uint64(len(db.epochEnds))]
	db.mu.Unlock()
	if epoch != cur {
		// (After more lost races than epochEnds remembers, while this
		// waited for syncMu, a record is taken for dropped.)
		if put {
			return nil
		}
		return errLostRace
	}
	if db.durableLSN.Load() >= lsn {
		return nil
	}
	return db.syncLocked()
}

// syncLocked makes every record appended so far durable (db.syncMu held).
// When another server put the log object first, the records are dropped
// (loseRaceLocked), the other server's log applied, and the error is
// errLostRace.
func (db *DB) syncLocked() error {
	db.mu.Lock()
	if db.broken != nil {
		db.mu.Unlock()
		return db.broken
	}
	w, target := db.wal, db.lastLSN
	if w == nil {
		db.mu.Unlock()
		return errClosed()
	}
	if target <= db.durableLSN.Load() {
		db.mu.Unlock()
		return nil
	}
	db.syncing = db.head.Load()
	db.mu.Unlock()
	start := time.Now()
	err := w.sync()
	took := time.Since(start)
	if errors.Is(err, errLogTaken) {
		db.mu.Lock()
		db.syncing = nil
		err := db.loseRaceLocked()
		db.mu.Unlock()
		if err != nil {
			return err
		}
		db.log.Info("a group commit lost the log to another cairn server: its commits are rebased onto the other's or fail with 40001", "records", target-db.durableLSN.Load())
		if h, ok := db.home.(*objectHome); ok {
			if err := h.catchUpSynced(); err != nil {
				return err
			}
		}
		return errLostRace
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	state := db.syncing
	db.syncing = nil
	if err != nil {
		db.broken = fmt.Errorf("wal fsync failed: %w", err)
		return db.broken
	}
	db.observeSync(took, int(target-db.durableLSN.Load()))
	db.durableLSN.Store(target)
	db.trimKeyUndoLocked()
	if h := db.head.Load(); h.lsn <= target {
		state = h
	}
	db.publishLocked(state)
	return nil
}

// pinPublished returns the published state and pins it until unpin is
// called (idempotent).
func (db *DB) pinPublished() (*dbState, func()) {
	db.pinMu.Lock()
	s := db.published.Load()
	p := &pin{state: s}
	db.pins[p] = struct{}{}
	db.pinMu.Unlock()
	var once sync.Once
	return s, func() {
		once.Do(func() {
			db.pinMu.Lock()
			delete(db.pins, p)
			db.gcLocked(false)
			db.pinMu.Unlock()
		})
	}
}

// minPinnedLocked returns the oldest state anyone may still read (pinMu
// held).
func (db *DB) minPinnedLocked() *dbState {
	oldest := db.published.Load()
	for p := range db.pins {
		if p.state.version < oldest.version {
			oldest = p.state
		}
	}
	return oldest
}

// retire schedules path for removal once no state older than version is
// in use.
func (db *DB) retire(path string, version uint64, dir bool) {
	db.pinMu.Lock()
	db.obsolete = append(db.obsolete, obsoleteFile{path: path, version: version, dir: dir})
	db.gcLocked(false)
	db.pinMu.Unlock()
}

// gcLocked removes retired files no pinned state uses (pinMu held). all
// removes every retired file (at Close).
func (db *DB) gcLocked(all bool) {
	if len(db.obsolete) == 0 {
		return
	}
	min := db.minPinnedLocked().version
	keep := db.obsolete[:0]
	for _, o := range db.obsolete {
		if !all && o.version > min {
			keep = append(keep, o)
			continue
		}
		var err error
		if o.dir {
			err = os.RemoveAll(o.path)
		} else {
			err = os.Remove(o.path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("removing obsolete file", "path", o.path, "err", err)
		}
		db.forgetFile(o.path, o.dir)
	}
	db.obsolete = keep
}

// minPinnedLSN is the LSN of the oldest state a transaction may still
// read.
func (db *DB) minPinnedLSN() uint64 {
	db.pinMu.Lock()
	defer db.pinMu.Unlock()
	return db.minPinnedLocked().lsn
}
