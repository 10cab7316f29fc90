package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// SetOp is UNION, INTERSECT or EXCEPT, with or without ALL, under
// PostgreSQL's multiset rules (NULLs compare equal): UNION ALL
// concatenates; UNION keeps the first copy of each row; INTERSECT ALL keeps
// min(m, n) copies of a row that is m times on the left and n times on the
// right, INTERSECT one; EXCEPT ALL keeps max(m - n, 0), EXCEPT one if n is 0.
// Rows come out in left-then-right input order; INTERSECT and EXCEPT read
// the right input first.
type SetOp struct {
	rt   *Runtime
	node *sql.SetOp
	// inputs are INTERSECT's and EXCEPT's left and right inputs, and a
	// UNION's inputs in order: the whole chain of UNIONs its rule covers
	// (sql.SetOp.Children).
	inputs []Operator
	schema *arrow.Schema
	types  []types.T

	reading int                 // UNION: the input being read
	seen    map[string]struct{} // UNION, INTERSECT, EXCEPT (distinct)
	counts  map[string]int      // INTERSECT, EXCEPT: right rows per key
	loaded  bool
	out     outSlot
	// acct counts the keys of seen and counts in the statement's budget.
	acct memAccount
}

func newSetOp(rt *Runtime, n *sql.SetOp, inputs []Operator) *SetOp {
	ts := make([]types.T, len(n.Out))
	for i, c := range n.Out {
		ts[i] = c.T
	}
	return &SetOp{rt: rt, node: n, inputs: inputs, schema: schemaOf(n.Out), types: ts,
		seen: map[string]struct{}{}, acct: rt.account()}
}

// Schema implements Operator.
func (s *SetOp) Schema() *arrow.Schema { return s.schema }

// loadRight counts the right input's rows by key.
func (s *SetOp) loadRight(ctx context.Context) error {
	s.loaded = true
	s.counts = map[string]int{}
	var key []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := s.inputs[1].Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var added int64
		for i := 0; i < int(rec.NumRows()); i++ {
			key = recordKey(key[:0], rec, i, len(s.types), s.types)
			c, ok := s.counts[string(key)]
			if !ok {
				added += int64(len(key)) + memMapEntry
			}
			s.counts[string(key)] = c + 1
		}
		if err := s.acct.grow(added); err != nil {
			return err
		}
	}
}

// Next implements Operator.
func (s *SetOp) Next(ctx context.Context) (arrow.Record, error) {
	s.out.release()
	if s.node.Kind != sql.Union && !s.loaded {
		if err := s.loadRight(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := s.inputs[s.reading].Next(ctx)
		if errors.Is(err, io.EOF) && s.node.Kind == sql.Union && s.reading < len(s.inputs)-1 {
			s.reading++
			continue
		}
		if err != nil {
			return nil, err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		sel, added := s.selectRows(rec)
		if err := s.acct.grow(added); err != nil {
			return nil, err
		}
		if len(sel) == 0 {
			continue
		}
		var out arrow.Record
		if len(sel) == n {
			out, err = conformRecord(s.rt.mem(), rec, s.schema)
		} else {
			var taken arrow.Record
			taken, err = rowcopy.TakeRecord(s.rt.mem(), rec, sel)
			if err == nil {
				out, err = conformRecord(s.rt.mem(), taken, s.schema)
				taken.Release()
			}
		}
		if err != nil {
			return nil, err
		}
		return s.out.set(out), nil
	}
}

// selectRows returns the rows of rec that the operation keeps, and the
// bytes the keys it added to seen take.
func (s *SetOp) selectRows(rec arrow.Record) ([]int, int64) {
	n := int(rec.NumRows())
	if s.node.Kind == sql.Union {
		if s.node.All {
			return allRows(n), 0
		}
		return newRows(s.seen, rec, len(s.types), s.types, nil)
	}
	var sel []int
	var key []byte
	var added int64
	for i := 0; i < n; i++ {
		key = recordKey(key[:0], rec, i, len(s.types), s.types)
		k := string(key)
		c := s.counts[k]
		switch {
		case s.node.Kind == sql.Intersect && s.node.All:
			if c > 0 {
				s.counts[k] = c - 1
				sel = append(sel, i)
			}
		case s.node.Kind == sql.Intersect:
			if _, dup := s.seen[k]; c > 0 && !dup {
				s.seen[k] = struct{}{}
				added += int64(len(k)) + memMapEntry
				sel = append(sel, i)
			}
		case s.node.All: // EXCEPT ALL
			if c > 0 {
				s.counts[k] = c - 1
			} else {
				sel = append(sel, i)
			}
		default: // EXCEPT
			if _, dup := s.seen[k]; c == 0 && !dup {
				s.seen[k] = struct{}{}
				added += int64(len(k)) + memMapEntry
				sel = append(sel, i)
			}
		}
	}
	return sel, added
}

// Close implements Operator.
func (s *SetOp) Close() {
	s.out.release()
	s.seen, s.counts = nil, nil
	s.acct.release()
	closeAll(s.inputs)
}

// closeAll closes ops.
func closeAll(ops []Operator) {
	for _, op := range ops {
		op.Close()
	}
}
