package storage

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// lockedBuffer is a log destination safe for the worker goroutine and
// the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWorkerSurvivesPanics makes the background flush panic three times
// in a row: each panic is logged with its stack, the process and the
// database go on (commits and reads work meanwhile), the flush is retried
// with backoff until it succeeds, and no row is lost, before or after a
// reopen.
func TestWorkerSurvivesPanics(t *testing.T) {
	var mine atomic.Pointer[DB]
	var faults atomic.Int32
	fault := func(db *DB, table uint64) {
		if db == mine.Load() && faults.Add(1) <= 3 {
			panic("injected flush failure")
		}
	}
	flushFault.Store(&fault)
	defer flushFault.Store(nil)

	logs := &lockedBuffer{}
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 100, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	mine.Store(db)
	def := kvTable(t, db, "t")
	for b := 0; b < 10; b++ {
		var rows [][]any
		for i := 0; i < 30; i++ {
			rows = append(rows, []any{b*30 + i, "row"})
		}
		insert(t, db, def, rows...)
	}
	// Retries after 100, 200 and 400ms: the flush succeeds within a
	// second or so.
	flushed := false
	for i := 0; i < 500 && !flushed; i++ {
		flushed = len(db.published.Load().tables[def.ID].segments) > 0
		sleepMS(10)
	}
	if !flushed {
		t.Fatalf("no segment after the injected panics (%d faults); log:\n%s", faults.Load(), logs.String())
	}
	if n := faults.Load(); n < 4 {
		t.Fatalf("flush attempted %d times, want 3 panics and a success", n)
	}
	out := logs.String()
	if strings.Count(out, "flush panicked; retrying later") != 3 || !strings.Contains(out, "injected flush failure") || !strings.Contains(out, "worker_panic_test.go") {
		t.Fatalf("panics not logged with their stacks:\n%s", out)
	}
	insert(t, db, def, []any{1000, "after"})
	tx := db.Begin()
	if n := countRows(t, tx, def.ID); n != 301 {
		t.Fatalf("%d rows, want 301", n)
	}
	tx.Rollback()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	tx = db.Begin()
	defer tx.Rollback()
	if n := countRows(t, tx, def.ID); n != 301 {
		t.Fatalf("after reopening: %d rows, want 301", n)
	}
}
