package exec

// Activity counters per table, which pg_stat_user_tables and
// pg_stat_database show and /metrics exports: the operators count what
// they read and write as they run (an aborted statement's work counts
// too, as in PostgreSQL). They live in memory for the life of the
// engine; PostgreSQL too forgets its counters after a crash.

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
)

// Stats are an engine's counters; its zero value is ready to use, and a
// nil *Stats counts nothing (a Runtime outside an engine). Safe for
// concurrent use.
type Stats struct {
	tables sync.Map // uint64 table ID -> *TableStats
	// indexes are the counters of the indexes searched, by
	// syscat.IndexRef (pg_stat_user_indexes).
	indexes sync.Map
	// searches counts index searches by SearchKind.
	searches [numSearchKinds]atomic.Int64
	// commits and rollbacks count ended transactions (pg_stat_database's
	// xact_commit and xact_rollback).
	commits, rollbacks atomic.Int64
	// onSearch is told of each search as it ends (OnSearch).
	onSearch func(k SearchKind, d time.Duration, rows int64)
}

// OnSearch makes f the function told of every search as it ends: its
// kind, how long it took and the rows it examined. Call it before the
// Stats are in use; f must be safe for concurrent use.
func (s *Stats) OnSearch(f func(k SearchKind, d time.Duration, rows int64)) { s.onSearch = f }

// XactEnded counts a transaction that committed or rolled back.
func (s *Stats) XactEnded(committed bool) {
	if committed {
		s.commits.Add(1)
	} else {
		s.rollbacks.Add(1)
	}
}

// Xacts returns the committed and rolled back transactions counted.
func (s *Stats) Xacts() (commits, rollbacks int64) { return s.commits.Load(), s.rollbacks.Load() }

// IndexStats are one index's counters, named after pg_stat_user_indexes'
// columns: its searches and the live rows they fetched.
type IndexStats struct {
	Scan, TupFetch atomic.Int64
}

// index returns the counters of the index called name of table id,
// creating them at zero; nil for a nil s or an unnamed index (a BM25
// search, which no catalog index backs).
func (s *Stats) index(id uint64, name string) *IndexStats {
	if s == nil || name == "" {
		return nil
	}
	ref := syscat.IndexRef{Table: id, Name: name}
	if t, ok := s.indexes.Load(ref); ok {
		return t.(*IndexStats)
	}
	t, _ := s.indexes.LoadOrStore(ref, &IndexStats{})
	return t.(*IndexStats)
}

// TableStats are one table's counters, named after
// pg_stat_user_tables' columns.
type TableStats struct {
	SeqScan, SeqTupRead, IdxScan, IdxTupFetch atomic.Int64
	Inserted, Updated, Deleted                atomic.Int64
}

// SearchKind is the kind of an index search, for /metrics.
type SearchKind uint8

// The kinds of search: through an index, a primary or unique key lookup,
// a vector index's nearest neighbours, a BM25 text index, a hybrid
// (vector and text) candidate search, a trigram index, a btree or hash
// index's equality lookup (KeyIndexScan); and SearchExact,
// nearest neighbours by scoring every row (ORDER BY a vector distance
// LIMIT k without an index), which is no index search.
const (
	SearchKey SearchKind = iota
	SearchVector
	SearchBM25
	SearchHybrid
	SearchTrigram
	SearchBtree
	SearchExact
	numSearchKinds
)

// SearchKindNames are the kinds' label values, by SearchKind.
var SearchKindNames = [numSearchKinds]string{"key", "vector", "bm25", "hybrid", "trigram", "btree", "exact"}

// Table returns the counters of table id, creating them at zero; nil for
// a nil s.
func (s *Stats) Table(id uint64) *TableStats {
	if s == nil {
		return nil
	}
	if t, ok := s.tables.Load(id); ok {
		return t.(*TableStats)
	}
	t, _ := s.tables.LoadOrStore(id, &TableStats{})
	return t.(*TableStats)
}

// Lookup returns the counters of table id, nil when nothing was counted
// for it.
func (s *Stats) Lookup(id uint64) *TableStats {
	t, ok := s.tables.Load(id)
	if !ok {
		return nil
	}
	return t.(*TableStats)
}

// Searches returns how many index searches of kind k ran.
func (s *Stats) Searches(k SearchKind) int64 { return s.searches[k].Load() }

// Each calls f with every table's counters (in no order).
func (s *Stats) Each(f func(id uint64, t *TableStats)) {
	s.tables.Range(func(k, v any) bool {
		f(k.(uint64), v.(*TableStats))
		return true
	})
}

// seqScan counts a sequential scan of table id starting.
func (rt *Runtime) seqScan(id uint64) {
	if t := rt.Stats.Table(id); t != nil {
		t.SeqScan.Add(1)
	}
}

// seqRows counts n rows a sequential scan of table id returned.
func (rt *Runtime) seqRows(id uint64, n int64) {
	if t := rt.Stats.Table(id); t != nil {
		t.SeqTupRead.Add(n)
	}
}

// indexSearch counts an index search of kind k on table id.
func (rt *Runtime) indexSearch(id uint64, index string, k SearchKind) {
	if t := rt.Stats.Table(id); t != nil {
		t.IdxScan.Add(1)
		rt.Stats.searches[k].Add(1)
	}
	if ix := rt.Stats.index(id, index); ix != nil {
		ix.Scan.Add(1)
	}
}

// searched reports a search of kind k that started at start and examined
// rows rows to the Stats' OnSearch function.
func (rt *Runtime) searched(k SearchKind, start time.Time, rows int64) {
	if rt.Stats != nil && rt.Stats.onSearch != nil {
		rt.Stats.onSearch(k, time.Since(start), rows)
	}
}

// indexRows counts n rows an index search of table id through index
// fetched.
func (rt *Runtime) indexRows(id uint64, index string, n int64) {
	if t := rt.Stats.Table(id); t != nil {
		t.IdxTupFetch.Add(n)
	}
	if ix := rt.Stats.index(id, index); ix != nil {
		ix.TupFetch.Add(n)
	}
}

// written counts rows a statement inserted, updated or deleted in table
// id.
func (rt *Runtime) written(id uint64, ins, upd, del int64) {
	if t := rt.Stats.Table(id); t != nil {
		t.Inserted.Add(ins)
		t.Updated.Add(upd)
		t.Deleted.Add(del)
	}
}

// statsView is what the system views show of the counters: each table of
// cat with its rows (storage's latest committed state), the indexes
// searched, and the database's transactions and column cache lookups.
func (rt *Runtime) statsView(cat *catalog.Catalog) (map[uint64]syscat.TableStat, map[syscat.IndexRef]syscat.IndexStat, syscat.DatabaseStat) {
	out := make(map[uint64]syscat.TableStat, len(cat.Tables))
	for _, t := range cat.Tables {
		var st syscat.TableStat
		if c := rt.Stats.Lookup(t.ID); c != nil {
			st = syscat.TableStat{SeqScan: c.SeqScan.Load(), SeqTupRead: c.SeqTupRead.Load(), IdxScan: c.IdxScan.Load(),
				IdxTupFetch: c.IdxTupFetch.Load(), Inserted: c.Inserted.Load(), Updated: c.Updated.Load(), Deleted: c.Deleted.Load()}
		}
		st.Live, st.Dead, _ = rt.DB.RowCounts(t.ID)
		out[t.ID] = st
	}
	indexes := map[syscat.IndexRef]syscat.IndexStat{}
	if rt.Stats != nil {
		rt.Stats.indexes.Range(func(k, v any) bool {
			c := v.(*IndexStats)
			indexes[k.(syscat.IndexRef)] = syscat.IndexStat{Scan: c.Scan.Load(), TupFetch: c.TupFetch.Load()}
			return true
		})
	}
	commits, rollbacks := rt.Stats.Xacts()
	cache := rt.DB.CacheStats()
	return out, indexes, syscat.DatabaseStat{Commits: commits, Rollbacks: rollbacks, BlocksRead: cache.Misses, BlocksHit: cache.Hits}
}
