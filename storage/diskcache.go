package storage

import (
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// The disk cache bounds the bytes of segment and sidecar files the data
// directory of an object home keeps (Options.DiskCacheBytes, the
// server's --cache-size). Every file that is also in the object store —
// one fetched from it, or one this server wrote and put there — is an
// entry; each read of it (segment.local) marks it used. When the entries
// outgrow the budget, the least recently used ones are deleted from the
// data directory, and the next read fetches them again. A file the store
// lacks (written since the last checkpoint) is never an entry, so nothing
// durable only here is deleted.
//
// A deleted file stays readable by whoever has it open, and its disk
// space comes back when they let go. Raw vector files (vecraw.go) are
// never evicted: vector searches map them for as long as their segment
// lives, so deleting one would free nothing and the next search would
// fetch a second copy. They count against the budget like the rest, so
// with large vector columns the other files go first. Files used within
// cacheGrace are not deleted, so that a reader
// between fetching a file and opening it does not lose it; the budget can
// be exceeded by what is that recent (a single file larger than the
// budget, the files one big query reads). An entry whose file something
// else removed (a segment compaction retired, a dropped table's) counts
// until eviction comes to it and finds it gone.

// cacheGrace is how recently used a file must not be to be evicted.
const cacheGrace = 10 * time.Second

// diskCache is the bookkeeping of the cached files; limit ≤ 0: unbounded
// (nothing is recorded). grace is cacheGrace (tests shorten it); it
// protects only uses since the cache was made (start): a file last used
// by an earlier run has no reader between fetch and open.
type diskCache struct {
	limit int64
	grace time.Duration
	start time.Time
	mu    sync.Mutex
	files map[string]*cachedFile // by path
	total int64                  // bytes of files
}

// cachedFile is one entry: its size and when it was last read.
type cachedFile struct {
	size int64
	used time.Time
}

func newDiskCache(limit int64) *diskCache {
	return &diskCache{limit: limit, grace: cacheGrace, start: time.Now(), files: map[string]*cachedFile{}}
}

// bounded reports whether the cache has a budget to keep.
func (c *diskCache) bounded() bool { return c.limit > 0 }

// add records the file at path (size bytes, used at used) as an entry,
// or updates it, then evicts what the budget no longer holds.
func (c *diskCache) add(path string, size int64, used time.Time) {
	if !c.bounded() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.files[path]; ok {
		c.total -= f.size
		f.size = size
		f.used = later(f.used, used)
	} else {
		c.files[path] = &cachedFile{size: size, used: used}
	}
	c.total += size
	c.evictLocked(time.Now())
}

// touch marks the file at path used now, when it is an entry.
func (c *diskCache) touch(path string) {
	if !c.bounded() {
		return
	}
	c.mu.Lock()
	if f, ok := c.files[path]; ok {
		f.used = time.Now()
	}
	c.mu.Unlock()
}

// bytes is the size of the entries.
func (c *diskCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// evictLocked deletes the least recently used entries not used since
// now-c.grace until the entries fit the budget (c.mu held).
func (c *diskCache) evictLocked(now time.Time) {
	if c.total <= c.limit {
		return
	}
	type victim struct {
		path string
		used time.Time
	}
	var old []victim
	for p, f := range c.files {
		if strings.HasSuffix(p, vecRawExt) {
			continue
		}
		if now.Sub(f.used) >= c.grace || f.used.Before(c.start) {
			old = append(old, victim{p, f.used})
		}
	}
	slices.SortFunc(old, func(a, b victim) int { return a.used.Compare(b.used) })
	for _, v := range old {
		if c.total <= c.limit {
			return
		}
		if err := os.Remove(v.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // kept; counted as long as it is there
		}
		c.total -= c.files[v.path].size
		delete(c.files, v.path)
	}
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
