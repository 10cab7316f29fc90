package sql

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/jackc/pgerrcode"
)

// commentTarget binds the object of COMMENT ON INDEX, SEQUENCE, TYPE,
// DOMAIN, CONSTRAINT ... ON table, TRIGGER ... ON relation, ROLE,
// DATABASE or EXTENSION (pg_dump writes them, as do Django's, Alembic's
// and Prisma's migrations), with PostgreSQL's errors for one that does
// not exist or is another kind of object. The owner of an index's,
// sequence's, constraint's or trigger's relation is checked here; the
// session checks a type's, role's, the database's and an extension's.
func (b *Binder) commentTarget(s *pg_query.CommentStmt) (*catalog.CommentTarget, error) {
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_INDEX, pg_query.ObjectType_OBJECT_SEQUENCE:
		return b.commentRelation(s.Objtype, strList(s.Object.GetList().GetItems()))
	case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
		names := typeNameStrings(s.Object.GetTypeName())
		td, err := b.lookupType(names)
		if err != nil {
			if s.Objtype == pg_query.ObjectType_OBJECT_TYPE && b.builtinOrRowType(s.Object.GetTypeName()) {
				return nil, pgerr.NotSupported("COMMENT ON TYPE of a built-in type or a table's row type")
			}
			return nil, err
		}
		if s.Objtype == pg_query.ObjectType_OBJECT_DOMAIN && td.Domain == nil {
			return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a domain", strings.Join(names, "."))
		}
		return &catalog.CommentTarget{Kind: catalog.CommentType, Schema: td.Schema, Name: td.Name}, nil
	case pg_query.ObjectType_OBJECT_DOMCONSTRAINT:
		items := s.Object.GetList().GetItems()
		if len(items) > 0 {
			names := typeNameStrings(items[0].GetTypeName())
			td, err := b.lookupType(names)
			if err != nil {
				return nil, err
			}
			if td.Domain != nil {
				return nil, pgerr.NotSupported("COMMENT ON CONSTRAINT ... ON DOMAIN")
			}
			return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a domain", strings.Join(names, "."))
		}
	case pg_query.ObjectType_OBJECT_TABCONSTRAINT, pg_query.ObjectType_OBJECT_TRIGGER:
		return b.commentTableObject(s.Objtype, strList(s.Object.GetList().GetItems()))
	case pg_query.ObjectType_OBJECT_ROLE:
		name := s.Object.GetString_().GetSval()
		if b.Catalog.Role(name) == nil {
			return nil, pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", name)
		}
		return &catalog.CommentTarget{Kind: catalog.CommentRole, Name: name}, nil
	case pg_query.ObjectType_OBJECT_DATABASE:
		return &catalog.CommentTarget{Kind: catalog.CommentDatabase, Name: s.Object.GetString_().GetSval()}, nil
	case pg_query.ObjectType_OBJECT_EXTENSION:
		name := s.Object.GetString_().GetSval()
		if !syscat.IsExtension(name) {
			return nil, pgerr.New(pgerrcode.UndefinedObject, "extension \"%s\" does not exist", name)
		}
		return &catalog.CommentTarget{Kind: catalog.CommentExtension, Name: name}, nil
	}
	kind := strings.ReplaceAll(strings.TrimPrefix(s.Objtype.String(), "OBJECT_"), "_", " ")
	if s.Objtype == pg_query.ObjectType_OBJECT_MATVIEW {
		kind = "MATERIALIZED VIEW"
	}
	return nil, pgerr.NotSupported("COMMENT ON %s", kind)
}

// commentRelation binds the index or sequence of COMMENT ON INDEX or
// SEQUENCE: the first of the search path's schemas (or the schema named)
// holding a relation of the name, which must be of that kind. A key
// constraint's index is the index of its name.
func (b *Binder) commentRelation(kind pg_query.ObjectType, names []string) (*catalog.CommentTarget, error) {
	name := names[len(names)-1]
	path := b.SearchPath
	if len(names) > 1 {
		path = []string{names[len(names)-2]}
	}
	want := "an index"
	if kind == pg_query.ObjectType_OBJECT_SEQUENCE {
		want = "a sequence"
	}
	for _, schema := range path {
		if schema == "pg_temp" {
			schema = b.TempSchema
		}
		if !b.Catalog.RelationExists(schema, name) {
			continue
		}
		if seq := b.Catalog.Sequence(schema, name); seq != nil && kind == pg_query.ObjectType_OBJECT_SEQUENCE {
			b.accesses = append(b.accesses, Access{Sequence: seq, Owner: true})
			return &catalog.CommentTarget{Kind: catalog.CommentSequence, Schema: schema, Name: name}, nil
		}
		if t := b.indexTable(schema, name); t != nil && kind == pg_query.ObjectType_OBJECT_INDEX {
			b.accesses = append(b.accesses, Access{Table: t, Index: name, Owner: true})
			return &catalog.CommentTarget{Kind: catalog.CommentIndex, Schema: schema, Name: name}, nil
		}
		return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not %s", name, want)
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", strings.Join(names, "."))
}

// indexTable is the table of index schema.name (an index's, or a key
// constraint's of that name), nil when there is no such index.
func (b *Binder) indexTable(schema, name string) *catalog.TableDef {
	if ix := b.Catalog.Index(schema, name); ix != nil {
		return b.Catalog.TableByID(ix.Table)
	}
	for _, t := range b.Catalog.Tables {
		if t.Schema == schema && slices.ContainsFunc(t.Uniques, func(u catalog.UniqueDef) bool { return u.Name == name }) {
			return t
		}
	}
	return nil
}

// commentTableObject binds the constraint or trigger of COMMENT ON
// CONSTRAINT name ON table or TRIGGER name ON relation (a trigger of a
// view too).
func (b *Binder) commentTableObject(kind pg_query.ObjectType, names []string) (*catalog.CommentTarget, error) {
	name, rel := names[len(names)-1], names[:len(names)-1]
	relName, schema := rel[len(rel)-1], strings.Join(rel[:len(rel)-1], ".")
	if kind == pg_query.ObjectType_OBJECT_TRIGGER {
		if v := b.lookupView(schema, relName); v != nil {
			b.accesses = append(b.accesses, Access{View: v, Owner: true})
			if !slices.ContainsFunc(v.Triggers, func(t catalog.TriggerDef) bool { return t.Name == name }) {
				return nil, pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, relName)
			}
			return &catalog.CommentTarget{Kind: catalog.CommentTrigger, Schema: v.Schema, Relation: v.Name, Name: name}, nil
		}
	}
	def, err := b.lookupTable(schema, relName)
	if err != nil {
		return nil, err
	}
	b.accesses = append(b.accesses, Access{Table: def, Owner: true, Relation: true})
	if kind == pg_query.ObjectType_OBJECT_TRIGGER {
		if !slices.ContainsFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Name == name }) {
			return nil, pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, relName)
		}
		return &catalog.CommentTarget{Kind: catalog.CommentTrigger, Table: def.ID, Name: name}, nil
	}
	if !slices.ContainsFunc(def.Uniques, func(u catalog.UniqueDef) bool { return u.Name == name }) &&
		!slices.ContainsFunc(def.Checks, func(c catalog.CheckDef) bool { return c.Name == name }) &&
		!slices.ContainsFunc(def.ForeignKeys, func(f catalog.ForeignKeyDef) bool { return f.Name == name }) &&
		name != def.PrimaryKeyConstraint() {
		return nil, pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, relName)
	}
	return &catalog.CommentTarget{Kind: catalog.CommentConstraint, Table: def.ID, Name: name}, nil
}

// builtinOrRowType reports whether tn names a built-in type or a
// table's or view's row type, which COMMENT ON TYPE accepts in
// PostgreSQL and cairn keeps no comment on.
func (b *Binder) builtinOrRowType(tn *pg_query.TypeName) bool {
	if _, err := b.typeFromName(tn); err == nil {
		return true
	}
	names := typeNameStrings(tn)
	schema, name := strings.Join(names[:len(names)-1], "."), names[len(names)-1]
	_, err := b.lookupTable(schema, name)
	return err == nil || b.lookupView(schema, name) != nil
}
