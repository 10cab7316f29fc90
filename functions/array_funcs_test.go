package functions

import (
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func TestArrayAppendCat(t *testing.T) {
	runCases(t, []tc{
		{"array_append", []string{"'{1,2}'::int4[]", "3"}, "{1,2,3}", "integer[]"},
		{"array_append", []string{"NULL::int4[]", "1"}, "{1}", "integer[]"},
		{"array_append", []string{"'{}'::text[]", "NULL::text"}, "{NULL}", "text[]"},
		{"array_append", []string{"'{{1,2}}'::int4[]", "3"}, "ERROR 22000: argument must be empty or one-dimensional array", ""},
		{"array_prepend", []string{"0", "'{1,2}'::int4[]"}, "{0,1,2}", "integer[]"},
		{"array_prepend", []string{"1", "'{{1,2}}'::int4[]"}, "ERROR 22000: argument must be empty or one-dimensional array", ""},
		{"array_cat", []string{"'{1,2}'::int4[]", "'{3}'::int4[]"}, "{1,2,3}", "integer[]"},
		{"array_cat", []string{"NULL::int4[]", "'{1}'::int4[]"}, "{1}", "integer[]"},
		{"array_cat", []string{"'{}'::int4[]", "'{}'::int4[]"}, "{}", "integer[]"},
		{"array_cat", []string{"'{{1,2}}'::int4[]", "'{3,4}'::int4[]"}, "{{1,2},{3,4}}", "integer[]"},
		{"array_cat", []string{"'{{1,2}}'::int4[]", "'{{3,4}}'::int4[]"}, "{{1,2},{3,4}}", "integer[]"},
		{"array_cat", []string{"'{{1,2}}'::int4[]", "'{3}'::int4[]"}, "ERROR 2202E: cannot concatenate incompatible arrays", ""},
		{"||", []string{"'{1,2}'::int4[]", "NULL"}, "{1,2}", "integer[]"},
		{"||", []string{"1", "'{2}'::int4[]"}, "{1,2}", "integer[]"},
		{"||", []string{"'{a}'::text[]", "'{b,c}'"}, "{a,b,c}", "text[]"},
	})
}

func TestArrayLength(t *testing.T) {
	runCases(t, []tc{
		{"array_length", []string{"'{1,2,3}'::int4[]", "1"}, "3", "integer"},
		{"array_length", []string{"'{{1,2},{3,4}}'::int4[]", "2"}, "2", "integer"},
		{"array_length", []string{"'{1,2,3}'::int4[]", "2"}, NULL, "integer"},
		{"array_length", []string{"'{}'::int4[]", "1"}, NULL, "integer"},
		{"array_upper", []string{"'{1,2,3}'::int4[]", "1"}, "3", "integer"},
		{"array_upper", []string{"'{}'::int4[]", "1"}, NULL, "integer"},
		{"array_lower", []string{"'{1,2,3}'::int4[]", "1"}, "1", "integer"},
		{"cardinality", []string{"'{{1,2},{3,4}}'::int4[]"}, "4", "integer"},
		{"cardinality", []string{"'{}'::int4[]"}, "0", "integer"},
		{"array_ndims", []string{"'{{1,2},{3,4}}'::int4[]"}, "2", "integer"},
		{"array_dims", []string{"'{{1,2,3},{3,4,5}}'::int4[]"}, "[1:2][1:3]", "text"},
		{"cardinality", []string{"'{1.5,2.5}'::float4[]"}, "2", "integer"},
	})
}

func TestArrayToString(t *testing.T) {
	runCases(t, []tc{
		{"array_to_string", []string{"'{1,NULL,3}'::int4[]", "','", "'*'"}, "1,*,3", "text"},
		{"array_to_string", []string{"'{1,NULL,3}'::int4[]", "','"}, "1,3", "text"},
		{"array_to_string", []string{"'{{1,2},{3,4}}'::int4[]", "'-'"}, "1-2-3-4", "text"},
		{"array_to_string", []string{"'{a,b}'::text[]", "NULL"}, NULL, "text"},
		{"array_to_string", []string{"'{1.5,2}'::float4[]", "' '"}, "1.5 2", "text"},
		{"array_to_string", []string{"'{t,f}'::bool[]", "','"}, "t,f", "text"},
		{"string_to_array", []string{"'a,b,,c'", "','"}, `{a,b,"",c}`, "text[]"},
		{"string_to_array", []string{"'abc'", "NULL"}, "{a,b,c}", "text[]"},
		{"string_to_array", []string{"'a,b'", "''"}, `{"a,b"}`, "text[]"},
		{"string_to_array", []string{"''", "','"}, "{}", "text[]"},
		{"string_to_array", []string{"'a,*,c'", "','", "'*'"}, "{a,NULL,c}", "text[]"},
		{"string_to_array", []string{"'aé,*,c'", "NULL", "','"}, `{a,é,NULL,*,NULL,c}`, "text[]"},
		{"string_to_array", []string{"'ab'", "'ab'"}, `{"",""}`, "text[]"},
		{"string_to_array", []string{"NULL", "','"}, NULL, "text[]"},
	})
}

func TestArrayPositionRemove(t *testing.T) {
	runCases(t, []tc{
		{"array_position", []string{"'{1,2,NULL,2}'::int4[]", "2"}, "2", "integer"},
		{"array_position", []string{"'{1,2,NULL,2}'::int4[]", "2", "3"}, "4", "integer"},
		{"array_position", []string{"'{1,NULL}'::int4[]", "NULL"}, "2", "integer"},
		{"array_position", []string{"'{a,b}'::text[]", "'c'"}, NULL, "integer"},
		{"array_position", []string{"'{{1,2},{3,4}}'::int4[]", "2"}, "ERROR 0A000: searching for elements in multidimensional arrays is not supported", ""},
		{"array_positions", []string{"'{1,2,1}'::int4[]", "1"}, "{1,3}", "integer[]"},
		{"array_remove", []string{"'{1,2,NULL,2}'::int4[]", "2"}, "{1,NULL}", "integer[]"},
		{"array_remove", []string{"'{1,NULL}'::int4[]", "NULL"}, "{1}", "integer[]"},
		{"array_remove", []string{"'{1}'::int4[]", "1"}, "{}", "integer[]"},
		{"array_remove", []string{"'{{1,2},{3,4}}'::int4[]", "2"}, "ERROR 0A000: removing elements from multidimensional arrays is not supported", ""},
		{"array_replace", []string{"'{1,2,1}'::int4[]", "1", "9"}, "{9,2,9}", "integer[]"},
	})
}

func TestArrayOperators(t *testing.T) {
	runCases(t, []tc{
		{"@>", []string{"'{1,NULL}'::int4[]", "'{NULL}'::int4[]"}, "f", "boolean"},
		{"@>", []string{"'{1,2,3}'::int4[]", "'{3,1}'"}, "t", "boolean"},
		{"@>", []string{"'{1,2}'::int4[]", "'{}'"}, "t", "boolean"},
		{"@>", []string{"'{{1,2},{3,4}}'::int4[]", "'{4}'::int4[]"}, "t", "boolean"},
		{"<@", []string{"'{1,2}'::int4[]", "'{1,2,3}'::int4[]"}, "t", "boolean"},
		{"&&", []string{"'{1,2}'::int4[]", "'{2,3}'::int4[]"}, "t", "boolean"},
		{"&&", []string{"'{1,2}'::int4[]", "'{3}'::int4[]"}, "f", "boolean"},
		{"&&", []string{"'{a,b}'::text[]", "'{B,a}'::text[]"}, "t", "boolean"},
		{"@>", []string{"'{1,2}'::int4[]", "'{1}'::int8[]"}, "ERROR 42883: operator does not exist: integer[] @> bigint[]", ""},
	})
}

// TestSplitLimit: the regexp splits stop at maxSplitItems matches or
// pieces (lowered here; cairn/array_limits.test checks string_to_array at
// the real limits).
func TestSplitLimit(t *testing.T) {
	defer func(n int) { maxSplitItems = n }(maxSplitItems)
	maxSplitItems = 4
	for s, ok := range map[string]bool{"a,b,c,d": true, "a,b,c,d,e": false, ",,,,": false, ",,,": true} {
		parts, err := regexpSplit(nil, "regexp_split_to_array", s, ",", "")
		if ok != (err == nil) {
			t.Errorf("%q: %d pieces, %v", s, len(parts), err)
		}
	}
	if _, err := stringToArray(nil, "string_to_array", []any{"a,b,c,d,e", ","}); err == nil {
		t.Error("string_to_array of 5 fields passed a limit of 4")
	}
}

// TestArrayConcatLimit: array_cat, array_append, array_prepend and || keep
// PostgreSQL's limit on an array's elements (54000); two arrays of 10^8
// integers made one of 2·10^8 and took 6 GB.
func TestArrayConcatLimit(t *testing.T) {
	defer func(n int) { maxArrayItems = n }(maxArrayItems)
	maxArrayItems = 4
	arr := func(n int) *types.Array {
		return &types.Array{Elem: types.Int4T, Dims: []int{n}, Elems: make([]any, n)}
	}
	for name, f := range map[string]func() (any, error){
		"cat at the limit":    func() (any, error) { return arrayCat(arr(2), arr(2)) },
		"cat past it":         func() (any, error) { return arrayCat(arr(2), arr(3)) },
		"append at the limit": func() (any, error) { return arrayAppend(arr(3), 1, types.Int4T) },
		"append past it":      func() (any, error) { return arrayAppend(arr(4), 1, types.Int4T) },
		"prepend past it":     func() (any, error) { return arrayPrepend(1, arr(4), types.Int4T) },
	} {
		_, err := f()
		if want := strings.HasSuffix(name, "past it"); want != (pgerr.Code(err) == "54000") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
