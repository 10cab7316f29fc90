package session

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/storage"
)

// runDDL carries out a bound DDL statement in tx (CREATE TABLE AS, whose
// tag counts rows, runs through createTableAs).
func (s *Session) runDDL(ctx context.Context, tx *storage.Tx, bound sql.Statement) error {
	switch x := bound.(type) {
	case *sql.CreateRole, *sql.AlterRole, *sql.RenameRole, *sql.AlterRoleSet, *sql.DropRole, *sql.GrantRole:
		return s.runRole(tx, x)
	case *sql.GrantPrivileges:
		return s.runGrant(tx, x)
	case *sql.AlterDefaultPrivileges:
		return s.runDefaultPrivileges(tx, x)
	case *sql.CreatePolicy, *sql.AlterPolicy, *sql.DropPolicy:
		return s.runPolicy(tx, x)
	case *sql.CreateEnum, *sql.AlterType, *sql.DropType:
		return s.runEnum(ctx, tx, x)
	case *sql.CreateDomain, *sql.AlterDomain:
		return s.runDomain(ctx, tx, x)
	case *sql.AlterSchemaOwner:
		cat := tx.Catalog()
		sc := cat.Schemas[x.Name]
		if sc == nil {
			return pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", x.Name)
		}
		d := *sc
		var err error
		if d.Owner, d.ACL, err = s.changeOwner(cat, "schema", x.Name, sc.Owner, sc.ACL, x.Owner, nil); err != nil {
			return err
		}
		return tx.AlterSchema(&d)
	case *sql.AlterRelationOwner:
		cat := tx.Catalog()
		if seq := x.Sequence; seq != nil {
			d := *seq
			var err error
			if d.Owner, d.ACL, err = s.changeOwner(cat, "sequence", d.Name, d.Owner, d.ACL, x.Owner, cat.Schemas[d.Schema]); err != nil {
				return err
			}
			return tx.ReplaceSequence(&d)
		}
		d := *x.View
		var err error
		if d.Owner, d.ACL, err = s.changeOwner(cat, "view", d.Name, d.Owner, d.ACL, x.Owner, cat.Schemas[d.Schema]); err != nil {
			return err
		}
		return tx.CreateView(&d, true)
	case *sql.CreateSchema:
		if strings.HasPrefix(x.Name, "pg_") {
			return pgerr.New(pgerrcode.ReservedName, "unacceptable schema name \"%s\"", x.Name).
				WithDetail("The prefix \"pg_\" is reserved for system schemas.")
		}
		cat := tx.Catalog()
		if _, ok := cat.Schemas[x.Name]; ok || syscat.IsSystemSchema(x.Name) {
			if !x.IfNotExists {
				return pgerr.New(pgerrcode.DuplicateSchema, "schema \"%s\" already exists", x.Name)
			}
			s.notice("42P06", "schema \"%s\" already exists, skipping", x.Name)
			return nil
		}
		owner := s.currentRole(cat)
		if x.Owner != nil {
			r, err := s.resolveRole(cat, *x.Owner)
			if err != nil {
				return err
			}
			if !cat.IsMemberOf(owner.OID, r.OID, false) {
				return denied("must be member of role \"%s\"", r.Name)
			}
			owner = r
		}
		if x.IfNotExists {
			return tx.IfNotExists(x.Name, "", func() (uint64, error) { return 0, tx.CreateSchema(x.Name, owner.OID) })
		}
		return tx.CreateSchema(x.Name, owner.OID)
	case *sql.DropSchema:
		for _, name := range x.Names {
			if _, ok := tx.Catalog().Schemas[name]; !ok {
				if x.IfExists {
					s.notice("00000", "schema \"%s\" does not exist, skipping", name)
					continue
				}
				return pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if err := dropIfExists(tx, x.IfExists, name, "", func() error { return tx.DropSchema(name, x.Cascade) }); err != nil {
				return err
			}
		}
		return nil
	case *sql.CreateTable:
		return s.createTable(tx, x)
	case *sql.CreateFunction:
		def := *x.Def
		def.Owner = s.currentRole(tx.Catalog()).OID
		return tx.CreateFunction(&def, x.Replace)
	case *sql.DropFunction:
		for _, name := range x.Missing {
			s.notice("00000", "function %s does not exist, skipping", name)
		}
		for _, key := range x.Keys {
			dropped, err := tx.DropFunction(key, x.Cascade)
			if err != nil {
				return err
			}
			for _, d := range dropped {
				s.notice("00000", "drop cascades to %s", d)
			}
		}
		return nil
	case *sql.AlterFunctionOwner:
		cat := tx.Catalog()
		f := cat.Functions[x.Key]
		if f == nil {
			return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", x.Key)
		}
		owner, _, err := s.changeOwner(cat, "function", f.Name, f.Owner, nil, x.Owner, cat.Schemas[f.Schema])
		if err != nil {
			return err
		}
		return tx.AlterFunctionOwner(x.Key, owner)
	case *sql.CreateTrigger:
		return tx.CreateTrigger(triggerRel(x.Table, x.View), x.Def, x.Replace)
	case *sql.DropTrigger:
		if x.Missing != "" {
			s.notice("00000", "trigger \"%s\" for relation \"%s\" does not exist, skipping", x.Name, x.Missing)
			return nil
		}
		return tx.DropTrigger(triggerRel(x.Table, x.View), x.Name)
	case *sql.RenameViewTrigger:
		return tx.RenameTrigger(triggerRel(nil, x.View), x.Name, x.NewName)
	case *sql.CreateView:
		if x.Temp {
			if err := s.ensureTempSchema(tx); err != nil {
				return err
			}
		}
		if x.Implied {
			s.notice("00000", "view \"%s\" will be a temporary view", x.Def.Name)
		}
		def := *x.Def
		def.Owner = s.currentRole(tx.Catalog()).OID
		def.ACL = tx.Catalog().InitialACL(def.Owner, def.Schema, "r")
		if old := tx.Catalog().View(def.Schema, def.Name); old != nil && x.Replace {
			// CREATE OR REPLACE keeps the view's owner, privileges and
			// triggers.
			def.Owner, def.ACL, def.Triggers = old.Owner, old.ACL, old.Triggers
		}
		return tx.CreateView(&def, x.Replace)
	case *sql.RenameView:
		if x.Missing != "" {
			s.notice("00000", "relation \"%s\" does not exist, skipping", x.Missing)
			return nil
		}
		before := tx.Catalog()
		if x.NewSchema == x.View.Schema {
			return nil // SET SCHEMA to its own schema
		}
		if x.Column != "" {
			if err := renameViewColumn(tx, x.View, x.Column, x.NewName); err != nil {
				return err
			}
		} else if err := tx.RenameView(x.View.Schema, x.View.Name, cmp.Or(x.NewSchema, x.View.Schema), x.NewName); err != nil {
			return err
		}
		return followRename(tx, before, sql.ViewRename{View: x.View, Column: x.Column, NewName: x.NewName, NewSchema: x.NewSchema})
	case *sql.DropView:
		for _, name := range x.Missing {
			s.notice("00000", "view \"%s\" does not exist, skipping", name)
		}
		for _, v := range x.Views {
			if tx.Catalog().Views[catalog.Key(v.Schema, v.Name)] == nil {
				continue // dropped with a view listed before it
			}
			reads := func(_ []uint64, views []string) bool { return slices.Contains(views, catalog.Key(v.Schema, v.Name)) }
			err := dropIfExists(tx, x.IfExists, v.Schema, v.Name, func() error {
				if err := s.dropDependentViews(tx, "view "+v.Name, reads, x.Cascade); err != nil {
					return err
				}
				return tx.DropView(v.Schema, v.Name)
			})
			if err != nil {
				return err
			}
		}
		return nil
	case *sql.CommentOn:
		switch {
		case x.Target != nil:
			return s.commentOn(tx, x.Target, x.Text)
		case x.View != nil:
			return tx.CommentOnView(x.View.Schema, x.View.Name, x.Column, x.Text)
		case x.Schema != "":
			sd := *tx.Catalog().Schemas[x.Schema]
			sd.Comment = x.Text
			return tx.AlterSchema(&sd)
		case x.Function != "":
			cat := tx.Catalog()
			f := cat.Functions[x.Function]
			if f == nil {
				return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", x.Function)
			}
			if err := s.mustOwn(cat, f.Owner, "function", x.Written); err != nil {
				return err
			}
			return tx.CommentOnFunction(x.Function, x.Text)
		}
		def := currentTable(tx, x.Table)
		if x.Column == "" {
			def.Comment = x.Text
		} else {
			pos, _ := def.Column(x.Column)
			if pos < 0 { // renamed or dropped since the statement was bound
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", x.Column, def.Name)
			}
			def.Columns[pos].Comment = x.Text
		}
		return tx.AlterTable(def)
	case *sql.DropTable:
		for _, name := range x.Missing {
			s.notice("00000", "table \"%s\" does not exist, skipping", name)
		}
		for _, def := range x.Tables {
			if err := s.notPendingChecks(tx, def, "DROP TABLE"); err != nil {
				return err
			}
			reads := func(tables []uint64, _ []string) bool { return slices.Contains(tables, def.ID) }
			err := dropIfExists(tx, x.IfExists, def.Schema, def.Name, func() error {
				if err := s.dropDependentViews(tx, "table "+def.Name, reads, x.Cascade); err != nil {
					return err
				}
				return dropTable(tx, def, x.Cascade)
			})
			if err != nil {
				return err
			}
		}
		return nil
	case *sql.AlterTable:
		if x.Missing != "" {
			s.notice("00000", "relation \"%s\" does not exist, skipping", x.Missing)
			return nil
		}
		if err := s.notPendingChecks(tx, x.Table, "ALTER TABLE"); err != nil {
			return err
		}
		return s.alterTable(ctx, tx, x)
	case *sql.Truncate:
		for _, name := range x.Cascaded {
			s.notice("00000", "truncate cascades to table \"%s\"", name)
		}
		// As in PostgreSQL, every table's BEFORE TRUNCATE triggers run
		// before any is emptied, the AFTER ones once all are.
		if err := s.truncateTriggers(ctx, tx, x.Tables, true); err != nil {
			return err
		}
		for _, def := range x.Tables {
			if err := s.notPendingChecks(tx, def, "TRUNCATE"); err != nil {
				return err
			}
			if err := tx.Truncate(def.ID); err != nil {
				return err
			}
		}
		for _, seq := range x.Restart {
			if err := tx.SetVal(seq.Schema, seq.Name, seq.Start, false); err != nil {
				return err
			}
		}
		return s.truncateTriggers(ctx, tx, x.Tables, false)
	case *sql.AlterSequence:
		if x.Seq == nil {
			s.notice("00000", "relation \"%s\" does not exist, skipping", x.Missing)
			return nil
		}
		if x.SetOwner {
			seq := *x.Seq
			seq.OwnedBy = x.Owner
			return tx.ReplaceSequence(&seq)
		}
		return tx.SetVal(x.Seq.Schema, x.Seq.Name, x.Value, false)
	case *sql.CreateIndex:
		if err := s.refuseInBlock(x.NoTxBlock); err != nil {
			return err
		}
		if tx.Catalog().RelationExists(x.Def.Schema, x.Def.Name) {
			if x.IfNotExists {
				s.notice("42P07", "relation \"%s\" already exists, skipping", x.Def.Name)
				return nil
			}
			return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", x.Def.Name)
		}
		if x.Def.Expr != "" || x.Def.Pred != "" || len(x.Def.Keys) > 0 {
			b := s.binder(tx.Catalog())
			plan, err := b.IndexKeys(b.Catalog.TableByID(x.Def.Table), x.Def)
			if err != nil {
				return err
			}
			if _, err := s.anyRow(ctx, tx, plan); err != nil {
				return err
			}
		}
		if x.IfNotExists {
			return tx.IfNotExists(x.Def.Schema, x.Def.Name, func() (uint64, error) { return 0, tx.CreateIndex(x.Def) })
		}
		return tx.CreateIndex(x.Def)
	case *sql.RenameIndex:
		return tx.RenameIndex(x.Schema, x.Name, x.NewName)
	case *sql.SetTableSchema:
		if err := s.notPendingChecks(tx, x.Table, "ALTER TABLE"); err != nil {
			return err
		}
		return setTableSchema(tx, x)
	case *sql.SetSequenceSchema:
		if x.Missing != "" {
			s.notice("00000", "relation \"%s\" does not exist, skipping", x.Missing)
			return nil
		}
		if x.Seq.Schema == x.Schema {
			return nil
		}
		if err := tx.MoveSequence(x.Seq.Schema, x.Seq.Name, x.Schema); err != nil {
			return err
		}
		return followSequenceMoves(tx, x.Seq.Schema, x.Schema, []string{x.Seq.Name})
	case *sql.DropIndex:
		if err := s.refuseInBlock(x.NoTxBlock); err != nil {
			return err
		}
		for _, n := range x.Names {
			schema := s.findIndexSchema(tx.Catalog(), n[0], n[1])
			if schema == "" {
				if t := s.keyConstraintTable(tx.Catalog(), n[0], n[1]); t != nil {
					return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", n[1], n[1], t.Name).
						WithHint("You can drop constraint %s on table %s instead.", n[1], t.Name)
				}
				if x.IfExists {
					s.notice("00000", "index \"%s\" does not exist, skipping", n[1])
					continue
				}
				return pgerr.New(pgerrcode.UndefinedObject, "index \"%s\" does not exist", n[1])
			}
			if err := dropIfExists(tx, x.IfExists, schema, n[1], func() error { return tx.DropIndex(schema, n[1]) }); err != nil {
				return err
			}
		}
		return nil
	case *sql.CreateExtension:
		return nil
	case *sql.CreateSequence:
		if x.Temp {
			if err := s.ensureTempSchema(tx); err != nil {
				return err
			}
		}
		if _, ok := tx.Catalog().Sequences[x.Def.Schema+"."+x.Def.Name]; ok {
			if x.IfNotExists {
				s.notice("42P07", "relation \"%s\" already exists, skipping", x.Def.Name)
				return nil
			}
			return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", x.Def.Name)
		}
		def := *x.Def
		def.Owner = s.currentRole(tx.Catalog()).OID
		def.ACL = tx.Catalog().InitialACL(def.Owner, def.Schema, "S")
		return tx.CreateSequence(&def)
	case *sql.DropSequence:
		for _, n := range x.Names {
			schema := n[0]
			if temp := s.tempSchema(); schema == "" && temp != "" && tx.Catalog().Sequences[catalog.Key(temp, n[1])] != nil {
				schema = temp // the temporary schema is searched first
			} else if schema == "pg_temp" && temp != "" {
				schema = temp
			} else if schema == "" {
				schema = s.CurrentSchema()
			}
			if _, ok := tx.Catalog().Sequences[schema+"."+n[1]]; !ok {
				if x.IfExists {
					s.notice("00000", "sequence \"%s\" does not exist, skipping", n[1])
					continue
				}
				return pgerr.New(pgerrcode.UndefinedTable, "sequence \"%s\" does not exist", n[1])
			}
			err := dropIfExists(tx, x.IfExists, schema, n[1], func() error {
				if err := s.dropSequenceDefaults(tx, schema, n[1], x.Cascade); err != nil {
					return err
				}
				return tx.DropSequence(schema, n[1])
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	return pgerr.NotSupported("statement %T", bound)
}

func (s *Session) findIndexSchema(cat *catalog.Catalog, schema, name string) string {
	if schema != "" {
		if _, ok := cat.Indexes[schema+"."+name]; ok {
			return schema
		}
		return ""
	}
	for _, sc := range s.searchPath() {
		if _, ok := cat.Indexes[sc+"."+name]; ok {
			return sc
		}
	}
	return ""
}

// keyConstraintTable finds the table whose primary key or unique
// constraint name is (the constraint's index), in schema or the first
// schema of the search path holding one; nil when none does.
func (s *Session) keyConstraintTable(cat *catalog.Catalog, schema, name string) *catalog.TableDef {
	path := s.searchPath()
	if schema != "" {
		path = []string{schema}
	}
	for _, sc := range path {
		for _, t := range cat.Tables {
			if t.Schema == sc && slices.ContainsFunc(t.Uniques, func(u catalog.UniqueDef) bool { return u.Name == name }) {
				return t
			}
		}
	}
	return nil
}

func (s *Session) createTable(tx *storage.Tx, x *sql.CreateTable) error {
	if x.Temp {
		if err := s.ensureTempSchema(tx); err != nil {
			return err
		}
	}
	cat := tx.Catalog()
	if cat.Table(x.Def.Schema, x.Def.Name) != nil {
		if x.IfNotExists {
			s.notice("42P07", "relation \"%s\" already exists, skipping", x.Def.Name)
			return nil
		}
		return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", x.Def.Name)
	}
	var err error
	if x.IfNotExists {
		err = tx.IfNotExists(x.Def.Schema, x.Def.Name, func() (uint64, error) { return s.createTableNow(tx, x) })
	} else {
		_, err = s.createTableNow(tx, x)
	}
	if err == nil && x.Temp {
		s.noteOnCommit(tx, x)
	}
	return err
}

// createTableNow creates the table of x and the sequences of its serial
// and identity columns, returning its ID.
func (s *Session) createTableNow(tx *storage.Tx, x *sql.CreateTable) (uint64, error) {
	cat := tx.Catalog()
	for _, seq := range x.Sequences {
		if cat.RelationExists(seq.Schema, seq.Name) {
			return 0, pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", seq.Name)
		}
	}
	owned := x.Def.Clone()
	owned.Owner = s.currentRole(cat).OID
	owned.ACL = cat.InitialACL(owned.Owner, owned.Schema, "r")
	def, err := tx.CreateTable(owned)
	if err != nil {
		return 0, err
	}
	// The sequences are created once the table has its ID: each belongs
	// to its column (dropping the column or the table drops it).
	for _, seq := range x.Sequences {
		for _, col := range def.Columns {
			if schema, name, ok := ownedSequence(col.Default); ok && schema == seq.Schema && name == seq.Name {
				if err := createColumnSequence(tx, def, col, seq); err != nil {
					return 0, err
				}
			}
		}
	}
	// A foreign key to the table itself was bound before it had an ID.
	selfRef := false
	for i := range def.ForeignKeys {
		if def.ForeignKeys[i].RefTable == 0 {
			def.ForeignKeys[i].RefTable = def.ID
			selfRef = true
		}
	}
	if selfRef {
		return def.ID, tx.AlterTable(def)
	}
	return def.ID, nil
}

// dropIfExists runs drop, which drops the schema (name "") or relation
// schema.name; for DROP ... IF EXISTS (ifExists) the commit skips what it
// did should another transaction have dropped the object first (see
// storage.Tx.IfExists).
func dropIfExists(tx *storage.Tx, ifExists bool, schema, name string, drop func() error) error {
	if !ifExists {
		return drop()
	}
	return tx.IfExists(schema, name, drop)
}

// dropDependentViews handles the views that read what is being dropped
// (what, "table t" or "view v"; reads tells from a view's sql.ViewReads):
// without cascade they make the DROP fail (2BP01, as PostgreSQL), with it
// they are dropped first, each with a notice.
func (s *Session) dropDependentViews(tx *storage.Tx, what string, reads func(tables []uint64, views []string) bool, cascade bool) error {
	cat := tx.Catalog()
	var deps []*catalog.ViewDef
	for _, key := range slices.Sorted(maps.Keys(cat.Views)) {
		if v := cat.Views[key]; reads(sql.ViewReads(cat, v)) {
			deps = append(deps, v)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("view %s depends on %s", deps[0].Name, what).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	lines := make([]string, len(deps))
	for i, v := range deps {
		lines[i] = "drop cascades to view " + v.Name
		if err := tx.DropView(v.Schema, v.Name); err != nil {
			return err
		}
	}
	s.cascadeNotice(lines)
	return nil
}

// cascadeNotice tells what a CASCADE dropped (lines: "drop cascades to
// view v" each) in one notice, as PostgreSQL's: several objects are
// listed in its detail.
func (s *Session) cascadeNotice(lines []string) {
	if len(lines) == 1 {
		s.notice("00000", "%s", lines[0])
	} else {
		s.notices = append(s.notices, Notice{Severity: "NOTICE", Code: "00000",
			Message: fmt.Sprintf("drop cascades to %d other objects", len(lines)), Detail: strings.Join(lines, "\n")})
	}
}

// dropTable drops a table with the sequences its serial columns own and
// its indexes.
func dropTable(tx *storage.Tx, def *catalog.TableDef, cascade bool) error {
	cat := tx.Catalog()
	for _, t := range cat.Tables {
		if t.ID == def.ID {
			continue
		}
		for _, fk := range t.ForeignKeys {
			if fk.RefTable == def.ID && !cascade {
				return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", def.Name).
					WithDetail("constraint %s on table %s depends on table %s", fk.Name, t.Name, def.Name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
		}
	}
	// storage drops the table's indexes with it.
	if err := tx.DropTable(def.ID); err != nil {
		return err
	}
	return dropOwnedSequences(tx, def, def.Columns)
}

// dropOwnedSequences drops the sequences that columns of def (being
// dropped) own: a serial or identity column's, and those ALTER SEQUENCE
// ... OWNED BY tied to one of them. A sequence the column's default only
// draws from (DEFAULT nextval('shared')) stays, as in PostgreSQL; only
// the serial columns of catalogs written before sequences recorded their
// column are known by their name (table_column_seq) instead.
func dropOwnedSequences(tx *storage.Tx, def *catalog.TableDef, columns []catalog.ColumnDef) error {
	cat := tx.Catalog()
	owned := map[string]bool{}
	for _, col := range columns {
		if schema, name, ok := ownedSequence(col.Default); ok && name == def.Name+"_"+col.Name+"_seq" {
			if seq := cat.Sequences[catalog.Key(schema, name)]; seq != nil && seq.OwnedBy == nil {
				owned[catalog.Key(schema, name)] = true
			}
		}
		for key, seq := range cat.Sequences {
			if seq.OwnedBy != nil && seq.OwnedBy.Table == def.ID && seq.OwnedBy.Column == col.ID {
				owned[key] = true
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(owned)) {
		if seq := cat.Sequences[key]; seq != nil {
			if err := tx.DropSequence(seq.Schema, seq.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropSequenceDefaults handles the column defaults that draw from
// sequence schema.name (nextval('name'), a serial's): without cascade
// they make DROP SEQUENCE fail (2BP01, as PostgreSQL's dependencies do,
// where the sequence used to go and every later INSERT failed with
// 42P01), with it they are dropped first, with one notice listing them.
// An identity column's sequence cannot go, cascade or not.
func (s *Session) dropSequenceDefaults(tx *storage.Tx, schema, name string, cascade bool) error {
	cat := tx.Catalog()
	var lines []string
	for _, id := range slices.Sorted(maps.Keys(cat.Tables)) {
		def := cat.Tables[id]
		var drop []int
		for pos, col := range def.Columns {
			if col.Generated != "" || !s.defaultDrawsFrom(cat, col.Default, schema, name) {
				continue
			}
			if col.Identity != "" { // the column's own sequence: no CASCADE drops it
				return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", name, col.Name, def.Name).
					WithHint("You can drop column %s of table %s instead.", col.Name, def.Name)
			}
			drop = append(drop, pos)
		}
		if len(drop) == 0 {
			continue
		}
		what := fmt.Sprintf("default value for column %s of table %s", def.Columns[drop[0]].Name, def.Name)
		if !cascade {
			return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", name).
				WithDetail("%s depends on sequence %s", what, name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		def = currentTable(tx, def)
		for _, pos := range drop {
			lines = append(lines, fmt.Sprintf("drop cascades to default value for column %s of table %s", def.Columns[pos].Name, def.Name))
			def.Columns[pos].Default = ""
		}
		if err := tx.AlterTable(def); err != nil {
			return err
		}
	}
	switch {
	case len(lines) == 1:
		s.notice("00000", "%s", lines[0])
	case len(lines) > 1:
		s.notices = append(s.notices, Notice{Severity: "NOTICE", Code: "00000",
			Message: fmt.Sprintf("drop cascades to %d other objects", len(lines)), Detail: strings.Join(lines, "\n")})
	}
	return nil
}

// defaultDrawsFrom reports whether a column default calls nextval on
// sequence schema.name: 'name' qualified with schema, or unqualified and
// found first on the search path.
func (s *Session) defaultDrawsFrom(cat *catalog.Catalog, def, schema, name string) bool {
	for rest := def; ; {
		i := strings.Index(rest, "nextval('")
		if i < 0 {
			return false
		}
		rest = rest[i+len("nextval('"):]
		end := strings.IndexByte(rest, '\'')
		if end < 0 {
			return false
		}
		ref := rest[:end]
		if dot := strings.LastIndexByte(ref, '.'); dot >= 0 {
			if strings.Trim(ref[:dot], `"`) == schema && strings.Trim(ref[dot+1:], `"`) == name {
				return true
			}
			continue
		}
		if strings.Trim(ref, `"`) != name {
			continue
		}
		for _, sc := range s.searchPath() {
			if cat.Sequences[catalog.Key(sc, name)] != nil {
				if sc == schema {
					return true
				}
				break
			}
		}
	}
}

// ownedSequence extracts the sequence of a serial column's default
// "nextval('schema.seq'::regclass)".
func ownedSequence(def string) (schema, name string, ok bool) {
	rest, found := strings.CutPrefix(def, "nextval('")
	if !found {
		return "", "", false
	}
	end := strings.Index(rest, "'")
	if end < 0 {
		return "", "", false
	}
	full := rest[:end]
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", "", false
	}
	return strings.Trim(full[:i], `"`), strings.Trim(full[i+1:], `"`), true
}

// currentTable is a copy of the table bound as bound, as the transaction
// sees it now. The two differ when another transaction changed the table
// after the statement was bound (its commit made this statement's first
// try fail, and the retry runs the same bound statement): a change made
// to the bound copy would write back the table as it was before that
// commit, undoing it (two concurrent ALTER TABLE ... ADD CONSTRAINT kept
// one constraint).
func currentTable(tx *storage.Tx, bound *catalog.TableDef) *catalog.TableDef {
	if cur := tx.Catalog().TableByID(bound.ID); cur != nil {
		return cur.Clone()
	}
	return bound.Clone() // dropped meanwhile: storage says so
}

func (s *Session) alterTable(ctx context.Context, tx *storage.Tx, x *sql.AlterTable) error {
	before := tx.Catalog()
	if err := s.alterTableDef(ctx, tx, x); err != nil {
		return err
	}
	for _, cmd := range x.Cmds {
		r := sql.ViewRename{Table: x.Table, NewName: cmd.NewName}
		switch cmd.Kind {
		case sql.RenameColumn:
			r.Column = cmd.Name
		case sql.RenameTable:
		default:
			continue
		}
		if err := followRename(tx, before, r); err != nil {
			return err
		}
	}
	return s.checkDependentViews(tx, before, x)
}

// setTableSchema moves a table to another schema (ALTER TABLE ... SET
// SCHEMA; to its own schema, nothing): storage moves its indexes and
// owned sequences with it, the column defaults that draw from those name
// them in their new schema, and the views that read the table follow it,
// as PostgreSQL's, bound to OIDs, do.
func setTableSchema(tx *storage.Tx, x *sql.SetTableSchema) error {
	before := tx.Catalog()
	def := currentTable(tx, x.Table)
	from := def.Schema
	if from == x.Schema {
		return nil
	}
	var seqs []string
	for _, seq := range before.Sequences {
		if seq.OwnedBy != nil && seq.OwnedBy.Table == def.ID && seq.Schema == from {
			seqs = append(seqs, seq.Name)
		}
	}
	slices.Sort(seqs)
	def.Schema = x.Schema
	moveSequenceDefaults(def, from, x.Schema, seqs)
	if err := tx.MoveTable(def); err != nil {
		return err
	}
	if err := followSequenceMoves(tx, from, x.Schema, seqs); err != nil {
		return err
	}
	return followRename(tx, before, sql.ViewRename{Table: x.Table, NewName: def.Name, NewSchema: x.Schema})
}

// moveSequenceDefaults rewrites def's column defaults that draw from the
// sequences seqs of schema from to draw from them in schema to; it reports
// whether it changed one.
func moveSequenceDefaults(def *catalog.TableDef, from, to string, seqs []string) bool {
	changed := false
	for i := range def.Columns {
		col := &def.Columns[i]
		for _, name := range seqs {
			if old := sql.NextvalDefault(from, name); strings.Contains(col.Default, old) {
				col.Default = strings.ReplaceAll(col.Default, old, sql.NextvalDefault(to, name))
				changed = true
			}
		}
	}
	return changed
}

// followSequenceMoves rewrites the column defaults of every table that
// draw from the sequences seqs, moved from schema from to schema to.
func followSequenceMoves(tx *storage.Tx, from, to string, seqs []string) error {
	cat := tx.Catalog()
	for _, id := range slices.Sorted(maps.Keys(cat.Tables)) {
		def := cat.Tables[id].Clone()
		if moveSequenceDefaults(def, from, to, seqs) {
			if err := tx.AlterTable(def); err != nil {
				return err
			}
		}
	}
	return nil
}

// renameViewColumn renames column old of view v to new (ALTER VIEW ...
// RENAME COLUMN); the view's query is unchanged.
func renameViewColumn(tx *storage.Tx, v *catalog.ViewDef, old, new string) error {
	cur := tx.Catalog().View(v.Schema, v.Name)
	if cur == nil {
		return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", v.Name)
	}
	def := *cur
	def.Columns = slices.Clone(cur.Columns)
	i := slices.IndexFunc(def.Columns, func(c catalog.ColumnDef) bool { return c.Name == old })
	switch {
	case i < 0:
		return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", old)
	case slices.ContainsFunc(def.Columns, func(c catalog.ColumnDef) bool { return c.Name == new }):
		return pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", new, v.Name)
	}
	def.Columns[i].Name = new
	return tx.CreateView(&def, true)
}

// followRename rewrites the views that read what rename r renamed (before
// is the catalog before it) to read it under its new name, as
// PostgreSQL's views, bound to OIDs, follow a rename: sql.FollowRename
// each, a view before the views that read it, so that each is checked
// against the views it reads as they now are.
func followRename(tx *storage.Tx, before *catalog.Catalog, r sql.ViewRename) error {
	pending := map[string][]string{} // view key: the views it reads
	for key, v := range before.Views {
		tables, views := sql.ViewReads(before, v)
		if r.Table != nil && slices.Contains(tables, r.Table.ID) || r.View != nil && slices.Contains(views, catalog.Key(r.View.Schema, r.View.Name)) {
			pending[key] = views
		}
	}
	for len(pending) > 0 {
		var next string
		for _, key := range slices.Sorted(maps.Keys(pending)) {
			if !slices.ContainsFunc(pending[key], func(k string) bool { _, ok := pending[k]; return ok }) {
				next = key
				break
			}
		}
		if next == "" {
			return nil // views reading each other: none binds
		}
		delete(pending, next)
		def, err := sql.FollowRename(before, tx.Catalog(), before.Views[next], r)
		if err != nil {
			return err
		}
		if def != nil {
			if err := tx.CreateView(def, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDependentViews handles the views that read the table an ALTER TABLE
// changed (found in before, the catalog it started from) and whose query
// no longer binds as it did: cairn keeps a view's query as written, so a
// column dropped or retyped under a view would break it (a rename the
// views followed already, followRename). A DROP COLUMN ... CASCADE drops
// such views (PostgreSQL drops the views depending on the column);
// otherwise the ALTER fails as PostgreSQL's does for a drop (2BP01) or a
// type change (0A000), and with 0A000 for a rename a view could not
// follow.
func (s *Session) checkDependentViews(tx *storage.Tx, before *catalog.Catalog, x *sql.AlterTable) error {
	breaks := func(c sql.AlterCmd) bool {
		return c.Kind == sql.DropColumn || c.Kind == sql.SetType || c.Kind == sql.RenameColumn || c.Kind == sql.RenameTable
	}
	if x.Table == nil || !slices.ContainsFunc(x.Cmds, breaks) {
		return nil
	}
	after := tx.Catalog()
	var broken []*catalog.ViewDef
	for _, key := range slices.Sorted(maps.Keys(before.Views)) {
		v := before.Views[key]
		if tables, _ := sql.ViewReads(before, v); !slices.Contains(tables, x.Table.ID) || after.Views[key] == nil {
			continue
		}
		if sql.ViewBinds(after, after.Views[key]) != nil {
			broken = append(broken, v)
		}
	}
	if len(broken) == 0 {
		return nil
	}
	// The action to blame: a drop before a type change before a rename.
	var cmd sql.AlterCmd
	for _, k := range []sql.AlterKind{sql.DropColumn, sql.SetType, sql.RenameColumn, sql.RenameTable} {
		if i := slices.IndexFunc(x.Cmds, func(c sql.AlterCmd) bool { return c.Kind == k }); i >= 0 {
			cmd = x.Cmds[i]
			break
		}
	}
	name, cascade, kind := cmd.Name, cmd.Cascade, cmd.Kind
	v := broken[0]
	switch {
	case kind == sql.DropColumn && cascade:
		lines := make([]string, len(broken))
		for i, v := range broken {
			lines[i] = "drop cascades to view " + v.Name
			if err := tx.DropView(v.Schema, v.Name); err != nil {
				return err
			}
		}
		s.cascadeNotice(lines)
		return nil
	case kind == sql.DropColumn:
		return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", name, x.Table.Name).
			WithDetail("view %s depends on column %s of table %s", v.Name, name, x.Table.Name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	case kind == sql.SetType:
		return pgerr.New(pgerrcode.FeatureNotSupported, "cannot alter type of a column used by a view or rule").
			WithDetail("rule _RETURN on view %s depends on column \"%s\"", v.Name, name)
	case kind == sql.RenameColumn:
		return pgerr.NotSupported("renaming column \"%s\" of table \"%s\", which view \"%s\" reads in a way cairn cannot rewrite (drop the view, rename, and create it again)", name, x.Table.Name, v.Name)
	default: // RenameTable
		return pgerr.NotSupported("renaming table \"%s\", which view \"%s\" reads in a way cairn cannot rewrite (drop the view, rename, and create it again)", x.Table.Name, v.Name)
	}
}

// alterTableDef applies an ALTER TABLE's actions to its table.
func (s *Session) alterTableDef(ctx context.Context, tx *storage.Tx, x *sql.AlterTable) error {
	def := currentTable(tx, x.Table)
	var fill []catalog.ColumnDef
	var checkNotNull []string
	var checks []catalog.CheckDef
	var fks []catalog.ForeignKeyDef
	var narrowed []sql.AlterCmd
	var rewrites []rewrite
	var retyped []string // the columns of SetType, each at most once
	for _, cmd := range x.Cmds {
		switch cmd.Kind {
		case sql.ChangeOwner:
			cat := tx.Catalog()
			owner, acl, err := s.changeOwner(cat, "table", def.Name, def.Owner, def.ACL, cmd.Owner, cat.Schemas[def.Schema])
			if err != nil {
				return err
			}
			def.Owner, def.ACL = owner, acl
		case sql.TriggerState:
			for i := range def.Triggers {
				if cmd.Name == "" || def.Triggers[i].Name == cmd.Name {
					def.Triggers[i].Enabled = cmd.NewName
				}
			}
		case sql.RenameTrigger:
			i := slices.IndexFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Name == cmd.Name })
			switch {
			case i < 0:
				return pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", cmd.Name, def.Name)
			case slices.ContainsFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Name == cmd.NewName }):
				return pgerr.New(pgerrcode.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", cmd.NewName, def.Name)
			}
			def.Triggers[i].Name = cmd.NewName
		case sql.RowSecurity:
			switch cmd.Name {
			case "Enable", "Disable":
				def.RowSecurity = cmd.Name == "Enable"
			default:
				def.ForceRowSecurity = cmd.Name == "Force"
			}
		case sql.AddColumn:
			if pos, _ := def.Column(cmd.Column.Name); pos >= 0 {
				if cmd.IfNotExists {
					s.notice("42701", "column \"%s\" of relation \"%s\" already exists, skipping", cmd.Column.Name, def.Name)
					continue
				}
				return pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cmd.Column.Name, def.Name)
			}
			if def.NextColumnID > sql.MaxTableColumns {
				return sql.TooManyColumns()
			}
			col := cmd.Column
			col.ID = def.NextColumnID
			def.NextColumnID++
			if cmd.Sequence != nil {
				// A serial or identity column: the rows already there
				// take its sequence's values as they are filled below.
				if err := createColumnSequence(tx, def, col, cmd.Sequence); err != nil {
					return err
				}
			}
			def.Columns = append(def.Columns, col)
			if cmd.Primary || cmd.Unique {
				name := def.Name + "_" + col.Name + "_key"
				if cmd.Primary {
					if len(def.PrimaryKey) > 0 {
						return pgerr.New(pgerrcode.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", def.Name)
					}
					name = def.Name + "_pkey"
					def.PrimaryKey, def.PrimaryKeyName = []int{col.ID}, name
				}
				def.Uniques = append(def.Uniques, catalog.UniqueDef{Name: name, Columns: []int{col.ID}, NullsNotDistinct: cmd.NullsNotDistinct && !cmd.Primary})
			}
			if dom := tx.Catalog().DomainByOID(col.Domain); col.Default != "" || dom != nil && (dom.Domain.Default != "" || dom.Domain.NotNull || len(dom.Domain.Checks) > 0) {
				// A column of a domain gets the domain's DEFAULT, or NULL,
				// checked against the domain's constraints, as PostgreSQL
				// checks it for the rows already there.
				fill = append(fill, col)
			} else if col.NotNull {
				checkNotNull = append(checkNotNull, col.Name)
			}
		case sql.DropColumn:
			pos, col := def.Column(cmd.Name)
			if col == nil {
				if cmd.IfExists {
					s.notice("00000", "column \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, def.Name)
					continue
				}
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			if err := s.dropColumnPolicies(def, cmd.Name, cmd.Cascade); err != nil {
				return err
			}
			if err := s.dropGeneratedDependents(def, cmd.Name, cmd.Cascade); err != nil {
				return err
			}
			if err := s.dropColumnTriggers(def, cmd.Name, cmd.Cascade); err != nil {
				return err
			}
			pos, col = def.Column(cmd.Name)
			if err := dropOwnedSequences(tx, def, []catalog.ColumnDef{*col}); err != nil {
				return err
			}
			dropColumn(def, pos)
		case sql.RenameColumn:
			pos, col := def.Column(cmd.Name)
			if col == nil {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", cmd.Name)
			}
			if p, _ := def.Column(cmd.NewName); p >= 0 {
				return pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cmd.NewName, def.Name)
			}
			for _, ix := range tx.Catalog().IndexesOf(def.ID) {
				// The key and predicate are kept as text, which a rename
				// would leave stale.
				if ix.Expr != "" && slices.Contains(ix.Columns, col.ID) {
					return pgerr.NotSupported("renaming a column that index expression %s reads (drop index \"%s\" first)", ix.Expr, ix.Name)
				}
				if k, ok := keyExprReading(tx.Catalog(), def, ix, pos); ok {
					return pgerr.NotSupported("renaming a column that index expression %s reads (drop index \"%s\" first)", k, ix.Name)
				}
				if slices.Contains(ix.PredColumns, col.ID) {
					return pgerr.NotSupported("renaming a column that the predicate of index \"%s\" reads (drop the index first)", ix.Name)
				}
			}
			def.Columns[pos].Name = cmd.NewName
			for i, c := range def.Columns {
				if c.Generated == "" {
					continue
				}
				var err error
				if def.Columns[i].Default, err = sql.RenamePolicyColumn(c.Default, cmd.Name, cmd.NewName); err != nil {
					return err
				}
			}
			for i := range def.Policies {
				p := &def.Policies[i]
				var err error
				if p.Using, err = sql.RenamePolicyColumn(p.Using, cmd.Name, cmd.NewName); err != nil {
					return err
				}
				if p.Check, err = sql.RenamePolicyColumn(p.Check, cmd.Name, cmd.NewName); err != nil {
					return err
				}
			}
			for i := range def.Triggers {
				tr := &def.Triggers[i]
				var err error
				if tr.When, err = sql.RenameColumnRefs(tr.When, cmd.Name, cmd.NewName); err != nil {
					return err
				}
			}
		case sql.RenameTable:
			if tx.Catalog().Table(def.Schema, cmd.NewName) != nil {
				return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", cmd.NewName)
			}
			def.Name = cmd.NewName
		case sql.RenameConstraint:
			if err := renameConstraint(tx.Catalog(), def, cmd.Name, cmd.NewName); err != nil {
				return err
			}
		case sql.SetNotNull:
			pos, col := def.Column(cmd.Name)
			if col == nil {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			def.Columns[pos].NotNull = true
			checkNotNull = append(checkNotNull, cmd.Name)
		case sql.DropNotNull:
			pos, col := def.Column(cmd.Name)
			if col == nil {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			if isKeyColumn(def.PrimaryKey, col.ID) {
				return pgerr.New(pgerrcode.InvalidTableDefinition, "column \"%s\" is in a primary key", cmd.Name)
			}
			def.Columns[pos].NotNull = false
		case sql.DropExpression:
			// The column keeps the values it holds, now plain ones.
			pos, col := def.Column(cmd.Name)
			switch {
			case col == nil:
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			case col.Generated == "" && cmd.IfExists:
				s.notice("00000", "column \"%s\" of relation \"%s\" is not a stored generated column, skipping", cmd.Name, def.Name)
			case col.Generated == "":
				return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is not a stored generated column", cmd.Name, def.Name)
			default:
				def.Columns[pos].Default, def.Columns[pos].Generated = "", ""
			}
		case sql.SetDefault:
			pos, _ := def.Column(cmd.Name)
			if pos < 0 { // renamed or dropped since the statement was bound
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			def.Columns[pos].Default = cmd.Column.Default
		case sql.SetType:
			pos, col := def.Column(cmd.Name)
			if pos < 0 {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			if slices.Contains(retyped, cmd.Name) {
				return pgerr.New(pgerrcode.FeatureNotSupported, "cannot alter type of column \"%s\" twice", cmd.Name)
			}
			retyped = append(retyped, cmd.Name)
			if cmd.Rewrite {
				// The new values go to a new column first (storage
				// keeps a column's type), which replaces this one
				// once filled (rewriteColumns).
				if err := rewritable(tx.Catalog(), def, col); err != nil {
					return err
				}
				if def.NextColumnID > sql.MaxTableColumns {
					return sql.TooManyColumns()
				}
				r := rewrite{name: cmd.Name, from: col.ID, to: def.NextColumnID, using: cmd.Using}
				def.NextColumnID++
				def.Columns = append(def.Columns, catalog.ColumnDef{ID: r.to, Name: rewriteColumnName(cmd.Name), Type: cmd.Column.Type})
				rewrites = append(rewrites, r)
				continue
			}
			if cmd.Narrows {
				narrowed = append(narrowed, cmd)
			}
			def.Columns[pos].Type = cmd.Column.Type
		case sql.AddIdentity:
			pos, col := def.Column(cmd.Name)
			if col == nil {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			if err := createColumnSequence(tx, def, *col, cmd.Sequence); err != nil {
				return err
			}
			def.Columns[pos] = cmd.Column
		case sql.AddConstraint:
			check, fk, err := addConstraint(def, x.Table, cmd)
			if err != nil {
				return err
			}
			if cmd.Primary {
				for _, id := range def.PrimaryKey {
					if _, c := def.ColumnByID(id); c != nil {
						checkNotNull = append(checkNotNull, c.Name)
					}
				}
			}
			// One added NOT VALID leaves the rows as they are.
			if check != nil && !check.NotValid {
				checks = append(checks, *check)
			}
			if fk != nil && !fk.NotValid {
				fks = append(fks, *fk)
			}
		case sql.ValidateConstraint:
			check, fk, err := validateConstraint(def, cmd.Name)
			if err != nil {
				return err
			}
			if check != nil {
				checks = append(checks, *check)
			}
			if fk != nil {
				fks = append(fks, *fk)
			}
		case sql.DropConstraint:
			if err := dropConstraint(tx.Catalog(), def, cmd.Name); err != nil {
				if cmd.IfExists && pgerr.Code(err) == pgerrcode.UndefinedObject {
					s.notice("00000", "constraint \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, def.Name)
					continue
				}
				return err
			}
		}
	}
	if err := tx.AlterTable(def); err != nil {
		return err
	}
	// An index on a dropped column goes with it, as in PostgreSQL (all of
	// a multicolumn index, a hybrid index on either of its columns, and a
	// partial index whose predicate reads it).
	for _, ix := range tx.Catalog().IndexesOf(def.ID) {
		for _, id := range slices.Concat(ix.Columns, ix.PredColumns) {
			if _, c := def.ColumnByID(id); c == nil {
				if err := tx.DropIndex(ix.Schema, ix.Name); err != nil {
					return err
				}
				break
			}
		}
	}
	if len(rewrites) > 0 {
		// The columns this ALTER adds get their defaults in the same
		// UPDATE, which NOT NULL ones need.
		if err := s.rewriteColumns(ctx, tx, def.ID, rewrites, fill); err != nil {
			return addedNullViolation(err, def, checkNotNull)
		}
		fill = nil
		// The foreign keys this ALTER adds name the new columns now; the
		// table's others over a rewritten column are checked again, as
		// PostgreSQL's rewrite rebuilds them (a USING may change a key).
		rewritten := map[int]bool{}
		for _, r := range rewrites {
			rewritten[r.to] = true
			for i := range fks {
				fks[i].Columns = catalog.RenumberIDs(fks[i].Columns, r.from, r.to)
				if fks[i].RefTable == def.ID {
					fks[i].RefColumns = catalog.RenumberIDs(fks[i].RefColumns, r.from, r.to)
				}
			}
		}
		uses := func(ids []int) bool { return slices.ContainsFunc(ids, func(id int) bool { return rewritten[id] }) }
		// (Not those added NOT VALID: the rows need not meet them.)
		for _, fk := range currentTable(tx, def).ForeignKeys {
			if !fk.NotValid && (uses(fk.Columns) || fk.RefTable == def.ID && uses(fk.RefColumns)) &&
				!slices.ContainsFunc(fks, func(f catalog.ForeignKeyDef) bool { return f.Name == fk.Name }) {
				fks = append(fks, fk)
			}
		}
		// The rewritten values must satisfy the table's checks, as
		// PostgreSQL's rewrite checks them.
		for _, c := range currentTable(tx, def).Checks {
			if !c.NotValid {
				checks = append(checks, c)
			}
		}
	}
	// Rows already in the table must satisfy the constraints added (unique
	// keys storage checks itself).
	b := s.binder(tx.Catalog())
	def = b.Catalog.TableByID(def.ID)
	// A varchar made shorter keeps its values if each fits (as in
	// PostgreSQL, whose rewrite fails on the first that does not).
	for _, cmd := range narrowed {
		pos, _ := def.Column(cmd.Name)
		plan, err := b.TooLongValues(def, pos, int(cmd.Column.Type.Mod))
		if err != nil {
			return err
		}
		if found, err := s.anyRow(ctx, tx, plan); err != nil || found {
			if err == nil {
				err = pgerr.New(pgerrcode.StringDataRightTruncationDataException, "value too long for type %s", cmd.Column.Type)
			}
			return err
		}
	}
	violated := func(c catalog.CheckDef) error {
		return pgerr.New(pgerrcode.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", c.Name, def.Name).
			WithConstraint(def.Schema, def.Name, c.Name)
	}
	for _, c := range checks {
		plan, err := b.CheckViolations(def, c)
		if err != nil {
			return err
		}
		if found, err := s.anyRow(ctx, tx, plan); err != nil || found {
			if err == nil {
				err = violated(c)
			}
			return err
		}
	}
	for _, fk := range fks {
		if err := s.checkOrphans(ctx, tx, b, def, fk); err != nil {
			return err
		}
	}
	// Existing rows of an added column with a DEFAULT get the default, as
	// in PostgreSQL; this rewrites them in the same transaction.
	if len(fill) > 0 {
		var positions []int
		for _, col := range fill {
			pos, _ := def.Column(col.Name)
			positions = append(positions, pos)
		}
		plan, err := b.FillColumns(def, positions)
		if err != nil {
			return err
		}
		if _, err := s.runDML(ctx, tx, plan); err != nil {
			// A default that fails a check this ALTER adds: the
			// existing rows violate it, as PostgreSQL words it.
			e := pgerr.From(err)
			if i := slices.IndexFunc(checks, func(c catalog.CheckDef) bool { return c.Name == e.Constraint }); e.Code == pgerrcode.CheckViolation && i >= 0 {
				return violated(checks[i])
			}
			return addedNullViolation(err, def, checkNotNull)
		}
	}
	for _, name := range checkNotNull {
		pos, _ := def.Column(name)
		if found, err := s.anyRow(ctx, tx, sql.NullViolations(def, pos)); err != nil || found {
			if err == nil {
				err = pgerr.New(pgerrcode.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", name, def.Name).
					WithColumn(def.Schema, def.Name, name)
			}
			return err
		}
	}
	return nil
}

// addedNullViolation words err, an ALTER's fill or rewrite of def's rows
// failing because a NOT NULL column it adds without a default (one of
// added) is NULL in them, as PostgreSQL does; any other err is returned
// as is.
func addedNullViolation(err error, def *catalog.TableDef, added []string) error {
	e := pgerr.From(err)
	if e.Code == pgerrcode.NotNullViolation && slices.Contains(added, e.Column) {
		return pgerr.New(pgerrcode.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", e.Column, def.Name).
			WithColumn(def.Schema, def.Name, e.Column)
	}
	return err
}

// createColumnSequence creates seq, the sequence of col, a serial or
// identity column of def: owned by the column (OWNED BY), and like the
// table's other parts by the table's owner.
func createColumnSequence(tx *storage.Tx, def *catalog.TableDef, col catalog.ColumnDef, seq *catalog.SequenceDef) error {
	cat := tx.Catalog()
	if cat.RelationExists(seq.Schema, seq.Name) {
		return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", seq.Name)
	}
	owned := *seq
	owned.Owner = catalog.OwnerOID(def.Owner)
	owned.ACL = cat.InitialACL(owned.Owner, owned.Schema, "S")
	owned.OwnedBy = &catalog.SequenceOwner{Table: def.ID, Column: col.ID}
	return tx.CreateSequence(&owned)
}

// anyRow reports whether plan, run in tx, returns a row.
func (s *Session) anyRow(ctx context.Context, tx *storage.Tx, plan sql.Node) (bool, error) {
	first, err := firstRecord(ctx, s.runtime(tx, nil), plan)
	return first != nil, err
}

// checkOrphans fails with the 23503 of the first row of child whose
// foreign key fk names no row of the table it references (ALTER TABLE's
// validation of a foreign key it adds, validates or rewrites).
func (s *Session) checkOrphans(ctx context.Context, tx *storage.Tx, b *sql.Binder, child *catalog.TableDef, fk catalog.ForeignKeyDef) error {
	plan, err := b.OrphanRows(child, fk)
	if err != nil {
		return err
	}
	rt := s.runtime(tx, nil)
	orphan, err := firstRecord(ctx, rt, plan)
	if err != nil || orphan == nil {
		return err
	}
	return exec.OrphanError(rt, child, b.Catalog.TableByID(fk.RefTable), &fk, orphan, 0)
}

// firstRecord runs plan and returns its first non-empty batch (its first
// row at 0), or nil when it yields no row.
func firstRecord(ctx context.Context, rt *exec.Runtime, plan sql.Node) (arrow.Record, error) {
	op, err := exec.Build(rt, plan)
	if err != nil {
		return nil, err
	}
	var first arrow.Record
	err = exec.Drain(ctx, op, func(rec arrow.Record) error {
		if first == nil && rec.NumRows() > 0 {
			rec.Retain()
			first = rec
		}
		return nil
	})
	return first, err
}

// runDML runs a data-modifying plan the session built itself in tx (a
// DDL statement's fill or rewrite of existing rows, CREATE TABLE AS's
// insert) and returns the rows it changed. No row triggers fire: they
// are for the user's statements, and PostgreSQL's rewrites of ALTER
// TABLE ADD COLUMN ... DEFAULT or ALTER TYPE fire none (a BEFORE UPDATE
// trigger setting updated_at must not touch every row).
func (s *Session) runDML(ctx context.Context, tx *storage.Tx, plan sql.Node) (int64, error) {
	rt := s.runtime(tx, nil)
	rt.Triggers = nil
	changed, returning, err := exec.RunDML(ctx, rt, plan)
	if err != nil {
		return 0, err
	}
	returning.Close()
	return changed, nil
}

// addConstraint adds to def the constraint ALTER TABLE ADD CONSTRAINT
// bound: the one cmd.Constraint has beyond the table as it was (orig).
// It returns the check or foreign key, whose existing rows the caller
// validates.
func addConstraint(def, orig *catalog.TableDef, cmd sql.AlterCmd) (*catalog.CheckDef, *catalog.ForeignKeyDef, error) {
	with := cmd.Constraint
	var name string
	switch {
	case len(with.Uniques) > len(orig.Uniques):
		name = with.Uniques[len(with.Uniques)-1].Name
	case len(with.Checks) > len(orig.Checks):
		name = with.Checks[len(with.Checks)-1].Name
	default:
		name = with.ForeignKeys[len(with.ForeignKeys)-1].Name
	}
	if constraintExists(def, name) {
		return nil, nil, pgerr.New(pgerrcode.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", name, def.Name)
	}
	switch {
	case len(with.Uniques) > len(orig.Uniques):
		u := with.Uniques[len(with.Uniques)-1]
		if cmd.Primary {
			if len(def.PrimaryKey) > 0 {
				return nil, nil, pgerr.New(pgerrcode.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", def.Name)
			}
			def.PrimaryKey, def.PrimaryKeyName = u.Columns, u.Name
			for i := range def.Columns {
				if isKeyColumn(u.Columns, def.Columns[i].ID) {
					def.Columns[i].NotNull = true
				}
			}
		}
		def.Uniques = append(def.Uniques, u)
	case len(with.Checks) > len(orig.Checks):
		c := with.Checks[len(with.Checks)-1]
		def.Checks = append(def.Checks, c)
		return &c, nil, nil
	default:
		fk := with.ForeignKeys[len(with.ForeignKeys)-1]
		def.ForeignKeys = append(def.ForeignKeys, fk)
		return nil, &fk, nil
	}
	return nil, nil, nil
}

// keyExprReading returns the expression key of ix (one of several,
// catalog.IndexDef.Keys) that reads the column at position pos of def,
// whose text a rename of it would leave stale.
func keyExprReading(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef, pos int) (string, bool) {
	for _, k := range ix.Keys {
		if k.Expr == "" {
			continue
		}
		e, err := sql.BindIndexExpr(cat, def, k.Expr)
		if err != nil {
			return k.Expr, true // (it cannot be told: refused as if it did)
		}
		reads := false
		sql.WalkExpr(e, func(x sql.Expr) {
			if ref, ok := x.(*sql.ColumnRef); ok && ref.Index == pos {
				reads = true
			}
		})
		if reads {
			return k.Expr, true
		}
	}
	return "", false
}

// validateConstraint marks def's check or foreign key name valid and
// returns it for the caller to check the rows against; nil for both when
// it was valid already (nothing to do, as in PostgreSQL).
func validateConstraint(def *catalog.TableDef, name string) (*catalog.CheckDef, *catalog.ForeignKeyDef, error) {
	if i := slices.IndexFunc(def.Checks, func(c catalog.CheckDef) bool { return c.Name == name }); i >= 0 {
		if !def.Checks[i].NotValid {
			return nil, nil, nil
		}
		def.Checks[i].NotValid = false
		c := def.Checks[i]
		return &c, nil, nil
	}
	if i := slices.IndexFunc(def.ForeignKeys, func(fk catalog.ForeignKeyDef) bool { return fk.Name == name }); i >= 0 {
		if !def.ForeignKeys[i].NotValid {
			return nil, nil, nil
		}
		def.ForeignKeys[i].NotValid = false
		fk := def.ForeignKeys[i]
		return nil, &fk, nil
	}
	if constraintExists(def, name) {
		return nil, nil, pgerr.New(pgerrcode.WrongObjectType, "constraint \"%s\" of relation \"%s\" is not a foreign key or check constraint", name, def.Name)
	}
	return nil, nil, pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, def.Name)
}

// constraintExists reports whether def has a constraint of that name.
func constraintExists(def *catalog.TableDef, name string) bool {
	for _, u := range def.Uniques {
		if u.Name == name {
			return true
		}
	}
	for _, c := range def.Checks {
		if c.Name == name {
			return true
		}
	}
	for _, fk := range def.ForeignKeys {
		if fk.Name == name {
			return true
		}
	}
	return false
}

// renameConstraint renames constraint name of def, as ALTER TABLE ...
// RENAME CONSTRAINT: a unique or primary key's index takes the new name
// too, so it must be free among the schema's relations (42P07) as well as
// the table's constraints (42710).
func renameConstraint(cat *catalog.Catalog, def *catalog.TableDef, name, newName string) error {
	if !constraintExists(def, name) {
		return pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, def.Name)
	}
	taken := pgerr.New(pgerrcode.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", newName, def.Name)
	for i := range def.Uniques {
		if def.Uniques[i].Name != name {
			continue
		}
		// The index is renamed first, as in PostgreSQL.
		if cat.RelationExists(def.Schema, newName) {
			return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists", newName)
		}
		if constraintExists(def, newName) {
			return taken
		}
		if len(def.PrimaryKey) > 0 && def.PrimaryKeyConstraint() == name {
			def.PrimaryKeyName = newName
		}
		def.Uniques[i].Name = newName
		return nil
	}
	if constraintExists(def, newName) {
		return taken
	}
	for i := range def.Checks {
		if def.Checks[i].Name == name {
			def.Checks[i].Name = newName
			return nil
		}
	}
	for i := range def.ForeignKeys {
		if def.ForeignKeys[i].Name == name {
			def.ForeignKeys[i].Name = newName
			return nil
		}
	}
	return nil
}

// dropConstraint removes the constraint name from def; a unique key
// another table's foreign key references cannot go (2BP01).
func dropConstraint(cat *catalog.Catalog, def *catalog.TableDef, name string) error {
	for i, u := range def.Uniques {
		if u.Name != name {
			continue
		}
		for _, t := range cat.Tables {
			for _, fk := range t.ForeignKeys {
				if fk.RefTable == def.ID && sameIDs(fk.RefColumns, u.Columns) {
					return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop constraint %s on table %s because other objects depend on it", name, def.Name).
						WithDetail("constraint %s on table %s depends on index %s", fk.Name, t.Name, name).
						WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
				}
			}
		}
		if sameIDs(def.PrimaryKey, u.Columns) && name == def.PrimaryKeyConstraint() {
			def.PrimaryKey, def.PrimaryKeyName = nil, ""
		}
		def.Uniques = append(def.Uniques[:i:i], def.Uniques[i+1:]...)
		return nil
	}
	for i, c := range def.Checks {
		if c.Name == name {
			def.Checks = append(def.Checks[:i:i], def.Checks[i+1:]...)
			return nil
		}
	}
	for i, fk := range def.ForeignKeys {
		if fk.Name == name {
			def.ForeignKeys = append(def.ForeignKeys[:i:i], def.ForeignKeys[i+1:]...)
			return nil
		}
	}
	return pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, def.Name)
}

// sameIDs reports whether two column ID lists hold the same IDs.
func sameIDs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !isKeyColumn(b, x) {
			return false
		}
	}
	return true
}

func isKeyColumn(ids []int, id int) bool {
	for _, k := range ids {
		if k == id {
			return true
		}
	}
	return false
}

// dropColumn removes column pos and the constraints that use it.
func dropColumn(def *catalog.TableDef, pos int) {
	id := def.Columns[pos].ID
	def.Columns = append(def.Columns[:pos:pos], def.Columns[pos+1:]...)
	if isKeyColumn(def.PrimaryKey, id) {
		def.PrimaryKey, def.PrimaryKeyName = nil, ""
	}
	var uniques []catalog.UniqueDef
	for _, u := range def.Uniques {
		if !isKeyColumn(u.Columns, id) {
			uniques = append(uniques, u)
		}
	}
	def.Uniques = uniques
	var fks []catalog.ForeignKeyDef
	for _, fk := range def.ForeignKeys {
		if !isKeyColumn(fk.Columns, id) {
			fks = append(fks, fk)
		}
	}
	def.ForeignKeys = fks
}

// createTableAs creates the table of CREATE TABLE ... AS and fills it from
// the query, in the statement's transaction; its tag is SELECT n, as in
// PostgreSQL.
func (s *Session) createTableAs(ctx context.Context, tx *storage.Tx, x *sql.CreateTableAs) (Tag, error) {
	def := x.Create.Def
	if tx.Catalog().Table(def.Schema, def.Name) != nil && x.Create.IfNotExists {
		s.notice("42P07", "relation \"%s\" already exists, skipping", def.Name)
		return commandTag("CREATE TABLE AS"), nil
	}
	if err := s.createTable(tx, x.Create); err != nil {
		return Tag{}, err
	}
	if x.WithNoData {
		return commandTag("CREATE TABLE AS"), nil
	}
	n, err := s.runDML(ctx, tx, sql.InsertRows(tx.Catalog().Table(def.Schema, def.Name), x.Query))
	if err != nil {
		return Tag{}, err
	}
	return rowsTag("SELECT", n), nil
}

// dropGeneratedDependents drops, with cascade, the generated columns of
// def whose expressions read column; without, it refuses to drop a column
// a generated column reads (2BP01), as PostgreSQL's dependencies do.
func (s *Session) dropGeneratedDependents(def *catalog.TableDef, column string, cascade bool) error {
	var deps []string
	for _, c := range def.Columns {
		if c.Generated != "" && c.Name != column && sql.PolicyUses(c.Default, column) {
			deps = append(deps, c.Name)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		lines := make([]string, len(deps))
		for i, d := range deps {
			lines[i] = fmt.Sprintf("column %s of table %s depends on column %s of table %s", d, def.Name, column, def.Name)
		}
		return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", column, def.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range deps {
		s.notice("00000", "drop cascades to column %s of table %s", d, def.Name)
		pos, _ := def.Column(d)
		dropColumn(def, pos)
	}
	return nil
}
