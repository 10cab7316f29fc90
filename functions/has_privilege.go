package functions

// has_table_privilege, has_column_privilege, has_any_column_privilege,
// has_sequence_privilege, has_schema_privilege, has_database_privilege and
// has_function_privilege: whether a user holds privileges on an object,
// which drivers and BI tools filter their object lists with. cairn has a
// single user, a superuser, so the answer is always true.
//
// Each takes an optional user (name or OID), the object (its name as text,
// or its OID; has_column_privilege also a column, by name or number) and
// the privileges: a comma-separated list of privilege names, each
// optionally followed by WITH GRANT OPTION, in any case. As in PostgreSQL,
// a name the function does not know is an error, and a list naming only
// the obsolete table privilege RULE asks for nothing and gives false.

import (
	"strings"

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
}

func init() {
	oid, name, int2 := types.OidT, types.NameT, types.Int2T
	for _, f := range privilegeFuncs {
		objects := [][]types.T{{tText}, {oid}}
		if f.name == "has_column_privilege" {
			objects = [][]types.T{{tText, tText}, {tText, int2}, {oid, tText}, {oid, int2}}
		}
		privs := f.privs
		eval := func(_ *Context, a []any) (any, error) { return checkPrivileges(a[len(a)-1].(string), privs) }
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

// asciiUpper upper-cases ASCII letters only, as pg_strcasecmp compares.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
