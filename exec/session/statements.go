package session

// Statement statistics in the shape of the pg_stat_statements extension:
// each statement's text normalised (constants as $1, $2, ...) and
// fingerprinted by pg_query, with its calls, execution times and rows
// summed per fingerprint and role (the current role of each execution). The normalised text of a query string is
// remembered (a bounded cache), so a statement run again costs a map
// lookup, not another parse; at most maxTrackedStatements distinct
// statements are kept (pg_stat_statements.max's default), later new ones
// are not counted until pg_stat_statements_reset().

import (
	"math"
	"sync"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
)

// maxTrackedStatements bounds the statements (and cached texts) kept.
const maxTrackedStatements = 5000

// statementStats are an engine's statement statistics.
type statementStats struct {
	mu    sync.Mutex
	texts map[string]normalized // query text -> its normalised form
	byID  map[statementKey]*statementStat
}

// statementKey identifies a statement's statistics: the role that ran it
// and its fingerprint, as pg_stat_statements keys them (with the
// database, of which cairn has one).
type statementKey struct {
	user uint32
	id   int64
}

type normalized struct {
	text string
	id   int64
}

// statementStat accumulates one normalised statement's executions;
// mean and m2 are Welford's running mean and sum of squared deviations
// of its times (in milliseconds).
type statementStat struct {
	text            string
	calls, rows     int64
	total, min, max float64
	mean, m2        float64
}

// record counts one execution of statement p by role user that took d
// and returned or changed rows rows. A query pg_query cannot normalise (cairn's own
// syntax) is not counted. The statements of a parse template (sql.Parsed)
// share its normal form and skip the text cache, which each of their
// texts would only crowd.
func (st *statementStats) record(p *sql.Parsed, user uint32, d time.Duration, rows int64) {
	if p.Text == "" {
		return
	}
	n, err := st.normalize(p)
	if err != nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	key := statementKey{user, n.id}
	s := st.byID[key]
	if s == nil {
		if st.byID == nil {
			st.byID = map[statementKey]*statementStat{}
		}
		if len(st.byID) >= maxTrackedStatements {
			return
		}
		s = &statementStat{text: n.text, min: math.Inf(1)}
		st.byID[key] = s
	}
	ms := float64(d.Nanoseconds()) / 1e6
	s.calls++
	s.rows += rows
	s.total += ms
	s.min, s.max = min(s.min, ms), max(s.max, ms)
	delta := ms - s.mean
	s.mean += delta / float64(s.calls)
	s.m2 += delta * (ms - s.mean)
}

// normalize returns p's normal form, from the text cache where the
// statement has no template.
func (st *statementStats) normalize(p *sql.Parsed) (normalized, error) {
	if p.Templated() {
		text, id, err := p.Normalize()
		return normalized{text, id}, err
	}
	st.mu.Lock()
	n, ok := st.texts[p.Text]
	st.mu.Unlock()
	if ok {
		return n, nil
	}
	text, id, err := p.Normalize()
	if err != nil {
		return normalized{}, err
	}
	n = normalized{text, id}
	st.mu.Lock()
	if st.texts == nil || len(st.texts) >= maxTrackedStatements {
		st.texts = map[string]normalized{}
	}
	st.texts[p.Text] = n
	st.mu.Unlock()
	return n, nil
}

// rows returns pg_stat_statements' rows.
func (st *statementStats) rows() []syscat.StatementStat {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]syscat.StatementStat, 0, len(st.byID))
	for key, s := range st.byID {
		// The population standard deviation, as pg_stat_statements.
		out = append(out, syscat.StatementStat{UserID: key.user, QueryID: key.id, Query: s.text, Calls: s.calls, Rows: s.rows,
			Total: s.total, Min: s.min, Max: s.max, Mean: s.mean, Stddev: math.Sqrt(s.m2 / float64(s.calls))})
	}
	return out
}

// reset forgets every statement (pg_stat_statements_reset()).
func (st *statementStats) reset() {
	st.mu.Lock()
	st.byID = nil
	st.mu.Unlock()
}

// Statements implements exec.SessionViews: pg_stat_statements.
func (e *statementEnv) Statements() []syscat.StatementStat { return e.sess.engine.statements.rows() }

// ResetStatementStats implements functions.StatementStatsResetter:
// pg_stat_statements_reset(), which only a superuser may run (the
// extension revokes it from PUBLIC): it forgets every role's statistics.
func (e *statementEnv) ResetStatementStats() error {
	if !e.sess.currentRole(e.sess.catalog()).Superuser {
		return pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied for function pg_stat_statements_reset")
	}
	e.sess.engine.statements.reset()
	return nil
}
