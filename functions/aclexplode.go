package functions

// aclexplode(aclitem[]): the privileges an access control list grants, one
// row each (grantor, grantee, privilege_type, is_grantable), as pgAdmin's
// and DBeaver's privilege tabs read relacl, nspacl and datacl. cairn's ACL
// columns are text[] of aclitem's text form (grantee=privileges/grantor,
// an empty grantee being PUBLIC, OID 0).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// aclPrivileges are aclitem's privilege letters in the order of their ACL
// bits, which is the order aclexplode lists them in.
var aclPrivileges = []struct {
	letter byte
	name   string
}{
	{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"},
	{'x', "REFERENCES"}, {'t', "TRIGGER"}, {'X', "EXECUTE"}, {'U', "USAGE"}, {'C', "CREATE"},
	{'T', "TEMPORARY"}, {'c', "CONNECT"},
}

func init() {
	out := []types.Field{{Name: "grantor", T: types.OidT}, {Name: "grantee", T: types.OidT},
		{Name: "privilege_type", T: types.TextT}, {Name: "is_grantable", T: types.BoolT}}
	RegisterSetReturning(&SetReturning{Name: "aclexplode",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			ok := len(args) == 1 && (args[0].IsArray() && args[0].Elem.IsString() || args[0].Family == types.Unknown)
			return SetSignature{Out: out}, ok, nil
		},
		Rows: func(ctx *Context, args []any, _ []types.T) (NextRow, error) {
			var rows [][]any
			if a, ok := args[0].(*types.Array); ok {
				for _, e := range a.Elems {
					s, ok := e.(string)
					if !ok {
						continue
					}
					r, err := explodeACLItem(ctx, s)
					if err != nil {
						return nil, err
					}
					rows = append(rows, r...)
				}
			}
			i := 0
			return func() ([]any, bool, error) {
				if i >= len(rows) {
					return nil, false, nil
				}
				i++
				return rows[i-1], true, nil
			}, nil
		}})
}

// explodeACLItem is the rows of one aclitem's text.
func explodeACLItem(ctx *Context, item string) ([][]any, error) {
	grantee, rest := aclRoleName(item)
	if !strings.HasPrefix(rest, "=") {
		return nil, nil
	}
	privs, grantorText, _ := strings.Cut(rest[1:], "/")
	grantor, _ := aclRoleName(grantorText)
	granteeOID, err := aclRoleOID(ctx, grantee)
	if err != nil {
		return nil, err
	}
	grantorOID, err := aclRoleOID(ctx, grantor)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for _, p := range aclPrivileges {
		at := strings.IndexByte(privs, p.letter)
		if at < 0 {
			continue
		}
		grantable := at+1 < len(privs) && privs[at+1] == '*'
		rows = append(rows, []any{grantorOID, granteeOID, p.name, grantable})
	}
	return rows, nil
}

// aclRoleName reads a role name at the start of s, double-quoted or not,
// and returns it with the rest of s.
func aclRoleName(s string) (name, rest string) {
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexAny(s, "=/")
		if end < 0 {
			return s, ""
		}
		return s[:end], s[end:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:]
		}
		b.WriteByte(s[i])
	}
	return b.String(), ""
}

// aclRoleOID is the OID of a role an aclitem names; PUBLIC (no name) is 0.
func aclRoleOID(ctx *Context, name string) (int64, error) {
	if name == "" {
		return 0, nil
	}
	if ctx == nil || ctx.Catalog == nil {
		return 0, nil
	}
	return ctx.Catalog.Lookup(types.RegRole, `"`+strings.ReplaceAll(name, `"`, `""`)+`"`)
}
