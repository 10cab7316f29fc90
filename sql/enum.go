package sql

import (
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CreateEnum is CREATE TYPE schema.name AS ENUM (labels...).
type CreateEnum struct {
	Schema, Name string
	Labels       []string
}

// AlterEnumKind says what an AlterType does.
type AlterEnumKind int

// The kinds of ALTER TYPE cairn carries out.
const (
	// AddEnumValue is ADD VALUE [IF NOT EXISTS] Value [BEFORE|AFTER Neighbor].
	AddEnumValue AlterEnumKind = iota
	// RenameEnumValue is RENAME VALUE Neighbor TO Value.
	RenameEnumValue
	// RenameType is RENAME TO NewName.
	RenameType
	// TypeOwner is OWNER TO Owner.
	TypeOwner
)

// AlterType is ALTER TYPE on an enum. Schema is the type's, resolved
// through the search path.
type AlterType struct {
	Schema, Name string
	Kind         AlterEnumKind
	// Value is the new label; Neighbor the label it goes BEFORE (After
	// false) or AFTER, "" for the end, or the label RENAME VALUE renames.
	Value, Neighbor string
	After           bool
	IfNotExists     bool
	NewName         string
	Owner           RoleSpec
}

// DropType is DROP TYPE [IF EXISTS] names [CASCADE]; Names are resolved
// [schema, name] pairs, Missing the names IF EXISTS skips.
type DropType struct {
	Names   [][2]string
	Missing []string
	Cascade bool
	// Domain is DROP DOMAIN, whose names must be domains.
	Domain bool
}

func (*CreateEnum) statement() {}
func (*AlterType) statement()  {}
func (*DropType) statement()   {}

// maxLabelBytes is NAMEDATALEN - 1, the longest enum label PostgreSQL takes.
const maxLabelBytes = 63

// checkLabel refuses an enum label longer than 63 bytes (42602).
func checkLabel(l string) error {
	if len(l) > maxLabelBytes {
		return pgerr.New(pgerrcode.InvalidName, "invalid enum label \"%s\"", l).
			WithDetail("Labels must be %d bytes or less.", maxLabelBytes)
	}
	return nil
}

// newTypeName resolves the [schema.]name of a type CREATE TYPE or CREATE
// DOMAIN makes: the schema it goes in (3F000 when missing), on which the
// statement needs CREATE.
func (b *Binder) newTypeName(names []*pg_query.Node) (schema, name string, err error) {
	parts := strList(names)
	name = parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	if schema, err = b.CreationSchema(schema, name); err != nil {
		return "", "", err
	}
	if _, ok := b.Catalog.Schemas[schema]; !ok {
		return "", "", pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	b.accesses = append(b.accesses, Access{Schema: schema, Privs: catalog.PrivCreate})
	return schema, name, nil
}

func (b *Binder) bindCreateEnum(s *pg_query.CreateEnumStmt) (Statement, error) {
	schema, name, err := b.newTypeName(s.TypeName)
	if err != nil {
		return nil, err
	}
	c := &CreateEnum{Schema: schema, Name: name}
	seen := map[string]bool{}
	for _, v := range s.Vals {
		l := v.GetString_().GetSval()
		if err := checkLabel(l); err != nil {
			return nil, err
		}
		if seen[l] {
			// PostgreSQL trips over pg_enum's unique index here.
			return nil, pgerr.New(pgerrcode.UniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"").
				WithDetail("Key (enumtypid, enumlabel)=(%d, %s) already exists.", 0, l)
		}
		seen[l] = true
		c.Labels = append(c.Labels, l)
	}
	return c, nil
}

// lookupType finds the user type a possibly qualified name names, through
// the search path (42704 if none).
func (b *Binder) lookupType(names []string) (*catalog.TypeDef, error) {
	name := names[len(names)-1]
	path := b.SearchPath
	if len(names) > 1 {
		path = []string{names[len(names)-2]}
	}
	for _, s := range path {
		if t := b.Catalog.Type(s, name); t != nil {
			return t, nil
		}
	}
	return nil, pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
}

// typeNameStrings is a type's name as the parse tree spells it, without
// the pg_catalog qualification the grammar adds to some built-in types.
func typeNameStrings(tn *pg_query.TypeName) []string {
	return strList(tn.Names)
}

// userType resolves a type name that is not a built-in type to an enum,
// or to an enum's array type by its pg_type name ("_mood" for mood[]),
// or to a domain's base type; ok false when there is none. An enum named
// like an array type wins, as PostgreSQL's own "_mood" row would.
func (b *Binder) userType(names []string) (types.T, bool) {
	if len(names) > 1 && names[len(names)-2] == "pg_catalog" {
		return types.UnknownT, false
	}
	if td, err := b.lookupType(names); err == nil {
		if td.Domain != nil {
			return td.Domain.Base, true
		}
		return types.EnumOf(td.Enum), true
	}
	path := b.SearchPath
	if len(names) > 1 {
		path = []string{names[len(names)-2]}
	}
	for _, s := range path {
		// (cairn has no arrays of domains: "_email" names none.)
		if td := b.Catalog.ArrayType(s, names[len(names)-1]); td != nil && td.Enum != nil {
			return types.ArrayOf(types.EnumOf(td.Enum), 1), true
		}
	}
	return types.UnknownT, false
}

func (b *Binder) bindAlterEnum(s *pg_query.AlterEnumStmt) (Statement, error) {
	td, err := b.lookupType(strList(s.TypeName))
	if err != nil {
		return nil, err
	}
	if td.Enum == nil {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "%s is not an enum", td.Name)
	}
	a := &AlterType{Schema: td.Schema, Name: td.Name}
	if s.OldVal != "" {
		a.Kind, a.Neighbor, a.Value = RenameEnumValue, s.OldVal, s.NewVal
	} else {
		a.Kind, a.Value, a.Neighbor, a.After, a.IfNotExists = AddEnumValue, s.NewVal, s.NewValNeighbor, s.NewValIsAfter, s.SkipIfNewValExists
	}
	if err := checkLabel(a.Value); err != nil {
		return nil, err
	}
	return a, nil
}

// bindRenameType binds ALTER TYPE name RENAME TO new.
func (b *Binder) bindRenameType(s *pg_query.RenameStmt) (Statement, error) {
	td, err := b.lookupType(strList(s.Object.GetList().GetItems()))
	if err != nil {
		return nil, err
	}
	return &AlterType{Schema: td.Schema, Name: td.Name, Kind: RenameType, NewName: s.Newname}, nil
}

// bindTypeOwner binds ALTER TYPE name OWNER TO role.
func (b *Binder) bindTypeOwner(s *pg_query.AlterOwnerStmt) (Statement, error) {
	td, err := b.lookupType(strList(s.Object.GetList().GetItems()))
	if err != nil {
		return nil, err
	}
	return &AlterType{Schema: td.Schema, Name: td.Name, Kind: TypeOwner, Owner: roleSpec(s.Newowner)}, nil
}

// bindDropType binds DROP TYPE; a type that is not an enum cairn has is
// 42704 (or skipped with IF EXISTS), as PostgreSQL's built-in types
// cannot be dropped either.
func (b *Binder) bindDropType(s *pg_query.DropStmt) (Statement, error) {
	d := &DropType{Cascade: s.Behavior == pg_query.DropBehavior_DROP_CASCADE, Domain: s.RemoveType == pg_query.ObjectType_OBJECT_DOMAIN}
	for _, o := range s.Objects {
		names := typeNameStrings(o.GetTypeName())
		td, err := b.lookupType(names)
		if err != nil {
			if s.MissingOk {
				d.Missing = append(d.Missing, strings.Join(names, "."))
				continue
			}
			return nil, err
		}
		if d.Domain && td.Domain == nil {
			return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a domain", td.Name)
		}
		d.Names = append(d.Names, [2]string{td.Schema, td.Name})
	}
	return d, nil
}

// RenameEnumValue is the UPDATE that ALTER TYPE ... RENAME VALUE from TO
// to runs on column pos of def, whose type is the enum (already renamed
// in def) or an array of it: enum values are stored as their labels, so
// the rows holding the old label are rewritten with the new one.
func (b *Binder) RenameEnumValue(def *catalog.TableDef, pos int, from, to string) (Node, error) {
	col := columnRef(def, pos, 0)
	t := def.Columns[pos].Type
	fromC, toC := &Const{Value: from, T: types.TextT}, &Const{Value: to, T: types.TextT}
	var cond, set Expr
	var err error
	if t.Family == types.ArrayFamily {
		asText := &Cast{Arg: col, To: types.ArrayOf(types.TextT, t.Dims), Explicit: true}
		if set, err = b.bindCall("array_replace", []Expr{asText, fromC, toC}, nil); err != nil {
			return nil, err
		}
		set = &Cast{Arg: set, To: t, Explicit: true}
		cond = &IsNull{Arg: col, Negate: true}
	} else {
		if cond, err = b.bindOperator("=", &Cast{Arg: col, To: types.TextT, Explicit: true}, fromC); err != nil {
			return nil, err
		}
		set = &Const{Value: to, T: t}
	}
	gen, err := b.generatedExprs(def)
	if err != nil {
		return nil, err
	}
	return &Update{Table: def, Input: &Filter{Input: tableScan(def, true), Cond: cond}, Set: map[int]Expr{pos: set}, Gen: gen}, nil
}
