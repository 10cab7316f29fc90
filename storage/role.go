package storage

import (
	"reflect"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// Role DDL. Roles are catalog entries like tables, so they commit, roll
// back and survive a crash as any DDL does. Storage checks only what keeps
// the catalog consistent (unique names, existing OIDs); who may do what
// is exec's business.

func roleMissing(name string) error {
	return pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", name)
}

// CreateRole adds a role (42710 if the name is taken) under a new OID,
// which it returns. The transaction's later changes name the role by
// that OID, so should a concurrent commit have given the OID to another
// role, the commit fails with 40001 rather than mix the two up.
func (tx *Tx) CreateRole(def *catalog.RoleDef) (uint32, error) {
	var oid uint32
	err := tx.apply(func(c *catalog.Catalog) error {
		if c.Roles[def.Name] != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "role \"%s\" already exists", def.Name)
		}
		if oid == 0 {
			oid = c.NextRoleOID
		} else if c.RoleByOID(oid) != nil {
			return serializationFailure()
		}
		r := def.Clone()
		r.OID = oid
		c.NextRoleOID = max(c.NextRoleOID, oid+1)
		c.Roles[r.Name] = r
		return nil
	})
	return oid, err
}

// AlterRole replaces the role with def's OID by def, which may carry a
// new name (42710 if another role has it, 42704 if the role is gone).
// A role another transaction changed since this one read it fails the
// commit with 40001 instead of losing that change.
func (tx *Tx) AlterRole(def *catalog.RoleDef) error {
	var seen *catalog.RoleDef
	if r := tx.cat.RoleByOID(def.OID); r != nil {
		seen = r.Clone()
	}
	return tx.apply(func(c *catalog.Catalog) error {
		old := c.RoleByOID(def.OID)
		if old == nil {
			return roleMissing(def.Name)
		}
		if !reflect.DeepEqual(old, seen) {
			return serializationFailure()
		}
		if other := c.Roles[def.Name]; other != nil && other.OID != def.OID {
			return pgerr.New(pgerrcode.DuplicateObject, "role \"%s\" already exists", def.Name)
		}
		delete(c.Roles, old.Name)
		c.Roles[def.Name] = def.Clone()
		return nil
	})
}

// DropRole removes the role with OID oid and every membership it has or
// gives (42704 if it is gone).
func (tx *Tx) DropRole(oid uint32, name string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		r := c.RoleByOID(oid)
		if r == nil {
			return roleMissing(name)
		}
		delete(c.Roles, r.Name)
		kept := c.Members[:0]
		for _, m := range c.Members {
			if m.Role != oid && m.Member != oid {
				kept = append(kept, m)
			}
		}
		c.Members = kept
		return nil
	})
}

// GrantRole makes m.Member a member of m.Role, or updates the grant's
// admin option and grantor when it exists.
func (tx *Tx) GrantRole(m catalog.MemberDef) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if c.RoleByOID(m.Role) == nil || c.RoleByOID(m.Member) == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "role with OID %d does not exist", m.Role)
		}
		if i := c.Membership(m.Role, m.Member); i >= 0 {
			c.Members[i] = m
			return nil
		}
		c.Members = append(c.Members, m)
		return nil
	})
}

// RevokeRole removes the grant of role to member, or with adminOnly only
// its admin option; it is a no-op when there is no such grant.
func (tx *Tx) RevokeRole(role, member uint32, adminOnly bool) error {
	return tx.apply(func(c *catalog.Catalog) error {
		i := c.Membership(role, member)
		switch {
		case i < 0:
		case adminOnly:
			c.Members[i].Admin = false
		default:
			c.Members = append(c.Members[:i], c.Members[i+1:]...)
		}
		return nil
	})
}
