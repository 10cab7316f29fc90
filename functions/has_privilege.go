package functions

// has_table_privilege, has_column_privilege, has_any_column_privilege,
// has_sequence_privilege, has_schema_privilege, has_database_privilege,
// has_function_privilege, has_type_privilege, has_language_privilege and
// has_tablespace_privilege: whether a user holds privileges on an object,
// which drivers and BI tools filter their object lists with.
// has_table_privilege, has_schema_privilege, has_sequence_privilege,
// has_column_privilege and has_any_column_privilege answer from the catalog's owners and ACLs
// (PrivilegeCatalog): true when the user holds any of the privileges
// listed, as in PostgreSQL; an unknown OID (or column number) gives
// NULL, an unknown name 42P01, 3F000 or 42703. The others, for objects
// that have no privileges in cairn yet, answer true.
//
// Each takes an optional user (name or OID), the object (its name as text,
// or its OID; has_column_privilege also a column, by name or number) and
// the privileges: a comma-separated list of privilege names, each
// optionally followed by WITH GRANT OPTION, in any case. As in PostgreSQL,
// a name the function does not know is an error, and a list naming only
// the obsolete table privilege RULE asks for nothing and gives false.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// privilegeFuncs are the functions with the privileges each accepts
// (PostgreSQL's *_priv_map in acl.c, without the WITH GRANT OPTION
// variants).
var privilegeFuncs = []struct {
	name  string
	privs []string
}{
	{"has_table_privilege", []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "RULE"}},
	{"has_column_privilege", []string{"SELECT", "INSERT", "UPDATE", "REFERENCES"}},
	{"has_any_column_privilege", []string{"SELECT", "INSERT", "UPDATE", "REFERENCES"}},
	{"has_sequence_privilege", []string{"USAGE", "SELECT", "UPDATE"}},
	{"has_schema_privilege", []string{"CREATE", "USAGE"}},
	{"has_database_privilege", []string{"CREATE", "TEMPORARY", "TEMP", "CONNECT"}},
	{"has_function_privilege", []string{"EXECUTE"}},
	{"has_type_privilege", []string{"USAGE"}},
	{"has_language_privilege", []string{"USAGE"}},
	{"has_tablespace_privilege", []string{"CREATE"}},
}

func init() {
	oid, name, int2 := types.OidT, types.NameT, types.Int2T
	for _, f := range privilegeFuncs {
		objects := [][]types.T{{tText}, {oid}}
		if f.name == "has_column_privilege" {
			objects = [][]types.T{{tText, tText}, {tText, int2}, {oid, tText}, {oid, int2}}
		}
		privs, kind := f.privs, strings.TrimSuffix(strings.TrimPrefix(f.name, "has_"), "_privilege")
		eval := func(_ *Context, a []any) (any, error) { return checkPrivileges(a[len(a)-1].(string), privs) }
		switch kind {
		case "table", "schema", "column", "any_column", "sequence":
			eval = func(ctx *Context, a []any) (any, error) { return objectPrivilege(ctx, a, privs, kind) }
		}
		for _, user := range [][]types.T{nil, {name}, {oid}} {
			for _, obj := range objects {
				args := append(append(append([]types.T(nil), user...), obj...), tText)
				Register(allStable(fn(f.name, args, tBool, eval))...)
			}
		}
	}
}

// checkPrivileges parses a privilege list as PostgreSQL's
// convert_any_priv_string does and answers whether the (only) user holds
// them: true, unless the list asks for no real privilege.
func checkPrivileges(list string, privs []string) (any, error) {
	asked := false
	for _, chunk := range strings.Split(list, ",") {
		chunk = strings.Trim(chunk, " \t\n\v\f\r")
		priv := strings.TrimSuffix(asciiUpper(chunk), " WITH GRANT OPTION")
		known := false
		for _, p := range privs {
			if priv == p {
				known = true
				break
			}
		}
		if !known {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized privilege type: \"%s\"", chunk)
		}
		// RULE is accepted for old clients but grants nothing.
		asked = asked || priv != "RULE"
	}
	return asked, nil
}

// PrivilegeCatalog is the part of a Catalog that has_table_privilege and
// has_schema_privilege ask (sql/syscat's View implements it).
type PrivilegeCatalog interface {
	// HasPrivilege reports whether the role with OID role holds want
	// (with grant option, if asked) on the table, or with schema the
	// schema, of OID object; known is false when no such object exists.
	HasPrivilege(role, object int64, schema bool, want catalog.Priv, grantOption bool) (ok, known bool)
	// HasColumnPrivilege is HasPrivilege for a column of the relation
	// of OID table, named (a string) or numbered (an int64), through the
	// table's ACL or the column's; with column nil, for any column.
	// known is false for a table or column number that does not exist;
	// an unknown column name is an error (42703).
	HasColumnPrivilege(role, table int64, column any, want catalog.Priv, grantOption bool) (ok, known bool, err error)
	// IsSequence reports whether the relation of OID rel is a sequence;
	// known is false when no such relation exists.
	IsSequence(rel int64) (isSeq, known bool)
}

// privilegeBits are the catalog's privileges by the names the functions
// take (RULE: none).
var privilegeBits = map[string]catalog.Priv{
	"SELECT": catalog.PrivSelect, "INSERT": catalog.PrivInsert, "UPDATE": catalog.PrivUpdate, "DELETE": catalog.PrivDelete,
	"TRUNCATE": catalog.PrivTruncate, "REFERENCES": catalog.PrivReferences, "TRIGGER": catalog.PrivTrigger,
	"USAGE": catalog.PrivUsage, "CREATE": catalog.PrivCreate,
}

// objectPrivilege is has_table_privilege, has_schema_privilege,
// has_column_privilege or has_any_column_privilege (kind "table",
// "schema", "column", "any_column") over their arguments a: [user,]
// object, [column,] privilege list.
func objectPrivilege(ctx *Context, a []any, privs []string, kind string) (any, error) {
	if _, err := checkPrivileges(a[len(a)-1].(string), privs); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, pgerr.NotSupported("privilege functions outside a session")
	}
	pc, ok := ctx.Catalog.(PrivilegeCatalog)
	if !ok {
		return nil, pgerr.NotSupported("privilege functions outside a session")
	}
	schema := kind == "schema"
	var column any
	if kind == "column" {
		column, a = a[len(a)-2], append(a[:len(a)-2:len(a)-2], a[len(a)-1])
	}
	user, obj := any(sessionUser(ctx)), a[0]
	if len(a) == 3 {
		user, obj = a[0], a[1]
	}
	role, err := roleOID(ctx, user)
	if err != nil {
		return nil, err
	}
	oid, isOID := obj.(int64)
	if !isOID {
		name := obj.(string)
		if !schema {
			oid, err = ctx.Catalog.Lookup(types.RegClass, name)
		} else if oid, err = ctx.Catalog.Lookup(types.RegNamespace, `"`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			// Quoted above, so that regnamespace's input takes the name
			// as it is; the error names it as given.
			err = pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		if err != nil {
			return nil, err
		}
	}
	if isSeq, known := pc.IsSequence(oid); kind == "sequence" && known && !isSeq {
		name, _ := obj.(string)
		if isOID {
			name, _ = ctx.Catalog.Name(types.RegClass, oid)
		}
		return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a sequence", name)
	}
	for _, chunk := range strings.Split(a[len(a)-1].(string), ",") {
		up := asciiUpper(strings.Trim(chunk, " \t\n\v\f\r"))
		name, grant := strings.CutSuffix(up, " WITH GRANT OPTION")
		bit := privilegeBits[name]
		if bit == 0 {
			continue
		}
		var ok, known bool
		if kind == "column" || kind == "any_column" {
			if ok, known, err = pc.HasColumnPrivilege(role, oid, column, bit, grant); err != nil {
				return nil, err
			}
		} else {
			ok, known = pc.HasPrivilege(role, oid, schema, bit, grant)
		}
		if !known {
			return nil, nil
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// asciiUpper upper-cases ASCII letters only, as pg_strcasecmp compares.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
