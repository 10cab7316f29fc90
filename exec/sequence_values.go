package exec

// The session's sequence values, which currval and lastval read: the last
// value nextval (or setval with is_called) gave this session for each
// sequence, and which sequence that was last.

import (
	"sync"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// SequenceValues are a session's sequence values, which the session owns
// and hands each statement's Runtime; parallel partitions of one
// statement may record into them at once.
type SequenceValues struct {
	mu      sync.Mutex
	last    map[string]int64 // schema.name -> value
	lastKey string
}

func (s *SequenceValues) record(schema, name string, v int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last = map[string]int64{}
	}
	s.lastKey = schema + "." + name
	s.last[s.lastKey] = v
}

// Reset forgets every value (DISCARD SEQUENCES).
func (s *SequenceValues) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.lastKey = nil, ""
}

func (s *SequenceValues) get(key string) (int64, bool) {
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.last[key]
	return v, ok
}

// evalSeqFunc evaluates currval, setval and lastval row by row.
func (ev *evaluator) evalSeqFunc(e *sql.SeqFunc, b batch) (vec, error) {
	args, err := ev.evalArgs(e.Args, b)
	if err != nil {
		return vec{}, err
	}
	defer releaseVecs(args)
	seqs := ev.rt.Seqs
	return ev.rowLoop(args, e.Type(), b.n, func(row []any) (any, error) {
		switch e.Func {
		case "last_value", "is_called":
			last, called, err := sequenceState(ev.rt, e.Schema, e.Name)
			if err != nil || e.Func == "is_called" {
				return called, err
			}
			return last, nil
		case "currval":
			v, ok := seqs.get(e.Schema + "." + e.Name)
			if !ok {
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", e.Name)
			}
			return v, nil
		case "lastval":
			if seqs == nil || seqs.lastKey == "" {
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
			}
			v, _ := seqs.get(seqs.lastKey)
			return v, nil
		}
		if row[0] == nil || row[1] == nil {
			return nil, nil // setval is strict
		}
		v, called := row[0].(int64), row[1].(bool)
		if err := setVal(ev.rt, e.Schema, e.Name, v, called); err != nil {
			return nil, err
		}
		if called {
			seqs.record(e.Schema, e.Name, v)
		}
		return v, nil
	})
}
