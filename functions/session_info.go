package functions

// Session information: version(), current_database() / current_catalog,
// current_schema(), current_schemas(bool), current_user, session_user,
// user, current_setting(name [, missing_ok]) and pg_backend_pid(), read
// from Context.Session (defaults when there is none).

import (
	"os"
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Version is what version() returns.
const Version = "PostgreSQL 15.6 (cairn) on x86_64-pc-linux-gnu, compiled by Go"

// BackendPIDer is the optional part of a SessionInfo that pg_backend_pid()
// reads; without it the server's process id is returned. Like SessionInfo
// it is safe for concurrent use.
type BackendPIDer interface {
	BackendPID() int32
}

// TempSchemaInfo is the optional part of a SessionInfo that names the
// session's temporary schema (pg_my_temp_schema, current_schemas): ""
// while it has none, and whether SearchPath leads with it implicitly
// (search_path does not name pg_temp). Like SessionInfo it is safe for
// concurrent use.
type TempSchemaInfo interface {
	TempSchema() (name string, implicit bool)
}

// tempSchema is the session's temporary schema and whether the search
// path has it implicitly ("" and false without one).
func tempSchema(ctx *Context) (string, bool) {
	if ctx != nil {
		if t, ok := ctx.Session.(TempSchemaInfo); ok {
			return t.TempSchema()
		}
	}
	return "", false
}

func sessionUser(ctx *Context) string {
	if ctx != nil && ctx.Session != nil {
		return ctx.Session.User()
	}
	return "postgres"
}

// schemaExists reports whether the catalog has schema s (true without a
// catalog to ask).
func schemaExists(ctx *Context, s string) bool {
	if ctx == nil || ctx.Catalog == nil {
		return true
	}
	_, err := ctx.Catalog.Lookup(types.RegNamespace, ident.Quote(s))
	return err == nil
}

func init() {
	N := types.NameT
	user := func(ctx *Context, _ []any) (any, error) { return sessionUser(ctx), nil }
	database := func(ctx *Context, _ []any) (any, error) {
		if ctx != nil && ctx.Session != nil {
			return ctx.Session.Database(), nil
		}
		return "postgres", nil
	}
	setting := func(ctx *Context, a []any) (any, error) {
		name := a[0].(string)
		missingOK := len(a) > 1 && a[1] != nil && a[1].(bool)
		if ctx != nil && ctx.Session != nil {
			if v, ok := ctx.Session.Setting(strings.ToLower(name)); ok {
				return v, nil
			}
		}
		if missingOK {
			return nil, nil
		}
		return nil, pgerr.New(pgerrcode.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	Register(allStable(
		fn("version", nil, tText, func(_ *Context, _ []any) (any, error) { return Version, nil }),
		fn("current_database", nil, N, database),
		fn("current_catalog", nil, N, database),
		fn("current_schema", nil, N, func(ctx *Context, _ []any) (any, error) {
			if ctx != nil && ctx.Session != nil {
				s := ctx.Session.CurrentSchema()
				if s == "" {
					return nil, nil
				}
				return s, nil
			}
			return "public", nil
		}),
		// The search path's schemas that exist, with (when asked for) the
		// implicitly searched ones first: the session's temporary schema
		// unless the path names pg_temp, then pg_catalog unless the path
		// names it.
		fn("current_schemas", targs(tBool), types.ArrayOf(N, 1), func(ctx *Context, a []any) (any, error) {
			path := []string{"public"}
			if ctx != nil && ctx.Session != nil {
				path = ctx.Session.SearchPath()
			}
			temp, implicit := tempSchema(ctx)
			if implicit && len(path) > 0 && path[0] == temp {
				path = path[1:]
			}
			var out []any
			if a[0].(bool) {
				if implicit {
					out = append(out, temp)
				}
				if !slices.Contains(path, "pg_catalog") {
					out = append(out, "pg_catalog")
				}
			}
			for _, s := range path {
				if schemaExists(ctx, s) {
					out = append(out, s)
				}
			}
			return types.NewArray(N, out...), nil
		}),
		fn("current_user", nil, N, user),
		fn("session_user", nil, N, func(ctx *Context, _ []any) (any, error) {
			if ctx != nil && ctx.Session != nil {
				if v, ok := ctx.Session.Setting("session_authorization"); ok && v != "" {
					return v, nil
				}
			}
			return sessionUser(ctx), nil
		}),
		fn("user", nil, N, user),
		fn("current_role", nil, N, user),
		fn("current_setting", targs(tText), tText, setting),
		&Overload{Name: "current_setting", Args: targs(tText, tBool), Result: tText, NullCall: true,
			Eval: func(ctx *Context, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				return setting(ctx, a)
			}},
		// pg_my_temp_schema() is the OID of the session's temporary
		// schema, 0 while it has none; pg_is_other_temp_schema(oid)
		// whether oid is another session's.
		fn("pg_my_temp_schema", nil, types.OidT, func(ctx *Context, _ []any) (any, error) {
			if temp, _ := tempSchema(ctx); temp != "" && ctx.Catalog != nil {
				if oid, err := ctx.Catalog.Lookup(types.RegNamespace, ident.Quote(temp)); err == nil {
					return oid, nil
				}
			}
			return int64(0), nil
		}),
		fn("pg_is_other_temp_schema", targs(types.OidT), tBool, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return false, nil
			}
			name, ok := ctx.Catalog.Name(types.RegNamespace, a[0].(int64))
			if !ok {
				return false, nil
			}
			name = strings.Trim(name, `"`)
			temp, _ := tempSchema(ctx)
			return catalog.IsTempSchema(name) && name != temp, nil
		}),
		fn("pg_backend_pid", nil, tInt4, func(ctx *Context, _ []any) (any, error) {
			if ctx != nil {
				if p, ok := ctx.Session.(BackendPIDer); ok {
					return int64(p.BackendPID()), nil
				}
			}
			return int64(os.Getpid()), nil
		}),
	)...)
}
