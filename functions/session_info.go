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
		// (which SearchPath leads with once it exists), then pg_catalog
		// unless the path names it.
		fn("current_schemas", targs(tBool), types.ArrayOf(N, 1), func(ctx *Context, a []any) (any, error) {
			path := []string{"public"}
			if ctx != nil && ctx.Session != nil {
				path = ctx.Session.SearchPath()
			}
			var out []any
			if a[0].(bool) {
				for _, s := range path {
					if catalog.IsTempSchema(s) && schemaExists(ctx, s) {
						out = append(out, s)
					}
				}
				if !slices.Contains(path, "pg_catalog") {
					out = append(out, "pg_catalog")
				}
			}
			for _, s := range path {
				if !catalog.IsTempSchema(s) && schemaExists(ctx, s) {
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
