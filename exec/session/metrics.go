package session

// The engine's Prometheus metrics: sessions by state (read from the
// session registry at scrape time), statements by kind with their
// latency, durable commits, transactions, index searches by kind, the
// column cache's lookups and bytes, and the Go runtime's own (goroutines, memory,
// GC) and the process's. A statement pays one histogram observation,
// resolved ahead by kind: no label lookup on the hot path.

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
	kindCopy
	kindTransaction
	kindUtility // SET, SHOW, PREPARE, cursors, EXPLAIN of none of these...
	kindDDL
	numKinds
)

var kindNames = [numKinds]string{"select", "insert", "update", "delete", "copy", "transaction", "utility", "ddl"}

// kindOf is the kind of bound statement st.
func kindOf(st sql.Statement) statementKind {
	switch x := st.(type) {
	case *sql.Query:
		switch x.Plan.(type) {
		case *sql.Insert:
			return kindInsert
		case *sql.Update:
			return kindUpdate
		case *sql.Delete:
			return kindDelete
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
}

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
	m.registry.MustRegister(
		hist,
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
