package functions

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

// TestSetReturningType checks the typing hooks the binder calls: which
// argument types each function takes, the types it converts them to and
// its output columns.
func TestSetReturningType(t *testing.T) {
	intArr := types.ArrayOf(types.Int4T, 1)
	// unify stands in for the binder's common type: equal families meet,
	// others fail.
	unify := func(ts []types.T) (types.T, error) {
		if ts[0].Family != ts[1].Family {
			return types.T{}, errors.New("cannot be matched")
		}
		return ts[0], nil
	}
	for _, c := range []struct {
		name string
		args []types.T
		want string // "params -> columns", "no match" or the error
	}{
		{"generate_series", []types.T{types.Int2T, types.Int2T}, "[integer integer] -> generate_series integer"},
		{"generate_series", []types.T{types.Int8T, types.Int8T, types.Int8T}, "[bigint bigint bigint] -> generate_series bigint"},
		{"generate_series", []types.T{types.Float4T, types.Float4T}, "[numeric numeric] -> generate_series numeric"},
		{"generate_series", []types.T{types.DateT, types.DateT, types.UnknownT},
			"[timestamp with time zone timestamp with time zone interval] -> generate_series timestamp with time zone"},
		{"generate_series", []types.T{types.Int4T, types.TextT}, "cannot be matched"},
		{"generate_series", []types.T{types.Int4T}, "no match"},
		{"unnest", []types.T{intArr}, "[] -> unnest integer"},
		{"unnest", []types.T{types.Int4T}, "no match"},
		{"_pg_expandarray", []types.T{intArr}, "[] -> x integer, n integer"},
		{"generate_subscripts", []types.T{intArr, types.Int8T}, "[unknown integer] -> generate_subscripts integer"},
		{"pg_get_keywords", nil, "[] -> word text, catcode text, barelabel boolean, catdesc text, baredesc text"},
		{"pg_get_keywords", []types.T{types.Int4T}, "no match"},
		{"pg_partition_ancestors", []types.T{types.UnknownT}, "[regclass] -> relid regclass"},
		{"json_array_elements_text", []types.T{types.JSONT}, "[json] -> value text"},
		{"jsonb_each", []types.T{types.UnknownT}, "[jsonb] -> key text, value jsonb"},
		{"json_object_keys", []types.T{types.JSONT}, "[json] -> json_object_keys text"},
		{"regexp_matches", []types.T{types.VarcharT, types.UnknownT, types.TextT}, "[text text text] -> regexp_matches text[]"},
		{"regexp_split_to_table", []types.T{types.Int4T, types.UnknownT}, "no match"},
		{"string_to_table", []types.T{types.TextT}, "no match"},
	} {
		fn := SetReturningFunc(c.name)
		if fn == nil {
			t.Errorf("%s is not registered as set-returning", c.name)
			continue
		}
		sig, ok, err := fn.Type(c.args, unify)
		got := "no match"
		switch {
		case err != nil:
			got = err.Error()
		case ok:
			var cols []string
			for _, f := range sig.Out {
				cols = append(cols, f.Name+" "+f.T.String())
			}
			got = fmt.Sprint(sig.Params) + " -> " + strings.Join(cols, ", ")
		}
		if got != c.want {
			t.Errorf("%s%v: got %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

// TestSetReturningRows checks the rows of one call, and that a NULL
// argument gives none unless the function is called on NULLs.
func TestSetReturningRows(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
		ts   []types.T
		want string
	}{
		{"generate_series", []any{int64(1), int64(7), int64(3)}, []types.T{types.Int4T, types.Int4T, types.Int4T}, "[[1] [4] [7]]"},
		{"generate_series", []any{int64(9223372036854775806), int64(9223372036854775807), int64(5)},
			[]types.T{types.Int8T, types.Int8T, types.Int8T}, "[[9223372036854775806]]"},
		{"generate_series", []any{int64(1), nil}, []types.T{types.Int4T, types.Int4T}, "[]"},
		{"_pg_expandarray", []any{types.NewArray(types.TextT, "a", "b")}, []types.T{types.ArrayOf(types.TextT, 1)}, "[[a 1] [b 2]]"},
		{"jsonb_each_text", []any{`{"bb": 1, "a": null}`}, []types.T{types.JSONBT}, "[[a <nil>] [bb 1]]"},
		{"jsonb_object_keys", []any{`{"bb": 1, "a": 2}`}, []types.T{types.JSONBT}, "[[a] [bb]]"},
		{"regexp_split_to_table", []any{"a1b2c", `\d`}, []types.T{types.TextT, types.TextT}, "[[a] [b] [c]]"},
		{"string_to_table", []any{"ab", nil}, []types.T{types.TextT, types.TextT}, "[[a] [b]]"},
		{"string_to_table", []any{nil, ","}, []types.T{types.TextT, types.TextT}, "[]"},
	} {
		next, err := SetReturningFunc(c.name).Call(&Context{}, c.args, c.ts, nil)
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		rows := [][]any{}
		for {
			row, ok, err := next()
			if err != nil {
				t.Fatalf("%s%v: %v", c.name, c.args, err)
			}
			if !ok {
				break
			}
			rows = append(rows, row)
		}
		if got := fmt.Sprint(rows); got != c.want {
			t.Errorf("%s%v: rows %s, want %s", c.name, c.args, got, c.want)
		}
	}
}
