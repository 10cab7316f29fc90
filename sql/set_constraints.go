package sql

import (
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// SetConstraints is SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED |
// IMMEDIATE }: when the open transaction checks its deferrable foreign
// keys. IMMEDIATE also checks at once what was deferred until then.
type SetConstraints struct {
	// All is ALL: every deferrable constraint. Else Targets are the
	// foreign keys named, resolved as PostgreSQL does (the first schema
	// of the search path holding a constraint of the name, every
	// constraint of that name there).
	All      bool
	Targets  []ConstraintRef
	Deferred bool
}

// ConstraintRef names a foreign key constraint: its table's ID and its
// name.
type ConstraintRef struct {
	Table uint64
	Name  string
}

// namedConstraint is a constraint found by name for SET CONSTRAINTS.
type namedConstraint struct {
	table      uint64
	foreignKey bool
	deferrable bool
}

// bindSetConstraints resolves SET CONSTRAINTS' names. A name no schema
// holds is 42704, one of a constraint that is not deferrable 42809, as
// in PostgreSQL. cairn checks uniqueness as rows are written, so
// deferring a deferrable unique or primary key constraint by name is
// 0A000.
func (b *Binder) bindSetConstraints(s *pg_query.ConstraintsSetStmt) (*SetConstraints, error) {
	out := &SetConstraints{All: len(s.Constraints) == 0, Deferred: s.Deferred}
	if out.All {
		// ALL defers the deferrable foreign keys; a DEFERRABLE unique
		// key stays checked row by row (a duplicate fails at once rather
		// than at COMMIT): refusing ALL would refuse Django's
		// constraint_checks_disabled on any database holding one.
		return out, nil
	}
	for _, n := range s.Constraints {
		rv := n.GetRangeVar()
		if rv == nil {
			continue
		}
		schemas := b.SearchPath
		if rv.Schemaname != "" {
			schemas = []string{rv.Schemaname}
		}
		var found []namedConstraint
		for _, schema := range schemas {
			if found = b.constraintsNamed(schema, rv.Relname); len(found) > 0 {
				break
			}
		}
		if len(found) == 0 {
			return nil, pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" does not exist", rv.Relname)
		}
		for _, c := range found {
			switch {
			case !c.deferrable:
				return nil, pgerr.New(pgerrcode.WrongObjectType, "constraint \"%s\" is not deferrable", rv.Relname)
			case !c.foreignKey && s.Deferred:
				return nil, deferUniqueUnsupported(rv.Relname)
			case c.foreignKey:
				ref := ConstraintRef{Table: c.table, Name: rv.Relname}
				if !slices.Contains(out.Targets, ref) {
					out.Targets = append(out.Targets, ref)
				}
			}
		}
	}
	return out, nil
}

// constraintsNamed lists the constraints called name on the tables of
// schema.
func (b *Binder) constraintsNamed(schema, name string) []namedConstraint {
	var found []namedConstraint
	for _, t := range b.Catalog.Tables {
		if t.Schema != schema {
			continue
		}
		for _, u := range t.Uniques {
			if u.Name == name {
				found = append(found, namedConstraint{table: t.ID, deferrable: u.Deferrable})
			}
		}
		if slices.ContainsFunc(t.Checks, func(c catalog.CheckDef) bool { return c.Name == name }) {
			found = append(found, namedConstraint{table: t.ID})
		}
		for _, fk := range t.ForeignKeys {
			if fk.Name == name {
				found = append(found, namedConstraint{table: t.ID, foreignKey: true, deferrable: fk.Deferrable})
			}
		}
	}
	return found
}

// deferUniqueUnsupported is the error of deferring the unique or primary
// key constraint name.
func deferUniqueUnsupported(name string) error {
	return pgerr.NotSupported("deferring unique constraint \"%s\"", name).
		WithDetail("cairn checks uniqueness when a row is written; deferrable foreign keys can be deferred.")
}
