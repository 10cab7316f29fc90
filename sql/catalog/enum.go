package catalog

import (
	"strings"

	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/types"
)

// TypeDef is a user-defined type: an enum (CREATE TYPE ... AS ENUM) or a
// domain (CREATE DOMAIN), whichever of Enum and Domain is set. Enum is
// immutable once in a catalog: ALTER TYPE replaces it, and
// the columns of the type, which hold the same pointer in their types.T,
// get the new one (ReplaceEnum).
type TypeDef struct {
	Schema string          `json:"schema"`
	Name   string          `json:"name"`
	Owner  uint32          `json:"owner,omitempty"`
	Enum   *types.EnumType `json:"enum,omitempty"`
	Domain *DomainDef      `json:"domain,omitempty"`
	// Comment is COMMENT ON TYPE's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// FirstTypeOID is where the OIDs of user types and enum labels start:
// above the table OIDs' base (100000 + table ID) by far, below the hashed
// OIDs of other objects (1<<24 and up).
const FirstTypeOID = 8_000_000

// Type returns the user type schema.name, or nil.
func (c *Catalog) Type(schema, name string) *TypeDef { return c.Types[Key(schema, name)] }

// ArrayType resolves name as the name of a user type's array type, which
// PostgreSQL's pg_type calls "_" + the type's name (an ORM reads it from
// information_schema.columns.udt_name and casts it to regtype): the
// element type, or nil when name is no such array's.
func (c *Catalog) ArrayType(schema, name string) *TypeDef {
	elem, ok := strings.CutPrefix(name, "_")
	if !ok {
		return nil
	}
	return c.Type(schema, elem)
}

// TypeByOID returns the user type whose pg_type OID (or array type OID)
// is oid, or nil.
func (c *Catalog) TypeByOID(oid uint32) *TypeDef {
	for _, t := range c.Types {
		if t.OID() == oid || t.ArrayOID() == oid {
			return t
		}
	}
	return nil
}

// AllocOIDs hands out n consecutive OIDs for types and enum labels.
func (c *Catalog) AllocOIDs(n int) uint32 {
	if c.NextTypeOID < FirstTypeOID {
		c.NextTypeOID = FirstTypeOID
	}
	first := c.NextTypeOID
	c.NextTypeOID += uint32(n)
	return first
}

// ReplaceEnum puts e in place of the enum with e's OID in every column
// (and array column) of every table and view, after ALTER TYPE changed it.
func (c *Catalog) ReplaceEnum(e *types.EnumType) {
	for _, t := range c.Tables {
		for i := range t.Columns {
			t.Columns[i].Type = withEnum(t.Columns[i].Type, e)
		}
	}
	for _, v := range c.Views {
		for i := range v.Columns {
			v.Columns[i].Type = withEnum(v.Columns[i].Type, e)
		}
	}
}

// withEnum is t with e in place of the enum of e's OID, if t is that enum
// or an array of it.
func withEnum(t types.T, e *types.EnumType) types.T {
	switch {
	case t.Enum != nil && t.Enum.OID == e.OID:
		t.Enum = e
	case t.Family == types.ArrayFamily && t.Elem != nil && t.Elem.Enum != nil && t.Elem.Enum.OID == e.OID:
		el := *t.Elem
		el.Enum = e
		t.Elem = &el
	}
	return t
}

// UsesEnum reports whether type t is the enum with OID oid or an array of it.
func UsesEnum(t types.T, oid uint32) bool {
	if t.Family == types.ArrayFamily && t.Elem != nil {
		t = *t.Elem
	}
	return t.Enum != nil && t.Enum.OID == oid
}

// EnumDefault is the text of a column DEFAULT that is label of e:
// 'ok'::public.mood, qualified so that it reads the same under any
// search_path (pg_dump's is empty); pg_get_expr shows the name as
// regtype would (sql/syscat), 'ok'::mood where public is on the path.
func EnumDefault(e *types.EnumType, label string) string {
	return "'" + strings.ReplaceAll(label, "'", "''") + "'::" + ident.QualifiedName(e.Schema, e.Name)
}

// EnumArrayDefault is the text of a column DEFAULT that is the array
// literal lit (its text form, '{a,b}') of enum e: '{a,b}'::public.mood[],
// as EnumDefault qualifies it.
func EnumArrayDefault(e *types.EnumType, lit string) string {
	return "'" + strings.ReplaceAll(lit, "'", "''") + "'::" + ident.QualifiedName(e.Schema, e.Name) + "[]"
}

// RewriteEnumDefaults updates the DEFAULTs that are constants of enum old
// after ALTER TYPE made it e (a label renamed from from to to, or the
// type renamed or moved): a default is stored as SQL text, and must name
// the label and the type as they now are.
func (c *Catalog) RewriteEnumDefaults(old, e *types.EnumType, from, to string) {
	for _, t := range c.Tables {
		for i, col := range t.Columns {
			if col.Default == "" || !UsesEnum(col.Type, e.OID) {
				continue
			}
			if col.Type.IsArray() {
				if d, ok := rewriteEnumArrayDefault(col.Default, old, e, from, to); ok {
					t.Columns[i].Default = d
				}
				continue
			}
			for _, l := range old.Labels {
				if col.Default != EnumDefault(old, l.Label) {
					continue
				}
				if l.Label == from {
					l.Label = to
				}
				t.Columns[i].Default = EnumDefault(e, l.Label)
				break
			}
		}
	}
}

// rewriteEnumArrayDefault is def, a DEFAULT that is an array constant of
// enum old (EnumArrayDefault), for enum e with label from renamed to to
// ("" for none); ok is false when def is no such constant.
func rewriteEnumArrayDefault(def string, old, e *types.EnumType, from, to string) (string, bool) {
	suffix := "'::" + ident.QualifiedName(old.Schema, old.Name) + "[]"
	lit, ok := strings.CutSuffix(def, suffix)
	if !ok || !strings.HasPrefix(lit, "'") {
		return "", false
	}
	lit = strings.ReplaceAll(lit[1:], "''", "'")
	if from == "" {
		return EnumArrayDefault(e, lit), true
	}
	v, err := types.ParseText(lit, types.ArrayOf(types.EnumOf(old), 1))
	a, isArray := v.(*types.Array)
	if err != nil || !isArray {
		return "", false
	}
	for i, x := range a.Elems {
		if x == from {
			a.Elems[i] = to
		}
	}
	return EnumArrayDefault(e, types.FormatText(a, types.ArrayOf(types.EnumOf(e), 1))), true
}
