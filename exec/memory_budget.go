package exec

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// MemoryBudget bounds the memory a statement's operators hold at once
// while they gather their whole input (statement_mem): the batches a
// Sort, a hash join's build side and a window's input keep (their Arrow
// buffers, as arraySize counts them, plus each row's sort key
// or row reference), the groups of a hash aggregate (key bytes and a
// fixed overhead per group and aggregate), the keys DISTINCT, DISTINCT
// aggregates, UNION, INTERSECT and EXCEPT remember, and the rows an
// aggregate with ORDER BY buffers, and the states of aggregates that grow
// with their rows (functions.SizedAggState: array_agg, string_agg, ...).
// What streams through (scans, filters, projections, LIMIT) is not
// counted. Going past the limit fails the
// statement with 53200 instead of growing the process without bound; an
// operator gives its bytes back when it closes. Safe for concurrent use
// by a parallel plan's partitions.
type MemoryBudget struct {
	limit int64
	used  atomic.Int64
}

// NewMemoryBudget returns a budget of limit bytes; limit <= 0 means none
// (nil, which counts nothing).
func NewMemoryBudget(limit int64) *MemoryBudget {
	if limit <= 0 {
		return nil
	}
	return &MemoryBudget{limit: limit}
}

// Used is the bytes the statement's operators hold now.
func (b *MemoryBudget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// grow takes n more bytes, or fails with 53200 (and takes none) when
// they would pass the limit.
func (b *MemoryBudget) grow(n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	if used := b.used.Add(n); used > b.limit {
		b.used.Add(-n)
		return pgerr.New(pgerrcode.OutOfMemory, "out of memory").
			WithDetail("Failed on request of size %d: the statement's sorts, hash tables, buffered rows and the values its functions are building hold %d bytes of its statement_mem of %d bytes.", n, used-n, b.limit).
			WithHint("Raise statement_mem (SET statement_mem = '4GB', or the server's --statement-mem), or make the query gather fewer rows.")
	}
	return nil
}

// Take is grow for what holds rows outside the package's operators (the
// rows a PL/pgSQL set-returning function gathers in the session).
func (b *MemoryBudget) Take(n int64) error { return b.grow(n) }

// Give gives back n bytes Take took.
func (b *MemoryBudget) Give(n int64) { b.release(n) }

// release gives back n bytes grow took.
func (b *MemoryBudget) release(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
	}
}

// memAccount is what one operator took from its statement's budget, so
// that it gives back exactly that when it closes.
type memAccount struct {
	budget *MemoryBudget
	held   int64
}

// account starts an operator's account in rt's budget.
func (rt *Runtime) account() memAccount {
	if rt == nil {
		return memAccount{}
	}
	return memAccount{budget: rt.Mem}
}

// grow takes n bytes for the operator (MemoryBudget.grow).
func (m *memAccount) grow(n int64) error {
	if m.budget == nil {
		return nil
	}
	if err := m.budget.grow(n); err != nil {
		return err
	}
	m.held += n
	return nil
}

// growRecord takes the bytes of rec's buffers plus perRow bytes for each
// of its rows.
func (m *memAccount) growRecord(rec arrow.Record, perRow int64) error {
	if m.budget == nil {
		return nil
	}
	n := perRow * rec.NumRows()
	for _, c := range rec.Columns() {
		n += arraySize(c)
	}
	return m.grow(n)
}

// release gives back everything the operator took.
func (m *memAccount) release() {
	m.budget.release(m.held)
	m.held = 0
}

// Per-entry overheads counted for hash table entries and group states
// (Go map buckets, slice headers, interface values): estimates, not
// measurements, so that many small keys count for what they cost.
const (
	memMapEntry = 48
	memValue    = 16
)
