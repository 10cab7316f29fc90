package catalog

import (
	"maps"
	"slices"

	"github.com/cairn-db/cairn/sql/types"
)

// DomainDef is a domain (CREATE DOMAIN): a base type whose values must
// meet its NOT NULL and CHECK constraints. Columns of the domain hold the
// base type (ColumnDef.Domain names the domain), so values behave as the
// base type everywhere and the wire reports the base type's OID, as
// PostgreSQL does.
type DomainDef struct {
	OID      uint32  `json:"oid"`
	ArrayOID uint32  `json:"array_oid"`
	Base     types.T `json:"base"`
	// Default is the SQL text of the domain's DEFAULT, "" for none; a
	// column of the domain without its own DEFAULT takes it.
	Default string `json:"default,omitempty"`
	NotNull bool   `json:"not_null,omitempty"`
	// Checks are the CHECK constraints, in the order they were added.
	Checks []DomainCheck `json:"checks,omitempty"`
}

// DomainCheck is a CHECK constraint of a domain: Expr is SQL text that
// reads the value as VALUE.
type DomainCheck struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// NotValid is ADD CONSTRAINT ... NOT VALID not yet validated: new
	// values are checked, the rows already stored were not.
	NotValid bool `json:"not_valid,omitempty"`
}

// Clone is a deep copy of d, for a change to make on it.
func (d *DomainDef) Clone() *DomainDef {
	n := *d
	n.Checks = slices.Clone(d.Checks)
	return &n
}

// OID is the type's pg_type OID.
func (t *TypeDef) OID() uint32 {
	if t.Domain != nil {
		return t.Domain.OID
	}
	return t.Enum.OID
}

// ArrayOID is the OID of the type's array type.
func (t *TypeDef) ArrayOID() uint32 {
	if t.Domain != nil {
		return t.Domain.ArrayOID
	}
	return t.Enum.ArrayOID
}

// DomainByOID is the domain with pg_type OID oid, or nil.
func (c *Catalog) DomainByOID(oid uint32) *TypeDef {
	if oid == 0 {
		return nil
	}
	for _, t := range c.Types {
		if t.Domain != nil && t.Domain.OID == oid {
			return t
		}
	}
	return nil
}

// TypeUser is a table column of user type t (for an enum, or an array of
// it), the first by table ID; nil when none is.
func TypeUser(c *Catalog, t *TypeDef) (*TableDef, string) {
	uses := func(col ColumnDef) bool { return t.Enum != nil && UsesEnum(col.Type, t.Enum.OID) }
	if t.Domain != nil {
		uses = func(col ColumnDef) bool { return col.Domain == t.Domain.OID }
	}
	for _, id := range slices.Sorted(maps.Keys(c.Tables)) {
		tbl := c.Tables[id]
		for _, col := range tbl.Columns {
			if uses(col) {
				return tbl, col.Name
			}
		}
	}
	return nil, ""
}
