package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// TriggerRunner runs a table's row-level BEFORE triggers: the session's
// PL/pgSQL interpreter (exec/session).
type TriggerRunner interface {
	// BeforeRow runs def's BEFORE triggers for event (INSERT, UPDATE) on
	// one row, given as datums by column: newRow, and oldRow for an
	// UPDATE (nil for an INSERT). It returns the row to write, nil to
	// skip the row.
	BeforeRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) ([]any, error)
}

// hasBeforeTriggers reports whether def has row-level BEFORE triggers
// for event that the runtime runs.
func (rt *Runtime) hasBeforeTriggers(def *catalog.TableDef, event string) bool {
	if rt.Triggers == nil {
		return false
	}
	return slices.ContainsFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Before && t.ForEachRow && t.Fires(event) })
}

// beforeRowTriggers runs def's BEFORE triggers for event on each row of
// rec (a batch of def's rows; old holds the rows an UPDATE replaces, nil
// for an INSERT). It returns the rows to write, as the triggers left
// them, and the positions in rec of those rows (those a trigger skipped
// by returning NULL are gone). It releases rec when it makes a new
// batch; kept is nil when no trigger ran (rec comes back as it is).
func (rt *Runtime) beforeRowTriggers(ctx context.Context, def *catalog.TableDef, event string, rec, old arrow.Record) (out arrow.Record, kept []int, err error) {
	if !rt.hasBeforeTriggers(def, event) || rec.NumRows() == 0 {
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
	row := func(r arrow.Record, i int) []any {
		vals := make([]any, len(def.Columns))
		for j, c := range def.Columns {
			vals[j] = types.ValueAt(r.Column(j), i, c.Type)
		}
		return vals
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		var oldRow []any
		if old != nil {
			oldRow = row(old, i)
		}
		newRow, err := rt.Triggers.BeforeRow(ctx, def, event, row(rec, i), oldRow)
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
