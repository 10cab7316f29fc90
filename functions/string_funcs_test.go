package functions

import (
	"errors"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
)

func TestLowerUpper(t *testing.T) {
	runCases(t, []tc{
		{"lower", []string{"'HÉLLO World'"}, "héllo world", "text"},
		{"upper", []string{"'héllo'"}, "HÉLLO", "text"},
		{"upper", []string{"NULL::text"}, NULL, "text"},
		{"lower", []string{"'ABC'::varchar(5)"}, "abc", "text"},
	})
}

func TestLength(t *testing.T) {
	runCases(t, []tc{
		{"length", []string{"'héllo'"}, "5", "integer"},
		{"char_length", []string{"'héllo'"}, "5", "integer"},
		{"character_length", []string{"''"}, "0", "integer"},
		{"octet_length", []string{"'héllo'"}, "6", "integer"},
		{"length", []string{"'ab  '::char(5)"}, "2", "integer"},
		{"octet_length", []string{"'ab'::char(5)"}, "5", "integer"},
		{"length", []string{"'\\x0102'::bytea"}, "2", "integer"},
		{"bit_length", []string{"'ab'"}, "16", "integer"},
		{"length", []string{"NULL::text"}, NULL, "integer"},
	})
}

func TestSubstr(t *testing.T) {
	runCases(t, []tc{
		{"substr", []string{"'hello'", "2"}, "ello", "text"},
		{"substr", []string{"'hello'", "0", "3"}, "he", "text"},
		{"substr", []string{"'hello'", "-1", "3"}, "h", "text"},
		{"substr", []string{"'hello'", "3", "0"}, "", "text"},
		{"substr", []string{"'hello'", "9"}, "", "text"},
		{"substr", []string{"'héllo'", "2", "3"}, "éll", "text"},
		{"substr", []string{"'hello'", "2", "-1"}, "ERROR 22011: negative substring length not allowed", ""},
		{"substring", []string{"'hello'", "2", "2"}, "el", "text"},
		{"substring", []string{"'hello'", "'l+'"}, "ll", "text"},
		{"substring", []string{"'hello'", "'(e)(l)'"}, "e", "text"},
		{"substring", []string{"'hello'", "'z'"}, NULL, "text"},
		{"substr", []string{"'\\x010203'::bytea", "2"}, `\x0203`, "bytea"},
		{"substr", []string{"NULL::text", "1"}, NULL, "text"},
	})
}

func TestStrpos(t *testing.T) {
	runCases(t, []tc{
		{"strpos", []string{"'hello'", "'l'"}, "3", "integer"},
		{"strpos", []string{"'héllo'", "'l'"}, "3", "integer"},
		{"strpos", []string{"'hello'", "'z'"}, "0", "integer"},
		{"position", []string{"'abc'", "''"}, "1", "integer"}, // position('' in 'abc')
		{"position", []string{"'hello'", "'lo'"}, "4", "integer"},
	})
}

func TestConcat(t *testing.T) {
	runCases(t, []tc{
		{"concat", []string{"'a'", "NULL", "1", "true", "1.50", "1.5::float4"}, "a1t1.501.5", "text"},
		{"concat", []string{"'{1,2}'::int4[]", "'{\"a\":1}'::jsonb", "'ab '::char(4)", "'x'"}, `{1,2}{"a": 1}ab  x`, "text"},
		{"concat", []string{"NULL"}, "", "text"},
		{"concat", []string{"'2024-01-02 03:04:05+00'::timestamptz"}, "2024-01-02 03:04:05+00", "text"},
		{"concat_ws", []string{"','", "'a'", "NULL", "'b'"}, "a,b", "text"},
		{"concat_ws", []string{"NULL", "'a'"}, NULL, "text"},
		{"concat_ws", []string{"'-'", "1", "2.5"}, "1-2.5", "text"},
	})
}

func TestReplace(t *testing.T) {
	runCases(t, []tc{
		{"replace", []string{"'abcabc'", "'b'", "''"}, "acac", "text"},
		{"replace", []string{"'abc'", "''", "'x'"}, "abc", "text"},
		{"replace", []string{"'aaa'", "'aa'", "'b'"}, "ba", "text"},
		{"replace", []string{"'abc'", "NULL", "'x'"}, NULL, "text"},
	})
}

func TestTrim(t *testing.T) {
	runCases(t, []tc{
		{"btrim", []string{"'  a  '"}, "a", "text"},
		{"ltrim", []string{"'xxaxx'", "'x'"}, "axx", "text"},
		{"rtrim", []string{"'xxaxx'", "'x'"}, "xxa", "text"},
		{"btrim", []string{"'xyaxy'", "'xy'"}, "a", "text"},
		{"ltrim", []string{"'  a  '"}, "a  ", "text"},
		{"btrim", []string{"'abc'", "''"}, "abc", "text"},
	})
}

func TestSplitPart(t *testing.T) {
	runCases(t, []tc{
		{"split_part", []string{"'a,b,c'", "','", "2"}, "b", "text"},
		{"split_part", []string{"'a,b,c'", "','", "-1"}, "c", "text"},
		{"split_part", []string{"'a,b,c'", "','", "-4"}, "", "text"},
		{"split_part", []string{"'a,b,c'", "','", "5"}, "", "text"},
		{"split_part", []string{"'abc'", "''", "1"}, "abc", "text"},
		{"split_part", []string{"''", "','", "1"}, "", "text"},
		{"split_part", []string{"'a,b'", "','", "0"}, "ERROR 22023: field position must not be zero", ""},
	})
}

func TestLeftRight(t *testing.T) {
	runCases(t, []tc{
		{"left", []string{"'hello'", "2"}, "he", "text"},
		{"left", []string{"'hello'", "-2"}, "hel", "text"},
		{"left", []string{"'hello'", "-9"}, "", "text"},
		{"right", []string{"'héllo'", "4"}, "éllo", "text"},
		{"right", []string{"'hello'", "-2"}, "llo", "text"},
		{"right", []string{"'hello'", "9"}, "hello", "text"},
	})
}

func TestRepeatReverse(t *testing.T) {
	runCases(t, []tc{
		{"repeat", []string{"'ab'", "3"}, "ababab", "text"},
		{"repeat", []string{"'ab'", "-1"}, "", "text"},
		{"repeat", []string{"'ab'", "1000000000"}, "ERROR 54000: requested length too large", ""},
		{"reverse", []string{"'héllo'"}, "olléh", "text"},
	})
}

func TestPad(t *testing.T) {
	runCases(t, []tc{
		{"lpad", []string{"'hi'", "5"}, "   hi", "text"},
		{"lpad", []string{"'hi'", "5", "'xy'"}, "xyxhi", "text"},
		{"lpad", []string{"'hello'", "2"}, "he", "text"},
		{"rpad", []string{"'hi'", "5", "'xy'"}, "hixyx", "text"},
		{"lpad", []string{"'hi'", "5", "''"}, "hi", "text"},
		{"rpad", []string{"'hé'", "4", "'é'"}, "hééé", "text"},
		{"lpad", []string{"'hi'", "-1"}, "", "text"},
	})
}

func TestInitcapMd5Hex(t *testing.T) {
	runCases(t, []tc{
		{"initcap", []string{"'hello WORLD foo-bar o''neil 3rd'"}, "Hello World Foo-Bar O'Neil 3rd", "text"},
		{"md5", []string{"'abc'"}, "900150983cd24fb0d6963f7d28e17f72", "text"},
		{"md5", []string{"'\\x616263'::bytea"}, "900150983cd24fb0d6963f7d28e17f72", "text"},
		{"to_hex", []string{"255"}, "ff", "text"},
		{"to_hex", []string{"-1"}, "ffffffff", "text"},
		{"to_hex", []string{"-1::int8"}, "ffffffffffffffff", "text"},
		{"chr", []string{"65"}, "A", "text"},
		{"chr", []string{"233"}, "é", "text"},
		{"chr", []string{"0"}, "ERROR 54000: null character not permitted", ""},
		{"ascii", []string{"'é'"}, "233", "integer"},
		{"ascii", []string{"''"}, "0", "integer"},
		{"starts_with", []string{"'hello'", "'he'"}, "t", "boolean"},
		{"starts_with", []string{"'hello'", "'lo'"}, "f", "boolean"},
		{"^@", []string{"'hello'", "'he'"}, "t", "boolean"},
	})
}

func TestFormat(t *testing.T) {
	runCases(t, []tc{
		{"format", []string{"'%s-%I-%L'", "'a b'", "'A b'", "'it''s'"}, `a b-"A b"-'it''s'`, "text"},
		{"format", []string{"'%L'", "NULL"}, "NULL", "text"},
		{"format", []string{"'%s|'", "NULL"}, "|", "text"},
		{"format", []string{"'%1$s %1$s'", "'x'"}, "x x", "text"},
		{"format", []string{"'%5s|%-5s|'", "'a'", "'b'"}, "    a|b    |", "text"},
		{"format", []string{"'%s %s'", "true", "'{1}'::int4[]"}, "t {1}", "text"},
		{"format", []string{"'%I'", "'select'"}, `"select"`, "text"},
		{"format", []string{"'%I'", "'abc_1'"}, "abc_1", "text"},
		{"format", []string{"'%L'", "'a\\b'"}, `E'a\\b'`, "text"},
		{"format", []string{"'100%%'"}, "100%", "text"},
		{"format", []string{"'%s %s'", "1"}, "ERROR 22023: too few arguments for format()", ""},
		{"format", []string{"'%z'", "1"}, `ERROR 22023: unrecognized format() type specifier "z"`, ""},
		{"format", []string{"'%I'", "NULL"}, "ERROR 22004: null values cannot be formatted as an SQL identifier", ""},
		{"format", []string{"NULL"}, NULL, "text"},
		{"quote_ident", []string{"'Foo bar'"}, `"Foo bar"`, "text"},
		{"quote_literal", []string{"'O''Reilly'"}, "'O''Reilly'", "text"},
		{"quote_nullable", []string{"NULL"}, "NULL", "text"},
	})
}

func TestRegexpFunctions(t *testing.T) {
	runCases(t, []tc{
		{"regexp_replace", []string{"'foobarbaz'", "'b..'", "'X'"}, "fooXbaz", "text"},
		{"regexp_replace", []string{"'foobarbaz'", "'b..'", "'X'", "'g'"}, "fooXX", "text"},
		{"regexp_replace", []string{"'foobarbaz'", "'b(.)(.)'", "'[\\2\\1\\&]'", "'g'"}, "foo[rabar][zabaz]", "text"},
		{"regexp_replace", []string{"'ABC'", "'b'", "'x'", "'i'"}, "AxC", "text"},
		// An empty match right after a match is replaced too (Go's FindAll
		// skips it), and assertions see the text before each search start.
		{"regexp_replace", []string{"'abc'", "'b*'", "'X'", "'g'"}, "XaXXcX", "text"},
		{"regexp_replace", []string{"'aaa'", "'^a'", "'X'", "'g'"}, "Xaa", "text"},
		{"regexp_replace", []string{"'ab ab'", "'\\mab'", "'X'", "'g'"}, "X X", "text"},
		{"regexp_replace", []string{"'xab'", "'\\mab'", "'X'", "'g'"}, "xab", "text"},
		{"regexp_replace", []string{"'a\nb'", "'^b'", "'X'", "'gn'"}, "a\nX", "text"},
		// x: blanks and # comments are no part of the pattern, but in
		// brackets or escaped.
		{"regexp_replace", []string{"'a b'", "'a b'", "'x'", "'x'"}, "a b", "text"},
		{"regexp_replace", []string{"'ab'", "'a b # the b'", "'x'", "'x'"}, "x", "text"},
		{"regexp_replace", []string{"'a b'", "'a\\ b'", "'x'", "'x'"}, "x", "text"},
		{"regexp_replace", []string{"'a b'", "'a[ ]b'", "'x'", "'x'"}, "x", "text"},
		{"regexp_replace", []string{"'a b'", "'a b'", "'x'", "'xt'"}, "x", "text"},
		// p: . and [^...] stop at newlines, ^ and $ do not see them; w:
		// the other way round; n both.
		{"regexp_replace", []string{"'a\nb'", "'a[^x]b'", "'X'", "'p'"}, "a\nb", "text"},
		{"regexp_replace", []string{"'a\nb'", "'^b'", "'X'", "'p'"}, "a\nb", "text"},
		{"regexp_replace", []string{"'a\nb'", "'^b'", "'X'", "'w'"}, "a\nX", "text"},
		{"regexp_replace", []string{"'a\nb'", "'a.b'", "'X'", "'w'"}, "X", "text"},
		{"regexp_replace", []string{"'a\nb'", "'a[^[:alpha:]]b'", "'X'", "'n'"}, "a\nb", "text"},
		{"regexp_replace", []string{"'a\nb'", "'a[^[:alpha:]]b'", "'X'"}, "X", "text"},
		{"regexp_replace", []string{"'abc'", "'('", "'x'"}, "ERROR 2201B: invalid regular expression: parentheses () not balanced", ""},
		{"regexp_replace", []string{"'abc'", "'b'", "'x'", "'z'"}, `ERROR 22023: invalid regular expression option: "z"`, ""},
		{"regexp_match", []string{"'foobarbequebaz'", "'bar.*que'"}, "{barbeque}", "text[]"},
		{"regexp_match", []string{"'foobarbequebaz'", "'(bar)(beque)'"}, "{bar,beque}", "text[]"},
		{"regexp_match", []string{"'abc'", "'x'"}, NULL, "text[]"},
		{"regexp_match", []string{"'ABC'", "'b'", "'i'"}, "{B}", "text[]"},
		{"regexp_match", []string{"'abc'", "'(x)?b'"}, "{NULL}", "text[]"},
		{"regexp_match", []string{"'abc'", "'b'", "'g'"}, `ERROR 22023: regexp_match() does not support the "global" option`, ""},
	})
}

// TestCheckGrow pins the 1GB limit of a value built piece by piece (||,
// concat, string_agg) at PostgreSQL's MaxAllocSize, with its error.
func TestCheckGrow(t *testing.T) {
	if err := checkGrow(maxAlloc-10, 10); err != nil {
		t.Fatalf("a value of exactly 1GB - 1 byte: %v", err)
	}
	err := checkGrow(maxAlloc-10, 11)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != "54000" || pe.Detail != "Cannot enlarge string buffer containing 1073741813 bytes by 11 more bytes." {
		t.Fatalf("one byte over: %#v", err)
	}
}
