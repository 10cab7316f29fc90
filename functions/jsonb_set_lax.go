package functions

// jsonb_set_lax(target, path, new_value [, create_if_missing [,
// null_value_treatment]]): jsonb_set, except that an SQL NULL new_value
// is handled as null_value_treatment says: 'use_json_null' (the default)
// sets a JSON null, 'delete_key' removes the path (#-), 'return_target'
// leaves the target unchanged and 'raise_exception' fails with 22004. A
// NULL target, path or create_if_missing gives NULL; a NULL or unknown
// treatment is an error (an unknown one only when it is used).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	errTreatment := func() error {
		return pgerr.New(pgerrcode.InvalidParameterValue,
			`null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`)
	}
	f := func(_ *Context, a []any) (any, error) {
		create, treatment := any(true), any("use_json_null")
		if len(a) > 3 {
			create = a[3]
		}
		if len(a) > 4 {
			treatment = a[4]
		}
		if a[0] == nil || a[1] == nil || create == nil {
			return nil, nil
		}
		if treatment == nil {
			return nil, errTreatment()
		}
		doc, path := a[0].(string), a[1].(*types.Array)
		if a[2] != nil {
			return jsonbSet(doc, path, a[2].(string), create.(bool))
		}
		switch treatment.(string) {
		case "use_json_null":
			return jsonbSet(doc, path, "null", create.(bool))
		case "delete_key":
			return jsonbDeletePathOf(doc, path)
		case "return_target":
			return a[0], nil
		case "raise_exception":
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "JSON value must not be null").
				WithDetail(`Exception was raised because null_value_treatment is "raise_exception".`).
				WithHint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")
		}
		return nil, errTreatment()
	}
	for _, args := range [][]types.T{
		{types.JSONBT, textArrayT, types.JSONBT},
		{types.JSONBT, textArrayT, types.JSONBT, tBool},
		{types.JSONBT, textArrayT, types.JSONBT, tBool, types.TextT},
	} {
		Register(&Overload{Name: "jsonb_set_lax", Args: args, Result: types.JSONBT, NullCall: true, Eval: f})
	}
}
