package session

// log_min_duration_statement: statements that ran at least that long are
// written to the server log with their duration, text and plan.

import (
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql"
)

// logSlow writes statement p, which ran for took, to the server log when
// took reaches log_min_duration_statement (-1: never, 0: every
// statement), with its plan's nodes on one line and its error if it
// failed.
func (s *Session) logSlow(p *Portal, took time.Duration, err error) {
	limit := s.parsedSettings().logMinDuration
	if limit < 0 || took < time.Duration(limit)*time.Millisecond {
		return
	}
	attrs := []any{"pid", s.pid, "duration_ms", float64(took.Microseconds()) / 1000, "statement", p.stmt.SQL}
	if q, ok := p.bound.(*sql.Query); ok {
		attrs = append(attrs, "plan", planSummary(q.Plan))
	}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	s.engine.logger.Info("duration", attrs...)
}

// maxSummaryNodes bounds the plan nodes a slow statement's log line shows.
const maxSummaryNodes = 8

// planSummary is plan's EXPLAIN lines on one line, outermost first,
// joined by " -> ", at most maxSummaryNodes of them.
func planSummary(plan sql.Node) string {
	lines := sql.ExplainLines(plan)
	more := len(lines) > maxSummaryNodes
	if more {
		lines = lines[:maxSummaryNodes]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "->  ")
	}
	out := strings.Join(lines, " -> ")
	if more {
		out += " -> ..."
	}
	return out
}
