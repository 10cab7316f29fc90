package types

import (
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// EnumType is a user-defined enum (CREATE TYPE ... AS ENUM): its pg_type
// OIDs, its qualified name and its labels. A value of an enum is a text
// datum holding the label (stored as text too), so every path that moves
// text moves enums; the type T of an enum column is TextT with Enum set,
// which gives it its own OID, name, validation and sort order. Catalog
// changes to the enum (ADD VALUE, RENAME VALUE, RENAME TO) rewrite the
// EnumType in every column that has it.
type EnumType struct {
	OID      uint32      `json:"oid"`
	ArrayOID uint32      `json:"array_oid"`
	Schema   string      `json:"schema"`
	Name     string      `json:"name"`
	Labels   []EnumLabel `json:"labels"`
}

// EnumLabel is one value of an enum: its pg_enum OID, sort position
// (pg_enum.enumsortorder: ADD VALUE BEFORE/AFTER takes the midpoint of its
// neighbours) and label.
type EnumLabel struct {
	OID   uint32  `json:"oid"`
	Sort  float32 `json:"sort"`
	Label string  `json:"label"`
}

// EnumOf is the type of a column of enum e.
func EnumOf(e *EnumType) T { return T{Family: Text, Mod: -1, Enum: e} }

// IsEnum reports whether t is an enum type (not an array of one).
func (t T) IsEnum() bool { return t.Enum != nil && t.Family == Text }

// Position is the index of label in e's sort order, -1 if e has no such
// label.
func (e *EnumType) Position(label string) int {
	for i, l := range e.Labels {
		if l.Label == label {
			return i
		}
	}
	return -1
}

// QualifiedName is the enum's name as format_type writes it: bare in
// public, schema-qualified elsewhere.
func (e *EnumType) QualifiedName() string {
	if e.Schema == "public" || e.Schema == "pg_catalog" {
		return e.Name
	}
	return e.Schema + "." + e.Name
}

// Clone returns a deep copy of e.
func (e *EnumType) Clone() *EnumType {
	c := *e
	c.Labels = append([]EnumLabel(nil), e.Labels...)
	return &c
}

// CheckEnumLabel is 22P02 for a string that is not one of e's labels, as
// PostgreSQL's enum_in reports it.
func CheckEnumLabel(e *EnumType, s string) error {
	if e.Position(s) < 0 {
		return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input value for enum %s: %q", e.QualifiedName(), s)
	}
	return nil
}

// compareEnum orders two labels of e by their sort positions; a string
// that is not a label (which validation keeps out of stored data) sorts
// after every label, bytewise among its kind.
func compareEnum(e *EnumType, a, b string) int {
	pa, pb := e.Position(a), e.Position(b)
	switch {
	case pa < 0 && pb < 0:
		return strings.Compare(a, b)
	case pa < 0:
		return 1
	case pb < 0:
		return -1
	}
	return cmpInt(pa, pb)
}
