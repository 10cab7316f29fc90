package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// home is where a DB's durable bytes live. The local home (localHome) is
// the data directory itself: WAL files fsynced on commit, catalog.json and
// manifest.json files replaced atomically. The object home (objectHome,
// objhome.go) keeps them in an object store and uses the data directory
// as a cache. Everything else in storage reads and writes the data
// directory the same way in both; the home is told when bytes must become
// durable and what a checkpoint holds.
type home interface {
	// prepare readies the data directory for recovery (Open, with the
	// directory locked, before it reads catalog.json, the manifests and
	// the WAL files).
	prepare() error
	// openLog returns the writer of new WAL records once recovery has
	// replayed the log; last is the number of the last WAL file it read
	// (0: none).
	openLog(last int) (walWriter, error)
	// persist makes the finished immutable files at paths (in the data
	// directory) durable in the home, before a WAL record names them.
	persist(paths []string) error
	// saveCheckpoint records a checkpoint: the state s (pinned by the
	// caller for the duration), catalog.json's content cat as of s, and
	// logFrom, the position (walWriter.rotate) of the first part of the
	// log recovery still needs, or 0 when the manifests do not cover the
	// older parts yet and they stay.
	saveCheckpoint(s *dbState, cat []byte, logFrom int) error
	// exists returns nil when the home holds the file at path (in the
	// data directory, or in the object store for the directory to fetch
	// it), an error matching os.ErrNotExist when it does not.
	exists(path string) error
	// fetcher returns what brings the files of recovered segments into
	// the data directory on a miss (segment.remote); nil when they are
	// all there.
	fetcher() fetcher
	// catchUp applies what other servers committed to the home since
	// this server last looked, unless it looked less than maxAge ago
	// (tail.go); DB.CatchUp calls it.
	catchUp(maxAge time.Duration) error
	// shared reports whether another server on the home leads its
	// background work (lead.go): this server then writes no segment files
	// of its own (no spills, flushes, compactions or checkpoints).
	shared() bool
}

// fetcher brings files of an object store into the data directory.
type fetcher interface {
	// fetch makes sure the file at path is in the data directory, copying
	// it from the object store when the directory lacks it; the error
	// matches os.ErrNotExist when neither has it. Safe for concurrent use.
	fetch(path string) error
	// exists is nil when the file at path is in the data directory or
	// the object store holds it, and an error matching os.ErrNotExist
	// when neither has it.
	exists(path string) error
}

// localHome keeps everything in the data directory.
type localHome struct{ db *DB }

// cacheMarker is the file in a data directory that is an object store's
// cache (objectHome): the local home refuses it, and the object home
// refuses a data directory that holds a local database instead.
const cacheMarker = "OBJECT-STORE-CACHE"

func (h localHome) prepare() error {
	if _, err := os.Stat(filepath.Join(h.db.dir, cacheMarker)); err == nil {
		return fmt.Errorf("%s is the cache of an object store (it has %s), not a database: start with the --storage it was used with, or use another data directory", h.db.dir, cacheMarker)
	}
	return nil
}

func (h localHome) openLog(last int) (walWriter, error) {
	return createWALFile(h.db.walDir(), last+1)
}

// persist fsyncs the files, in parallel (their writeback mostly done
// while the transaction went on), and their directories.
func (h localHome) persist(paths []string) error {
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() { errs[i] = syncFile(p) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, p := range paths {
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// saveCheckpoint writes catalog.json (the manifests are written as tables
// are flushed), then removes the WAL files the checkpoint covers.
func (h localHome) saveCheckpoint(_ *dbState, cat []byte, logFrom int) error {
	if err := writeFileAtomic(filepath.Join(h.db.dir, catalogFileName), cat); err != nil {
		return err
	}
	if logFrom == 0 {
		return nil
	}
	return dropWALFiles(h.db.walDir(), logFrom)
}

func (h localHome) exists(path string) error {
	_, err := os.Stat(path)
	return err
}

func (h localHome) fetcher() fetcher { return nil }

func (h localHome) catchUp(time.Duration) error { return nil }

func (h localHome) shared() bool { return false }

// removeIfExists removes path, ignoring its absence.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
