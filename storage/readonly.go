package storage

// The read-only opening of an object store (StoreReader): an exporter
// (cmd/cairn-iceberg) reads the committed state of a store that live
// servers use, as a server that joins them would see it, but takes no
// part in their work. Its first reading opens a DB over a data directory
// of its own exactly as Open does on an object store — objectHome.prepare
// copies the latest checkpoint's catalog and manifests and the log
// objects put since into that directory, and recover loads them and
// replays the log — and then stops: no lease, no background work, no
// unique indexes (nothing is committed, so no key is checked). Each later
// reading keeps that DB and does what a server that does not lead does
// between statements and in the background: it catches up with the log
// (applies the log objects put since, tail.go) and adopts a newer
// checkpoint (adopt.go), so that the rows the checkpoint's segments hold
// leave its memory. Only when the log objects it has not read yet are gone
// (a newer checkpoint replaced them, and the leader deleted them after
// the retention window: the reader was stopped, or slower than that) does
// it start over from the latest checkpoint. Every write to the store is
// refused (readOnlyStore); the only things it writes are files of its own
// data directory (the copies, and the segment files it reads).
//
// It needs no lock on the store: the checkpoint object names immutable
// manifests, the log objects are immutable and numbered without gaps, and
// the leader deletes neither a manifest nor a log object nor a segment
// file until it has been unreferenced for Options.StoreRetention, so a
// reading that takes less than that sees one committed state: the
// checkpoint's, plus every commit of the log objects listed after it.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/objstore"
)

// errReadOnly is the error of anything that would write to the store of a
// read-only opening.
var errReadOnly = errors.New("storage: the object store is opened read-only")

// readOnlyHome is the home of a read-only opening: an object home over a
// readOnlyStore that neither persists nor checkpoints.
type readOnlyHome struct{ *objectHome }

func (readOnlyHome) persist([]string) error                     { return errReadOnly }
func (readOnlyHome) saveCheckpoint(*dbState, []byte, int) error { return errReadOnly }
func (readOnlyHome) shared() bool                               { return true }

// readOnly reports whether db is a read-only opening, which keeps no
// unique indexes.
func (db *DB) readOnly() bool {
	_, ro := db.home.(readOnlyHome)
	return ro
}

// readOnlyStore is the store of a read-only opening: it reads and lists,
// and refuses every write.
type readOnlyStore struct{ objstore.Store }

func (readOnlyStore) Put(context.Context, string, io.Reader) (objstore.Info, error) {
	return objstore.Info{}, errReadOnly
}

func (readOnlyStore) PutIfAbsent(context.Context, string, io.Reader) (objstore.Info, error) {
	return objstore.Info{}, errReadOnly
}

func (readOnlyStore) PutIfMatch(context.Context, string, io.Reader, string) (objstore.Info, error) {
	return objstore.Info{}, errReadOnly
}

func (readOnlyStore) Delete(context.Context, string) error { return errReadOnly }

// StoreReader reads the committed state of the object store that cairn
// servers keep their durable state in (Options.Store), whether they run
// or not, without a lock and without writing to the store, as a server
// that joins them sees it; each Read after the first applies only what
// was committed since the one before. It is not safe for concurrent use.
type StoreReader struct {
	store    objstore.Store
	cacheDir string
	// db is the read-only opening (nil before the first Read, and after
	// one that has to start over).
	db *DB
	h  readOnlyHome
	// deletes caches the deleted positions of segments (committedTable).
	deletes map[*segment]segmentDeletes
}

// NewStoreReader returns a reader of store. cacheDir is a data directory
// of the caller's own (locked from the first Read to Close; it may start
// empty) that receives copies of the checkpoint's catalog and manifests,
// of the log, and of the segment files whose deleted rows must be
// located; they stay there for a later reader, which fetches only what
// changed.
func NewStoreReader(store objstore.Store, cacheDir string) *StoreReader {
	return &StoreReader{store: store, cacheDir: cacheDir}
}

// Read returns the store's committed state: the latest checkpoint and
// every commit of the log objects put since. The first call reads them
// all; a later one applies the log objects put since the call before, and
// adopts a newer checkpoint when there is one. Each CommittedSegment has
// its object key (Key); rows committed since their table's last flush,
// which only the log holds, are its Tail. What it returns stays valid
// until the next call.
func (r *StoreReader) Read() (*catalog.Catalog, []CommittedTable, error) {
	if r.db != nil {
		err := r.catchUp()
		if err != nil && pgerr.Code(err) == pgerrcode.ObjectNotInPrerequisiteState {
			// The log objects past those applied are gone (catchUpSynced):
			// start over from the checkpoint that replaced them.
			r.Close()
		} else if err != nil {
			r.db.mu.Lock()
			broken := r.db.broken != nil
			r.db.mu.Unlock()
			if broken {
				r.Close() // the next call starts over
			}
			return nil, nil, err
		}
	}
	if r.db == nil {
		if err := r.open(); err != nil {
			return nil, nil, err
		}
	}
	state := r.db.head.Load()
	live := map[*segment]segmentDeletes{}
	var out []CommittedTable
	for _, id := range sortedTableIDs(state.cat) {
		ts := state.tables[id]
		t, err := committedTable(state.cat.Tables[id], ts.segments, ts.deleted.union(), ts.tail, r.h.keyOf, r.deletes, live)
		if err != nil {
			return nil, nil, err
		}
		t.LSN = ts.lastMod
		out = append(out, t)
	}
	r.deletes = live
	return state.cat, out, nil
}

// open opens the read-only DB over the latest checkpoint and the log put
// since.
func (r *StoreReader) open() error {
	// A negative retention makes every catch-up read the checkpoint object
	// beside the log (checkpointDue): one small read per Read, which finds
	// a newer checkpoint to adopt, and tells log objects not yet written
	// from those a checkpoint deleted.
	db, err := newDB(r.cacheDir, Options{Store: r.store, CacheBytes: -1, StoreRetention: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	h := readOnlyHome{newObjectHome(db, readOnlyStore{r.store})}
	db.home = h
	if err := mkdirAllDurable(db.dir); err != nil {
		return err
	}
	if db.lock, err = lockDir(db.dir); err != nil {
		return err
	}
	err = func() error {
		for _, d := range []string{db.walDir(), db.tablesDir()} {
			if err := mkdirAllDurable(d); err != nil {
				return err
			}
		}
		if err := h.prepare(); err != nil {
			return err
		}
		return db.recover()
	}()
	if err != nil {
		db.lock.Close()
		return err
	}
	r.db, r.h, r.deletes = db, h, nil
	return nil
}

// catchUp applies the log objects put since the last Read, then adopts a
// newer checkpoint if the catch-up saw one.
func (r *StoreReader) catchUp() error {
	if err := r.h.catchUp(0); err != nil {
		return err
	}
	if r.h.seenSeq.Load() <= r.h.adoptedSeq.Load() {
		return nil
	}
	r.db.ckptMu.Lock()
	defer r.db.ckptMu.Unlock()
	return r.h.adoptNewer()
}

// Close releases the cache directory; a later Read opens it again and
// starts over from the latest checkpoint.
func (r *StoreReader) Close() error {
	if r.db == nil {
		return nil
	}
	err := r.db.lock.Close()
	r.db, r.h, r.deletes = nil, readOnlyHome{}, nil
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	return err
}
