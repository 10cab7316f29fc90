package storage

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The column cache keeps decoded Arrow arrays of segment row groups in
// memory. Segments are immutable, so one decoded column chunk serves
// every reader of every snapshot until compaction or a drop deletes the
// file. Entries are keyed by (segment file, row group, column ID; the row
// IDs use rowIDCacheCol), evicted least recently used first to stay within
// the byte budget, and reference counted: the cache holds one reference to
// each entry's ArrayData and every reader gets its own Array over it (one
// more reference), so an entry evicted while a reader still uses it stays
// valid for that reader, and a reader releasing too often cannot damage
// what the cache holds. Concurrent misses on one key decode it once.

// rowIDCacheCol is the column ID under which row IDs are cached.
const rowIDCacheCol = -1

// cacheKey names one decoded column chunk.
type cacheKey struct {
	path  string
	group int32
	col   int32
}

// cacheEntry is one cached column chunk, linked into the LRU list (the
// most recently used at head.next).
type cacheEntry struct {
	key        cacheKey
	data       arrow.ArrayData
	bytes      int64
	prev, next *cacheEntry
}

// cacheLoad is a decode in progress; waiters block on done.
type cacheLoad struct {
	done    chan struct{}
	waiters int // (colCache.mu)
	data    arrow.ArrayData
	err     error
}

// colCache is the decoded column cache of a DB. Its methods are safe for
// concurrent use.
type colCache struct {
	budget int64 // <= 0: nothing is kept

	mu   sync.Mutex
	used int64
	// reserved is memory outside the cache that shares its budget: the
	// loaded vector indexes (vector.go). The cache keeps at most
	// budget-reserved bytes (and at least budget/8), so that the two
	// together stay within the server's memory limit instead of making
	// the garbage collector run without pause above it.
	reserved int64
	entries  map[cacheKey]*cacheEntry
	head     cacheEntry // sentinel of the LRU list
	inflight map[cacheKey]*cacheLoad

	hits, misses, evictions atomic.Int64
}

func newColCache(budget int64) *colCache {
	c := &colCache{budget: budget, entries: map[cacheKey]*cacheEntry{}, inflight: map[cacheKey]*cacheLoad{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

func (c *colCache) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *colCache) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}

// get returns the array cached under key, decoding it with load on a
// miss. The caller owns the returned Array (Release it). load returns
// data holding one reference, which the cache takes over (or drops when
// the data is not kept).
func (c *colCache) get(key cacheKey, load func() (arrow.ArrayData, error)) (arrow.Array, error) {
	c.mu.Lock()
	if e := c.entries[key]; e != nil {
		c.unlink(e)
		c.pushFront(e)
		a := array.MakeFromData(e.data)
		c.mu.Unlock()
		c.hits.Add(1)
		return a, nil
	}
	if l := c.inflight[key]; l != nil {
		l.waiters++
		c.mu.Unlock()
		<-l.done
		if l.err != nil {
			return nil, l.err
		}
		// The loader took a reference for this waiter: hand it over.
		a := array.MakeFromData(l.data)
		l.data.Release()
		c.hits.Add(1)
		return a, nil
	}
	l := &cacheLoad{done: make(chan struct{})}
	c.inflight[key] = l
	c.mu.Unlock()
	c.misses.Add(1)

	data, err := safeLoad(load)
	var a arrow.Array
	c.mu.Lock()
	delete(c.inflight, key)
	if err == nil {
		for i := 0; i < l.waiters; i++ {
			data.Retain()
		}
		a = array.MakeFromData(data)
		if !c.insertLocked(key, data) {
			data.Release()
		}
	}
	c.mu.Unlock()
	l.data, l.err = data, err
	close(l.done)
	return a, err
}

// lookup returns the array cached under key, if it is there, without
// loading it. The caller owns the returned Array (Release it).
func (c *colCache) lookup(key cacheKey) (arrow.Array, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil {
		return nil, false
	}
	c.unlink(e)
	c.pushFront(e)
	c.hits.Add(1)
	return array.MakeFromData(e.data), true
}

// safeLoad runs load, turning a panic into an error so that waiters on
// the key are always woken.
func safeLoad(load func() (arrow.ArrayData, error)) (d arrow.ArrayData, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("decoding column chunk: %v", r)
		}
	}()
	return load()
}

// put caches data under key (taking over the caller's reference) unless
// an entry is there already.
func (c *colCache) put(key cacheKey, data arrow.ArrayData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] != nil || c.inflight[key] != nil || !c.insertLocked(key, data) {
		data.Release()
	}
}

// insertLocked adds an entry, evicting the least recently used ones to
// make room; false when data is larger than the whole budget (not kept).
func (c *colCache) insertLocked(key cacheKey, data arrow.ArrayData) bool {
	size := arraySize(data) + 128
	limit := c.limitLocked()
	if size > limit {
		return false
	}
	if old := c.entries[key]; old != nil {
		c.removeLocked(old)
	}
	for c.used+size > limit && c.head.prev != &c.head {
		c.removeLocked(c.head.prev)
		c.evictions.Add(1)
	}
	e := &cacheEntry{key: key, data: data, bytes: size}
	c.entries[key] = e
	c.pushFront(e)
	c.used += size
	return true
}

// hasRoom reports whether an entry of size bytes would fit beside what
// the cache holds, without evicting anything.
func (c *colCache) hasRoom(size int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used+size+128 <= c.limitLocked()
}

// limitLocked is the most bytes the cache may hold now.
func (c *colCache) limitLocked() int64 { return max(c.budget-c.reserved, c.budget/8) }

// reserve changes the memory reserved outside the cache by delta and
// evicts entries down to the new limit.
func (c *colCache) reserve(delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserved += delta
	for c.used > c.limitLocked() && c.head.prev != &c.head {
		c.removeLocked(c.head.prev)
		c.evictions.Add(1)
	}
}

func (c *colCache) removeLocked(e *cacheEntry) {
	c.unlink(e)
	delete(c.entries, e.key)
	c.used -= e.bytes
	e.data.Release()
}

// dropPath removes the entries of the segment file path.
func (c *colCache) dropPath(path string) {
	c.drop(func(k cacheKey) bool { return k.path == path })
}

// dropDir removes the entries of every segment file under dir.
func (c *colCache) dropDir(dir string) {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	c.drop(func(k cacheKey) bool { return strings.HasPrefix(k.path, prefix) })
}

func (c *colCache) drop(match func(cacheKey) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if match(k) {
			c.removeLocked(e)
		}
	}
}

// clear empties the cache.
func (c *colCache) clear() { c.drop(func(cacheKey) bool { return true }) }

// CacheStats describes the decoded column cache.
type CacheStats struct {
	// Budget is the most bytes the cache keeps (Options.CacheBytes).
	Budget int64
	// Bytes and Entries are what it holds now.
	Bytes   int64
	Entries int
	// Hits, Misses and Evictions count lookups and entries dropped to
	// make room since Open.
	Hits, Misses, Evictions int64
}

// CacheStats returns the state of the decoded column cache.
func (db *DB) CacheStats() CacheStats {
	c := db.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Budget: max(c.budget, 0), Bytes: c.used, Entries: len(c.entries),
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load()}
}
