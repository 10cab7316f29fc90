package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// merge is one run of a MERGE: what its joined rows decided, gathered
// before anything is written (so the scan never sees the statement's own
// writes, as in UPDATE).
type merge struct {
	rt   *Runtime
	n    *sql.Merge
	cons *constraints
	// acts carries out the referential actions and checks of the rows
	// UPDATE and DELETE change.
	acts *fkActions
	// touched holds the row IDs an UPDATE or DELETE action took: a second
	// one is 21000.
	touched map[int64]bool
	// gone are the row IDs UPDATE and DELETE actions remove; written the
	// rows UPDATE and INSERT actions write, with their checks.
	gone    []int64
	written []mergeWrite
	deleted int64
	// removed are the rows DELETE actions remove (the table's columns).
	removed []arrow.Record
}

// mergeWrite is a batch of rows an UPDATE or INSERT action writes: old
// are the rows an UPDATE replaces (nil for an INSERT).
type mergeWrite struct {
	rec      arrow.Record
	old      arrow.Record
	policies []sql.PolicyCheck
}

// runMerge runs MERGE: it reads the whole join of the table and the
// source, choosing each row's action (the first WHEN clause for its kind,
// matched or not, whose condition holds), then deletes the rows UPDATE and
// DELETE change and inserts the updated and the new rows, each checked as
// UPDATE and INSERT check theirs. A concurrent change of a row it deletes
// is a storage.Conflict, as for UPDATE. It returns the rows inserted,
// updated or deleted.
func runMerge(ctx context.Context, rt *Runtime, n *sql.Merge) (int64, error) {
	if rt.Triggers != nil && len(n.Table.Triggers) > 0 {
		return 0, pgerr.NotSupported("MERGE into a table with triggers")
	}
	cons, err := newConstraints(rt, n.Table, nil)
	if err != nil {
		return 0, err
	}
	m := &merge{rt: rt, n: n, cons: cons, acts: rt.statementFKActions(), touched: map[int64]bool{}}
	defer func() {
		for _, w := range m.written {
			w.rec.Release()
			if w.old != nil {
				w.old.Release()
			}
		}
		for _, r := range m.removed {
			r.Release()
		}
		m.acts.close()
	}()
	op, err := Build(rt, n.Input)
	if err != nil {
		return 0, err
	}
	if err := Drain(ctx, op, func(in arrow.Record) error { return m.batch(ctx, in) }); err != nil {
		return 0, err
	}
	return m.write(ctx)
}

// batch chooses the action of each row of in (Merge.Input's columns) and
// gathers what the actions write.
func (m *merge) batch(ctx context.Context, in arrow.Record) error {
	ncols := len(m.n.Table.Columns)
	ids := in.Column(ncols).(*array.Int64)
	var matched, unmatched []int
	for r := 0; r < int(in.NumRows()); r++ {
		if ids.IsValid(r) {
			matched = append(matched, r)
		} else {
			unmatched = append(unmatched, r)
		}
	}
	var src arrow.Record // the source columns, for NOT MATCHED clauses
	if len(unmatched) > 0 {
		fields := in.Schema().Fields()[m.n.Source:]
		src = array.NewRecord(arrow.NewSchema(fields, nil), in.Columns()[m.n.Source:], in.NumRows())
		defer src.Release()
	}
	for i := range m.n.Actions {
		act := &m.n.Actions[i]
		rows, rec := &unmatched, src
		if act.Matched {
			rows, rec = &matched, in
		}
		if len(*rows) == 0 {
			continue
		}
		// The clause's rows, read over the columns it sees; the rest
		// go on to the next clauses.
		taken, err := rowcopy.TakeRecord(memory.DefaultAllocator, rec, *rows)
		if err != nil {
			return err
		}
		chosen := *rows
		if act.Cond != nil {
			res, err := Eval(ctx, m.rt, act.Cond, taken)
			if err != nil {
				taken.Release()
				return err
			}
			keep := trueRows[int](res.(*array.Boolean))
			res.Release()
			chosen, *rows = split(*rows, keep)
			if len(keep) < int(taken.NumRows()) {
				sub, err := rowcopy.TakeRecord(memory.DefaultAllocator, taken, keep)
				taken.Release()
				if err != nil {
					return err
				}
				taken = sub
			}
		} else {
			*rows = nil
		}
		err = m.apply(ctx, act, chosen, ids, taken)
		taken.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// split divides rows into those at the positions keep (ascending) and
// the others, both in order.
func split(rows []int, keep []int) (kept, rest []int) {
	k := 0
	for i, r := range rows {
		if k < len(keep) && keep[k] == i {
			kept = append(kept, r)
			k++
		} else {
			rest = append(rest, r)
		}
	}
	return kept, rest
}

// apply gathers what action act does to rows (positions in the batch,
// whose row IDs ids holds), rec being those rows over the columns act
// sees.
func (m *merge) apply(ctx context.Context, act *sql.MergeAction, rows []int, ids *array.Int64, rec arrow.Record) error {
	if len(rows) == 0 || act.Kind == sql.MergeNothing {
		return nil
	}
	def := m.n.Table
	if act.Kind == sql.MergeInsert {
		cols := make([]arrow.Array, len(act.Row))
		for i, e := range act.Row {
			a, err := Eval(ctx, m.rt, e, rec)
			if err != nil {
				releaseAll(cols[:i])
				return err
			}
			cols[i] = a
		}
		row, err := generateColumns(ctx, m.rt, def, m.n.Gen, tableRecord(def, cols, rec.NumRows()))
		releaseAll(cols)
		if err != nil {
			return err
		}
		m.written = append(m.written, mergeWrite{rec: row, policies: act.Policies})
		return nil
	}
	for _, r := range rows {
		id := ids.Value(r)
		if m.touched[id] {
			return pgerr.New(pgerrcode.CardinalityViolation, "MERGE command cannot affect row a second time").
				WithHint("Ensure that not more than one source row matches any one target row.")
		}
		m.touched[id] = true
		m.gone = append(m.gone, id)
	}
	if err := checkPolicies(ctx, m.rt, def, act.Existing, rec, "target row", " (USING expression)"); err != nil {
		return err
	}
	old := tableRecord(def, rec.Columns()[:len(def.Columns)], rec.NumRows())
	if act.Kind == sql.MergeDelete {
		m.removed = append(m.removed, old)
		m.deleted += rec.NumRows()
		return nil
	}
	updated, err := setRows(ctx, m.rt, def, act.Set, m.n.Gen, rec)
	if err != nil {
		old.Release()
		return err
	}
	m.written = append(m.written, mergeWrite{rec: updated, old: old, policies: act.Policies})
	return nil
}

// write deletes the rows UPDATE and DELETE actions change, then checks
// and inserts the rows UPDATE and INSERT actions make, then carries out
// the referential actions of the deletes and updates. It returns the
// number of rows the statement changed.
func (m *merge) write(ctx context.Context) (int64, error) {
	def, tx := m.n.Table, m.rt.Tx
	if len(m.gone) > 0 {
		if err := tx.Delete(def.ID, m.gone); err != nil {
			return 0, err
		}
	}
	var inserted, updated int64
	for _, w := range m.written {
		cons := *m.cons
		cons.policies = w.policies
		if err := cons.verifyUpdate(ctx, m.rt, w.rec, w.old); err != nil {
			return 0, err
		}
		if err := tx.Insert(def.ID, w.rec); err != nil {
			return 0, err
		}
		if w.old != nil {
			updated += w.rec.NumRows()
			m.acts.updated(def, w.old, w.rec)
		} else {
			inserted += w.rec.NumRows()
			m.acts.insertedInto(def)
		}
	}
	for _, r := range m.removed {
		m.acts.deleted(def, r)
	}
	m.rt.written(def.ID, inserted, updated, m.deleted)
	return inserted + updated + m.deleted, m.acts.done(ctx)
}
