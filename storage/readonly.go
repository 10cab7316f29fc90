package storage

// The read-only opening of an object store (ReadCommittedStore): an
// exporter (cmd/cairn-iceberg) reads the committed state of a store that
// live servers use, as a server that joins them would see it, but takes
// no part in their work. It opens a DB over a data directory of its own
// exactly as Open does on an object store — objectHome.prepare copies the
// latest checkpoint's catalog and manifests and the log objects put since
// into that directory, and recover loads them and replays the log — and
// then stops: no lease, no background work, no catch-up, no unique
// indexes (nothing is committed, so no key is checked). Its home refuses
// every write to the store; the only things it writes are files of its
// own data directory (the copies, and the segment files it reads).
//
// It needs no lock on the store: the checkpoint object names immutable
// manifests, the log objects are immutable and numbered without gaps, and
// the leader deletes neither a manifest nor a log object nor a segment
// file until it has been unreferenced for Options.StoreRetention, so a
// reading that takes less than that sees one committed state: the
// checkpoint's, plus every commit of the log objects listed after it.

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage/objstore"
)

// errReadOnly is the error of anything that would write to the store of a
// read-only opening.
var errReadOnly = errors.New("storage: the object store is opened read-only")

// readOnlyHome is the home of a read-only opening: an object home that
// reads the store as Open does and writes nothing to it.
type readOnlyHome struct{ *objectHome }

func (h readOnlyHome) openLog(int) (walWriter, error) {
	// The copies of the log objects are replayed; nothing is appended.
	if err := dropWALFiles(h.db.walDir(), math.MaxInt); err != nil {
		return nil, err
	}
	return readOnlyLog{}, nil
}

func (readOnlyHome) persist([]string) error                     { return errReadOnly }
func (readOnlyHome) saveCheckpoint(*dbState, []byte, int) error { return errReadOnly }
func (readOnlyHome) catchUp(time.Duration) error                { return errReadOnly }
func (readOnlyHome) shared() bool                               { return true }

// readOnlyLog is the log of a read-only opening: it takes no record.
type readOnlyLog struct{}

func (readOnlyLog) append([]byte) error             { return errReadOnly }
func (readOnlyLog) sync() error                     { return nil }
func (readOnlyLog) rotate() (walWriter, int, error) { return nil, 0, errReadOnly }
func (readOnlyLog) close(bool) error                { return nil }

// ReadCommittedStore reads the committed state of the object store that
// cairn servers keep their durable state in (Options.Store), whether
// they run or not, without a lock and without writing to the store: the
// latest checkpoint and every commit of the log objects put since, as a
// server that joins them sees it. cacheDir is a data directory of the
// caller's own (locked for the call; it may start empty) that receives
// copies of the checkpoint's catalog and manifests and of the log, and of
// the segment files whose deleted rows must be located; they stay there
// for the next call, which fetches only what changed.
//
// Each CommittedSegment has its object key (Key); rows committed since
// their table's last flush, which only the log holds, are its Tail.
func ReadCommittedStore(store objstore.Store, cacheDir string) (*catalog.Catalog, []CommittedTable, error) {
	db, err := newDB(cacheDir, Options{Store: store, CacheBytes: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, nil, err
	}
	h := readOnlyHome{newObjectHome(db, store)}
	db.home = h
	if err := mkdirAllDurable(db.dir); err != nil {
		return nil, nil, err
	}
	if db.lock, err = lockDir(db.dir); err != nil {
		return nil, nil, err
	}
	defer db.lock.Close()
	for _, d := range []string{db.walDir(), db.tablesDir()} {
		if err := mkdirAllDurable(d); err != nil {
			return nil, nil, err
		}
	}
	if err := h.prepare(); err != nil {
		return nil, nil, err
	}
	if err := db.recover(); err != nil {
		return nil, nil, err
	}
	state := db.head.Load()
	var out []CommittedTable
	for _, id := range sortedTableIDs(state.cat) {
		ts := state.tables[id]
		t, err := committedTable(state.cat.Tables[id], ts.segments, ts.deleted, ts.tail, h.keyOf)
		if err != nil {
			return nil, nil, err
		}
		t.LSN = ts.lastMod
		out = append(out, t)
	}
	return state.cat, out, nil
}
