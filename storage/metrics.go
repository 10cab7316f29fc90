package storage

// What storage tells the engine's /metrics: counters read when scraped,
// and an Observer told of each WAL fsync as it happens (a histogram needs
// every observation).

import (
	"sync/atomic"
	"time"
)

// Observer receives storage's measurements as they happen. Its methods
// are called on the committing goroutine, so they must be cheap; they may
// be called concurrently.
type Observer interface {
	// WALSynced reports one fsync of the write-ahead log that took d and
	// made that many WAL records durable: the commits (and sequence
	// advances) that group commit batched into it.
	WALSynced(d time.Duration, records int)
}

// SetObserver makes o the DB's observer (nil: none). Safe to call while
// the DB is in use.
func (db *DB) SetObserver(o Observer) {
	if o == nil {
		db.observer.Store(nil)
		return
	}
	db.observer.Store(&o)
}

// observeSync tells the observer of an fsync.
func (db *DB) observeSync(d time.Duration, records int) {
	if o := db.observer.Load(); o != nil {
		(*o).WALSynced(d, records)
	}
}

// Counters are storage's activity since the DB was opened, and its
// segments now.
type Counters struct {
	// Compactions counts the compactions that merged segments.
	Compactions int64
	// VectorIndexBuilds, TrigramIndexBuilds and KeyIndexBuilds count the
	// per-segment index builds that finished.
	VectorIndexBuilds, TrigramIndexBuilds, KeyIndexBuilds int64
	// Segments are the segments of every table in the latest durable
	// state.
	Segments int64
	// KeyIndexBytes is the memory the in-memory key indexes of those
	// segments take (btree and hash equality lookups, keysearch.go).
	KeyIndexBytes int64
}

// metricCounters are the DB's counters behind Counters.
type metricCounters struct {
	compactions, vectorBuilds, trigramBuilds, keyIndexBuilds atomic.Int64
}

// Counters returns the DB's counters.
func (db *DB) Counters() Counters {
	c := Counters{
		Compactions:        db.counters.compactions.Load(),
		VectorIndexBuilds:  db.counters.vectorBuilds.Load(),
		TrigramIndexBuilds: db.counters.trigramBuilds.Load(),
		KeyIndexBuilds:     db.counters.keyIndexBuilds.Load(),
	}
	for _, ts := range db.published.Load().tables {
		c.Segments += int64(len(ts.segments))
		for _, seg := range ts.segments {
			c.KeyIndexBytes += seg.x.keys.bytes()
		}
	}
	return c
}
