package syscat

// pg_describe_object: the words PostgreSQL's getObjectDescription uses
// for a catalog object (psql's \dx+ lists an extension's members by them;
// GUI clients' dependency views and DROP ... CASCADE notices read the
// same), names schema-qualified where the search path does not find them.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/types"
)

// DescribeObject is pg_describe_object(classid, objid, objsubid): "table
// public.t" style words for the object with OID objid in the catalog
// with OID classid (its column objsubid for a relation); ok is false for
// an object cairn does not know, which prints as NULL.
func (v *View) DescribeObject(classid, objid, sub int64) (string, bool) {
	switch classid {
	case pgClassOID:
		return v.describeRelation(objid, sub)
	case pgProcOID:
		return v.describeFunction(objid)
	case pgTypeOID:
		if name, ok := v.Name(types.RegType, objid); ok {
			return "type " + name, true
		}
	case pgNamespaceOID:
		if name, ok := v.Name(types.RegNamespace, objid); ok {
			return "schema " + name, true
		}
	case pgExtensionOID:
		for _, e := range extensions {
			if e.oid == objid {
				return "extension " + ident.Quote(e.name), true
			}
		}
	case pgAmOID:
		for _, m := range accessMethods {
			if m.oid == objid {
				return "access method " + ident.Quote(m.name), true
			}
		}
	case pgConstraintOID:
		if c, ok := v.byOID[objid].(*constraint); ok {
			return "constraint " + ident.Quote(c.name) + " on table " + v.qualified(c.table.Schema, c.table.Name), true
		}
	case pgAttrdefOID:
		for _, t := range v.tables {
			for _, c := range t.Columns {
				if attrdefOID(t, c) == objid {
					return "default value for column " + ident.Quote(c.Name) + " of table " + v.qualified(t.Schema, t.Name), true
				}
			}
		}
	case pgRewriteOID:
		for _, d := range v.views {
			if ruleOID(d) == objid {
				return "rule _RETURN on view " + v.qualified(d.Schema, d.Name), true
			}
		}
	}
	return "", false
}

// describeRelation is DescribeObject of a relation, or of its column
// number sub.
func (v *View) describeRelation(oid, sub int64) (string, bool) {
	schema, name, kind, ok := v.Relation(oid)
	if !ok {
		return "", false
	}
	what := map[byte]string{'r': "table", 'i': "index", 'S': "sequence", 'v': "view"}[kind]
	if what == "" {
		what = "relation"
	}
	rel := what + " " + v.qualified(schema, name)
	if sub == 0 {
		return rel, true
	}
	var cols []catalog.ColumnDef
	switch x := v.byOID[oid].(type) {
	case *catalog.TableDef:
		cols = x.Columns
	case *catalog.ViewDef:
		cols = x.Columns
	}
	if sub < 1 || sub > int64(len(cols)) {
		return "", false
	}
	return "column " + ident.Quote(cols[sub-1].Name) + " of " + rel, true
}

// describeFunction is DescribeObject of a function: "function
// name(argument types)", as regprocedure prints it.
func (v *View) describeFunction(oid int64) (string, bool) {
	var schema, name string
	var args []string
	if d, ok := procByOID(oid); ok {
		schema, name = d.schema, d.name
		for _, a := range d.args {
			args = append(args, typeName(a))
		}
	} else if f := userFunctionByOID(v.Cat, oid); f != nil {
		schema, name = f.Schema, f.Name
		for _, t := range f.ArgTypes {
			args = append(args, t.String())
		}
	} else {
		return "", false
	}
	return "function " + v.qualified(schema, name) + "(" + strings.Join(args, ",") + ")", true
}
