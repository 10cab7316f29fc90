package session

// Row-level triggers: exec calls BeforeRow for each row an INSERT, UPDATE
// (or COPY FROM) or DELETE changes in a table with BEFORE triggers,
// AfterRow for each row it changed once its writes are done, and
// InsteadRow for each row such a statement would write in a view with
// INSTEAD OF triggers; the session runs the triggers' PL/pgSQL functions,
// in order of trigger name as PostgreSQL does, each with NEW and OLD
// (NULL where the event has none) and, BEFORE and INSTEAD OF, the row the
// last one returned.

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// sessionTriggers is the exec.TriggerRunner of a statement of s that
// writes in tx.
type sessionTriggers struct {
	s  *Session
	tx *storage.Tx
}

// compiledTrigger is a trigger function's body compiled, kept by
// function key for as long as its text is the same.
type compiledTrigger struct {
	body string
	fn   *sql.PLFunction
}

// BeforeRow implements exec.TriggerRunner.
func (t sessionTriggers) BeforeRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) ([]any, error) {
	return t.run(ctx, def, "BEFORE", true, event, newRow, oldRow)
}

// AfterRow implements exec.TriggerRunner.
func (t sessionTriggers) AfterRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) error {
	_, err := t.run(ctx, def, "AFTER", true, event, newRow, oldRow)
	return err
}

// InsteadRow implements exec.TriggerRunner.
func (t sessionTriggers) InsteadRow(ctx context.Context, def *catalog.TableDef, event string, newRow, oldRow []any) ([]any, error) {
	return t.run(ctx, def, "INSTEAD OF", true, event, newRow, oldRow)
}

// BeforeReadsTables implements exec.TriggerRunner: a function that does
// not compile may read anything (its error comes when it runs).
func (t sessionTriggers) BeforeReadsTables(def *catalog.TableDef, event string) bool {
	cat := t.tx.Catalog()
	for _, tr := range def.Triggers {
		if !tr.Before || !tr.ForEachRow || !tr.Fires(event) {
			continue
		}
		f := cat.Functions[tr.Function]
		if f == nil {
			return true
		}
		fn, err := t.s.triggerFunction(cat, f)
		if err != nil || fn.ReadsTables() {
			return true
		}
	}
	return false
}

// Statement implements exec.TriggerRunner.
func (t sessionTriggers) Statement(ctx context.Context, def *catalog.TableDef, before bool, event string) error {
	timing := "AFTER"
	if before {
		timing = "BEFORE"
	}
	_, err := t.run(ctx, def, timing, false, event, nil, nil)
	return err
}

// run runs def's triggers of the timing (BEFORE, AFTER, INSTEAD OF) and
// level (row or statement) for event, in order of name: a row trigger on
// one row, each BEFORE or INSTEAD OF trigger given the row the last one
// returned. It returns the row to write (or, INSTEAD OF, the row written),
// nil to skip it (a BEFORE or INSTEAD OF row trigger returned NULL); for
// a DELETE, oldRow when none skipped it. A statement trigger's NEW and
// OLD are NULL and what it returns is ignored.
func (t sessionTriggers) run(ctx context.Context, def *catalog.TableDef, timing string, forEachRow bool, event string, newRow, oldRow []any) ([]any, error) {
	s := t.s
	// The triggers' statements run in the writing statement's
	// transaction, which an autocommit statement holds itself.
	defer s.borrowTx(t.tx)()
	cat := t.tx.Catalog()
	triggers := slices.Clone(def.Triggers)
	slices.SortFunc(triggers, func(a, b catalog.TriggerDef) int { return strings.Compare(a.Name, b.Name) })
	cols := make([]Column, len(def.Columns))
	for i, c := range def.Columns {
		cols[i] = Column{Name: c.Name, Type: c.Type}
	}
	level := "STATEMENT"
	if forEachRow {
		level = "ROW"
	}
	row := newRow
	if event == "DELETE" {
		row = oldRow
	}
	// record is NEW or OLD holding vals, or the NULL row for nil.
	record := func(vals []any) plValue {
		if vals == nil {
			return plValue{set: true, rec: &plRecord{cols: cols, vals: make([]any, len(cols)), null: true}}
		}
		return plValue{set: true, rec: &plRecord{cols: cols, vals: slices.Clone(vals)}}
	}
	updated := exec.UpdatedColumns(ctx)
	for _, tr := range triggers {
		if tr.Timing() != timing || tr.ForEachRow != forEachRow || !tr.FiresOn(event, updated) {
			continue
		}
		f := cat.Functions[tr.Function]
		if f == nil {
			return nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", tr.Function)
		}
		fn, err := s.triggerFunction(cat, f)
		if err != nil {
			return nil, err
		}
		bind := func(fn *sql.PLFunction) func([]plValue) {
			return func(vals []plValue) {
				if fn.New >= 0 {
					if newRow != nil {
						vals[fn.New] = record(row)
					} else {
						vals[fn.New] = record(nil)
					}
				}
				if fn.Old >= 0 {
					vals[fn.Old] = record(oldRow)
				}
				for name, i := range fn.TG {
					var v any
					switch name {
					case "tg_op":
						v = event
					case "tg_name":
						v = tr.Name
					case "tg_when":
						v = timing
					case "tg_level":
						v = level
					case "tg_table_name":
						v = def.Name
					case "tg_table_schema":
						v = def.Schema
					case "tg_nargs":
						v = int64(len(tr.Args))
					case "tg_argv":
						v = triggerArgv(tr.Args)
					}
					vals[i] = plValue{v: v, t: vals[i].t}
				}
			}
		}
		if tr.When != "" {
			cond, err := s.triggerWhen(cat, def, tr)
			if err != nil {
				return nil, err
			}
			ret, err := s.runPL(ctx, cond, bind(cond))
			if err != nil {
				return nil, err
			}
			if ret.v != true {
				continue // WHEN is not true: the trigger does not fire
			}
		}
		ret, err := s.runPL(ctx, fn, bind(fn))
		if err != nil {
			return nil, err
		}
		if !ret.returned {
			return nil, pgerr.New(pgerrcode.FunctionExecutedNoReturnStatement, "control reached end of trigger procedure without RETURN")
		}
		if timing == "AFTER" || !forEachRow {
			continue // an AFTER or statement trigger's result is ignored
		}
		if ret.rec == nil || ret.rec.null {
			if ret.v != nil {
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "returned row structure does not match the structure of the triggering table")
			}
			return nil, nil // RETURN NULL: the row is skipped
		}
		if len(ret.rec.vals) != len(cols) {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "returned row structure does not match the structure of the triggering table").
				WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(ret.rec.vals), len(cols))
		}
		if event != "DELETE" {
			row = ret.rec.vals
		}
	}
	return row, nil
}

// triggerWhen is tr's WHEN condition (of a trigger on def) compiled as a
// trigger function's body, from the session's cache when it was
// compiled before with the same text.
func (s *Session) triggerWhen(cat *catalog.Catalog, def *catalog.TableDef, tr catalog.TriggerDef) (*sql.PLFunction, error) {
	key := "\x00when " + def.Schema + "." + def.Name + "." + tr.Name
	body := sql.TriggerWhenBody(tr.When)
	if c, ok := s.plCache[key]; ok && c.body == body {
		return c.fn, nil
	}
	fn, err := s.binder(cat).CompileTrigger(body)
	if err != nil {
		return nil, err
	}
	if s.plCache == nil {
		s.plCache = map[string]compiledTrigger{}
	}
	s.plCache[key] = compiledTrigger{body: body, fn: fn}
	return fn, nil
}

// triggerFunction is f's body compiled, from the session's cache when
// it was compiled before with the same text.
func (s *Session) triggerFunction(cat *catalog.Catalog, f *catalog.FunctionDef) (*sql.PLFunction, error) {
	key := f.Key()
	if c, ok := s.plCache[key]; ok && c.body == f.Body {
		return c.fn, nil
	}
	fn, err := s.binder(cat).CompileTrigger(f.Body)
	if err != nil {
		return nil, err
	}
	if s.plCache == nil {
		s.plCache = map[string]compiledTrigger{}
	}
	s.plCache[key] = compiledTrigger{body: f.Body, fn: fn}
	return fn, nil
}

// triggerRel is the relation of CREATE or DROP TRIGGER: table, or view
// when table is nil.
func triggerRel(table *catalog.TableDef, view *catalog.ViewDef) storage.TriggerRel {
	if table != nil {
		return storage.TriggerRel{Table: table.ID}
	}
	return storage.TriggerRel{View: catalog.Key(view.Schema, view.Name)}
}

// triggerArgv is TG_ARGV for a trigger's arguments: NULL without any, as
// in PostgreSQL.
func triggerArgv(args []string) any {
	if len(args) == 0 {
		return nil
	}
	elems := make([]any, len(args))
	for i, a := range args {
		elems[i] = a
	}
	return &types.Array{Elem: types.TextT, Dims: []int{len(args)}, Elems: elems}
}

// dropColumnTriggers drops, with cascade, the triggers of def that depend
// on column: an UPDATE OF naming it or a WHEN condition reading it; without,
// it refuses to drop the column (2BP01), as PostgreSQL's dependencies do.
func (s *Session) dropColumnTriggers(def *catalog.TableDef, column string, cascade bool) error {
	_, col := def.Column(column)
	kept, err := dropColumnDependents(s, def, column, cascade, def.Triggers, func(tr catalog.TriggerDef) (string, bool) {
		return "trigger " + tr.Name, slices.Contains(tr.Columns, col.ID) || tr.When != "" && sql.PolicyUses(tr.When, column)
	})
	def.Triggers = kept
	return err
}

// truncateTriggers runs the TRUNCATE triggers of the timing (BEFORE or
// AFTER) of each of tables, in turn.
func (s *Session) truncateTriggers(ctx context.Context, tx *storage.Tx, tables []*catalog.TableDef, before bool) error {
	for _, def := range tables {
		if !slices.ContainsFunc(def.Triggers, func(tr catalog.TriggerDef) bool { return tr.Before == before && tr.Fires("TRUNCATE") }) {
			continue
		}
		if err := (sessionTriggers{s, tx}).Statement(ctx, def, before, "TRUNCATE"); err != nil {
			return err
		}
	}
	return nil
}
