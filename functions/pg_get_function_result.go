package functions

// pg_get_function_result(func_oid), pg_get_function_arguments(func_oid)
// and pg_get_function_identity_arguments(func_oid): a function's result
// type and argument list as SQL text ("double precision", "vector,
// vector"), which psql's \df prints for each pg_proc row. They are asked
// of Context.Catalog when it knows functions (FunctionCatalog); an OID
// naming no function gives NULL, as in PostgreSQL. The identity arguments
// leave out the DEFAULTs (pg_dump names a function by them).
// pg_get_function_arg_default(func_oid, arg_no) is one argument's
// DEFAULT expression, NULL when it has none (DBeaver and pgAdmin read it
// for each argument).

import "github.com/cairn-db/cairn/sql/types"

// FunctionCatalog is a Catalog that also describes pg_proc's rows
// (sql/syscat's View); read-only and safe for concurrent use, as Catalog.
type FunctionCatalog interface {
	// FunctionSignature is the schema, result type and arguments of the
	// function with OID oid, and its arguments without their defaults;
	// ok is false when there is none.
	FunctionSignature(oid int64) (schema, result, arguments, identity string, ok bool)
	// FunctionDef is pg_get_functiondef's CREATE OR REPLACE FUNCTION of
	// the function with OID oid; ok is false when there is none it can
	// write.
	FunctionDef(oid int64) (string, bool)
	// FunctionArgDefault is the DEFAULT expression of argument number
	// arg (from 1) of the function with OID oid; ok is false when the
	// argument has none or there is no such function or argument.
	FunctionArgDefault(oid int64, arg int) (string, bool)
}

// functionSignature looks oid up in ctx's catalog.
func functionSignature(ctx *Context, oid int64) (schema, result, arguments, identity string, ok bool) {
	if ctx == nil || ctx.Catalog == nil {
		return "", "", "", "", false
	}
	fc, isFC := ctx.Catalog.(FunctionCatalog)
	if !isFC {
		return "", "", "", "", false
	}
	return fc.FunctionSignature(oid)
}

func init() {
	oid := targs(types.OidT)
	arguments := func(ctx *Context, a []any) (any, error) {
		if _, _, args, _, ok := functionSignature(ctx, a[0].(int64)); ok {
			return args, nil
		}
		return nil, nil
	}
	identity := func(ctx *Context, a []any) (any, error) {
		if _, _, _, args, ok := functionSignature(ctx, a[0].(int64)); ok {
			return args, nil
		}
		return nil, nil
	}
	Register(allStable(
		fn("pg_get_function_result", oid, tText, func(ctx *Context, a []any) (any, error) {
			if _, result, _, _, ok := functionSignature(ctx, a[0].(int64)); ok {
				return result, nil
			}
			return nil, nil
		}),
		fn("pg_get_function_arguments", oid, tText, arguments),
		fn("pg_get_function_arg_default", targs(types.OidT, tInt4), tText, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			if fc, ok := ctx.Catalog.(FunctionCatalog); ok {
				if d, ok := fc.FunctionArgDefault(a[0].(int64), int(a[1].(int64))); ok {
					return d, nil
				}
			}
			return nil, nil
		}),
		fn("pg_get_function_identity_arguments", oid, tText, identity),
	)...)
}
