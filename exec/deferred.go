package exec

import (
	"context"
	"maps"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage"
)

// DeferredChecks are the foreign key checks one transaction puts off
// until it commits, as PostgreSQL's deferred RI triggers: the checks of
// DEFERRABLE constraints that are INITIALLY DEFERRED or were deferred by
// SET CONSTRAINTS. A deferred check of new child rows queues their keys;
// a deferred NO ACTION check of parent rows deleted or re-keyed queues
// the keys removed (RESTRICT and the referential actions never wait).
// At COMMIT, or when SET CONSTRAINTS makes a constraint IMMEDIATE, the
// queued checks run against the rows as the transaction then sees them:
// a child row deleted or re-keyed since is not checked, a parent key put
// back since satisfies its references.
//
// A session keeps one; a Runtime without it (nil) checks at once.
type DeferredChecks struct {
	tx *storage.Tx
	// all is SET CONSTRAINTS ALL's mode (true: deferred); nil until one
	// is given. modes are the modes set for constraints by name since.
	all   *bool
	modes map[sql.ConstraintRef]bool
	// children and parents are the checks queued, in order; fired numbers
	// the run that checked each (0: not yet), so that ROLLBACK TO can
	// make those of the runs it undoes pending again.
	children []*deferredChild
	parents  []*deferredParent
	firing   int
}

// deferredChild is the deferred check of rows written into a child
// table: the rows rows of keys, their keys, under constraint ref.
type deferredChild struct {
	ref   sql.ConstraintRef
	keys  keyCols
	rows  []int
	fired int
}

// deferredParent is the deferred NO ACTION check of referenced keys a
// statement removed, under constraint ref.
type deferredParent struct {
	ref    sql.ConstraintRef
	change *fkChange
	fired  int
}

// DeferredMark is where a transaction's deferred checks stood at a
// savepoint.
type DeferredMark struct {
	children, parents, firing int
	all                       *bool
	modes                     map[sql.ConstraintRef]bool
}

// For makes d the deferred checks of tx, dropping those of any earlier
// transaction.
func (d *DeferredChecks) For(tx *storage.Tx) *DeferredChecks {
	if d.tx != tx {
		d.release()
		*d = DeferredChecks{tx: tx}
	}
	return d
}

// Pending reports whether d holds checks of tx not yet run.
func (d *DeferredChecks) Pending(tx *storage.Tx) bool {
	if d.tx != tx {
		return false
	}
	for _, c := range d.children {
		if c.fired == 0 {
			return true
		}
	}
	for _, p := range d.parents {
		if p.fired == 0 {
			return true
		}
	}
	return false
}

// PendingOn reports whether a check not yet run waits on rows of table
// (new rows of a child, keys removed from a parent), which PostgreSQL
// counts as pending trigger events of the table.
func (d *DeferredChecks) PendingOn(tx *storage.Tx, table uint64) bool {
	if d.tx != tx {
		return false
	}
	for _, c := range d.children {
		if c.fired == 0 && c.ref.Table == table {
			return true
		}
	}
	for _, p := range d.parents {
		if p.fired == 0 && p.change.ref.parent.ID == table {
			return true
		}
	}
	return false
}

// deferred reports whether the checks of fk, a foreign key of child,
// wait for the end of the transaction now.
func (d *DeferredChecks) deferred(child *catalog.TableDef, fk *catalog.ForeignKeyDef) bool {
	if d == nil || !fk.Deferrable {
		return false
	}
	if mode, ok := d.modes[sql.ConstraintRef{Table: child.ID, Name: fk.Name}]; ok {
		return mode
	}
	if d.all != nil {
		return *d.all
	}
	return fk.InitiallyDeferred
}

// deferChild queues the check of rows rows of keys, new keys of
// constraint name on table.
func (d *DeferredChecks) deferChild(table uint64, name string, keys keyCols, rows []int) {
	for _, c := range keys.cols {
		c.Retain()
	}
	keys.cols = append([]arrow.Array(nil), keys.cols...)
	d.children = append(d.children, &deferredChild{ref: sql.ConstraintRef{Table: table, Name: name}, keys: keys, rows: append([]int(nil), rows...)})
}

// deferParent queues the NO ACTION check of change c, which d then
// holds (and releases).
func (d *DeferredChecks) deferParent(c *fkChange) {
	d.parents = append(d.parents, &deferredParent{ref: sql.ConstraintRef{Table: c.ref.child.ID, Name: c.ref.fk.Name}, change: c})
}

// Set applies SET CONSTRAINTS x. It does not run the checks IMMEDIATE
// calls for: Check does.
func (d *DeferredChecks) Set(x *sql.SetConstraints) {
	if x.All {
		mode := x.Deferred
		d.all, d.modes = &mode, nil
		return
	}
	if d.modes == nil {
		d.modes = map[sql.ConstraintRef]bool{}
	}
	for _, ref := range x.Targets {
		d.modes[ref] = x.Deferred
	}
}

// Mark is where the checks stand, for a savepoint.
func (d *DeferredChecks) Mark() DeferredMark {
	return DeferredMark{children: len(d.children), parents: len(d.parents), firing: d.firing, all: d.all, modes: maps.Clone(d.modes)}
}

// RollbackTo undoes what happened to the checks since mark m: the checks
// queued since are dropped, those run since are pending again, and SET
// CONSTRAINTS' modes are those of the savepoint, as PostgreSQL restores
// them at a subtransaction's abort.
func (d *DeferredChecks) RollbackTo(m DeferredMark) {
	for _, c := range d.children[m.children:] {
		releaseAll(c.keys.cols)
	}
	for _, p := range d.parents[m.parents:] {
		p.change.release()
	}
	d.children, d.parents = d.children[:m.children], d.parents[:m.parents]
	for _, c := range d.children {
		if c.fired > m.firing {
			c.fired = 0
		}
	}
	for _, p := range d.parents {
		if p.fired > m.firing {
			p.fired = 0
		}
	}
	d.all, d.modes = m.all, maps.Clone(m.modes)
}

// Check runs the queued checks of the constraints no longer deferred (at
// SET CONSTRAINTS ... IMMEDIATE), or with all every queued check (at
// COMMIT), through rt, whose snapshot is the transaction's latest. The
// first violation is the error (23503).
func (d *DeferredChecks) Check(ctx context.Context, rt *Runtime, all bool) error {
	d.firing++
	cat := rt.Tx.Catalog()
	checks := map[sql.ConstraintRef]*fkCheck{}
	for _, c := range d.children {
		if c.fired != 0 {
			continue
		}
		child, fk := foreignKeyNamed(cat, c.ref)
		if fk == nil || !all && d.deferred(child, fk) {
			if fk == nil {
				c.fired = d.firing // its table or constraint was dropped since
			}
			continue
		}
		c.fired = d.firing
		f := checks[c.ref]
		if f == nil {
			f = &fkCheck{fk: fk, child: child, parent: cat.Tables[fk.RefTable], deferred: true}
			checks[c.ref] = f
		}
		if f.parent == nil {
			continue
		}
		if err := f.verifyKeys(ctx, rt, nil, c.keys, positions(f.parent, fk.RefColumns), c.rows); err != nil {
			return err
		}
	}
	a := newFKActions(rt)
	for _, p := range d.parents {
		if p.fired != 0 {
			continue
		}
		child, fk := foreignKeyNamed(cat, p.ref)
		if fk == nil || !all && d.deferred(child, fk) {
			if fk == nil {
				p.fired = d.firing
			}
			continue
		}
		p.fired = d.firing
		parent := cat.Tables[fk.RefTable]
		if parent == nil {
			continue
		}
		ref := &fkRef{fk: fk, child: child, parent: parent, childPos: positions(child, fk.Columns), parentPos: positions(parent, fk.RefColumns)}
		// A key put back since (by any statement of the transaction)
		// keeps its references.
		a.inserted[parent.ID] = true
		change := *p.change
		change.ref = ref
		if err := a.check(ctx, &change); err != nil {
			return err
		}
	}
	return nil
}

// foreignKeyNamed finds the foreign key ref names in cat (nil when its
// table or the constraint is gone).
func foreignKeyNamed(cat *catalog.Catalog, ref sql.ConstraintRef) (*catalog.TableDef, *catalog.ForeignKeyDef) {
	t := cat.Tables[ref.Table]
	if t == nil {
		return nil, nil
	}
	for i := range t.ForeignKeys {
		if t.ForeignKeys[i].Name == ref.Name {
			return t, &t.ForeignKeys[i]
		}
	}
	return t, nil
}

// release frees what the queued checks hold.
func (d *DeferredChecks) release() {
	for _, c := range d.children {
		releaseAll(c.keys.cols)
	}
	for _, p := range d.parents {
		p.change.release()
	}
}
