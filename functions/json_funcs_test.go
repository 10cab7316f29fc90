package functions

import "testing"

func TestToJSONB(t *testing.T) {
	runCases(t, []tc{
		{"to_jsonb", []string{"1.5::float8"}, "1.5", "jsonb"},
		{"to_jsonb", []string{"'NaN'::float8"}, `"NaN"`, "jsonb"},
		{"to_jsonb", []string{"'NaN'::numeric"}, `"NaN"`, "jsonb"},
		{"to_jsonb", []string{"'ab'::char(4)"}, `"ab  "`, "jsonb"},
		{"to_jsonb", []string{"'2024-01-01 10:00:00.5'::timestamp"}, `"2024-01-01T10:00:00.5"`, "jsonb"},
		{"to_jsonb", []string{"'2024-01-01 10:00:00+00'::timestamptz"}, `"2024-01-01T10:00:00+00:00"`, "jsonb"},
		{"to_jsonb", []string{"'2024-01-01'::date"}, `"2024-01-01"`, "jsonb"},
		{"to_jsonb", []string{"'1 day'::interval"}, `"1 day"`, "jsonb"},
		{"to_jsonb", []string{"'{1,2}'::int4[]"}, "[1, 2]", "jsonb"},
		{"to_jsonb", []string{"'{{1,2},{3,4}}'::int4[]"}, "[[1, 2], [3, 4]]", "jsonb"},
		{"to_jsonb", []string{"'\\x01'::bytea"}, `"\\x01"`, "jsonb"},
		{"to_jsonb", []string{"'infinity'::timestamp"}, `"infinity"`, "jsonb"},
		{"to_jsonb", []string{"E'a\"b'::text"}, `"a\"b"`, "jsonb"},
		{"to_jsonb", []string{"'{\"a\":1}'::json"}, `{"a": 1}`, "jsonb"},
		{"to_jsonb", []string{"1e20::float8"}, "100000000000000000000", "jsonb"},
		{"to_jsonb", []string{"0.1::float4"}, "0.1", "jsonb"},
		{"to_jsonb", []string{"true"}, "true", "jsonb"},
		{"to_jsonb", []string{"'x'::text"}, `"x"`, "jsonb"},
		{"to_jsonb", []string{"NULL::text"}, NULL, "jsonb"},
		{"to_json", []string{"'{\"a\" :  1}'::json"}, `{"a" :  1}`, "json"},
		{"to_json", []string{"1.0"}, "1.0", "json"},
		{"to_json", []string{"'{1,2}'::int4[]"}, "[1,2]", "json"},
		{"to_json", []string{"'{a,NULL}'::text[]"}, `["a",null]`, "json"},
	})
}

func TestJSONBuild(t *testing.T) {
	runCases(t, []tc{
		{"jsonb_build_object", []string{"'a'", "1", "'b'", "'x'", "'a'", "NULL"}, `{"a": null, "b": "x"}`, "jsonb"},
		{"json_build_object", []string{"'a'", "1", "'b'", "'{1,2}'::int4[]"}, `{"a" : 1, "b" : [1,2]}`, "json"},
		{"jsonb_build_array", []string{"1", "'a'", "NULL", "true"}, `[1, "a", null, true]`, "jsonb"},
		{"json_build_array", []string{"1", "'a'"}, `[1, "a"]`, "json"},
		{"jsonb_build_object", nil, "{}", "jsonb"},
		{"jsonb_build_array", nil, "[]", "jsonb"},
		{"jsonb_build_object", []string{"1", "2"}, `{"1": 2}`, "jsonb"},
		{"jsonb_build_object", []string{"'a'"}, "ERROR 22023: argument list must have even number of elements", ""},
		{"jsonb_build_object", []string{"NULL", "1"}, "ERROR 22023: argument 1: key must not be null", ""},
		{"jsonb_build_object", []string{"'{1}'::int4[]", "1"}, "ERROR 22023: key value must be scalar, not array, composite, or json", ""},
		{"jsonb_build_object", []string{"'k'", "'{\"x\": [1, 2]}'::jsonb"}, `{"k": {"x": [1, 2]}}`, "jsonb"},
		{"jsonb_build_object", []string{"'t'", "'2024-01-01 10:00:00+00'::timestamptz"}, `{"t": "2024-01-01T10:00:00+00:00"}`, "jsonb"},
	})
}

func TestJSONBSet(t *testing.T) {
	runCases(t, []tc{
		{"jsonb_set", []string{"'{\"a\":{\"b\":1}}'", "'{a,b}'", "'2'"}, `{"a": {"b": 2}}`, "jsonb"},
		{"jsonb_set", []string{"'{\"a\":1}'", "'{c}'", "'3'"}, `{"a": 1, "c": 3}`, "jsonb"},
		{"jsonb_set", []string{"'{\"a\":1}'", "'{c}'", "'3'", "false"}, `{"a": 1}`, "jsonb"},
		// An empty path changes nothing; array indexes are int4 with
		// leading blanks only.
		{"jsonb_set", []string{"'{\"a\":1}'", "'{}'", "'9'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{2147483648}'", "'9'"}, `ERROR 22P02: path element at position 1 is not an integer: "2147483648"`, ""},
		{"jsonb_set", []string{"'[1,2,3]'", "'{-2147483648}'", "'9'"}, `[9, 1, 2, 3]`, "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{\" 1\"}'", "'9'"}, `[1, 9, 3]`, "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{\"1 \"}'", "'9'"}, `ERROR 22P02: path element at position 1 is not an integer: "1 "`, ""},
		{"jsonb_set_lax", []string{"'{\"a\":1}'", "'{}'", "NULL"}, `{"a": 1}`, "jsonb"},
		{"#-", []string{"'[1,2,3]'::jsonb", "'{2147483648}'"}, `ERROR 22P02: path element at position 1 is not an integer: "2147483648"`, ""},
		{"jsonb_set", []string{"'[1,2,3]'", "'{1}'", "'\"x\"'"}, `[1, "x", 3]`, "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{10}'", "'4'"}, "[1, 2, 3, 4]", "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{-10}'", "'0'"}, "[0, 1, 2, 3]", "jsonb"},
		{"jsonb_set", []string{"'[1,2,3]'", "'{-1}'", "'0'"}, "[1, 2, 0]", "jsonb"},
		{"jsonb_set", []string{"'{\"a\":1}'", "'{a,b}'", "'2'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_set", []string{"'1'", "'{a}'", "'2'"}, "ERROR 22023: cannot set path in scalar", ""},
		{"jsonb_set", []string{"'[1]'", "'{x}'", "'2'"}, `ERROR 22P02: path element at position 1 is not an integer: "x"`, ""},
		{"jsonb_set", []string{"'{\"a\":1}'", "'{a}'", "NULL"}, NULL, "jsonb"},
	})
}

func TestJSONFunctions(t *testing.T) {
	runCases(t, []tc{
		{"jsonb_typeof", []string{"'1.5'"}, "number", "text"},
		{"jsonb_typeof", []string{"'null'"}, "null", "text"},
		{"json_typeof", []string{"'[1]'"}, "array", "text"},
		{"jsonb_array_length", []string{"'[1,2]'"}, "2", "integer"},
		{"json_array_length", []string{"'[1, [2]]'"}, "2", "integer"},
		{"jsonb_array_length", []string{"'{}'"}, "ERROR 22023: cannot get array length of a non-array", ""},
		{"jsonb_array_length", []string{"'1'"}, "ERROR 22023: cannot get array length of a scalar", ""},
		{"jsonb_extract_path", []string{"'{\"a\":{\"b\":[1,2]}}'", "'a'", "'b'", "'1'"}, "2", "jsonb"},
		{"jsonb_extract_path_text", []string{"'{\"a\":{\"b\":\"x\"}}'", "'a'", "'b'"}, "x", "text"},
		{"jsonb_extract_path", []string{"'{\"a\":1}'", "'z'"}, NULL, "jsonb"},
		{"json_extract_path", []string{"'{\"a\": {\"b\":  1}}'", "'a'"}, `{"b":  1}`, "json"},
		{"json_extract_path_text", []string{"'{\"a\": {\"b\":  \"q\"}}'", "'a'", "'b'"}, "q", "text"},
		{"jsonb_strip_nulls", []string{"'{\"a\":null,\"b\":[null,{\"c\":null}]}'"}, `{"b": [null, {}]}`, "jsonb"},
		{"json_strip_nulls", []string{"'{\"a\":null, \"b\" : 1}'"}, `{"b":1}`, "json"},
		{"jsonb_pretty", []string{"'{\"a\":1,\"b\":[1,{\"c\":[]}],\"d\":{}}'"}, "{\n    \"a\": 1,\n    \"b\": [\n        1,\n        {\n            \"c\": [\n            ]\n        }\n    ],\n    \"d\": {\n    }\n}", "text"},
		{"jsonb_pretty", []string{"'1'"}, "1", "text"},
	})
}
