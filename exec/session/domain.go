package session

import (
	"context"
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// runDomain carries out CREATE DOMAIN and ALTER DOMAIN (DROP DOMAIN is a
// DropType).
func (s *Session) runDomain(ctx context.Context, tx *storage.Tx, bound sql.Statement) error {
	switch x := bound.(type) {
	case *sql.CreateDomain:
		d := x.Def
		return tx.CreateType(&catalog.TypeDef{Schema: x.Schema, Name: x.Name, Owner: s.currentRole(tx.Catalog()).OID, Domain: &d})
	case *sql.AlterDomain:
		return s.alterDomain(ctx, tx, x)
	}
	return pgerr.NotSupported("statement %T", bound)
}

// alterDomain changes a domain's constraints, default, name or owner;
// a constraint added (or made NOT NULL, or validated) is then checked on
// the values the domain's columns hold, and the statement fails if one
// breaks it.
func (s *Session) alterDomain(ctx context.Context, tx *storage.Tx, x *sql.AlterDomain) error {
	cat := tx.Catalog()
	td := cat.Type(x.Schema, x.Name)
	if td == nil || td.Domain == nil {
		return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", x.Name)
	}
	if x.Kind == sql.DomainOwner {
		owner, _, err := s.changeOwner(cat, "type", td.Name, td.Owner, nil, x.Owner, cat.Schemas[td.Schema])
		if err != nil {
			return err
		}
		return tx.AlterType(x.Schema, x.Name, func(_ *catalog.Catalog, t *catalog.TypeDef) error {
			t.Owner = owner
			return nil
		})
	}
	if err := s.mustOwn(cat, td.Owner, "type", td.Name); err != nil {
		return err
	}
	find := func(d *catalog.DomainDef, name string) int {
		return slices.IndexFunc(d.Checks, func(c catalog.DomainCheck) bool { return c.Name == name })
	}
	missing := func() error {
		return pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", x.Constraint, td.Name)
	}
	var change func(t *catalog.TypeDef) error
	// verify checks the rows there against a rule the change adds, once
	// it is made: other transactions' writes to them wait (storage
	// fences the domain's tables).
	verify := func() error { return nil }
	switch x.Kind {
	case sql.SetDomainDefault:
		change = func(t *catalog.TypeDef) error {
			t.Domain.Default = x.Default
			return nil
		}
	case sql.SetDomainNotNull:
		if x.NotNull && !td.Domain.NotNull {
			verify = func() error { return s.domainColumnsNotNull(ctx, tx, td) }
		}
		change = func(t *catalog.TypeDef) error {
			t.Domain.NotNull = x.NotNull
			return nil
		}
	case sql.AddDomainCheck:
		if !x.Check.NotValid {
			verify = func() error { return s.domainColumnsCheck(ctx, tx, td, x.Check) }
		}
		change = func(t *catalog.TypeDef) error {
			if find(t.Domain, x.Check.Name) >= 0 {
				return pgerr.New(pgerrcode.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", x.Check.Name, t.Name)
			}
			t.Domain.Checks = append(t.Domain.Checks, x.Check)
			return nil
		}
	case sql.DropDomainConstraint:
		if find(td.Domain, x.Constraint) < 0 {
			if x.MissingOk {
				s.notice("00000", "constraint \"%s\" of domain \"%s\" does not exist, skipping", x.Constraint, td.Name)
				return nil
			}
			return missing()
		}
		change = func(t *catalog.TypeDef) error {
			if i := find(t.Domain, x.Constraint); i >= 0 {
				t.Domain.Checks = slices.Delete(t.Domain.Checks, i, i+1)
			}
			return nil
		}
	case sql.ValidateDomainConstraint:
		i := find(td.Domain, x.Constraint)
		if i < 0 {
			return missing()
		}
		check := td.Domain.Checks[i]
		verify = func() error { return s.domainColumnsCheck(ctx, tx, td, check) }
		change = func(t *catalog.TypeDef) error {
			if i := find(t.Domain, x.Constraint); i >= 0 {
				t.Domain.Checks[i].NotValid = false
			}
			return nil
		}
	case sql.RenameDomainConstraint:
		if find(td.Domain, x.Constraint) < 0 {
			// (PostgreSQL words this one differently from the others.)
			return pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" for domain %s does not exist", x.Constraint, td.Name)
		}
		change = func(t *catalog.TypeDef) error {
			if find(t.Domain, x.NewName) >= 0 {
				return pgerr.New(pgerrcode.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", x.NewName, t.Name)
			}
			if i := find(t.Domain, x.Constraint); i >= 0 {
				t.Domain.Checks[i].Name = x.NewName
			}
			return nil
		}
	case sql.RenameDomain:
		change = func(t *catalog.TypeDef) error {
			t.Name = x.NewName
			return nil
		}
	default:
		return pgerr.NotSupported("ALTER DOMAIN kind %d", x.Kind)
	}
	if err := tx.AlterType(x.Schema, x.Name, func(_ *catalog.Catalog, t *catalog.TypeDef) error { return change(t) }); err != nil {
		return err
	}
	return verify()
}

// domainColumns calls fn for each table column of domain td, by table ID.
func domainColumns(cat *catalog.Catalog, td *catalog.TypeDef, fn func(def *catalog.TableDef, pos int) error) error {
	ids := make([]uint64, 0, len(cat.Tables))
	for id := range cat.Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		def := cat.Tables[id]
		for pos, col := range def.Columns {
			if col.Domain == td.Domain.OID {
				if err := fn(def, pos); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// domainColumnsCheck is 23514 if a value of a column of domain td breaks
// check, as ALTER DOMAIN ... ADD CONSTRAINT and VALIDATE CONSTRAINT find.
func (s *Session) domainColumnsCheck(ctx context.Context, tx *storage.Tx, td *catalog.TypeDef, check catalog.DomainCheck) error {
	cat := tx.Catalog()
	b := s.binder(cat)
	return domainColumns(cat, td, func(def *catalog.TableDef, pos int) error {
		plan, err := b.DomainViolations(def, pos, td.Domain.Base, check)
		if err != nil {
			return err
		}
		found, err := s.anyRow(ctx, tx, plan)
		if err == nil && found {
			err = pgerr.New(pgerrcode.CheckViolation, "column \"%s\" of table \"%s\" contains values that violate the new constraint", def.Columns[pos].Name, def.Name)
		}
		return err
	})
}

// domainColumnsNotNull is 23502 if a column of domain td holds a NULL,
// as ALTER DOMAIN ... SET NOT NULL finds.
func (s *Session) domainColumnsNotNull(ctx context.Context, tx *storage.Tx, td *catalog.TypeDef) error {
	return domainColumns(tx.Catalog(), td, func(def *catalog.TableDef, pos int) error {
		found, err := s.anyRow(ctx, tx, sql.NullViolations(def, pos))
		if err == nil && found {
			err = pgerr.New(pgerrcode.NotNullViolation, "column \"%s\" of table \"%s\" contains null values", def.Columns[pos].Name, def.Name)
		}
		return err
	})
}
