package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// TriggerRunner runs a table's row-level triggers: the session's PL/pgSQL
// interpreter (exec/session).
type TriggerRunner interface {
	// BeforeRow runs def's BEFORE triggers for event (INSERT, UPDATE,
	// DELETE) on one row, given as datums by column: newRow (nil for a
	// DELETE), and oldRow for an UPDATE or DELETE (nil for an INSERT).
	// It returns the row to write (for a DELETE, any row: go on), nil to
	// skip the row.
	BeforeRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) ([]any, error)
	// AfterRow runs def's AFTER triggers for event on one row changed,
	// as BeforeRow takes it; what they return is ignored.
	AfterRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) error
	// InsteadRow runs def's INSTEAD OF triggers (def is a view's
	// catalog.ViewDef.TriggerTable) for event on one row of the view, as
	// BeforeRow takes it, in place of its write. It returns the row
	// written (for a DELETE, oldRow), which RETURNING reads, nil when a
	// trigger returned NULL: no row was written.
	InsteadRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) ([]any, error)
	// Statement runs def's statement-level triggers of the timing
	// (BEFORE or AFTER) for event, once for a statement.
	Statement(ctx context.Context, def *catalog.TableDef, before bool, event string) error
	// BeforeReadsTables reports whether one of def's BEFORE triggers for
	// event may read a table: the rows of a statement are then written
	// one at a time, each before the next one's triggers run.
	BeforeReadsTables(def *catalog.TableDef, event string) bool
}

// updatedColumnsKey is the context key of the IDs of the columns the
// running UPDATE sets (see UpdatedColumns).
type updatedColumnsKey struct{}

// withUpdatedColumns is ctx for an UPDATE of def that sets the columns at
// the positions set: those, and the generated columns computed from them.
func withUpdatedColumns(ctx context.Context, def *catalog.TableDef, set map[int]sql.Expr) context.Context {
	var ids []int
	for pos := range set {
		ids = append(ids, def.Columns[pos].ID)
	}
	for _, c := range def.Columns {
		if c.Generated == "" || slices.Contains(ids, c.ID) {
			continue
		}
		for pos := range set {
			if sql.PolicyUses(c.Default, def.Columns[pos].Name) {
				ids = append(ids, c.ID)
				break
			}
		}
	}
	slices.Sort(ids)
	return context.WithValue(ctx, updatedColumnsKey{}, ids)
}

// UpdatedColumns returns the IDs of the columns the UPDATE (or INSERT ...
// ON CONFLICT DO UPDATE) running in ctx sets, for a TriggerRunner: an
// UPDATE OF trigger fires only when one of its columns is among them
// (catalog.TriggerDef.FiresOn). Nil outside an UPDATE.
func UpdatedColumns(ctx context.Context) []int {
	ids, _ := ctx.Value(updatedColumnsKey{}).([]int)
	return ids
}

// runsTrigger reports whether the runtime runs triggers (a DDL rewrite's
// does not) and def has one for event that match accepts.
func (rt *Runtime) runsTrigger(def *catalog.TableDef, event string, match func(catalog.TriggerDef) bool) bool {
	return rt.Triggers != nil && slices.ContainsFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Fires(event) && match(t) })
}

// hasRowTriggers reports whether the runtime runs row-level triggers of
// the timing (BEFORE or AFTER) for event on def.
func (rt *Runtime) hasRowTriggers(def *catalog.TableDef, before bool, event string) bool {
	return rt.runsTrigger(def, event, func(t catalog.TriggerDef) bool { return t.Before == before && t.ForEachRow })
}

// statementTriggers runs def's statement-level triggers of the timing
// for event, when it has any.
func (rt *Runtime) statementTriggers(ctx context.Context, def *catalog.TableDef, before bool, event string) error {
	if !rt.runsTrigger(def, event, func(t catalog.TriggerDef) bool { return t.Before == before && !t.ForEachRow }) {
		return nil
	}
	return rt.Triggers.Statement(ctx, def, before, event)
}

// endStatement finishes a statement's writes to def for event in the
// order PostgreSQL fires what follows them: the foreign keys' actions
// (acts), the AFTER row triggers of the rows it changed (after), then the
// AFTER statement triggers.
func (rt *Runtime) endStatement(ctx context.Context, def *catalog.TableDef, event string, acts *fkActions, after *afterQueue) error {
	if err := acts.done(ctx); err != nil {
		return err
	}
	if err := after.fire(ctx); err != nil {
		return err
	}
	return rt.statementTriggers(ctx, def, false, event)
}

// tableRow is row i of rec (def's columns) as datums.
func tableRow(def *catalog.TableDef, rec arrow.Record, i int) []any {
	vals := make([]any, len(def.Columns))
	for j, c := range def.Columns {
		vals[j] = types.ValueAt(rec.Column(j), i, c.Type)
	}
	return vals
}

// beforeDeleteTriggers runs def's BEFORE DELETE triggers on each row of
// old (def's rows a DELETE removes). It returns the positions of the rows
// to delete (those a trigger skipped by returning NULL are gone), nil
// when no trigger ran.
func (rt *Runtime) beforeDeleteTriggers(ctx context.Context, def *catalog.TableDef, old arrow.Record) ([]int, error) {
	if !rt.hasRowTriggers(def, true, "DELETE") {
		return nil, nil
	}
	kept := make([]int, 0, old.NumRows())
	for i := 0; i < int(old.NumRows()); i++ {
		row, err := rt.Triggers.BeforeRow(ctx, def, "DELETE", nil, tableRow(def, old, i))
		if err != nil {
			return nil, err
		}
		if row != nil {
			kept = append(kept, i)
		}
	}
	return kept, nil
}

// afterQueue holds the rows a statement changed in a table with AFTER
// triggers for the event, whose triggers fire once its writes are done
// (PostgreSQL queues them to the end of the statement: their functions
// see every row it changed).
type afterQueue struct {
	rt    *Runtime
	def   *catalog.TableDef
	event string
	// newRecs and oldRecs are batches of the changed rows, retained:
	// the new rows (none for DELETE) and the old (none for INSERT),
	// counted against statement_mem (acct).
	newRecs, oldRecs []arrow.Record
	acct             memAccount
}

// afterTriggers returns the queue of def's AFTER triggers for event, nil
// (on which add, fire and release do nothing) when it has none.
func (rt *Runtime) afterTriggers(def *catalog.TableDef, event string) *afterQueue {
	if !rt.hasRowTriggers(def, false, event) {
		return nil
	}
	return &afterQueue{rt: rt, def: def, event: event, acct: rt.account()}
}

// add queues the rows of newRec and oldRec (either may be nil), which it
// retains; past statement_mem it fails with 53200.
func (q *afterQueue) add(newRec, oldRec arrow.Record) error {
	if q == nil {
		return nil
	}
	for _, r := range []arrow.Record{newRec, oldRec} {
		if r != nil {
			if err := q.acct.growRecord(r, 0); err != nil {
				return err
			}
		}
	}
	for _, r := range []arrow.Record{newRec, oldRec} {
		if r != nil {
			r.Retain()
		}
	}
	q.newRecs = append(q.newRecs, newRec)
	q.oldRecs = append(q.oldRecs, oldRec)
	return nil
}

// fire runs the AFTER triggers on every queued row, in order.
func (q *afterQueue) fire(ctx context.Context) error {
	if q == nil {
		return nil
	}
	for b := range q.newRecs {
		newRec, oldRec := q.newRecs[b], q.oldRecs[b]
		n := 0
		if newRec != nil {
			n = int(newRec.NumRows())
		} else if oldRec != nil {
			n = int(oldRec.NumRows())
		}
		for i := 0; i < n; i++ {
			var newRow, oldRow []any
			if newRec != nil {
				newRow = tableRow(q.def, newRec, i)
			}
			if oldRec != nil {
				oldRow = tableRow(q.def, oldRec, i)
			}
			if err := q.rt.Triggers.AfterRow(ctx, q.def, q.event, newRow, oldRow); err != nil {
				return err
			}
		}
	}
	return nil
}

// release frees the queued rows.
func (q *afterQueue) release() {
	if q == nil {
		return
	}
	for b := range q.newRecs {
		for _, r := range []arrow.Record{q.newRecs[b], q.oldRecs[b]} {
			if r != nil {
				r.Release()
			}
		}
	}
	q.newRecs, q.oldRecs = nil, nil
	q.acct.release()
}

// beforeRowTriggers runs def's BEFORE triggers for event on each row of
// rec (a batch of def's rows; old holds the rows an UPDATE replaces, nil
// for an INSERT). It returns the rows to write, as the triggers left
// them, and the positions in rec of those rows (those a trigger skipped
// by returning NULL are gone). It releases rec when it makes a new
// batch; kept is nil when no trigger ran (rec comes back as it is).
func (rt *Runtime) beforeRowTriggers(ctx context.Context, def *catalog.TableDef, event string, rec, old arrow.Record) (out arrow.Record, kept []int, err error) {
	if !rt.hasRowTriggers(def, true, event) || rec.NumRows() == 0 {
		return rec, nil, nil
	}
	defer rec.Release()
	kept = make([]int, 0, rec.NumRows())
	builders := make([]array.Builder, len(def.Columns))
	for i, c := range def.Columns {
		builders[i] = types.NewBuilder(memory.DefaultAllocator, c.Type)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for i := 0; i < int(rec.NumRows()); i++ {
		var oldRow []any
		if old != nil {
			oldRow = tableRow(def, old, i)
		}
		newRow, err := rt.Triggers.BeforeRow(ctx, def, event, tableRow(def, rec, i), oldRow)
		if err != nil {
			return nil, nil, err
		}
		if newRow == nil {
			continue
		}
		kept = append(kept, i)
		for j, c := range def.Columns {
			if err := types.AppendValue(builders[j], newRow[j], c.Type); err != nil {
				return nil, nil, err
			}
		}
	}
	cols := make([]arrow.Array, len(builders))
	for j, b := range builders {
		cols[j] = b.NewArray()
	}
	defer releaseAll(cols)
	return tableRecord(def, cols, int64(len(kept))), kept, nil
}

// insteadOf runs the INSTEAD OF triggers of a view (def, its
// catalog.ViewDef.TriggerTable) for event on each row op yields, in place
// of a write, between the view's BEFORE and AFTER statement triggers, and
// closes op. op's rows are def's columns, followed for an UPDATE or
// DELETE by a (NULL) row ID and the columns of the FROM or USING
// relations; set computes an UPDATE's new rows over them. The rows the
// triggers returned must meet checks, the CHECK OPTIONs of the views
// above def written through, and RETURNING reads them (for a DELETE, the
// old rows) and those FROM columns. It returns the number of rows no
// trigger skipped.
func insteadOf(ctx context.Context, rt *Runtime, def *catalog.TableDef, event string, op Operator, set map[int]sql.Expr, checks []sql.ViewCheck, returning []sql.Expr, out *materialized) (int64, error) {
	if rt.Triggers == nil {
		op.Close()
		return 0, pgerr.New(pgerrcode.InternalError, "INSTEAD OF trigger of view \"%s\" outside a session", def.Name)
	}
	// Every row is read before the first trigger runs: the view's rows
	// are those of the statement's start, whatever the triggers write.
	rows, err := Materialize(ctx, op, nil)
	op.Close()
	if err != nil {
		return 0, err
	}
	if err := rt.statementTriggers(ctx, def, true, event); err != nil {
		rows.Close()
		return 0, err
	}
	ncols := len(def.Columns)
	var count int64
	err = Drain(ctx, rows, func(in arrow.Record) error {
		newRec := in
		switch event {
		case "UPDATE":
			if newRec, err = setRows(ctx, rt, def, set, nil, in); err != nil {
				return err
			}
			defer newRec.Release()
		case "DELETE":
			newRec = nil
		}
		builders := make([]array.Builder, ncols)
		for i, c := range def.Columns {
			builders[i] = types.NewBuilder(memory.DefaultAllocator, c.Type)
			defer builders[i].Release()
		}
		var kept []int
		for i := range int(in.NumRows()) {
			var newRow, oldRow []any
			if newRec != nil {
				newRow = tableRow(def, newRec, i)
			}
			if event != "INSERT" {
				oldRow = tableRow(def, in, i)
			}
			row, err := rt.Triggers.InsteadRow(ctx, def, event, newRow, oldRow)
			if err != nil {
				return err
			}
			if row == nil {
				continue // the trigger returned NULL: no row was written
			}
			kept = append(kept, i)
			for j, c := range def.Columns {
				if err := types.AppendValue(builders[j], row[j], c.Type); err != nil {
					return err
				}
			}
		}
		count += int64(len(kept))
		if len(returning) == 0 && len(checks) == 0 {
			return nil
		}
		cols := make([]arrow.Array, ncols)
		for j, b := range builders {
			cols[j] = b.NewArray()
		}
		defer releaseAll(cols)
		rec := tableRecord(def, cols, int64(len(kept)))
		defer rec.Release()
		if err := (&constraints{def: def, views: checks}).verifyViews(ctx, rt, rec); err != nil {
			return err
		}
		from, err := fromColumns(in, ncols, returning, kept)
		if err != nil {
			return err
		}
		if from != nil {
			defer from.Release()
		}
		return out.addReturning(ctx, rt, returning, rec, nil, from)
	})
	if err != nil {
		return 0, err
	}
	return count, rt.statementTriggers(ctx, def, false, event)
}
