package storage

import (
	"math"
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// DDL changes a transaction's private copy of the catalog. Each change is
// kept as an operation so that Commit can replay them on the newest
// catalog when another transaction committed DDL meanwhile; a change that
// no longer applies (a name taken, a table altered concurrently) fails the
// commit.

// ddlOp applies one DDL change to c (a private clone).
type ddlOp func(c *catalog.Catalog) error

// apply runs op on a clone of the transaction's catalog and keeps it.
func (tx *Tx) apply(op ddlOp) error {
	if err := tx.check(); err != nil {
		return err
	}
	c := tx.cat.Clone()
	if err := op(c); err != nil {
		return err
	}
	tx.cat = c
	tx.ops = append(tx.ops, op)
	return nil
}

// condGroup is a run of ops [start, end) that created an object IF NOT
// EXISTS, or with drop dropped one IF EXISTS: schema (name "") or
// relation schema.name, and the table they created (0: none).
type condGroup struct {
	start, end   int
	schema, name string
	table        uint64
	drop         bool
}

// exists reports whether the group's object exists in c.
func (g *condGroup) exists(c *catalog.Catalog) bool {
	if g.name == "" {
		return c.Schemas[g.schema] != nil
	}
	return c.RelationExists(g.schema, g.name)
}

// IfNotExists runs create, which creates the schema (name "") or the
// relation schema.name as CREATE ... IF NOT EXISTS does and returns the
// ID of the table it created (0 if none). Should another transaction
// create the same object before this one commits, the commit skips these
// changes instead of failing on the name — unless this transaction wrote
// rows to the table they created, which would then be lost, and the
// commit fails as before. Concurrent agents that each make sure their
// tables exist at start-up thus all succeed.
func (tx *Tx) IfNotExists(schema, name string, create func() (uint64, error)) error {
	start := len(tx.ops)
	table, err := create()
	if err != nil {
		return err
	}
	tx.conds = append(tx.conds, condGroup{start: start, end: len(tx.ops), schema: schema, name: name, table: table})
	return nil
}

// IfExists runs drop, which drops the schema (name "") or the relation
// schema.name as DROP ... IF EXISTS does. Should another transaction drop
// the same object before this one commits, the commit skips these
// changes instead of failing on the missing name, as PostgreSQL's DROP
// IF EXISTS, having waited for the other's lock, finds the object gone
// and skips it. Concurrent clean-ups of one object thus all succeed.
func (tx *Tx) IfExists(schema, name string, drop func() error) error {
	start := len(tx.ops)
	if err := drop(); err != nil {
		return err
	}
	tx.conds = append(tx.conds, condGroup{start: start, end: len(tx.ops), schema: schema, name: name, drop: true})
	return nil
}

// replayOps applies the transaction's DDL to c, the newest catalog,
// skipping IF NOT EXISTS creations whose object now exists and IF EXISTS
// drops whose object is gone.
func (tx *Tx) replayOps(c *catalog.Catalog) error {
	g := 0
	for i := 0; i < len(tx.ops); i++ {
		for g < len(tx.conds) && tx.conds[g].end <= i {
			g++
		}
		if g < len(tx.conds) && tx.conds[g].start == i {
			grp := tx.conds[g]
			if grp.drop && !grp.exists(c) {
				i = grp.end - 1
				continue
			}
			if !grp.drop && grp.exists(c) && (grp.table == 0 || tx.tables[grp.table] == nil) {
				i = grp.end - 1
				continue
			}
		}
		if err := tx.ops[i](c); err != nil {
			return err
		}
	}
	return nil
}

func schemaMissing(name string) error {
	return pgerr.New(pgerrcode.InvalidSchemaName, "schema %q does not exist", name)
}

func relationExistsErr(name string) error {
	return pgerr.New(pgerrcode.DuplicateTable, "relation %q already exists", name)
}

// CreateSchema creates a schema owned by the role with OID owner (42P06
// if it exists).
func (tx *Tx) CreateSchema(name string, owner uint32) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[name] != nil {
			return pgerr.New(pgerrcode.DuplicateSchema, "schema %q already exists", name)
		}
		c.Schemas[name] = &catalog.SchemaDef{Name: name, Owner: owner}
		return nil
	})
}

// AlterSchema replaces the owner and ACL of the schema def names (3F000
// if it is gone). A schema another transaction changed since this one
// read it fails the commit with 40001 instead of losing that change.
func (tx *Tx) AlterSchema(def *catalog.SchemaDef) error {
	var seen catalog.SchemaDef
	if s := tx.cat.Schemas[def.Name]; s != nil {
		seen = *s
	}
	d := *def
	d.ACL = slices.Clone(def.ACL)
	return tx.apply(func(c *catalog.Catalog) error {
		cur := c.Schemas[d.Name]
		if cur == nil {
			return schemaMissing(d.Name)
		}
		if !reflect.DeepEqual(*cur, seen) {
			return serializationFailure()
		}
		n := d
		n.ACL = slices.Clone(d.ACL)
		c.Schemas[d.Name] = &n
		return nil
	})
}

// DropSchema drops a schema (3F000 if missing). With cascade it drops the
// tables, sequences, indexes, views and types in it; without, a schema
// that holds any is 2BP01.
func (tx *Tx) DropSchema(name string, cascade bool) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[name] == nil {
			return schemaMissing(name)
		}
		var tables []uint64
		for id, t := range c.Tables {
			if t.Schema == name {
				tables = append(tables, id)
			}
		}
		var seqs, idxs []string
		for k, s := range c.Sequences {
			if s.Schema == name {
				seqs = append(seqs, k)
			}
		}
		for k, ix := range c.Indexes {
			if ix.Schema == name {
				idxs = append(idxs, k)
			}
		}
		for k, v := range c.Views {
			if v.Schema == name {
				idxs = append(idxs, k)
			}
		}
		var typs []string
		for k, t := range c.Types {
			if t.Schema == name {
				typs = append(typs, k)
			}
		}
		if !cascade && len(tables)+len(seqs)+len(idxs)+len(typs) > 0 {
			return pgerr.New(pgerrcode.DependentObjectsStillExist,
				"cannot drop schema %s because other objects depend on it", name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		for _, id := range tables {
			dropTable(c, id)
		}
		for _, k := range seqs {
			delete(c.Sequences, k)
		}
		for _, k := range idxs {
			delete(c.Indexes, k)
			delete(c.Views, k)
		}
		for _, k := range typs {
			if t, col := catalog.TypeUser(c, c.Types[k]); t != nil {
				return pgerr.NotSupported("DROP SCHEMA ... CASCADE of type %s, which column %s of table %s.%s in another schema has (drop the column first)",
					c.Types[k].Name, col, t.Schema, t.Name)
			}
			delete(c.Types, k)
		}
		delete(c.Schemas, name)
		return nil
	})
}

// checkColumns assigns IDs to columns with ID 0 and checks names and types
// (shared by CreateTable and AlterTable).
func checkColumns(def *catalog.TableDef) error {
	next := max(def.NextColumnID, 1)
	seen := map[string]bool{}
	ids := map[int]bool{}
	for _, col := range def.Columns {
		next = max(next, col.ID+1)
	}
	for i := range def.Columns {
		col := &def.Columns[i]
		if col.Name == catalog.RowIDColumn {
			return pgerr.New(pgerrcode.DuplicateColumn, "column name %q conflicts with a system column name", col.Name)
		}
		if seen[col.Name] {
			return pgerr.New(pgerrcode.DuplicateColumn, "column %q specified more than once", col.Name)
		}
		seen[col.Name] = true
		if col.ID == 0 {
			col.ID = next
			next++
		}
		if ids[col.ID] {
			return pgerr.New(pgerrcode.DuplicateColumn, "column ID %d of %q used twice", col.ID, col.Name)
		}
		ids[col.ID] = true
		if _, err := parquetNode(col.Type.Arrow()); err != nil || col.Type.Arrow() == arrow.Null {
			return pgerr.New(pgerrcode.FeatureNotSupported, "column %q cannot have type %s", col.Name, col.Type)
		}
	}
	def.NextColumnID = next
	return nil
}

// CreateTable creates a table and returns its definition with the table ID
// and column IDs assigned. Columns with ID 0 get the next free IDs in
// order, so in a new table whose columns all have ID 0 the column at
// position i gets ID i+1 (which PrimaryKey and Uniques may already use).
// Errors: 3F000 unknown schema, 42P07 name taken, 42701 duplicate column.
func (tx *Tx) CreateTable(def *catalog.TableDef) (*catalog.TableDef, error) {
	d := def.Clone()
	if err := checkColumns(d); err != nil {
		return nil, err
	}
	id, err := tx.db.newTableID()
	if err != nil {
		return nil, err
	}
	d.ID = id
	err = tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		if c.RelationExists(d.Schema, d.Name) {
			return relationExistsErr(d.Name)
		}
		c.Tables[d.ID] = d.Clone()
		c.NextID = max(c.NextID, d.ID+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d.Clone(), nil
}

// AlterTable replaces a table's definition (same ID): add, drop or rename
// columns, rename the table, move it to another schema, change
// constraints. New columns (ID 0) get fresh IDs from NextColumnID; a
// column's Arrow type cannot change (0A000: add a new column instead). A
// new unique constraint is checked against the rows the transaction sees
// (23505 "could not create unique index").
func (tx *Tx) AlterTable(def *catalog.TableDef) error {
	if err := tx.check(); err != nil {
		return err
	}
	old := tx.cat.Tables[def.ID]
	if old == nil {
		return undefinedTableID(def.ID)
	}
	// Another open transaction's DDL fences the table (fenceWrites): this
	// one fails first (a fencedError, which an autocommit statement waits
	// out and runs again), as PostgreSQL's would wait for that ALTER's
	// lock. Going ahead, a fill of the rows that one updated waited for
	// its row locks, and its own fence then failed the first ALTER's
	// commit with 40001, so that the later ALTER won.
	if err := tx.fencedOut(def.ID); err != nil {
		return err
	}
	for _, fk := range newForeignKeys(old, def) {
		// The referenced table too: this ALTER's fence on it would fail
		// the other's commit in the same way.
		if err := tx.fencedOut(fk.RefTable); err != nil {
			return err
		}
	}
	d := def.Clone()
	d.NextColumnID = max(d.NextColumnID, old.NextColumnID)
	if err := checkColumns(d); err != nil {
		return err
	}
	for _, col := range d.Columns {
		if _, oc := old.ColumnByID(col.ID); oc != nil && !arrow.TypeEqual(oc.Type.Arrow(), col.Type.Arrow()) {
			return pgerr.New(pgerrcode.FeatureNotSupported, "changing the type of column %q from %s to %s is not supported",
				col.Name, oc.Type, col.Type)
		}
	}
	expect := old.Clone()
	if err := tx.apply(func(c *catalog.Catalog) error {
		cur := c.Tables[d.ID]
		if cur == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", expect.Name)
		}
		if !tableDefsEqual(cur, expect) {
			return serializationFailure()
		}
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		if (d.Schema != cur.Schema || d.Name != cur.Name) && c.RelationExists(d.Schema, d.Name) {
			return relationExistsErr(d.Name)
		}
		c.Tables[d.ID] = d.Clone()
		return nil
	}); err != nil {
		return err
	}
	if rulesAdded(old, d) {
		tx.fenceWrites(d.ID, d.Schema)
	}
	for _, fk := range newForeignKeys(old, d) {
		if ref := tx.cat.Tables[fk.RefTable]; ref != nil {
			tx.fenceWrites(ref.ID, ref.Schema)
		}
	}
	return tx.checkNewConstraints(d.ID, old)
}

// FenceWrites makes other transactions' writes to table id fail to
// commit until tx ends, as DDL that gives the table a rule does: ALTER
// COLUMN ... TYPE computes a column's new values from the rows tx sees
// only.
func (tx *Tx) FenceWrites(id uint64) {
	if def := tx.cat.Tables[id]; def != nil {
		tx.fenceWrites(id, def.Schema)
	}
}

// fenceWrites makes other transactions' writes to table id (in schema)
// fail to commit until tx ends: tx gave it a rule (rulesAdded), or another
// table a foreign key referencing it, that its fill or validation applies
// to the rows tx sees only.
func (tx *Tx) fenceWrites(id uint64, schema string) {
	rt := tx.db.rt(id, schema)
	if !slices.Contains(tx.ruleTables, rt) {
		rt.fence.raise(tx)
		tx.ruleTables = append(tx.ruleTables, rt)
	}
}

// checkNewConstraints validates the data of table id against unique rules
// it did not have in old (nil: none), rolling back the last DDL op on
// failure.
func (tx *Tx) checkNewConstraints(id uint64, old *catalog.TableDef) error {
	def := tx.cat.Tables[id]
	had := map[string]bool{}
	if old != nil {
		for _, con := range constraintsOf(tx.catBeforeLastOp(), old) {
			had[con.sig()] = true
		}
	}
	tt := tx.table(id)
	for _, con := range constraintsOf(tx.cat, def) {
		if had[con.sig()] {
			continue
		}
		delete(tt.local, con.sig())
		if _, err := tx.localIndex(def, tt, con, true); err != nil {
			tx.undoLastOp()
			return err
		}
	}
	return nil
}

// catBeforeLastOp is the catalog before the newest DDL op.
func (tx *Tx) catBeforeLastOp() *catalog.Catalog {
	c := tx.snap.cat.Clone()
	for _, op := range tx.ops[:len(tx.ops)-1] {
		if op(c) != nil {
			return tx.cat
		}
	}
	return c
}

// undoLastOp removes the newest DDL op.
func (tx *Tx) undoLastOp() {
	tx.cat = tx.catBeforeLastOp()
	tx.truncateOps(len(tx.ops) - 1)
}

// truncateOps forgets the DDL ops from n on, and the IF NOT EXISTS groups
// that hold them.
func (tx *Tx) truncateOps(n int) {
	tx.ops = tx.ops[:n]
	for len(tx.conds) > 0 && tx.conds[len(tx.conds)-1].end > n {
		tx.conds = tx.conds[:len(tx.conds)-1]
	}
}

func serializationFailure() error {
	return pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update")
}

// dropTable removes table id and its indexes from c.
func dropTable(c *catalog.Catalog, id uint64) {
	delete(c.Tables, id)
	for k, ix := range c.Indexes {
		if ix.Table == id {
			delete(c.Indexes, k)
		}
	}
}

// DropTable drops a table and its indexes (42P01 if missing).
func (tx *Tx) DropTable(id uint64) error {
	def := tx.cat.Tables[id]
	if def == nil {
		return undefinedTableID(id)
	}
	// As for AlterTable: another transaction's open DDL on the table is
	// waited for, not made to fail at its commit.
	if err := tx.fencedOut(id); err != nil {
		return err
	}
	name := def.Name
	if err := tx.apply(func(c *catalog.Catalog) error {
		if c.Tables[id] == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", name)
		}
		dropTable(c, id)
		return nil
	}); err != nil {
		return err
	}
	delete(tx.tables, id)
	return nil
}

// normalizeSequence fills in PostgreSQL's defaults: increment 1; when both
// Min and Max are 0, 1..MaxInt64 ascending or MinInt64..-1 descending;
// Start 0 means Min (ascending) or Max (descending).
func normalizeSequence(s *catalog.SequenceDef) error {
	if s.Increment == 0 {
		s.Increment = 1
	}
	if s.Min == 0 && s.Max == 0 {
		if s.Increment > 0 {
			s.Min, s.Max = 1, math.MaxInt64
		} else {
			s.Min, s.Max = math.MinInt64, -1
		}
	}
	if s.Start == 0 {
		if s.Increment > 0 {
			s.Start = s.Min
		} else {
			s.Start = s.Max
		}
	}
	if s.Min >= s.Max {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", s.Min, s.Max)
	}
	if s.Start < s.Min {
		return pgerr.New(pgerrcode.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", s.Start, s.Min)
	}
	if s.Start > s.Max {
		return pgerr.New(pgerrcode.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", s.Start, s.Max)
	}
	return nil
}

// CreateSequence creates a sequence (42P07 if the name is taken). Zero
// fields get PostgreSQL's defaults (see normalizeSequence).
func (tx *Tx) CreateSequence(def *catalog.SequenceDef) error {
	d := *def
	if err := normalizeSequence(&d); err != nil {
		return err
	}
	if err := tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		if c.RelationExists(d.Schema, d.Name) {
			return relationExistsErr(d.Name)
		}
		s := d
		c.Sequences[catalog.Key(d.Schema, d.Name)] = &s
		return nil
	}); err != nil {
		return err
	}
	tx.seqs[catalog.Key(d.Schema, d.Name)] = &seqTxState{last: d.Start}
	return nil
}

// SetSequenceACL replaces the ACL of a sequence (42P01 if missing).
func (tx *Tx) SetSequenceACL(schema, name string, acl []catalog.ACLItem) error {
	key := catalog.Key(schema, name)
	return tx.apply(func(c *catalog.Catalog) error {
		old := c.Sequences[key]
		if old == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "sequence %q does not exist", name)
		}
		s := *old
		s.ACL = acl
		c.Sequences[key] = &s
		return nil
	})
}

// SetDefaultACLs replaces the catalog's ALTER DEFAULT PRIVILEGES entries.
func (tx *Tx) SetDefaultACLs(acls []catalog.DefaultACL) error {
	return tx.apply(func(c *catalog.Catalog) error {
		c.DefaultACLs = append([]catalog.DefaultACL(nil), acls...)
		return nil
	})
}

// DropSequence drops a sequence (42P01 if missing).
func (tx *Tx) DropSequence(schema, name string) error {
	key := catalog.Key(schema, name)
	if err := tx.apply(func(c *catalog.Catalog) error {
		if c.Sequences[key] == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "sequence %q does not exist", name)
		}
		delete(c.Sequences, key)
		return nil
	}); err != nil {
		return err
	}
	delete(tx.seqs, key)
	return nil
}

// CreateIndex records an index (42P07 if the name is taken, 42P01 if the
// table is missing). A unique index is enforced like a UNIQUE constraint
// and checked against the existing rows.
func (tx *Tx) CreateIndex(def *catalog.IndexDef) error {
	d := def.Clone()
	if err := tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		t := c.Tables[d.Table]
		if t == nil {
			return undefinedTableID(d.Table)
		}
		if c.RelationExists(d.Schema, d.Name) {
			return relationExistsErr(d.Name)
		}
		for _, id := range d.Columns {
			if i, _ := t.ColumnByID(id); i < 0 {
				return pgerr.New(pgerrcode.UndefinedColumn, "column with ID %d of %q does not exist", id, t.Name)
			}
		}
		c.Indexes[catalog.Key(d.Schema, d.Name)] = d.Clone()
		return nil
	}); err != nil {
		return err
	}
	if d.Unique {
		return tx.checkNewConstraints(d.Table, tx.catBeforeLastOp().Tables[d.Table])
	}
	return nil
}

// RenameIndex renames an index (42704 if missing, 42P07 if the new name
// is taken by a relation of the schema).
func (tx *Tx) RenameIndex(schema, name, newName string) error {
	key := catalog.Key(schema, name)
	return tx.apply(func(c *catalog.Catalog) error {
		ix := c.Indexes[key]
		switch {
		case ix == nil:
			return pgerr.New(pgerrcode.UndefinedObject, "index %q does not exist", name)
		case c.RelationExists(schema, newName):
			return relationExistsErr(newName)
		}
		renamed := ix.Clone()
		renamed.Name = newName
		delete(c.Indexes, key)
		c.Indexes[catalog.Key(schema, newName)] = renamed
		return nil
	})
}

// DropIndex drops an index (42704 if missing).
func (tx *Tx) DropIndex(schema, name string) error {
	key := catalog.Key(schema, name)
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Indexes[key] == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "index %q does not exist", name)
		}
		delete(c.Indexes, key)
		return nil
	})
}

// CreateView creates a view, or with replace replaces a view of that name
// (42P07 when another kind of relation has it).
func (tx *Tx) CreateView(def *catalog.ViewDef, replace bool) error {
	d := *def
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		if c.RelationExists(d.Schema, d.Name) && !(replace && c.View(d.Schema, d.Name) != nil) {
			return relationExistsErr(d.Name)
		}
		v := d
		if old := c.View(d.Schema, d.Name); old != nil {
			keepViewComments(&v, old)
		}
		c.Views[catalog.Key(d.Schema, d.Name)] = &v
		return nil
	})
}

// keepViewComments gives v, replacing view old, old's comments: on the
// view, and on each column v keeps by position, as PostgreSQL's CREATE OR
// REPLACE VIEW keeps the view's pg_description rows.
func keepViewComments(v, old *catalog.ViewDef) {
	v.Comment = old.Comment
	v.Columns = slices.Clone(v.Columns)
	for i := range v.Columns {
		if i < len(old.Columns) {
			v.Columns[i].Comment = old.Columns[i].Comment
		}
	}
}

// CommentOnView sets the comment on view schema.name, or with column on
// that column of it ("" removes it; 42P01, 42703 when gone).
func (tx *Tx) CommentOnView(schema, name, column, text string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		old := c.View(schema, name)
		if old == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", name)
		}
		v := *old
		v.Columns = slices.Clone(old.Columns)
		if column == "" {
			v.Comment = text
		} else {
			i := slices.IndexFunc(v.Columns, func(col catalog.ColumnDef) bool { return col.Name == column })
			if i < 0 {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, name)
			}
			v.Columns[i].Comment = text
		}
		c.Views[catalog.Key(schema, name)] = &v
		return nil
	})
}

// RenameView renames view schema.name to newSchema.newName (ALTER VIEW
// ... RENAME TO or SET SCHEMA; 42P01 if missing, 42P07 when another
// relation has that name).
func (tx *Tx) RenameView(schema, name, newSchema, newName string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		old := c.View(schema, name)
		switch {
		case old == nil:
			return pgerr.New(pgerrcode.UndefinedTable, "view %q does not exist", name)
		case c.Schemas[newSchema] == nil:
			return schemaMissing(newSchema)
		case c.RelationExists(newSchema, newName) && schema != newSchema:
			return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", newName, newSchema)
		case c.RelationExists(newSchema, newName):
			return relationExistsErr(newName)
		}
		v := *old
		v.Schema, v.Name = newSchema, newName
		delete(c.Views, catalog.Key(schema, name))
		c.Views[catalog.Key(newSchema, newName)] = &v
		return nil
	})
}

// DropView drops a view (42P01 if missing).
func (tx *Tx) DropView(schema, name string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if c.View(schema, name) == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "view %q does not exist", name)
		}
		delete(c.Views, catalog.Key(schema, name))
		return nil
	})
}

// SetComment sets the comment on the object target names ("" removes
// it): an index, sequence, type, constraint, trigger, role, the database
// or an extension (42704 when it is gone by now).
func (tx *Tx) SetComment(target catalog.CommentTarget, text string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if !c.SetComment(target, text) {
			return pgerr.New(pgerrcode.UndefinedObject, "object \"%s\" does not exist", target.Name)
		}
		return nil
	})
}
