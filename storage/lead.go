package storage

// Background work when several servers write one object store: one of
// them, the leader, flushes, compacts, spills and checkpoints; every other
// server applies the log (tail.go) and, once the leader's checkpoint is
// out, adopts it (adopt.go): it drops the rows the checkpoint's segments
// hold from its memory and reads those segments instead.
//
// Leadership is a lease, the object "leader" ({"holder", "expires_unix_ms"}):
// a server takes it when it is missing (PutIfAbsent), expired or its own
// (a restart on the same data directory; PutIfMatch on the version it
// read) and its holder renews it every
// leaseTTL/5 (PutIfMatch on the version it put). The holder counts
// itself the leader until 4/5 of leaseTTL after it began its last
// successful put, by its own clock, so that it stops before another
// server may find the lease expired (with clocks less than leaseTTL/5
// apart). Correctness does not rest on the lease: a checkpoint replaces
// the checkpoint object with PutIfMatch on the version it started from,
// so of two servers that both believed they led, the second to finish
// fails, adopts the other's checkpoint and leaves only unreferenced
// files. The lease only keeps them from doing the work twice.
//
// Every file a checkpoint writes has a name no other server uses: segment
// files carry the server's random origin (DB.newSegmentPath), manifest and
// catalog objects the checkpoint's number and the origin. What a
// checkpoint makes unreferenced (replaced segments, older manifests and
// catalogs, the log objects before the previous checkpoint, the files of a
// checkpoint that lost its race or a leader that died mid-flush) is
// deleted by a later checkpoint of the leader once it has been
// unreferenced for Options.StoreRetention (objectHome.collect): a reader
// may still be reading it, and a server behind may still need a log
// object.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-db/cairn/storage/objstore"
)

const storeLeaseKey = "leader"

// DefaultStoreRetention is the Options.StoreRetention default.
const DefaultStoreRetention = 15 * time.Minute

// leaseTTL is how long a lease holds without renewal (a variable so that
// tests hand leadership over faster).
var leaseTTL = 10 * time.Second

// storeLease is the lease object's JSON.
type storeLease struct {
	// Holder is the origin (hex) of the server that holds it.
	Holder string `json:"holder"`
	// Expires is when (Unix milliseconds) it lapses unless renewed.
	Expires int64 `json:"expires_unix_ms"`
}

// leadership is this server's view of the lease.
type leadership struct {
	// op serialises the lease's puts (the tending goroutine, Close).
	op sync.Mutex
	mu sync.Mutex
	// etag is the version of the lease object this server put last
	// ("": it holds none), until when it counts itself the leader (mu).
	etag  string
	until time.Time
}

// leads reports whether this server holds the lease now.
func (h *objectHome) leads() bool {
	h.lead.mu.Lock()
	defer h.lead.mu.Unlock()
	return h.lead.etag != "" && time.Now().Before(h.lead.until)
}

// leaseHolderFile, in the data directory, names the server that runs on
// it in the lease: a server restarted on the same cache (after a crash)
// takes its own lease back at once instead of waiting for it to lapse.
// The directory's lock keeps two servers from sharing the name.
const leaseHolderFile = "lease-holder"

// readHolder reads the data directory's name in the lease, making one up
// the first time (prepare).
func (h *objectHome) readHolder() error {
	path := filepath.Join(h.db.dir, leaseHolderFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b = []byte(strconv.FormatUint(rand.Uint64()|1, 16))
		err = writeFileAtomic(path, b)
	}
	if err != nil {
		return err
	}
	h.holderID = strings.TrimSpace(string(b))
	return nil
}

func (h *objectHome) holder() string { return h.holderID }

// tryLead renews this server's lease, or takes the lease when nobody
// holds it or its holder let it lapse.
func (h *objectHome) tryLead(ctx context.Context) error {
	h.lead.op.Lock()
	defer h.lead.op.Unlock()
	start := time.Now()
	body, err := json.Marshal(storeLease{Holder: h.holder(), Expires: start.Add(leaseTTL).UnixMilli()})
	if err != nil {
		return err
	}
	h.lead.mu.Lock()
	etag := h.lead.etag
	h.lead.mu.Unlock()
	var info objstore.Info
	if etag != "" {
		info, err = h.store.PutIfMatch(ctx, storeLeaseKey, bytes.NewReader(body), etag)
		if err == nil {
			h.setLease(info.ETag, start)
			return nil
		}
		if !errors.Is(err, objstore.ErrPreconditionFailed) {
			return fmt.Errorf("renewing the lease: %w", err)
		}
		h.setLease("", time.Time{}) // another server took it
	}
	rc, cur, err := h.store.Get(ctx, storeLeaseKey)
	switch {
	case errors.Is(err, objstore.ErrNotExist):
		info, err = h.store.PutIfAbsent(ctx, storeLeaseKey, bytes.NewReader(body))
	case err != nil:
		return fmt.Errorf("reading the lease: %w", err)
	default:
		b, rerr := io.ReadAll(rc)
		rc.Close()
		var l storeLease
		if rerr == nil {
			rerr = json.Unmarshal(b, &l)
		}
		if rerr == nil && l.Holder != h.holder() && time.UnixMilli(l.Expires).After(start) {
			return nil // another server leads
		}
		info, err = h.store.PutIfMatch(ctx, storeLeaseKey, bytes.NewReader(body), cur.ETag)
	}
	if errors.Is(err, objstore.ErrPreconditionFailed) {
		return nil // another server took it first
	}
	if err != nil {
		return fmt.Errorf("taking the lease: %w", err)
	}
	h.setLease(info.ETag, start)
	h.db.log.Info("this server now leads the background work on the object store (flushes, compactions, checkpoints)")
	return nil
}

func (h *objectHome) setLease(etag string, start time.Time) {
	h.lead.mu.Lock()
	h.lead.etag, h.lead.until = etag, start.Add(leaseTTL*4/5)
	h.lead.mu.Unlock()
}

// releaseLease lets the lease lapse at once (Close), so that another
// server takes over without waiting for it to expire.
func (h *objectHome) releaseLease() {
	h.lead.op.Lock()
	defer h.lead.op.Unlock()
	h.lead.mu.Lock()
	etag := h.lead.etag
	h.lead.mu.Unlock()
	if etag == "" {
		return
	}
	h.setLease("", time.Time{})
	body, _ := json.Marshal(storeLease{Holder: h.holder()})
	if _, err := h.store.PutIfMatch(context.Background(), storeLeaseKey, bytes.NewReader(body), etag); err != nil {
		h.db.log.Warn("releasing the lease", "err", err)
	}
}

// startLeading tries for the lease once (a server alone on its store
// leads from its first commit on), then tends it in the background until
// Close.
func (h *objectHome) startLeading() {
	if err := h.tryLead(context.Background()); err != nil {
		h.db.log.Warn("taking the lease", "err", err)
	}
	db := h.db
	db.wg.Add(1)
	go func() {
		defer db.wg.Done()
		t := time.NewTicker(leaseTTL / 5)
		defer t.Stop()
		for {
			select {
			case <-db.quit:
				return
			case <-t.C:
				h.tend()
			}
		}
	}()
}

// tend renews or takes the lease, catches up with the log (an idle server
// stays within the log's retention), adopts a newer checkpoint of another
// server, and asks for a checkpoint when this server leads and the log
// grew enough.
func (h *objectHome) tend() {
	db := h.db
	if err := h.tryLead(context.Background()); err != nil {
		db.log.Warn("tending the lease", "err", err)
	}
	if err := h.catchUp(leaseTTL / 5); err != nil {
		db.log.Warn("background catch-up with the log", "err", err)
		return
	}
	if h.seenSeq.Load() > h.adoptedSeq.Load() {
		db.ckptMu.Lock()
		err := h.adoptNewer()
		db.ckptMu.Unlock()
		if err != nil {
			db.log.Warn("adopting another server's checkpoint", "err", err)
		}
	}
	if h.leads() {
		db.mu.Lock()
		due := db.walBytes >= db.opts.WALCheckpointBytes
		db.mu.Unlock()
		if due {
			db.requestCheckpoint()
		}
	}
}
