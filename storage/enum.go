package storage

import (
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CreateType records a user type (an enum or a domain), giving it (and an
// enum's labels) OIDs
// (42710 if schema.name is a type already, 3F000 if the schema is gone).
// def.Enum's OIDs are filled in here, under the commit's replay, so that
// two transactions creating types never share an OID.
func (tx *Tx) CreateType(def *catalog.TypeDef) error {
	d := *def
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		if c.Type(d.Schema, d.Name) != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "type \"%s\" already exists", d.Name)
		}
		if d.Domain != nil {
			dom := d.Domain.Clone()
			dom.OID = c.AllocOIDs(2)
			dom.ArrayOID = dom.OID + 1
			t := d
			t.Domain = dom
			c.Types[catalog.Key(d.Schema, d.Name)] = &t
			return nil
		}
		e := d.Enum.Clone()
		first := c.AllocOIDs(2 + len(e.Labels))
		e.OID, e.ArrayOID = first, first+1
		for i := range e.Labels {
			e.Labels[i].OID = first + 2 + uint32(i)
		}
		t := d
		t.Enum = e
		c.Types[catalog.Key(d.Schema, d.Name)] = &t
		return nil
	})
}

// AlterType changes the user type schema.name with change, which gets a
// copy of the type (its Enum or Domain cloned) and the catalog (to allocate OIDs)
// and may rename it; every column of the type then gets the new enum.
// Run at commit again on the newest catalog, it applies the change to
// what other transactions made of the type meanwhile.
func (tx *Tx) AlterType(schema, name string, change func(c *catalog.Catalog, t *catalog.TypeDef) error) error {
	var before *catalog.DomainDef
	if old := tx.cat.Type(schema, name); old != nil && old.Domain != nil {
		before = old.Domain
	}
	if err := tx.apply(func(c *catalog.Catalog) error {
		old := c.Type(schema, name)
		if old == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", name)
		}
		t := *old
		if old.Domain != nil {
			t.Domain = old.Domain.Clone()
		} else {
			t.Enum = old.Enum.Clone()
		}
		if err := change(c, &t); err != nil {
			return err
		}
		if t.Schema != schema || t.Name != name {
			if c.Type(t.Schema, t.Name) != nil {
				return pgerr.New(pgerrcode.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", t.Name, t.Schema)
			}
			delete(c.Types, catalog.Key(schema, name))
			if t.Enum != nil {
				t.Enum.Schema, t.Enum.Name = t.Schema, t.Name
			}
		}
		c.Types[catalog.Key(t.Schema, t.Name)] = &t
		if t.Domain != nil {
			return nil
		}
		c.ReplaceEnum(t.Enum)
		from, to := renamedLabel(old.Enum, t.Enum)
		c.RewriteEnumDefaults(old.Enum, t.Enum, from, to)
		return nil
	}); err != nil {
		return err
	}
	if before == nil {
		return nil
	}
	if now := tx.cat.DomainByOID(before.OID); now != nil && domainRulesAdded(before, now.Domain) {
		// The caller checks the rows tx sees against the new rule: other
		// transactions' writes to the domain's tables wait for tx to end,
		// as for a table's new constraint.
		for _, t := range tx.cat.Tables {
			for _, col := range t.Columns {
				if col.Domain == before.OID {
					tx.fenceWrites(t.ID, t.Schema)
					break
				}
			}
		}
	}
	return nil
}

// domainRulesAdded reports whether d has a rule on values that old had
// not: NOT NULL, or a CHECK added or validated.
func domainRulesAdded(old, d *catalog.DomainDef) bool {
	if d.NotNull && !old.NotNull {
		return true
	}
	for _, c := range d.Checks {
		if c.NotValid {
			continue
		}
		i := slices.IndexFunc(old.Checks, func(o catalog.DomainCheck) bool { return o.Name == c.Name && o.Expr == c.Expr })
		if i < 0 || old.Checks[i].NotValid {
			return true
		}
	}
	return false
}

// DropType drops the user type schema.name (42704 if missing, 2BP01 if a
// column still has it: the caller drops those columns first for CASCADE).
func (tx *Tx) DropType(schema, name string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		t := c.Type(schema, name)
		if t == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", name)
		}
		if tbl, col := catalog.TypeUser(c, t); tbl != nil {
			return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", name).
				WithDetail("column %s of table %s depends on type %s", col, tbl.Name, name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		delete(c.Types, catalog.Key(schema, name))
		return nil
	})
}

// renamedLabel is the label ALTER TYPE ... RENAME VALUE renamed between
// old and e (the same label OID under another label), "" and "" if none.
func renamedLabel(old, e *types.EnumType) (from, to string) {
	for _, l := range old.Labels {
		for _, n := range e.Labels {
			if n.OID == l.OID && n.Label != l.Label {
				return l.Label, n.Label
			}
		}
	}
	return "", ""
}
