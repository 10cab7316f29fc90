package exec

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// fkCheck enforces one FOREIGN KEY constraint on the new rows of its
// table (the child) for one statement.
type fkCheck struct {
	fk     *catalog.ForeignKeyDef
	child  *catalog.TableDef
	parent *catalog.TableDef
	// keys are the parent's keys as the snapshot sees them, read when
	// the parent's index cannot answer (verifyScan) or to tell why a key
	// is missing under REPEATABLE READ.
	keys map[string]bool
	// deferred marks a check run at the end of a transaction (or at SET
	// CONSTRAINTS ... IMMEDIATE) for rows written before; live are then
	// the keys the child's rows hold, read when a key is missing.
	deferred bool
	live     map[string]bool
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

// keyCols are some columns of a batch of rows of a table, the key of a
// foreign key on one side.
type keyCols struct {
	cols  []arrow.Array
	types []types.T
	names []string
}

// tableKey is the key at positions pos of cols, def's columns (those
// at other positions may be missing).
func tableKey(def *catalog.TableDef, cols []arrow.Array, pos []int) keyCols {
	k := keyCols{cols: make([]arrow.Array, len(pos)), types: make([]types.T, len(pos)), names: make([]string, len(pos))}
	for i, p := range pos {
		k.cols[i], k.types[i], k.names[i] = cols[p], def.Columns[p].Type, def.Columns[p].Name
	}
	return k
}

// key encodes row r's key; ok is false when a column is NULL (a key
// with a NULL references nothing). nulls counts its NULL columns.
func (k keyCols) key(r int) (key string, ok bool, nulls int) {
	var b []byte
	for i, c := range k.cols {
		v := types.ValueAt(c, r, k.types[i])
		if v == nil {
			nulls++
			continue
		}
		b = types.KeyBytes(b, v, k.types[i])
		b = append(b, 0)
	}
	return string(b), nulls == 0, nulls
}

// same reports whether row r has the same key in k and in o (the row
// before and after an update), NULLs equal to NULLs.
func (k keyCols) same(o keyCols, r int) bool {
	for i, c := range k.cols {
		v, w := types.ValueAt(c, r, k.types[i]), types.ValueAt(o.cols[i], r, o.types[i])
		if (v == nil) != (w == nil) || v != nil && string(types.KeyBytes(nil, v, k.types[i])) != string(types.KeyBytes(nil, w, o.types[i])) {
			return false
		}
	}
	return true
}

// text is row r's key as a foreign key error's detail shows it: values
// in the session's text output settings opts, comma separated.
func (k keyCols) text(r int, opts *types.TextOptions) string {
	vals := make([]string, len(k.cols))
	for i, c := range k.cols {
		if v := types.ValueAt(c, r, k.types[i]); v == nil {
			vals[i] = "null"
		} else {
			vals[i] = string(types.AppendText(nil, v, k.types[i], opts))
		}
	}
	return strings.Join(vals, ", ")
}

// loadKeys reads the set of keys of def's columns pos, reading only those
// columns.
func loadKeys(ctx context.Context, rt *Runtime, def *catalog.TableDef, pos []int) (map[string]bool, error) {
	keys := map[string]bool{}
	err := scanKeys(ctx, rt, def, pos, func(k keyCols, r int, _ int64) {
		if key, ok, _ := k.key(r); ok {
			keys[key] = true
		}
	})
	return keys, err
}

// scanKeys calls fn for each row of def as rt.Tx sees it now, with its
// key at positions pos and its row ID.
func scanKeys(ctx context.Context, rt *Runtime, def *catalog.TableDef, pos []int, fn func(k keyCols, r int, id int64)) error {
	rr, err := rt.Tx.Scan(ctx, def.ID, pos, true)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.Record()
		k := keyCols{cols: rec.Columns()[:len(pos)], types: make([]types.T, len(pos))}
		for i, p := range pos {
			k.types[i] = def.Columns[p].Type
		}
		ids := rec.Column(len(pos)).(*array.Int64)
		for r := 0; r < int(rec.NumRows()); r++ {
			fn(k, r, ids.Value(r))
		}
	}
	return rr.Err()
}

func allPositions(def *catalog.TableDef) []int {
	out := make([]int, len(def.Columns))
	for i := range out {
		out[i] = i
	}
	return out
}

// verifyChild checks that every new child row references an existing
// parent row (23503). old, when not nil, are the same rows before an
// UPDATE: as in PostgreSQL, a row whose key did not change is not checked
// again.
//
// As PostgreSQL's RI check does, it reads the parent as of the latest
// commit plus the transaction's own changes, whatever the statement's
// snapshot: storage probes the parent's unique index for each key (no
// scan) and remembers the parent rows found, so that Commit fails if a
// concurrent transaction deletes one first, and a concurrent deletion
// committed later fails instead (storage/fkref.go). Under REPEATABLE
// READ the parent row must also be one the transaction's snapshot sees
// (else 23503), and one deleted since the snapshot is 40001. Rows
// inserted earlier in the statement count (self references).
func (f *fkCheck) verifyChild(ctx context.Context, rt *Runtime, rec, old arrow.Record) error {
	if f.parent == nil {
		cat := rt.Tx.Catalog()
		f.parent = cat.Tables[f.fk.RefTable]
		if f.parent == nil {
			return nil
		}
	}
	childPos := positions(f.child, f.fk.Columns)
	parentPos := positions(f.parent, f.fk.RefColumns)
	if slices.Contains(childPos, -1) || slices.Contains(parentPos, -1) {
		return nil
	}
	newKeys := tableKey(f.child, rec.Columns(), childPos)
	var oldKeys keyCols
	if old != nil {
		oldKeys = tableKey(f.child, old.Columns(), childPos)
	}
	var rows []int
	for r := 0; r < int(rec.NumRows()); r++ {
		_, ok, nulls := newKeys.key(r)
		if !ok {
			if f.fk.MatchFull && nulls < len(childPos) {
				return pgerr.New(pgerrcode.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", f.child.Name, f.fk.Name).
					WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.").WithConstraint(f.child.Schema, f.child.Name, f.fk.Name)
			}
			continue
		}
		if old != nil && newKeys.same(oldKeys, r) {
			continue
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	if rt.Deferred.deferred(f.child, f.fk) {
		rt.Deferred.deferChild(f.child.ID, f.fk.Name, newKeys, rows)
		return nil
	}
	return f.verifyKeys(ctx, rt, rec, newKeys, parentPos, rows)
}

// verifyKeys is verifyChild for the rows rows of newKeys, keys with no
// NULL; rec, the rows being written (for self references), is nil for
// the deferred checks run at the end of a transaction, when every row
// is in the table.
func (f *fkCheck) verifyKeys(ctx context.Context, rt *Runtime, rec arrow.Record, newKeys keyCols, parentPos []int, rows []int) error {
	keyOf := func(r int) (string, bool) { k, ok, _ := newKeys.key(r); return k, ok }
	ct, pt := newKeys.types, make([]types.T, len(parentPos))
	for i, p := range parentPos {
		pt[i] = f.parent.Columns[p].Type
	}
	if !slices.EqualFunc(ct, pt, sameKeyEncoding) {
		// Keys of other types than the parent's: compared by value, in the
		// parent's encoding, with the parent's keys as the snapshot sees
		// them.
		fn := rt.fnCtx()
		return f.verifyScan(ctx, rt, rec, newKeys, parentPos, rows, func(r int) (string, bool) { return parentKey(fn, newKeys, r, ct, pt) })
	}
	ids, indexed, err := rt.Tx.CheckReferences(f.child.ID, f.fk.Name, newKeys.cols, rows)
	if err != nil {
		return err
	}
	if !indexed {
		return f.verifyScan(ctx, rt, rec, newKeys, parentPos, rows, keyOf)
	}
	var self map[string]bool // the keys of rec's rows, for self references
	rr := rt.repeatableRead()
	var found []int64 // committed rows REPEATABLE READ's snapshot must see
	for j, r := range rows {
		if ids[j] >= 0 {
			if rr {
				found = append(found, ids[j])
			}
			continue
		}
		k, _, _ := newKeys.key(r)
		if f.parent.ID == f.child.ID && rec != nil {
			if self == nil {
				self = batchKeys(tableKey(f.child, rec.Columns(), parentPos), int(rec.NumRows()))
			}
			if self[k] {
				continue
			}
		}
		if rr {
			// A key the snapshot sees was deleted since.
			if err := f.loadSnapshotKeys(ctx, rt, parentPos); err != nil {
				return err
			}
			if f.keys[k] {
				return storage.Conflict()
			}
		}
		if err := f.missing(ctx, rt, newKeys, r); err != nil {
			return err
		}
	}
	if len(found) == 0 {
		return nil
	}
	seen, err := rt.Tx.FetchRows(ctx, f.parent.ID, nil, found)
	if err != nil {
		return err
	}
	visible := map[int64]bool{}
	for _, id := range seen.Column(0).(*array.Int64).Int64Values() {
		visible[id] = true
	}
	seen.Release()
	for j, r := range rows {
		if ids[j] < 0 || visible[ids[j]] {
			continue
		}
		// A parent row committed after the snapshot: the key may still
		// be one the snapshot sees (its row updated since).
		if err := f.loadSnapshotKeys(ctx, rt, parentPos); err != nil {
			return err
		}
		if k, _, _ := newKeys.key(r); !f.keys[k] {
			if err := f.missing(ctx, rt, newKeys, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// asParentValue converts v, a child key value of type ct, to the parent
// key's type pt; exact is false when the conversion fails or changes the
// value (no parent key can equal it then).
func asParentValue(fn *functions.Context, v any, ct, pt types.T) (pv any, exact bool) {
	pv, err := functions.Cast(fn, v, ct, pt, false)
	if err != nil {
		return nil, false
	}
	back, err := functions.Cast(fn, pv, pt, ct, false)
	if err != nil || string(types.KeyBytes(nil, back, ct)) != string(types.KeyBytes(nil, v, ct)) {
		return nil, false
	}
	return pv, true
}

// parentKey is row r's key in k (the child's key columns, of types ct)
// encoded as the parent's key of types pt; ok is false for a key with a
// NULL or one no parent key can equal.
func parentKey(fn *functions.Context, k keyCols, r int, ct, pt []types.T) (string, bool) {
	var b []byte
	for i, c := range k.cols {
		v := types.ValueAt(c, r, ct[i])
		if v == nil {
			return "", false
		}
		pv, exact := asParentValue(fn, v, ct[i], pt[i])
		if !exact {
			return "", false
		}
		b = types.KeyBytes(b, pv, pt[i])
		b = append(b, 0)
	}
	return string(b), true
}

// sameKeyEncoding reports whether values of types c and p encode as the
// same keys: the same type, two integer types, or two string types.
func sameKeyEncoding(c, p types.T) bool {
	ints := func(f types.Family) bool { return f == types.Int2 || f == types.Int4 || f == types.Int8 }
	texts := func(f types.Family) bool { return f == types.Text || f == types.Varchar }
	return ints(c.Family) && ints(p.Family) || texts(c.Family) && texts(p.Family) || c.Family == p.Family && arrow.TypeEqual(c.Arrow(), p.Arrow())
}

// verifyScan is verifyChild for the rows rows of newKeys when the parent's
// index cannot answer: it reads the parent's keys as the snapshot sees
// them, once (and again when a key is missing: rows inserted earlier in
// the statement may be the parents), and looks up each row's key as
// keyOf encodes it (ok false: no parent key can equal it).
func (f *fkCheck) verifyScan(ctx context.Context, rt *Runtime, rec arrow.Record, newKeys keyCols, parentPos []int, rows []int, keyOf func(r int) (string, bool)) error {
	for _, r := range rows {
		k, ok := keyOf(r)
		if ok && (f.keys == nil || !f.keys[k]) {
			keys, err := loadKeys(ctx, rt, f.parent, parentPos)
			if err != nil {
				return err
			}
			f.keys = keys
			if f.parent.ID == f.child.ID && rec != nil {
				for pk := range batchKeys(tableKey(f.child, rec.Columns(), parentPos), int(rec.NumRows())) {
					f.keys[pk] = true
				}
			}
		}
		if !ok || !f.keys[k] {
			if err := f.missing(ctx, rt, newKeys, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadSnapshotKeys reads the parent's keys as the snapshot sees them into
// f.keys, once per statement.
func (f *fkCheck) loadSnapshotKeys(ctx context.Context, rt *Runtime, parentPos []int) error {
	if f.keys != nil {
		return nil
	}
	keys, err := loadKeys(ctx, rt, f.parent, parentPos)
	f.keys = keys
	return err
}

// batchKeys is the set of the keys of n rows.
func batchKeys(k keyCols, n int) map[string]bool {
	set := make(map[string]bool, n)
	for r := 0; r < n; r++ {
		if key, ok, _ := k.key(r); ok {
			set[key] = true
		}
	}
	return set
}

// missing is what becomes of row r of newKeys, whose key no parent row
// holds: the 23503 error (notPresent), unless the check is a deferred
// one and no row of the child holds the key any more (the row written
// was deleted or changed since, as PostgreSQL skips the deferred check
// of a row version no longer live).
func (f *fkCheck) missing(ctx context.Context, rt *Runtime, newKeys keyCols, r int) error {
	if f.deferred {
		if f.live == nil {
			live, err := loadKeys(ctx, rt, f.child, positions(f.child, f.fk.Columns))
			if err != nil {
				return err
			}
			f.live = live
		}
		if k, _, _ := newKeys.key(r); !f.live[k] {
			return nil
		}
	}
	return f.notPresent(rt, newKeys, r)
}

// notPresent is the 23503 error of a child row r whose key no parent row
// holds.
func (f *fkCheck) notPresent(rt *Runtime, newKeys keyCols, r int) error {
	return pgerr.New(pgerrcode.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", f.child.Name, f.fk.Name).
		WithDetail("Key (%s)=(%s) is not present in table \"%s\".", strings.Join(newKeys.names, ", "), newKeys.text(r, rt.textOptions()), f.parent.Name).
		WithConstraint(f.child.Schema, f.child.Name, f.fk.Name)
}

// OrphanError is the 23503 error of ALTER TABLE's validation of the
// foreign key fk of child: row r of rec (child's columns, as
// sql.OrphanRows yields them) has a key no row of parent holds.
func OrphanError(rt *Runtime, child, parent *catalog.TableDef, fk *catalog.ForeignKeyDef, rec arrow.Record, r int) error {
	f := &fkCheck{fk: fk, child: child, parent: parent}
	return f.notPresent(rt, tableKey(child, rec.Columns(), positions(child, fk.Columns)), r)
}

// fkRef is a foreign key seen from the table it references.
type fkRef struct {
	fk            *catalog.ForeignKeyDef
	child, parent *catalog.TableDef
	// childPos and parentPos are the positions of the key's columns.
	childPos, parentPos []int
}

// fkChange is what a statement did to rows of a table other tables'
// foreign keys reference: rows it deleted (new is nil) or rows whose
// referenced key an update changed (old before, new after), for one of
// those foreign keys.
type fkChange struct {
	ref      *fkRef
	old, new keyCols
	// rows are the rows of old (and new) the change is about.
	rows []int
	// release frees the arrays old and new hold.
	release func()
}

// fkIndex maps the key of every row of a foreign key's table to the IDs
// of the rows holding it, as of version gen of that table.
type fkIndex struct {
	rows map[string][]int64
	gen  int
}

// fkActions carries out one statement's referential actions and checks
// the foreign keys that reference the rows it deletes or whose keys it
// changes, as PostgreSQL's RI triggers do at the end of a statement. The
// statement reports its changes (deleted, updated) once written; run then
// applies ON DELETE / ON UPDATE CASCADE, SET NULL and SET DEFAULT to the
// referencing rows, which cascade further in turn (level by level, each
// row once: cycles end), and finally fails with 23503 if a NO ACTION or
// RESTRICT key still has references. The actions act as the tables'
// owner does in PostgreSQL: no privilege is needed and row-level
// security does not hide rows from them.
//
// Referencing rows are found through an index of each foreign key's
// child table, built by one scan of the key columns and kept until the
// statement inserts into that table again, so a statement deleting many
// parents reads each child table about once.
type fkActions struct {
	rt      *Runtime
	refs    map[uint64][]*fkRef
	pending []*fkChange
	checks  []*fkChange
	index   map[*catalog.ForeignKeyDef]*fkIndex
	// gen counts the statement's inserts into each table (index ages);
	// inserted marks the tables it inserted into at all, whose removed
	// keys may have come back.
	gen      map[uint64]int
	inserted map[uint64]bool
	cons     map[uint64]*constraints
	// whole marks the actions of a whole statement headed by
	// data-modifying WITH queries, which run once all of it has (its
	// queries do not see them, as in PostgreSQL).
	whole bool
}

func newFKActions(rt *Runtime) *fkActions {
	return &fkActions{rt: rt, refs: map[uint64][]*fkRef{}, index: map[*catalog.ForeignKeyDef]*fkIndex{},
		gen: map[uint64]int{}, inserted: map[uint64]bool{}, cons: map[uint64]*constraints{}}
}

// statementFKActions returns the referential actions a data-modifying
// statement records its changes in: those of the whole statement when
// it is one of a data-modifying WITH's, else its own. The statement ends
// with done and, deferred, close.
func (rt *Runtime) statementFKActions() *fkActions {
	if rt.wholeFK != nil {
		return rt.wholeFK
	}
	return newFKActions(rt)
}

// done runs the actions of a statement (run), unless they are those of
// a whole statement, which runs them at its end.
func (a *fkActions) done(ctx context.Context) error {
	if a.whole {
		return nil
	}
	return a.run(ctx)
}

// close frees what a statement's actions hold, unless they are those of
// a whole statement.
func (a *fkActions) close() {
	if !a.whole {
		a.release()
	}
}

// referencing lists the foreign keys of the tables (def included) that
// reference def.
func (a *fkActions) referencing(def *catalog.TableDef) []*fkRef {
	if refs, ok := a.refs[def.ID]; ok {
		return refs
	}
	// In the order the tables were made (PostgreSQL fires the triggers
	// of the keys in the order they were made).
	var tables []*catalog.TableDef
	for _, t := range a.rt.Tx.Catalog().Tables {
		tables = append(tables, t)
	}
	slices.SortFunc(tables, func(x, y *catalog.TableDef) int { return cmp.Compare(x.ID, y.ID) })
	var refs []*fkRef
	for _, t := range tables {
		for i := range t.ForeignKeys {
			fk := &t.ForeignKeys[i]
			if fk.RefTable != def.ID {
				continue
			}
			ref := &fkRef{fk: fk, child: t, parent: def, childPos: positions(t, fk.Columns), parentPos: positions(def, fk.RefColumns)}
			if !slices.Contains(ref.childPos, -1) && !slices.Contains(ref.parentPos, -1) {
				refs = append(refs, ref)
			}
		}
	}
	a.refs[def.ID] = refs
	return refs
}

// insertedInto records that the statement inserted rows into def.
func (a *fkActions) insertedInto(def *catalog.TableDef) {
	a.gen[def.ID]++
	a.inserted[def.ID] = true
}

// deleted records that the statement deleted the rows old (def's
// columns) of def.
func (a *fkActions) deleted(def *catalog.TableDef, old arrow.Record) {
	a.deletedRows(def, old.Columns(), int(old.NumRows()))
}

// deletedRows records that the statement deleted n rows of def, whose
// columns cols hold (by position; those no foreign key references may
// be missing).
func (a *fkActions) deletedRows(def *catalog.TableDef, cols []arrow.Array, n int) {
	for _, ref := range a.referencing(def) {
		k := tableKey(def, cols, ref.parentPos)
		var rows []int
		for r := 0; r < n; r++ {
			if _, ok, _ := k.key(r); ok {
				rows = append(rows, r)
			}
		}
		a.add(ref, k, keyCols{}, rows)
	}
}

// updated records that the statement replaced the rows old of def (whose
// first columns are def's) by the rows updated, in the same order.
func (a *fkActions) updated(def *catalog.TableDef, old, updated arrow.Record) {
	a.insertedInto(def)
	for _, ref := range a.referencing(def) {
		ok, nk := tableKey(def, old.Columns(), ref.parentPos), tableKey(def, updated.Columns(), ref.parentPos)
		var rows []int
		for r := 0; r < int(old.NumRows()); r++ {
			if _, full, _ := ok.key(r); full && !ok.same(nk, r) {
				rows = append(rows, r)
			}
		}
		a.add(ref, ok, nk, rows)
	}
}

func (a *fkActions) add(ref *fkRef, old, new keyCols, rows []int) {
	if len(rows) == 0 {
		return
	}
	held := append(append([]arrow.Array{}, old.cols...), new.cols...)
	for _, c := range held {
		c.Retain()
	}
	a.pending = append(a.pending, &fkChange{ref: ref, old: old, new: new, rows: rows, release: func() { releaseAll(held) }})
}

// release frees what the recorded changes hold.
func (a *fkActions) release() {
	for _, c := range a.pending {
		c.release()
	}
	for _, c := range a.checks {
		c.release()
	}
	a.pending, a.checks = nil, nil
}

// run applies the actions the recorded changes call for, then checks the
// NO ACTION and RESTRICT keys. It releases what the changes hold.
func (a *fkActions) run(ctx context.Context) error {
	defer a.release()
	for len(a.pending) > 0 {
		c := a.pending[0]
		a.pending = a.pending[1:]
		action := c.ref.fk.OnDelete
		if c.new.cols != nil {
			action = c.ref.fk.OnUpdate
		}
		if action == catalog.FKNoAction && a.rt.Deferred.deferred(c.ref.child, c.ref.fk) {
			a.rt.Deferred.deferParent(c) // which holds c from now on
			continue
		}
		if action == catalog.FKNoAction || action == catalog.FKRestrict {
			a.checks = append(a.checks, c)
			continue
		}
		err := a.act(ctx, c, action)
		if err == nil && action == catalog.FKSetDefault {
			// A row whose key was the default already still references
			// the key removed: PostgreSQL checks for one right after
			// SET DEFAULT.
			err = a.check(ctx, c)
		}
		c.release()
		if err != nil {
			return err
		}
	}
	for _, c := range a.checks {
		if err := a.check(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// lookup returns the rows of ref's table that reference the keys of
// change c, with their columns at positions columns and their row IDs
// last, and for each the row of c it references.
func (a *fkActions) lookup(ctx context.Context, c *fkChange, columns []int) (arrow.Record, []int, error) {
	idx, err := a.childIndex(ctx, c.ref)
	if err != nil {
		return nil, nil, err
	}
	var ids []int64
	var from []int
	seen := map[int64]bool{} // a row the statement deleted twice (DELETE ... USING) is one
	for _, r := range c.rows {
		k, _, _ := c.old.key(r)
		for _, id := range idx.rows[k] {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
				from = append(from, r)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	// The rows the statement deleted already are left out.
	rec, err := a.rt.Tx.FetchRows(ctx, c.ref.child.ID, columns, ids)
	if err != nil {
		return nil, nil, err
	}
	if rec.NumRows() < int64(len(ids)) {
		got := rec.Column(len(columns)).(*array.Int64)
		kept := from[:0]
		for i, j := 0, 0; i < got.Len(); i++ {
			for ids[j] != got.Value(i) {
				j++
			}
			kept = append(kept, from[j])
			j++
		}
		from = kept
	}
	if rec.NumRows() == 0 {
		rec.Release()
		return nil, nil, nil
	}
	return rec, from, nil
}

// childIndex returns ref's index, built again when the statement inserted
// into the child table since it was last built.
func (a *fkActions) childIndex(ctx context.Context, ref *fkRef) (*fkIndex, error) {
	if idx := a.index[ref.fk]; idx != nil && idx.gen == a.gen[ref.child.ID] {
		return idx, nil
	}
	idx := &fkIndex{rows: map[string][]int64{}, gen: a.gen[ref.child.ID]}
	// Keys of other types than the parent's are indexed as the parent's
	// (the changes looked up carry the parent's).
	ct := make([]types.T, len(ref.childPos))
	pt := make([]types.T, len(ref.parentPos))
	for i, p := range ref.parentPos {
		ct[i], pt[i] = ref.child.Columns[ref.childPos[i]].Type, ref.parent.Columns[p].Type
	}
	convert := !slices.EqualFunc(ct, pt, sameKeyEncoding)
	fn := a.rt.fnCtx()
	err := scanKeys(ctx, a.rt, ref.child, ref.childPos, func(k keyCols, r int, id int64) {
		key, ok, _ := k.key(r)
		if convert {
			key, ok = parentKey(fn, k, r, ct, pt)
		}
		if ok {
			idx.rows[key] = append(idx.rows[key], id)
		}
	})
	if err != nil {
		return nil, err
	}
	a.index[ref.fk] = idx
	return idx, nil
}

// act carries out action (CASCADE, SET NULL, SET DEFAULT) on the rows
// that reference the keys change c removed.
func (a *fkActions) act(ctx context.Context, c *fkChange, action string) error {
	child, tx := c.ref.child, a.rt.Tx
	event, on := "UPDATE", "UPDATE"
	if c.new.cols == nil {
		on = "DELETE"
		if action == catalog.FKCascade {
			event = "DELETE"
		}
	}
	if a.rt.runsTrigger(child, event, func(catalog.TriggerDef) bool { return true }) {
		return pgerr.NotSupported("%s triggers on table %s, whose rows a foreign key's ON %s action changes", event, child.Name, on)
	}
	if action == catalog.FKCascade && c.new.cols == nil {
		// A cascaded delete reads only the keys other foreign keys
		// reference (the deleted rows' own actions).
		var columns []int
		for _, ref := range a.referencing(child) {
			for _, p := range ref.parentPos {
				if !slices.Contains(columns, p) {
					columns = append(columns, p)
				}
			}
		}
		rec, _, err := a.lookup(ctx, c, columns)
		if err != nil || rec == nil {
			return err
		}
		defer rec.Release()
		ids := rec.Column(len(columns)).(*array.Int64).Int64Values()
		if err := tx.Delete(child.ID, ids); err != nil {
			return err
		}
		a.rt.written(child.ID, 0, 0, int64(len(ids)))
		cols := make([]arrow.Array, len(child.Columns))
		for i, p := range columns {
			cols[p] = rec.Column(i)
		}
		a.deletedRows(child, cols, int(rec.NumRows()))
		return nil
	}
	rec, from, err := a.lookup(ctx, c, allPositions(child))
	if err != nil || rec == nil {
		return err
	}
	defer rec.Release()
	ncols := len(child.Columns)
	ids := rec.Column(ncols).(*array.Int64).Int64Values()
	old := tableRecord(child, rec.Columns()[:ncols], rec.NumRows())
	defer old.Release()
	updated, err := a.newRows(ctx, c, action, old, from)
	if err != nil {
		return err
	}
	defer updated.Release()
	cons, err := a.constraints(child)
	if err != nil {
		return err
	}
	if err := tx.Delete(child.ID, ids); err != nil {
		return err
	}
	if err := cons.verifyUpdate(ctx, a.rt, updated, old); err != nil {
		return err
	}
	if err := tx.Insert(child.ID, updated); err != nil {
		return err
	}
	a.rt.written(child.ID, 0, updated.NumRows(), 0)
	a.updated(child, old, updated)
	return nil
}

// constraints are the checks of def's new rows (no row-level security:
// the actions run as the table's owner).
func (a *fkActions) constraints(def *catalog.TableDef) (*constraints, error) {
	if c := a.cons[def.ID]; c != nil {
		return c, nil
	}
	c, err := newConstraints(a.rt, def, nil)
	if err != nil {
		return nil, err
	}
	a.cons[def.ID] = c
	return c, nil
}

// newRows computes the referencing rows old after action: the key
// columns (for ON DELETE SET, those its column list names) NULL, their
// DEFAULT, or with ON UPDATE CASCADE the new key of the row of c each
// references (from).
func (a *fkActions) newRows(ctx context.Context, c *fkChange, action string, old arrow.Record, from []int) (arrow.Record, error) {
	child, fk := c.ref.child, c.ref.fk
	cols := make([]arrow.Array, len(child.Columns))
	defer releaseAll(cols)
	for i, p := range c.ref.childPos {
		if action != catalog.FKCascade && c.new.cols == nil && len(fk.DeleteSetColumns) > 0 && !slices.Contains(fk.DeleteSetColumns, fk.Columns[i]) {
			continue
		}
		col := child.Columns[p]
		switch action {
		case catalog.FKSetDefault:
			e, err := sql.BindColumnDefault(a.rt.Tx.Catalog(), child, p)
			if err != nil {
				return nil, err
			}
			if cols[p], err = Eval(ctx, a.rt, e, old); err != nil {
				return nil, err
			}
		default:
			b := types.NewBuilder(memory.DefaultAllocator, col.Type)
			for _, r := range from {
				if action == catalog.FKSetNull {
					b.AppendNull()
					continue
				}
				if err := types.AppendValue(b, types.ValueAt(c.new.cols[i], r, c.new.types[i]), col.Type); err != nil {
					b.Release()
					return nil, err
				}
			}
			cols[p] = b.NewArray()
			b.Release()
		}
	}
	for p := range cols {
		if cols[p] == nil {
			cols[p] = old.Column(p)
			cols[p].Retain()
		}
	}
	// The generated columns follow the key columns the action changed.
	gen, err := sql.BindGenerated(a.rt.Tx.Catalog(), child)
	if err != nil {
		return nil, err
	}
	return generateColumns(ctx, a.rt, child, gen, tableRecord(child, cols, old.NumRows()))
}

// check fails with 23503 when a row of ref's table still references a
// key that change c removed (NO ACTION, RESTRICT), after every action of
// the statement. Under NO ACTION a key the statement wrote again (another
// row updated to it) keeps its references.
func (a *fkActions) check(ctx context.Context, c *fkChange) error {
	ref := c.ref
	var present map[string]bool
	if ref.fk.OnDelete == catalog.FKNoAction && c.new.cols == nil || ref.fk.OnUpdate == catalog.FKNoAction && c.new.cols != nil {
		if a.inserted[ref.parent.ID] {
			var err error
			if present, err = loadKeys(ctx, a.rt, ref.parent, ref.parentPos); err != nil {
				return err
			}
		}
	}
	idx, err := a.childIndex(ctx, ref)
	if err != nil {
		return err
	}
	for _, r := range c.rows {
		k, _, _ := c.old.key(r)
		ids := idx.rows[k]
		if len(ids) == 0 || present[k] {
			continue
		}
		live, err := a.rt.Tx.FetchRows(ctx, ref.child.ID, nil, ids)
		if err != nil {
			return err
		}
		n := live.NumRows()
		live.Release()
		if n > 0 {
			return pgerr.New(pgerrcode.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", ref.parent.Name, ref.fk.Name, ref.child.Name).
				WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", strings.Join(c.old.names, ", "), c.old.text(r, a.rt.textOptions()), ref.child.Name).
				WithConstraint(ref.child.Schema, ref.child.Name, ref.fk.Name)
		}
	}
	return nil
}
