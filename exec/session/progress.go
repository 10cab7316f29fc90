package session

// pg_stat_progress_copy and pg_stat_progress_create_index: a session
// running COPY or CREATE INDEX publishes a progress record in its
// activity, whose counters the running statement advances and any
// session reads.

import (
	"io"
	"sync/atomic"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/syscat"
)

// progress is a running COPY's or CREATE INDEX's: row holds what does not
// change, the counters what does.
type progress struct {
	row   syscat.Progress
	bytes atomic.Int64
	// copyRows are a COPY FROM's rows read and passed; tuples counts a
	// COPY TO's rows or a CREATE INDEX's rows indexed.
	copyRows *exec.CopyProgress
	tuples   atomic.Int64
	// where marks a COPY FROM with a WHERE clause (rows may be excluded).
	where bool
}

// setProgress publishes p as the session's progress (nil: none).
func (s *Session) setProgress(p *progress) {
	s.act.mu.Lock()
	s.act.progress = p
	s.act.mu.Unlock()
}

// progressRows returns the progress of every session running a COPY or
// CREATE INDEX now.
func (e *Engine) progressRows() []syscat.Progress {
	var out []syscat.Progress
	for _, s := range e.sessions.sessions() {
		s.act.mu.Lock()
		p := s.act.progress
		s.act.mu.Unlock()
		if p == nil {
			continue
		}
		r := p.row
		r.PID, r.Bytes, r.Tuples = s.pid, p.bytes.Load(), p.tuples.Load()
		if p.copyRows != nil {
			read, passed := p.copyRows.Read.Load(), p.copyRows.Passed.Load()
			r.Tuples = passed
			if p.where {
				r.Excluded = max(read-passed, 0)
			}
		}
		out = append(out, r)
	}
	return out
}

// indexProgress is the progress of CREATE INDEX x: its table's rows to
// index, phase "building index" (PostgreSQL's) until it returns.
func (s *Session) indexProgress(x *sql.CreateIndex) *progress {
	p := &progress{row: syscat.Progress{Command: "CREATE INDEX", Phase: "building index",
		Relid: syscat.TableOID(x.Def.Table), IndexRelid: syscat.IndexOID(x.Def.Schema, x.Def.Name)}}
	p.row.TuplesTotal, _, _ = s.engine.db.RowCounts(x.Def.Table)
	return p
}

// Progress implements exec.SessionViews: the progress views' rows.
func (e *statementEnv) Progress() []syscat.Progress { return e.sess.engine.progressRows() }

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}
