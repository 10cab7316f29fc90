package exec

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
)

// opStats is what EXPLAIN ANALYZE reports for one plan node.
type opStats struct {
	rows    int64
	elapsed time.Duration
	started bool
}

// analyzed wraps an operator to count its rows and time its Next calls
// (including the time spent in its inputs, as PostgreSQL reports it).
type analyzed struct {
	Operator
	stats *opStats
	reg   map[sql.Node]*opStats
}

// instrument wraps op for EXPLAIN ANALYZE and registers its statistics
// under n.
func (rt *Runtime) instrument(op Operator, n sql.Node) Operator {
	return &analyzed{Operator: op, stats: rt.statsOf(n), reg: rt.stats}
}

// statsOf returns the EXPLAIN ANALYZE statistics of n, for operators that
// run a node fused into another (a Filter inside a TopK) to count it
// themselves; nil when the statement is not analyzed.
func (rt *Runtime) statsOf(n sql.Node) *opStats {
	if !rt.Analyze {
		return nil
	}
	if rt.stats == nil {
		rt.stats = map[sql.Node]*opStats{}
	}
	st, ok := rt.stats[n]
	if !ok {
		st = &opStats{}
		rt.stats[n] = st
	}
	return st
}

// add counts a batch of rows produced in d (nothing when s is nil).
func (s *opStats) add(rows int, d time.Duration) {
	if s != nil {
		s.started = true
		s.rows += int64(rows)
		s.elapsed += d
	}
}

// Next implements Operator.
func (a *analyzed) Next(ctx context.Context) (arrow.Record, error) {
	start := time.Now()
	rec, err := a.Operator.Next(ctx)
	a.stats.elapsed += time.Since(start)
	a.stats.started = true
	if err == nil && rec != nil {
		a.stats.rows += rec.NumRows()
	}
	return rec, err
}

// AnalyzeStats gives, for the structured EXPLAIN ANALYZE formats, what
// was measured of each node of the plan op was built from (after it has
// been run, as for AnalyzeLines).
func AnalyzeStats(op Operator) func(sql.Node) (sql.ExplainActual, bool) {
	var reg map[sql.Node]*opStats
	if a, ok := op.(*analyzed); ok {
		reg = a.reg
	}
	return func(n sql.Node) (sql.ExplainActual, bool) {
		st := reg[n]
		if st == nil {
			return sql.ExplainActual{}, false
		}
		return sql.ExplainActual{Rows: st.rows, Elapsed: st.elapsed, Started: st.started}, true
	}
}

// AnalyzeLines renders plan n as sql.ExplainLines does, with each node's
// actual row count and time appended. op is the operator Build returned
// for n with Runtime.Analyze set, after it has been run (see Drain).
func AnalyzeLines(op Operator, n sql.Node) []string {
	var reg map[sql.Node]*opStats
	if a, ok := op.(*analyzed); ok {
		reg = a.reg
	}
	var lines []string
	var walk func(n sql.Node, depth int)
	walk = func(n sql.Node, depth int) {
		line := n.String()
		if depth > 0 {
			line = strings.Repeat("  ", 3*depth-2) + "->  " + line
		}
		if st := reg[n]; st != nil && st.started {
			line += fmt.Sprintf(" (actual rows=%d time=%.3f ms)", st.rows, float64(st.elapsed.Nanoseconds())/1e6)
		} else {
			line += " (never executed)"
		}
		lines = append(lines, line)
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return lines
}
