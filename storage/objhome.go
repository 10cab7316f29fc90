package storage

// The object home keeps a DB's durable state in an object store
// (Options.Store: S3 or any objstore.Store); the data directory is a cache
// of it that may start empty. Several servers may share a store: each
// applies the others' log objects (tail.go), and one of them at a time, the
// leader, checkpoints (lead.go).
//
// Objects, by key:
//
//	log/00000000000000000042           one group commit: the WAL records (the
//	                                   local WAL's frames) of every commit that
//	                                   waited for it, put with PutIfAbsent
//	tables/<schema>/<id>/seg-*.parquet segments and their sidecars (text,
//	tables/<schema>/<id>/seg-*.<side>  trigram, vector files), immutable, under
//	                                   the same names as in the data directory
//	tables/<schema>/<id>/manifest-<n>-<origin>.json  the table's
//	                                   manifest.json as checkpoint n of the
//	                                   server <origin> saw it
//	catalog/<n>-<origin>.json          catalog.json of that checkpoint
//	checkpoint                         names checkpoint n's catalog and
//	                                   manifests and the first log object
//	                                   recovery needs; replaced with PutIfMatch
//	leader                             the lease of the server that
//	                                   checkpoints (lead.go)
//
// What is put when: a commit appends its record to an in-memory buffer;
// the group commit (DB.waitDurable) puts the buffer as the next log object
// and acknowledges every commit in it once the put returned: one put per
// group commit, plus one put per spilled segment before it (persist). A
// checkpoint (every WALCheckpointBytes of log or logCheckpointObjects log
// objects, and at Close) flushes the tails to segments as in the local
// home, then puts every file of the data directory the store lacks (new
// segments and sidecars), the manifests that changed and the catalog as
// new objects, then the checkpoint object; only then does it delete the
// log objects before the previous checkpoint's first one, older manifests
// and catalogs, and the files of segments neither the checkpoint nor a
// state in use lists (replaced by a compaction, of dropped tables), each
// once it has been unreferenced for Options.StoreRetention (collect).
// Skipping a deletion is safe: it only leaves garbage.
//
// Open reads the checkpoint object, lists tables/ and catalog/, drops
// cached files the store does not hold (or holds with another size),
// writes the checkpoint's manifests and catalog as manifest.json and
// catalog.json, and copies the log objects from the checkpoint's first
// one on (they must be numbered without gaps and hold whole records) into
// wal/: the local recovery then replays them exactly as it replays a
// local WAL, and the copies go. Segment and sidecar files are fetched when
// something first reads them (segment.local): a server starts after
// reading the catalog, manifests and log, whatever the size of its tables.
// Nothing is evicted yet: the data directory keeps every file it fetched.
//
// Several servers: the log's contiguous numbers and PutIfAbsent serialise
// them, and each applies the others' log objects (tail.go); the commits
// of a group commit that finds its log object taken are judged again on
// the state with the other's commits and put again (rebase.go). The
// leader checkpoints (lead.go), the others adopt its checkpoints
// (adopt.go). A checkpoint deletes only the log objects the checkpoint
// before it covered, and those only after the retention window, so that
// servers tailing the log find what they have not read yet.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/cairn-db/cairn/storage/objstore"
)

const (
	storeCheckpointKey = "checkpoint"
	storeLogPrefix     = "log/"
	storeCatalogPrefix = "catalog/"
	storeTablesPrefix  = "tables/"
	// logCheckpointObjects is the number of log objects after which a
	// checkpoint is due: Open reads every log object since the last one.
	logCheckpointObjects = 4096
	// storeTransfers is how many puts or gets run at once.
	storeTransfers = 8
)

// storeCheckpoint is the checkpoint object's JSON.
type storeCheckpoint struct {
	// Seq numbers the checkpoints; 0: none yet.
	Seq uint64 `json:"seq"`
	// LSN is the WAL position of the catalog.
	LSN uint64 `json:"lsn"`
	// Catalog is the key of catalog.json's copy ("" before the first).
	Catalog string `json:"catalog,omitempty"`
	// LogFrom is the number of the first log object recovery replays.
	LogFrom int `json:"log_from"`
	// Tables maps table IDs to their manifest objects' keys (a table
	// without a manifest yet has none).
	Tables map[uint64]string `json:"tables,omitempty"`
}

// storedManifest is one table's manifest object.
type storedManifest struct {
	key string
	sum [sha256.Size]byte
	// files are the keys of the segments it lists.
	files []string
}

// objectHome keeps a DB's durable state in an object store.
type objectHome struct {
	db    *DB
	store objstore.Store

	// ckpt is the latest checkpoint object, etag its version ("": none);
	// manifests describes its tables' manifests. Open and checkpoints
	// (DB.ckptMu) use them.
	ckpt      storeCheckpoint
	etag      string
	manifests map[uint64]storedManifest
	// logLow is the number of the oldest log object that may be left
	// before ckpt.LogFrom (one a crash kept a checkpoint from deleting).
	logLow int
	// unref is when each object a checkpoint found unreferenced was first
	// found so: collect deletes it once that is StoreRetention ago
	// (DB.ckptMu).
	unref map[string]time.Time
	// adoptedSeq is ckpt.Seq; seenSeq the highest checkpoint number a
	// catch-up read: a newer checkpoint of another server is adopted
	// (adopt.go).
	adoptedSeq atomic.Uint64
	seenSeq    atomic.Uint64
	// lead is this server's hold on the lease, holderID the name it
	// holds it under (lead.go).
	lead     leadership
	holderID string

	mu sync.Mutex
	// stored is the size of every object under tables/ and catalog/ the
	// store holds, as far as this server knows (mu).
	stored map[string]int64
	// fetching makes concurrent misses of one file share one copy.
	fetching singleflight.Group
	// cache bounds the segment and sidecar files the data directory
	// keeps (diskcache.go).
	cache *diskCache

	// caughtUp is when (Unix nanoseconds) the last catch-up with the log
	// that succeeded started, ckptReadAt when a catch-up last read the
	// checkpoint object (tail.go).
	caughtUp   atomic.Int64
	ckptReadAt atomic.Int64
	// origin is written into every record this server appends (walRecord)
	// and into the names of the files it writes: random, so that no two
	// servers' log objects hold the same bytes and no two name a file
	// alike.
	origin uint64
}

func newObjectHome(db *DB, store objstore.Store) *objectHome {
	return &objectHome{db: db, store: store, manifests: map[uint64]storedManifest{}, stored: map[string]int64{},
		unref: map[string]time.Time{}, origin: rand.Uint64() | 1, cache: newDiskCache(db.opts.DiskCacheBytes)}
}

// keyOf is the object key of a file in the data directory.
func (h *objectHome) keyOf(path string) (string, error) {
	rel, err := filepath.Rel(h.db.dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return "", fmt.Errorf("%s is not in the data directory %s", path, h.db.dir)
	}
	return filepath.ToSlash(rel), nil
}

// pathOf is the file in the data directory that caches object key.
func (h *objectHome) pathOf(key string) string {
	return filepath.Join(h.db.dir, filepath.FromSlash(key))
}

func logKey(n int) string { return fmt.Sprintf("%s%020d", storeLogPrefix, n) }

// isManifestKey tells a manifest object (never cached under its own name)
// from a table's other files.
func isManifestKey(key string) bool {
	base := key[strings.LastIndexByte(key, '/')+1:]
	return strings.HasPrefix(base, "manifest-") && strings.HasSuffix(base, ".json")
}

// getAll reads a whole object.
func (h *objectHome) getAll(ctx context.Context, key string) ([]byte, error) {
	rc, _, err := h.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("reading %s from the object store: %w", key, err)
	}
	return b, nil
}

// download copies object key to path through a temporary file of its own
// (no fsync: the data directory is a cache, and a file a crash tore has
// the wrong size or checksum next time), returning its size.
func (h *objectHome) download(ctx context.Context, key, path string) (int64, error) {
	rc, info, err := h.store.Get(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("fetching %s from the object store: %w", key, err)
	}
	defer rc.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != info.Size {
		err = fmt.Errorf("got %d bytes of %d", n, info.Size)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return 0, fmt.Errorf("fetching %s from the object store: %w", key, err)
	}
	return n, nil
}

// fetch copies the object of the file at path into the data directory
// unless it is there (fetcher); concurrent calls for one file share one
// copy.
func (h *objectHome) fetch(path string) error {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		if err == nil {
			h.cache.touch(path)
		}
		return err
	}
	key, err := h.keyOf(path)
	if err != nil {
		return err
	}
	if !h.has(key) {
		return fmt.Errorf("%s: %w", path, os.ErrNotExist)
	}
	_, err, _ = h.fetching.Do(key, func() (any, error) {
		if _, err := os.Stat(path); err == nil {
			return nil, nil
		}
		size, err := h.download(context.Background(), key, path)
		if err == nil {
			h.cache.add(path, size, time.Now())
		}
		return nil, err
	})
	return err
}

func (h *objectHome) fetcher() fetcher { return h }

// has reports whether the store holds object key.
func (h *objectHome) has(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.stored[key]
	return ok
}

// exists: the file is cached, or the store holds it.
func (h *objectHome) exists(path string) error {
	_, err := os.Stat(path)
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	key, kerr := h.keyOf(path)
	if kerr != nil {
		return kerr
	}
	if h.has(key) {
		return nil
	}
	return err
}

// inParallel runs fn for each item, storeTransfers at a time, and returns
// the first error.
func inParallel[T any](items []T, fn func(T) error) error {
	var g errgroup.Group
	g.SetLimit(storeTransfers)
	for _, it := range items {
		g.Go(func() error { return fn(it) })
	}
	return g.Wait()
}

// rangeOf returns 0, 1, ..., n-1.
func rangeOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// prepare brings the latest checkpoint and the log written since into the
// data directory, as the local recovery reads them.
func (h *objectHome) prepare() error {
	ctx := context.Background()
	h.ckpt = storeCheckpoint{LogFrom: 1}
	rc, info, err := h.store.Get(ctx, storeCheckpointKey)
	switch {
	case errors.Is(err, objstore.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the checkpoint from the object store: %w", err)
	default:
		b, err := io.ReadAll(rc)
		rc.Close()
		if err == nil {
			err = json.Unmarshal(b, &h.ckpt)
		}
		if err == nil && h.ckpt.LogFrom < 1 {
			err = fmt.Errorf("log_from %d", h.ckpt.LogFrom)
		}
		if err != nil {
			return fmt.Errorf("corrupt checkpoint object %q: %w", storeCheckpointKey, err)
		}
		h.etag = info.ETag
	}
	h.adoptedSeq.Store(h.ckpt.Seq)
	h.seenSeq.Store(h.ckpt.Seq)
	for _, prefix := range []string{storeTablesPrefix, storeCatalogPrefix} {
		for info, err := range h.store.List(ctx, prefix) {
			if err != nil {
				return fmt.Errorf("listing the object store: %w", err)
			}
			h.stored[info.Key] = info.Size
		}
	}

	if err := h.claimCache(); err != nil {
		return err
	}
	if err := h.readHolder(); err != nil {
		return err
	}
	// The cache keeps the files the store holds with the same size; the
	// catalog, manifests and log come from the checkpoint.
	if err := removeIfExists(filepath.Join(h.db.dir, catalogFileName)); err != nil {
		return err
	}
	if err := dropWALFiles(h.db.walDir(), math.MaxInt); err != nil {
		return err
	}
	var kept []fs.FileInfo
	var keptPaths []string
	err = filepath.WalkDir(h.db.tablesDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		key, err := h.keyOf(path)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if size, ok := h.stored[key]; ok && size == fi.Size() && d.Name() != manifestName && !strings.HasSuffix(path, ".tmp") {
			kept, keptPaths = append(kept, fi), append(keptPaths, path)
			return nil
		}
		return removeIfExists(path)
	})
	if err != nil {
		return fmt.Errorf("clearing the cache %s: %w", h.db.tablesDir(), err)
	}
	// What the cache kept from a previous run counts against its budget,
	// most recently written last to go.
	for i, fi := range kept {
		h.cache.add(keptPaths[i], fi.Size(), fi.ModTime())
	}
	ids := slices.Collect(maps.Keys(h.ckpt.Tables))
	manifests := make([]storedManifest, len(ids))
	err = inParallel(rangeOf(len(ids)), func(i int) error {
		key := h.ckpt.Tables[ids[i]]
		b, err := h.getAll(ctx, key)
		if err != nil {
			return fmt.Errorf("reading the manifest of table %d: %w", ids[i], err)
		}
		if manifests[i], err = h.parseManifest(key, b); err != nil {
			return err
		}
		dir := filepath.Dir(h.pathOf(key))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return writeFileAtomic(filepath.Join(dir, manifestName), b)
	})
	if err != nil {
		return err
	}
	for i, id := range ids {
		h.manifests[id] = manifests[i]
	}
	if h.ckpt.Catalog != "" {
		b, err := h.getAll(ctx, h.ckpt.Catalog)
		if err != nil {
			return fmt.Errorf("reading the catalog: %w", err)
		}
		if err := writeFileAtomic(filepath.Join(h.db.dir, catalogFileName), b); err != nil {
			return err
		}
	}
	return h.fetchLog(ctx)
}

// claimCache makes sure the data directory is a cache it may clear: one
// marked as such, or one without a database (catalog.json, WAL files or
// table files) of its own, which it marks.
func (h *objectHome) claimCache() error {
	marker := filepath.Join(h.db.dir, cacheMarker)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	local := false
	if _, err := os.Stat(filepath.Join(h.db.dir, catalogFileName)); err == nil {
		local = true
	}
	for _, d := range []string{h.db.walDir(), h.db.tablesDir()} {
		if ents, err := os.ReadDir(d); err == nil && len(ents) > 0 {
			local = true
		}
	}
	if local {
		return fmt.Errorf("%s holds a local database; the cache of an object store must be another (or an empty) data directory", h.db.dir)
	}
	return writeFileAtomic(marker, []byte("This data directory is a cache of the object store cairn runs on (--storage).\n"))
}

// parseManifest describes the manifest object key holding b.
func (h *objectHome) parseManifest(key string, b []byte) (storedManifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return storedManifest{}, fmt.Errorf("corrupt manifest %s: %w", key, err)
	}
	dir := key[:strings.LastIndexByte(key, '/')+1]
	sm := storedManifest{key: key, sum: sha256.Sum256(b)}
	for _, s := range m.Segments {
		sm.files = append(sm.files, dir+s.File)
	}
	return sm, nil
}

// fetchLog copies the log objects from the checkpoint's first one on into
// wal/, one WAL file each, numbered as the objects.
func (h *objectHome) fetchLog(ctx context.Context) error {
	var nums []int
	for info, err := range h.store.List(ctx, storeLogPrefix) {
		if err != nil {
			return fmt.Errorf("listing the log: %w", err)
		}
		n, err := strconv.Atoi(strings.TrimPrefix(info.Key, storeLogPrefix))
		if err != nil || n < 1 {
			return fmt.Errorf("unexpected object %q in the log", info.Key)
		}
		if n >= h.ckpt.LogFrom {
			nums = append(nums, n)
		} else if h.logLow == 0 {
			h.logLow = n
		}
	}
	if h.logLow == 0 {
		h.logLow = h.ckpt.LogFrom
	}
	for i, n := range nums {
		if want := h.ckpt.LogFrom + i; n != want {
			return fmt.Errorf("log object %s is missing (the next one is %s): refusing to start without the commits it held", logKey(want), logKey(n))
		}
	}
	return inParallel(nums, func(n int) error {
		path := filepath.Join(h.db.walDir(), walFileName(n))
		if _, err := h.download(ctx, logKey(n), path); err != nil {
			return err
		}
		_, torn, err := readWALFile(path, func([]byte) error { return nil })
		if err == nil && torn {
			err = errors.New("it does not hold whole records")
		}
		if err != nil {
			return fmt.Errorf("corrupt log object %s: %w", logKey(n), err)
		}
		return nil
	})
}

// openLog removes the local copies of the log objects, which recovery has
// replayed, and continues the log after the last of them.
func (h *objectHome) openLog(last int) (walWriter, error) {
	if err := dropWALFiles(h.db.walDir(), math.MaxInt); err != nil {
		return nil, err
	}
	return &objLog{h: h, next: max(last+1, h.ckpt.LogFrom)}, nil
}

// putFile puts the file at path under its key unless the store holds it.
func (h *objectHome) putFile(ctx context.Context, path string) error {
	key, err := h.keyOf(path)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h.mu.Lock()
	size, ok := h.stored[key]
	h.mu.Unlock()
	if !ok || size != fi.Size() {
		if _, err := h.store.Put(ctx, key, f); err != nil {
			return fmt.Errorf("putting %s to the object store: %w", key, err)
		}
		h.mu.Lock()
		h.stored[key] = fi.Size()
		h.mu.Unlock()
	}
	// In the store now, the file is one the cache may evict.
	h.cache.add(path, fi.Size(), fi.ModTime())
	return nil
}

// persist puts the files to the store, in parallel.
func (h *objectHome) persist(paths []string) error {
	ctx := context.Background()
	return inParallel(paths, func(p string) error { return h.putFile(ctx, p) })
}

// putCache puts every file of the data directory's tables/ the store
// lacks (segments of flushes and compactions, sidecars).
func (h *objectHome) putCache(ctx context.Context) error {
	var paths []string
	err := filepath.WalkDir(h.db.tablesDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil // a dropped table's folder, removed meanwhile
			}
			return err
		}
		if !d.IsDir() && d.Name() != manifestName && !strings.HasSuffix(path, ".tmp") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return inParallel(paths, func(p string) error {
		if err := h.putFile(ctx, p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	})
}

// saveCheckpoint puts the files, manifests and catalog the checkpoint
// names, then the checkpoint object, then deletes what it makes garbage.
func (h *objectHome) saveCheckpoint(s *dbState, cat []byte, logFrom int) error {
	ctx := context.Background()
	next := storeCheckpoint{Seq: h.ckpt.Seq + 1, LSN: s.lsn, LogFrom: h.ckpt.LogFrom, Tables: map[uint64]string{}}
	if logFrom > 0 {
		next.LogFrom = logFrom
	}
	// The manifests first: every file they name is in the data
	// directory, and stays there while s is pinned.
	type put struct {
		key  string
		body []byte
	}
	var puts []put
	manifests := map[uint64]storedManifest{}
	for id := range s.cat.Tables {
		rt := h.db.lookupRT(id)
		if rt == nil {
			continue
		}
		rt.flushMu.Lock()
		b, err := os.ReadFile(filepath.Join(rt.dir, manifestName))
		rt.flushMu.Unlock()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if old, ok := h.manifests[id]; ok && old.sum == sha256.Sum256(b) {
			manifests[id] = old
			continue
		}
		dir, err := h.keyOf(rt.dir)
		if err != nil {
			return err
		}
		sm, err := h.parseManifest(fmt.Sprintf("%s/manifest-%020d-%016x.json", dir, next.Seq, h.origin), b)
		if err != nil {
			return err
		}
		manifests[id] = sm
		puts = append(puts, put{sm.key, b})
	}
	if err := h.putCache(ctx); err != nil {
		return err
	}
	next.Catalog = fmt.Sprintf("%s%020d-%016x.json", storeCatalogPrefix, next.Seq, h.origin)
	puts = append(puts, put{next.Catalog, cat})
	err := inParallel(puts, func(p put) error {
		if _, err := h.store.Put(ctx, p.key, bytes.NewReader(p.body)); err != nil {
			return fmt.Errorf("putting %s to the object store: %w", p.key, err)
		}
		h.mu.Lock()
		h.stored[p.key] = int64(len(p.body))
		h.mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	for id, sm := range manifests {
		next.Tables[id] = sm.key
	}
	body, err := json.MarshalIndent(next, "", " ")
	if err != nil {
		return err
	}
	var info objstore.Info
	if h.etag == "" {
		info, err = h.store.PutIfAbsent(ctx, storeCheckpointKey, bytes.NewReader(body))
	} else {
		info, err = h.store.PutIfMatch(ctx, storeCheckpointKey, bytes.NewReader(body), h.etag)
	}
	if errors.Is(err, objstore.ErrPreconditionFailed) {
		return fmt.Errorf("the checkpoint object changed since this server read it: another cairn server writes to this storage (%w)", err)
	}
	if err != nil {
		return fmt.Errorf("putting the checkpoint to the object store: %w", err)
	}
	prev := h.ckpt.LogFrom
	h.ckpt, h.etag, h.manifests = next, info.ETag, manifests
	h.adoptedSeq.Store(next.Seq)
	h.collect(ctx, prev)
	return nil
}

// collect deletes the log objects before logBefore (the first one of the
// previous checkpoint: other servers tailing the log (tail.go) find the
// objects they have not read yet for one more checkpoint), the
// catalogs and manifests the checkpoint does not name, and the files under
// tables/ of segments that neither the checkpoint's manifests nor any
// state in use (the head, the published state, pinned snapshots) lists
// and that the data directory does not hold (the files of a transaction
// in progress) — each once a checkpoint first found it so
// Options.StoreRetention ago (the spills of another server's transaction
// in progress, a reader of a replaced segment, a server behind on the
// log). A failed deletion is logged: it leaves garbage, nothing else.
func (h *objectHome) collect(ctx context.Context, logBefore int) {
	now := time.Now()
	candidates := map[string]bool{}
	due := func(key string) bool {
		candidates[key] = true
		first, ok := h.unref[key]
		if !ok {
			first = now
			h.unref[key] = now
		}
		return h.db.opts.StoreRetention < 0 || now.Sub(first) >= h.db.opts.StoreRetention
	}
	var dead []string
	n := h.logLow
	for ; n < logBefore && due(logKey(n)); n++ {
		dead = append(dead, logKey(n))
	}
	for k := n; k < logBefore; k++ {
		due(logKey(k))
	}
	h.logLow = n
	named := map[string]bool{h.ckpt.Catalog: true}
	for _, sm := range h.manifests {
		named[sm.key] = true
		for _, f := range sm.files {
			named[f] = true
		}
	}
	live := h.liveSegments()
	h.mu.Lock()
	keys := make([]string, 0, len(h.stored))
	for key := range h.stored {
		keys = append(keys, key)
	}
	h.mu.Unlock()
	for _, key := range keys {
		if named[key] {
			continue
		}
		if strings.HasPrefix(key, storeTablesPrefix) && !isManifestKey(key) {
			if seg := segmentKeyOf(key); named[seg] || live[seg] {
				continue
			}
			if _, err := os.Stat(h.pathOf(key)); !errors.Is(err, os.ErrNotExist) {
				continue // a file being written (a spill not yet committed)
			}
		}
		if due(key) {
			dead = append(dead, key)
		}
	}
	for key := range h.unref {
		if !candidates[key] {
			delete(h.unref, key) // referenced again, or gone
		}
	}
	inParallel(dead, func(key string) error {
		if err := h.store.Delete(ctx, key); err != nil {
			h.db.log.Warn("deleting an object no checkpoint needs", "key", key, "err", err)
			return nil
		}
		h.mu.Lock()
		delete(h.stored, key)
		h.mu.Unlock()
		return nil
	})
	for _, key := range dead {
		delete(h.unref, key)
	}
}

// liveSegments returns the keys of the segments of the states in use.
func (h *objectHome) liveSegments() map[string]bool {
	db := h.db
	live := map[string]bool{}
	add := func(s *dbState) {
		for _, ts := range s.tables {
			for _, seg := range ts.segments {
				if key, err := h.keyOf(seg.path); err == nil {
					live[key] = true
				}
			}
		}
	}
	db.pinMu.Lock()
	add(db.published.Load())
	for p := range db.pins {
		add(p.state)
	}
	db.pinMu.Unlock()
	add(db.head.Load())
	return live
}

// segmentKeyOf returns the key of the segment file that file key (the
// segment or a sidecar, named after it: seg-000042.bm25,
// seg-000042.<index>.vec, ...) belongs to.
func segmentKeyOf(key string) string {
	slash := strings.LastIndexByte(key, '/')
	base := key[slash+1:]
	if dot := strings.IndexByte(base, '.'); dot >= 0 {
		base = base[:dot]
	}
	return key[:slash+1] + base + ".parquet"
}

// objLog is the object home's write-ahead log: records collect in memory
// and each sync puts them as the next log object.
type objLog struct {
	h *objectHome

	mu  sync.Mutex
	buf []byte // the frames appended since the last put (mu)

	// next is the number of the next log object, objects the number put
	// since the last rotation (DB.syncMu).
	next    int
	objects int
}

func (l *objLog) append(frame []byte) error {
	if err := sealWALFrame(frame); err != nil {
		return err
	}
	l.mu.Lock()
	l.buf = append(l.buf, frame...)
	l.mu.Unlock()
	return nil
}

// sync puts the records appended so far as the next log object. A log
// object already there is another writer's (unless it holds the same
// bytes: this server's own put, retried after a lost answer).
func (l *objLog) sync() error {
	l.mu.Lock()
	body := l.buf
	l.buf = nil
	l.mu.Unlock()
	if len(body) == 0 {
		return nil
	}
	ctx := context.Background()
	key := logKey(l.next)
	_, err := l.h.store.PutIfAbsent(ctx, key, bytes.NewReader(body))
	if errors.Is(err, objstore.ErrPreconditionFailed) {
		if there, gerr := l.h.getAll(ctx, key); gerr != nil || !bytes.Equal(there, body) {
			return fmt.Errorf("log object %s: %w", key, errLogTaken)
		}
		err = nil
	}
	if err != nil {
		return fmt.Errorf("putting log object %s: %w", key, err)
	}
	l.next++
	l.objects++
	if l.objects >= logCheckpointObjects {
		l.h.db.requestCheckpoint()
	}
	return nil
}

func (l *objLog) rotate() (walWriter, int, error) {
	l.objects = 0
	return l, l.next, nil
}

func (l *objLog) close(bool) error { return nil }
