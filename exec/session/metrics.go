package session

// The engine's Prometheus metrics: sessions by state (read from the
// session registry at scrape time), statements by kind with their
// latency, searches by kind with their latency and rows examined, durable
// commits with the WAL's fsync latency and group commit batches,
// transactions, index searches by kind, the column cache's lookups and
// bytes, segments, compactions and index builds, and the Go runtime's own
// (goroutines, memory, GC) and the process's. A statement or search pays
// one histogram observation, resolved ahead by kind: no label lookup on
// the hot path.

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
)

// statementKind classifies statements for cairn_statement_duration_seconds.
type statementKind uint8

const (
	kindSelect statementKind = iota
	kindInsert
	kindUpdate
	kindDelete
	kindMerge
	kindCopy
	kindTransaction
	kindUtility // SET, SHOW, PREPARE, cursors, EXPLAIN of none of these...
	kindDDL
	numKinds
)

var kindNames = [numKinds]string{"select", "insert", "update", "delete", "merge", "copy", "transaction", "utility", "ddl"}

// kindOf is the kind of bound statement st.
func kindOf(st sql.Statement) statementKind {
	switch x := st.(type) {
	case *sql.Query:
		plan := x.Plan
		if m, ok := plan.(*sql.ModifyingWith); ok {
			plan = m.Input
		}
		switch plan.(type) {
		case *sql.Insert:
			return kindInsert
		case *sql.Update:
			return kindUpdate
		case *sql.Delete:
			return kindDelete
		case *sql.Merge:
			return kindMerge
		}
		return kindSelect
	case *sql.Copy:
		return kindCopy
	case *sql.Transaction:
		return kindTransaction
	case *sql.Set, *sql.SetTransaction, *sql.Show, *sql.Prepare, *sql.Execute, *sql.Deallocate, *sql.NoOp,
		*sql.Discard, *sql.DeclareCursor, *sql.Fetch, *sql.CloseCursor:
		return kindUtility
	}
	return kindDDL
}

// metrics are an engine's collectors, in a registry of its own (two
// engines in one process do not collide).
type metrics struct {
	registry  *prometheus.Registry
	durations [numKinds]prometheus.Observer
	// searches and searchRows are by exec.SearchKind (nil for key
	// lookups, which are not timed).
	searches   [len(exec.SearchKindNames)]prometheus.Observer
	searchRows [len(exec.SearchKindNames)]prometheus.Counter
	walSync    prometheus.Observer
	batch      prometheus.Observer
}

// timedSearches are the kinds of search timed by
// cairn_search_duration_seconds: all but key lookups.
var timedSearches = []exec.SearchKind{exec.SearchExact, exec.SearchVector, exec.SearchBM25, exec.SearchHybrid, exec.SearchTrigram, exec.SearchBtree}

func newMetrics(e *Engine) *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "cairn_statement_duration_seconds",
		Help: "Time statements took to execute, by kind (select, insert, update, delete, copy, transaction, utility, ddl).",
		// 100µs to ~52s.
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
	}, []string{"kind"})
	for k := range numKinds {
		m.durations[k] = hist.WithLabelValues(kindNames[k])
	}
	searches := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "cairn_search_duration_seconds",
		Help: "Time nearest neighbour and text searches took, by kind (exact: every row scored; vector: a vector index; bm25; hybrid; trigram).",
		// 50µs to ~13s.
		Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
	}, []string{"kind"})
	searchRows := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cairn_search_rows_total",
		Help: "Rows searches examined, by kind: every row an exact search scored, the candidates an index search returned.",
	}, []string{"kind"})
	for _, k := range timedSearches {
		m.searches[k] = searches.WithLabelValues(exec.SearchKindNames[k])
		m.searchRows[k] = searchRows.WithLabelValues(exec.SearchKindNames[k])
	}
	e.stats.OnSearch(m.observeSearch)
	walSync := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "cairn_wal_fsync_duration_seconds",
		Help: "Time each fsync of the write-ahead log took (one per group of commits).",
		// 50µs to ~13s.
		Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
	})
	batch := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "cairn_group_commit_records",
		Help:    "WAL records (commits and sequence advances) each fsync made durable: the group commit batch size.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 10),
	})
	m.walSync, m.batch = walSync, batch
	e.db.SetObserver(m)
	m.registry.MustRegister(
		hist,
		searches,
		searchRows,
		walSync,
		batch,
		storageCollector{e},
		sessionCollector{e},
		activityCollector{e},
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "cairn_commits_total",
			Help: "Transactions that wrote something and committed durably.",
		}, func() float64 { return float64(e.db.Commits()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// observe records a statement of kind k that ran for d.
func (m *metrics) observe(k statementKind, d time.Duration) {
	m.durations[k].Observe(d.Seconds())
}

// observeSearch records a search of kind k that took d and examined rows
// rows (exec.Stats.OnSearch).
func (m *metrics) observeSearch(k exec.SearchKind, d time.Duration, rows int64) {
	if o := m.searches[k]; o != nil {
		o.Observe(d.Seconds())
		m.searchRows[k].Add(float64(rows))
	}
}

// WALSynced implements storage.Observer.
func (m *metrics) WALSynced(d time.Duration, records int) {
	m.walSync.Observe(d.Seconds())
	m.batch.Observe(float64(records))
}

// Metrics is the engine's Prometheus registry, which the HTTP API serves
// at /metrics.
func (e *Engine) Metrics() prometheus.Gatherer { return e.metrics.registry }

// sessionCollector reports cairn_sessions by state at scrape time.
type sessionCollector struct{ e *Engine }

var sessionsDesc = prometheus.NewDesc("cairn_sessions",
	"Open sessions (connections and HTTP API requests) by pg_stat_activity state.",
	[]string{"state"}, nil)

// Describe implements prometheus.Collector.
func (c sessionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sessionsDesc }

// Collect implements prometheus.Collector: every state is reported, 0
// when no session is in it, so that a dashboard's series do not vanish.
func (c sessionCollector) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]int{stateActive: 0, stateIdle: 0, stateIdleInTx: 0, stateIdleInTxError: 0}
	for _, s := range c.e.sessions.sessions() {
		s.act.mu.Lock()
		counts[s.act.state]++
		s.act.mu.Unlock()
	}
	for state, n := range counts {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n), state)
	}
}

// activityCollector reports, at scrape time, the engine's activity
// counters (exec.Stats) and the storage column cache.
type activityCollector struct{ e *Engine }

var (
	searchesDesc = prometheus.NewDesc("cairn_index_searches_total",
		"Index searches by kind (key lookup, vector, bm25, hybrid, trigram).", []string{"kind"}, nil)
	xactsDesc = prometheus.NewDesc("cairn_transactions_total",
		"Transactions ended, by result (commit, rollback); read-only ones included.", []string{"result"}, nil)
	cacheLookupsDesc = prometheus.NewDesc("cairn_cache_lookups_total",
		"Decoded column cache lookups, by result (hit, miss).", []string{"result"}, nil)
	cacheBytesDesc = prometheus.NewDesc("cairn_cache_bytes",
		"Bytes the decoded column cache holds.", nil, nil)
	cacheBudgetDesc = prometheus.NewDesc("cairn_cache_budget_bytes",
		"The most bytes the decoded column cache keeps.", nil, nil)
)

// Describe implements prometheus.Collector.
func (c activityCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{searchesDesc, xactsDesc, cacheLookupsDesc, cacheBytesDesc, cacheBudgetDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c activityCollector) Collect(ch chan<- prometheus.Metric) {
	for k, name := range exec.SearchKindNames {
		if exec.SearchKind(k) == exec.SearchExact {
			continue // scores every row: no index search
		}
		ch <- prometheus.MustNewConstMetric(searchesDesc, prometheus.CounterValue, float64(c.e.stats.Searches(exec.SearchKind(k))), name)
	}
	commits, rollbacks := c.e.stats.Xacts()
	ch <- prometheus.MustNewConstMetric(xactsDesc, prometheus.CounterValue, float64(commits), "commit")
	ch <- prometheus.MustNewConstMetric(xactsDesc, prometheus.CounterValue, float64(rollbacks), "rollback")
	cache := c.e.db.CacheStats()
	ch <- prometheus.MustNewConstMetric(cacheLookupsDesc, prometheus.CounterValue, float64(cache.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(cacheLookupsDesc, prometheus.CounterValue, float64(cache.Misses), "miss")
	ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(cache.Bytes))
	ch <- prometheus.MustNewConstMetric(cacheBudgetDesc, prometheus.GaugeValue, float64(cache.Budget))
}

// storageCollector reports storage's segments, compactions and index
// builds at scrape time.
type storageCollector struct{ e *Engine }

var (
	segmentsDesc = prometheus.NewDesc("cairn_segments",
		"Parquet segments of every table in the latest durable state.", nil, nil)
	compactionsDesc = prometheus.NewDesc("cairn_compactions_total",
		"Compactions that merged a table's segments.", nil, nil)
	indexBuildsDesc = prometheus.NewDesc("cairn_index_builds_total",
		"Per-segment index builds that finished, by kind (vector, trigram, btree).", []string{"kind"}, nil)
	keyIndexBytesDesc = prometheus.NewDesc("cairn_key_index_bytes",
		"Memory of the segments' in-memory key indexes (btree and hash equality lookups).", nil, nil)
)

// Describe implements prometheus.Collector.
func (c storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{segmentsDesc, compactionsDesc, indexBuildsDesc, keyIndexBytesDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c storageCollector) Collect(ch chan<- prometheus.Metric) {
	n := c.e.db.Counters()
	ch <- prometheus.MustNewConstMetric(segmentsDesc, prometheus.GaugeValue, float64(n.Segments))
	ch <- prometheus.MustNewConstMetric(compactionsDesc, prometheus.CounterValue, float64(n.Compactions))
	ch <- prometheus.MustNewConstMetric(indexBuildsDesc, prometheus.CounterValue, float64(n.VectorIndexBuilds), "vector")
	ch <- prometheus.MustNewConstMetric(indexBuildsDesc, prometheus.CounterValue, float64(n.TrigramIndexBuilds), "trigram")
	ch <- prometheus.MustNewConstMetric(indexBuildsDesc, prometheus.CounterValue, float64(n.KeyIndexBuilds), "btree")
	ch <- prometheus.MustNewConstMetric(keyIndexBytesDesc, prometheus.GaugeValue, float64(n.KeyIndexBytes))
}
