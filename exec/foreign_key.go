package exec

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// fkCheck enforces one FOREIGN KEY constraint for one statement. The keys
// of the other side are read once, on first use.
type fkCheck struct {
	fk     *catalog.ForeignKeyDef
	child  *catalog.TableDef
	parent *catalog.TableDef
	keys   map[string]bool
}

// positions maps column IDs to positions in def.
func positions(def *catalog.TableDef, ids []int) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = -1
		for p, c := range def.Columns {
			if c.ID == id {
				out[i] = p
			}
		}
	}
	return out
}

// rowKey encodes the given columns of a row; ok is false when one is NULL
// (a NULL key never violates a foreign key).
func fkRowKey(def *catalog.TableDef, rec arrow.Record, row int, pos []int) (string, bool) {
	var key []byte
	for _, p := range pos {
		if p < 0 {
			return "", false
		}
		t := def.Columns[p].Type
		v := types.ValueAt(rec.Column(p), row, t)
		if v == nil {
			return "", false
		}
		key = types.KeyBytes(key, v, t)
		key = append(key, 0)
	}
	return string(key), true
}

// loadKeys reads the set of keys of def's columns pos.
func loadKeys(ctx context.Context, rt *Runtime, def *catalog.TableDef, pos []int) (map[string]bool, error) {
	rr, err := rt.Tx.Scan(ctx, def.ID, allPositions(def), false)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	keys := map[string]bool{}
	for rr.Next() {
		rec := rr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			if k, ok := fkRowKey(def, rec, r, pos); ok {
				keys[k] = true
			}
		}
	}
	return keys, rr.Err()
}

func allPositions(def *catalog.TableDef) []int {
	out := make([]int, len(def.Columns))
	for i := range out {
		out[i] = i
	}
	return out
}

func colNames(def *catalog.TableDef, pos []int) string {
	names := make([]string, len(pos))
	for i, p := range pos {
		if p >= 0 {
			names[i] = def.Columns[p].Name
		}
	}
	return strings.Join(names, ", ")
}

// keyText is the key of a row as a foreign key error's detail shows it:
// values in the session's text output settings opts, comma separated.
func keyText(def *catalog.TableDef, rec arrow.Record, row int, pos []int, opts *types.TextOptions) string {
	vals := make([]string, len(pos))
	for i, p := range pos {
		t := def.Columns[p].Type
		vals[i] = string(types.AppendText(nil, types.ValueAt(rec.Column(p), row, t), t, opts))
	}
	return strings.Join(vals, ", ")
}

// verifyChild checks that every new child row references an existing
// parent row (23503).
func (f *fkCheck) verifyChild(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	if f.parent == nil {
		cat := rt.Tx.Catalog()
		f.parent = cat.Tables[f.fk.RefTable]
		if f.parent == nil {
			return nil
		}
	}
	childPos := positions(f.child, f.fk.Columns)
	parentPos := positions(f.parent, f.fk.RefColumns)
	for r := 0; r < int(rec.NumRows()); r++ {
		k, ok := fkRowKey(f.child, rec, r, childPos)
		if !ok {
			continue
		}
		if f.keys == nil || !f.keys[k] {
			// Reload: rows inserted earlier in this statement may be the
			// parents (self references).
			keys, err := loadKeys(ctx, rt, f.parent, parentPos)
			if err != nil {
				return err
			}
			f.keys = keys
			if f.parent.ID == f.child.ID {
				for rr := 0; rr < int(rec.NumRows()); rr++ {
					if pk, ok := fkRowKey(f.child, rec, rr, parentPos); ok {
						f.keys[pk] = true
					}
				}
			}
		}
		if !f.keys[k] {
			return pgerr.New(pgerrcode.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", f.child.Name, f.fk.Name).
				WithDetail("Key (%s)=(%s) is not present in table \"%s\".", colNames(f.child, childPos), keyText(f.child, rec, r, childPos, rt.textOptions()), f.parent.Name)
		}
	}
	return nil
}

// referencingKeys lists the foreign keys of other tables that point at def.
func referencingKeys(rt *Runtime, def *catalog.TableDef) []*fkCheck {
	var out []*fkCheck
	for _, t := range rt.Tx.Catalog().Tables {
		for i := range t.ForeignKeys {
			if t.ForeignKeys[i].RefTable == def.ID {
				out = append(out, &fkCheck{fk: &t.ForeignKeys[i], child: t, parent: def})
			}
		}
	}
	return out
}

// verifyParentDelete refuses to delete parent rows that child rows still
// reference (23503, NO ACTION).
func (f *fkCheck) verifyParentDelete(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	childPos := positions(f.child, f.fk.Columns)
	parentPos := positions(f.parent, f.fk.RefColumns)
	if f.keys == nil {
		keys, err := loadKeys(ctx, rt, f.child, childPos)
		if err != nil {
			return err
		}
		f.keys = keys
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		if k, ok := fkRowKey(f.parent, rec, r, parentPos); ok && f.keys[k] {
			return pgerr.New(pgerrcode.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", f.parent.Name, f.fk.Name, f.child.Name).
				WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", colNames(f.parent, parentPos), keyText(f.parent, rec, r, parentPos, rt.textOptions()), f.child.Name)
		}
	}
	return nil
}

// verifyParentUpdate refuses to change the referenced key of parent rows
// that child rows still reference (23503, NO ACTION), as UPDATE and
// MERGE's UPDATE change them: old are the rows before the change,
// updated the same rows after it. A key that another of the updated rows
// takes on keeps its references.
func (f *fkCheck) verifyParentUpdate(ctx context.Context, rt *Runtime, old, updated arrow.Record) error {
	parentPos := positions(f.parent, f.fk.RefColumns)
	kept := map[string]bool{}
	for r := 0; r < int(updated.NumRows()); r++ {
		if k, ok := fkRowKey(f.parent, updated, r, parentPos); ok {
			kept[k] = true
		}
	}
	var changed []int
	for r := 0; r < int(old.NumRows()); r++ {
		if k, ok := fkRowKey(f.parent, old, r, parentPos); ok && !kept[k] {
			changed = append(changed, r)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	gone, err := takeRecord(memory.DefaultAllocator, old, changed)
	if err != nil {
		return err
	}
	defer gone.Release()
	return f.verifyParentDelete(ctx, rt, gone)
}
