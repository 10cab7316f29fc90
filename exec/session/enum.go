package session

import (
	"context"
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// runEnum carries out CREATE TYPE ... AS ENUM, ALTER TYPE and DROP TYPE.
func (s *Session) runEnum(ctx context.Context, tx *storage.Tx, bound sql.Statement) error {
	switch x := bound.(type) {
	case *sql.CreateEnum:
		e := &types.EnumType{Schema: x.Schema, Name: x.Name}
		for i, l := range x.Labels {
			e.Labels = append(e.Labels, types.EnumLabel{Sort: float32(i + 1), Label: l})
		}
		return tx.CreateType(&catalog.TypeDef{Schema: x.Schema, Name: x.Name, Owner: s.currentRole(tx.Catalog()).OID, Enum: e})
	case *sql.AlterType:
		return s.alterType(ctx, tx, x)
	case *sql.DropType:
		for _, m := range x.Missing {
			s.notice("00000", "type \"%s\" does not exist, skipping", m)
		}
		for _, n := range x.Names {
			td := tx.Catalog().Type(n[0], n[1])
			if td == nil {
				return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", n[1])
			}
			if err := s.mustOwn(tx.Catalog(), td.Owner, "type", td.Name); err != nil {
				return err
			}
			if x.Cascade {
				if err := s.dropTypeColumns(ctx, tx, td); err != nil {
					return err
				}
			}
			if err := tx.DropType(n[0], n[1]); err != nil {
				return err
			}
		}
		return nil
	}
	return pgerr.NotSupported("statement %T", bound)
}

// mustOwn is 42501 unless the current role owns the kind object name,
// whose owner is owner (catalog.OwnerOID's form), is a member of its
// owner or is a superuser: as ALTER TYPE, DROP TYPE and COMMENT ON
// FUNCTION require.
func (s *Session) mustOwn(cat *catalog.Catalog, owner uint32, kind, name string) error {
	me := s.currentRole(cat)
	if me.Superuser || cat.Reaches(me.OID, catalog.OwnerOID(owner), true) {
		return nil
	}
	return denied("must be owner of %s %s", kind, name)
}

// dropTypeColumns drops every table column of user type td (or an array
// of an enum), as DROP TYPE ... CASCADE does, with a notice each.
func (s *Session) dropTypeColumns(ctx context.Context, tx *storage.Tx, td *catalog.TypeDef) error {
	for {
		t, col := catalog.TypeUser(tx.Catalog(), td)
		if t == nil {
			return nil
		}
		s.notice("00000", "drop cascades to column %s of table %s", col, t.Name)
		if err := s.alterTable(ctx, tx, &sql.AlterTable{Table: t, Cmds: []sql.AlterCmd{{Kind: sql.DropColumn, Name: col, Cascade: true}}}); err != nil {
			return err
		}
	}
}

// alterType changes an enum's labels, name or owner.
func (s *Session) alterType(ctx context.Context, tx *storage.Tx, x *sql.AlterType) error {
	cat := tx.Catalog()
	td := cat.Type(x.Schema, x.Name)
	if td == nil {
		return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", x.Name)
	}
	if x.Kind == sql.TypeOwner {
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
	switch x.Kind {
	case sql.RenameType:
		return tx.AlterType(x.Schema, x.Name, func(_ *catalog.Catalog, t *catalog.TypeDef) error {
			t.Name = x.NewName
			return nil
		})
	case sql.RenameEnumValue:
		if err := tx.AlterType(x.Schema, x.Name, func(_ *catalog.Catalog, t *catalog.TypeDef) error {
			return renameLabel(t.Enum, x.Neighbor, x.Value)
		}); err != nil {
			return err
		}
		return s.renameEnumData(ctx, tx, td.Enum.OID, x.Neighbor, x.Value)
	}
	if x.IfNotExists && td.Enum.Position(x.Value) >= 0 {
		s.notice("42710", "enum label \"%s\" already exists, skipping", x.Value)
		return nil
	}
	return tx.AlterType(x.Schema, x.Name, func(c *catalog.Catalog, t *catalog.TypeDef) error {
		return addLabel(c, t.Enum, x.Value, x.Neighbor, x.After)
	})
}

// addLabel puts label into e at the end or next to neighbor, with a sort
// position between its neighbours' as PostgreSQL gives it.
func addLabel(c *catalog.Catalog, e *types.EnumType, label, neighbor string, after bool) error {
	if e.Position(label) >= 0 {
		return pgerr.New(pgerrcode.DuplicateObject, "enum label \"%s\" already exists", label)
	}
	at := len(e.Labels)
	if neighbor != "" {
		p := e.Position(neighbor)
		if p < 0 {
			return pgerr.New(pgerrcode.InvalidParameterValue, "\"%s\" is not an existing enum label", neighbor)
		}
		at = p
		if after {
			at = p + 1
		}
	}
	var sort float32
	switch {
	case len(e.Labels) == 0:
		sort = 1
	case at == len(e.Labels):
		sort = e.Labels[at-1].Sort + 1
	case at == 0:
		sort = e.Labels[0].Sort - 1
	default:
		sort = (e.Labels[at-1].Sort + e.Labels[at].Sort) / 2
		if sort == e.Labels[at-1].Sort || sort == e.Labels[at].Sort {
			// float4 ran out of room between them: renumber 1, 2, 3, ...
			// (PostgreSQL renumbers too; only the order is observable).
			for i := range e.Labels {
				e.Labels[i].Sort = float32(i + 1)
			}
			sort = float32(at) + 0.5
		}
	}
	e.Labels = slices.Insert(e.Labels, at, types.EnumLabel{OID: c.AllocOIDs(1), Sort: sort, Label: label})
	return nil
}

// renameLabel renames label from to to in e.
func renameLabel(e *types.EnumType, from, to string) error {
	p := e.Position(from)
	if p < 0 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "\"%s\" is not an existing enum label", from)
	}
	if from == to {
		return nil
	}
	if e.Position(to) >= 0 {
		return pgerr.New(pgerrcode.DuplicateObject, "enum label \"%s\" already exists", to)
	}
	e.Labels[p].Label = to
	return nil
}

// renameEnumData rewrites the stored labels from as to in every column of
// the enum with OID oid (enum values are stored as their labels).
func (s *Session) renameEnumData(ctx context.Context, tx *storage.Tx, oid uint32, from, to string) error {
	if from == to {
		return nil
	}
	cat := tx.Catalog()
	b := s.binder(cat)
	ids := make([]uint64, 0, len(cat.Tables))
	for id := range cat.Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		def := cat.Tables[id]
		for pos, col := range def.Columns {
			if !catalog.UsesEnum(col.Type, oid) {
				continue
			}
			plan, err := b.RenameEnumValue(def, pos, from, to)
			if err != nil {
				return err
			}
			if _, err := s.runDML(ctx, tx, plan); err != nil {
				return err
			}
		}
	}
	return nil
}

// TypeByOID is the type with pg_type OID oid as a client names it in
// Parse: a built-in type, or a user type (an enum or an array of one) of
// the catalog the session's next statement sees.
func (s *Session) TypeByOID(oid uint32) (types.T, bool) {
	if t, ok := types.ByOID(oid); ok {
		return t, true
	}
	td := s.catalog().TypeByOID(oid)
	if td == nil {
		return types.UnknownT, false
	}
	if td.Domain != nil {
		if oid == td.Domain.ArrayOID {
			return types.ArrayOf(td.Domain.Base, 1), true
		}
		return td.Domain.Base, true
	}
	if oid == td.Enum.ArrayOID {
		return types.ArrayOf(types.EnumOf(td.Enum), 1), true
	}
	return types.EnumOf(td.Enum), true
}
