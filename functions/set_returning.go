package functions

// Set-returning functions (generate_series, unnest, jsonb_each, ...): a
// call yields rows of one or more columns instead of one value. Each is
// registered by its own file as a SetReturning, which carries the three
// things the rest of cairn asks of it: that the name returns a set (the
// binder plans the call as a function scan or a ProjectSet), how its
// output columns are typed from its argument types (the binder calls
// Type), and how one call's rows are generated from its argument values
// (the executor calls Call).

import "github.com/cairn-db/cairn/sql/types"

// SetReturning is a set-returning function.
type SetReturning struct {
	// Name is the SQL name.
	Name string
	// NullCall means the function is called with NULL arguments; when
	// false (STRICT, the default) a NULL argument gives no rows.
	NullCall bool
	// Type types a call from its arguments' types (Unknown or Null for an
	// untyped literal or parameter). ok is false when the function takes
	// no such arguments (the binder reports that no function matches);
	// an error is reported as it is. unify is the binder's common type of
	// a set of types (UNION's rules), for a function whose arguments meet
	// at one type; its errors name the function.
	Type func(args []types.T, unify func([]types.T) (types.T, error)) (sig SetSignature, ok bool, err error)
	// Rows starts one call: args are its argument values, converted to
	// the types Type asked for, and ts those types; ctx is the calling
	// statement's. Called only with non-NULL arguments unless NullCall.
	// Both hooks may be called from several goroutines at once; each
	// NextRow they return belongs to one call.
	Rows func(ctx *Context, args []any, ts []types.T) (NextRow, error)
	// RecordRows, set instead of Rows, makes the function one returning
	// "record" (json_to_record): its columns are those of the caller's
	// column definition list (FROM f(...) AS x(a int, b text)), given as
	// out, and each row has one value of each of their types. Type then
	// types only the arguments.
	RecordRows func(ctx *Context, args []any, out []types.Field) (NextRow, error)
}

// SetSignature is a call of a set-returning function as typed by its Type
// hook.
type SetSignature struct {
	// Params are the types the arguments convert to by implicit casts,
	// one per argument, or nil to leave them all as they are; Unknown
	// leaves one argument as it is.
	Params []types.T
	// Out are the output columns.
	Out []types.Field
}

// NextRow returns the next row of a set-returning call, one value per
// output column; ok is false at the end. The row belongs to the caller.
// A NextRow is used by one goroutine.
type NextRow func() (row []any, ok bool, err error)

// Call starts one call of f with argument values args of types ts (see
// Rows), honouring strictness: a NULL argument of a strict function gives
// no rows.
// out are the output columns, which a function returning "record" takes
// from the caller (RecordRows).
func (f *SetReturning) Call(ctx *Context, args []any, ts []types.T, out []types.Field) (NextRow, error) {
	if !f.NullCall {
		for _, a := range args {
			if a == nil {
				return noRows, nil
			}
		}
	}
	if f.RecordRows != nil {
		return f.RecordRows(ctx, args, out)
	}
	return f.Rows(ctx, args, ts)
}

// noRows is the NextRow of a call that yields no rows.
func noRows() ([]any, bool, error) { return nil, false, nil }

// valueRows yields one single-column row per value.
func valueRows[T any](vals []T) NextRow {
	i := 0
	return func() ([]any, bool, error) {
		if i >= len(vals) {
			return nil, false, nil
		}
		i++
		return []any{vals[i-1]}, true, nil
	}
}

// typeHook is the type of SetReturning.Type.
type typeHook = func(args []types.T, unify func([]types.T) (types.T, error)) (SetSignature, bool, error)

// oneArg types a function of one argument that converts to param.
func oneArg(param types.T, out ...types.Field) typeHook {
	return func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
		if len(args) != 1 {
			return SetSignature{}, false, nil
		}
		return SetSignature{Params: []types.T{param}, Out: out}, true, nil
	}
}

// textArgs types a function of two or three text arguments (the string,
// a pattern or delimiter, and flags or a null string), each of which must
// convert to text implicitly, as resolving a function declared with text
// parameters requires.
func textArgs(out types.Field) typeHook {
	return func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
		if len(args) < 2 || len(args) > 3 {
			return SetSignature{}, false, nil
		}
		params := make([]types.T, len(args))
		for i, a := range args {
			if !canImplicit(a, types.TextT) {
				return SetSignature{}, false, nil
			}
			params[i] = types.TextT
		}
		return SetSignature{Params: params, Out: []types.Field{out}}, true, nil
	}
}
