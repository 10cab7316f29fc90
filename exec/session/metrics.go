package session

// The engine's Prometheus metrics: sessions by state (read from the
// session registry at scrape time), statements by kind with their
// latency, durable commits, and the Go runtime's own (goroutines, memory,
// GC) and the process's. A statement pays one histogram observation,
// resolved ahead by kind: no label lookup on the hot path.

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

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
