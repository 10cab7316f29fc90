package functions

// string_to_table(string, delimiter [, null_string]): the fields of
// string, one row each; it is unnest(string_to_array(...)) and shares its
// NULL handling: unlike the other set-returning functions it is not
// strict (a NULL delimiter splits into characters), while a NULL string
// gives no rows.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	RegisterSetReturning(&SetReturning{Name: "string_to_table", NullCall: true,
		Type: textArgs(types.Field{Name: "string_to_table", T: types.TextT}),
		Rows: func(ctx *Context, args []any, _ []types.T) (NextRow, error) {
			a, err := stringToArray(ctx, "string_to_table", args)
			if a == nil || err != nil {
				return noRows, err
			}
			return valueRows(a.Elems), nil
		}})
}
