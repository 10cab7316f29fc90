package functions

import (
	"strings"
	"testing"
)

func TestTranslate(t *testing.T) {
	runCases(t, []tc{
		{"translate", []string{"'12345'", "'143'", "'ax'"}, "a2x5", "text"},
		{"translate", []string{"'héllo'", "'él'", "'EL'"}, "hELLo", "text"},
		{"translate", []string{"'abcabc'", "'aa'", "'xy'"}, "xbcxbc", "text"},
		{"translate", []string{"'abc'", "''", "'x'"}, "abc", "text"},
		{"translate", []string{"'abc'", "'abc'", "''"}, "", "text"},
		{"translate", []string{"NULL::text", "'a'", "'b'"}, NULL, "text"},
		{"translate", []string{"'abc'", "NULL", "'b'"}, NULL, "text"},
	})
}

func TestOverlay(t *testing.T) {
	runCases(t, []tc{
		{"overlay", []string{"'Txxxxas'", "'hom'", "2", "4"}, "Thomas", "text"},
		{"overlay", []string{"'Txxxxas'", "'hom'", "2"}, "Thomxas", "text"},
		{"overlay", []string{"'héllo'", "'É'", "2", "1"}, "hÉllo", "text"},
		{"overlay", []string{"'abcdef'", "'X'", "3", "0"}, "abXcdef", "text"},
		{"overlay", []string{"'abcdef'", "'X'", "3", "-1"}, "abXbcdef", "text"},
		{"overlay", []string{"'abc'", "'XY'", "10"}, "abcXY", "text"},
		{"overlay", []string{"'abc'", "'X'", "0"}, "ERROR 22011: negative substring length not allowed", ""},
		{"overlay", []string{"'abc'", "'X'", "2", "2147483647"}, "ERROR 22003: integer out of range", ""},
		{"overlay", []string{"'\\x010203'::bytea", "'\\xff'::bytea", "2"}, `\x01ff03`, "bytea"},
		{"overlay", []string{"'\\x010203'::bytea", "'\\xffee'::bytea", "2", "0"}, `\x01ffee0203`, "bytea"},
		{"overlay", []string{"NULL::text", "'X'", "1"}, NULL, "text"},
	})
}

func TestSHA2(t *testing.T) {
	runCases(t, []tc{
		{"sha224", []string{"''"}, `\xd14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f`, "bytea"},
		{"sha256", []string{"'abc'"}, `\xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad`, "bytea"},
		{"sha384", []string{"'abc'::bytea"}, `\xcb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7`, "bytea"},
		{"sha512", []string{"''"}, `\xcf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e`, "bytea"},
		{"sha256", []string{"'\\x00'"}, `\x6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d`, "bytea"},
		{"sha256", []string{"NULL::bytea"}, NULL, "bytea"},
		{"sha256", []string{"'abc'::text"}, "ERROR 42883: function sha256(text) does not exist", ""},
	})
}

func TestEncodeDecode(t *testing.T) {
	long := "'" + strings.Repeat("a", 57) + "'::bytea"
	runCases(t, []tc{
		{"encode", []string{"'\\x00ff10'::bytea", "'hex'"}, "00ff10", "text"},
		{"encode", []string{"'abc'::bytea", "'BASE64'"}, "YWJj", "text"},
		{"encode", []string{"'ab'::bytea", "'base64'"}, "YWI=", "text"},
		{"encode", []string{"''::bytea", "'base64'"}, "", "text"},
		{"encode", []string{long, "'base64'"}, strings.Repeat("YWFh", 19) + "\n", "text"},
		{"encode", []string{"'" + strings.Repeat("a", 58) + "'::bytea", "'base64'"}, strings.Repeat("YWFh", 19) + "\nYQ==", "text"},
		{"encode", []string{"'\\x00415c80ff'::bytea", "'escape'"}, `\000A\\\200\377`, "text"},
		{"encode", []string{"'abc'::bytea", "'foo'"}, `ERROR 22023: unrecognized encoding: "foo"`, ""},
		{"encode", []string{"NULL::bytea", "'hex'"}, NULL, "text"},
		{"decode", []string{"'00ff10'", "'hex'"}, `\x00ff10`, "bytea"},
		{"decode", []string{"'00 FF\n10'", "'HEX'"}, `\x00ff10`, "bytea"},
		{"decode", []string{"'0f0'", "'hex'"}, "ERROR 22023: invalid hexadecimal data: odd number of digits", ""},
		{"decode", []string{"'0g'", "'hex'"}, `ERROR 22023: invalid hexadecimal digit: "g"`, ""},
		{"decode", []string{"'YWJj'", "'base64'"}, `\x616263`, "bytea"},
		{"decode", []string{"'YW\nJj'", "'base64'"}, `\x616263`, "bytea"},
		{"decode", []string{"'YWI='", "'base64'"}, `\x6162`, "bytea"},
		{"decode", []string{"'YQ=='", "'base64'"}, `\x61`, "bytea"},
		{"decode", []string{"'YWJ'", "'base64'"}, "ERROR 22023: invalid base64 end sequence", ""},
		{"decode", []string{"'Y==='", "'base64'"}, `ERROR 22023: unexpected "=" while decoding base64 sequence`, ""},
		{"decode", []string{"'YW*j'", "'base64'"}, `ERROR 22023: invalid symbol "*" found while decoding base64 sequence`, ""},
		{"decode", []string{"'YWéj'", "'base64'"}, `ERROR 22023: invalid symbol "é" found while decoding base64 sequence`, ""},
		{"decode", []string{"'a\\\\b\\101\\000'", "'escape'"}, `\x615c624100`, "bytea"},
		{"decode", []string{"'\\x41'", "'escape'"}, "ERROR 22P02: invalid input syntax for type bytea", ""},
		{"decode", []string{"'a\\9'", "'escape'"}, "ERROR 22P02: invalid input syntax for type bytea", ""},
		{"decode", []string{"'abc'", "'nope'"}, `ERROR 22023: unrecognized encoding: "nope"`, ""},
	})
}

func TestRegexpCountInstrSubstr(t *testing.T) {
	runCases(t, []tc{
		{"regexp_count", []string{"'ABCABCAXYaxy'", "'A.'"}, "3", "integer"},
		{"regexp_count", []string{"'ABCABCAXYaxy'", "'A.'", "1", "'i'"}, "4", "integer"},
		{"regexp_count", []string{"'aab'", "'a*'"}, "3", "integer"},
		{"regexp_count", []string{"'abcabc'", "'^a'", "2"}, "0", "integer"},
		{"regexp_count", []string{"'abc'", "'x*'", "4"}, "1", "integer"},
		{"regexp_count", []string{"'abc'", "'x*'", "5"}, "0", "integer"},
		{"regexp_count", []string{"'héllo wörld'", "'ö|é'", "3"}, "1", "integer"},
		{"regexp_count", []string{"'abc'", "'b'", "0"}, `ERROR 22023: invalid value for parameter "start": 0`, ""},
		{"regexp_count", []string{"'abc'", "'b'", "1", "'g'"}, `ERROR 22023: regexp_count() does not support the "global" option`, ""},
		{"regexp_count", []string{"'abc'", "'b'", "1", "'z'"}, `ERROR 22023: invalid regular expression option: "z"`, ""},
		{"regexp_count", []string{"'abc'", "'('"}, "ERROR 2201B: invalid regular expression: parentheses () not balanced", ""},
		{"regexp_count", []string{"NULL::text", "'a'"}, NULL, "integer"},
		{"regexp_instr", []string{"'number of your street, town zip, FR'", "'[^,]+'", "1", "2"}, "23", "integer"},
		{"regexp_instr", []string{"'ABCDEFGHI'", "'(c..)(...)'", "1", "1", "0", "'i'", "2"}, "6", "integer"},
		{"regexp_instr", []string{"'ABCDEF'", "'c(.)(..)'", "1", "1", "1", "'i'"}, "7", "integer"},
		{"regexp_instr", []string{"'xab ab'", "'\\mab'", "2"}, "5", "integer"},
		{"regexp_instr", []string{"'aaaa'", "'aa'", "2"}, "2", "integer"},
		{"regexp_instr", []string{"'aaaa'", "'aa'", "2", "2"}, "0", "integer"},
		{"regexp_instr", []string{"'héllo'", "'l'", "1", "2"}, "4", "integer"},
		{"regexp_instr", []string{"'abc'", "'b'", "1", "1", "0", "''", "1"}, "2", "integer"},
		{"regexp_instr", []string{"'abc'", "'(b)'", "1", "1", "0", "''", "2"}, "0", "integer"},
		{"regexp_instr", []string{"'abc'", "'a(x)?'", "1", "1", "0", "''", "1"}, "0", "integer"},
		{"regexp_instr", []string{"'abc'", "'b'", "1", "0"}, `ERROR 22023: invalid value for parameter "n": 0`, ""},
		{"regexp_instr", []string{"'abc'", "'b'", "1", "1", "2"}, `ERROR 22023: invalid value for parameter "endoption": 2`, ""},
		{"regexp_instr", []string{"'abc'", "'b'", "1", "1", "0", "''", "-1"}, `ERROR 22023: invalid value for parameter "subexpr": -1`, ""},
		{"regexp_instr", []string{"'abc'", "'b'", "1", "1", "0", "'g'"}, `ERROR 22023: regexp_instr() does not support the "global" option`, ""},
		{"regexp_substr", []string{"'number of your street, town zip, FR'", "'[^,]+'", "1", "2"}, " town zip", "text"},
		{"regexp_substr", []string{"'ABCDEFGHI'", "'(c..)(...)'", "1", "1", "'i'", "2"}, "FGH", "text"},
		{"regexp_substr", []string{"'abc'", "'c|$'", "3", "2"}, "", "text"},
		{"regexp_substr", []string{"'abc'", "'x'"}, NULL, "text"},
		{"regexp_substr", []string{"'abc'", "'b'", "1", "1", "''", "1"}, "b", "text"},
		{"regexp_substr", []string{"'abc'", "'a(x)?'", "1", "1", "''", "1"}, NULL, "text"},
		{"regexp_substr", []string{"'abc'", "'b'", "-1"}, `ERROR 22023: invalid value for parameter "start": -1`, ""},
		{"regexp_substr", []string{"'abc'", "'b'", "1", "1", "'g'"}, `ERROR 22023: regexp_substr() does not support the "global" option`, ""},
	})
}

func TestRegexpLikeSplit(t *testing.T) {
	runCases(t, []tc{
		{"regexp_like", []string{"'Hello World'", "'world$'", "'i'"}, "t", "boolean"},
		{"regexp_like", []string{"'Hello World'", "'world$'", "''"}, "f", "boolean"},
		{"regexp_like", []string{"'abc'", "'b'", "'g'"}, `ERROR 22023: regexp_like() does not support the "global" option`, ""},
		{"regexp_like", []string{"'abc'", "NULL", "'i'"}, NULL, "boolean"},
		{"regexp_split_to_array", []string{"'hello world'", "'\\s+'"}, "{hello,world}", "text[]"},
		{"regexp_split_to_array", []string{"'aab'", "'a*'"}, `{"",b}`, "text[]"},
		{"regexp_split_to_array", []string{"'abc'", "''"}, "{a,b,c}", "text[]"},
		{"regexp_split_to_array", []string{"''", "'x'"}, `{""}`, "text[]"},
		{"regexp_split_to_array", []string{"'aXbxc'", "'x'", "'i'"}, "{a,b,c}", "text[]"},
		{"regexp_split_to_array", []string{"'a1b'", "'\\d'", "'g'"}, `ERROR 22023: regexp_split_to_array() does not support the "global" option`, ""},
		{"regexp_split_to_array", []string{"NULL::text", "'x'"}, NULL, "text[]"},
	})
}
