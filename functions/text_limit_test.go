package functions

import "testing"

// TestTextLimit: every text function that can build a value longer than
// its arguments fails with 54000 past maxAlloc (PostgreSQL's 1GB bound,
// lowered here to 16 bytes) and succeeds at it. replace, format, quote_*
// and encode find the length before building the value; the others stop
// as soon as it passes the bound.
func TestTextLimit(t *testing.T) {
	defer func(n int) { maxAlloc = n }(maxAlloc)
	maxAlloc = 16
	const (
		oom     = "ERROR 54000: out of memory"
		tooLong = "ERROR 54000: requested length too large"
	)
	runCasesNoOracle(t, []tc{
		{"replace", []string{"'aaaa'", "'a'", "'bbbb'"}, "bbbbbbbbbbbbbbbb", "text"},
		{"replace", []string{"'aaaaa'", "'a'", "'bbbb'"}, tooLong, ""},
		{"replace", []string{"'aaaaaaaaaaaaaaaa'", "'a'", "''"}, "", "text"},
		{"format", []string{"'%s%s'", "'abcdefgh'", "'abcdefgh'"}, "abcdefghabcdefgh", "text"},
		{"format", []string{"'%s%s'", "'abcdefgh'", "'abcdefghi'"}, oom, ""},
		{"format", []string{"'%s-%s'", "'abcdefgh'", "'abcdefgh'"}, oom, ""},
		{"format", []string{"'%20s'", "'a'"}, oom, ""},
		{"format", []string{"'%L'", "'abcdefghijklmno'"}, tooLong, ""},
		{"format", []string{"'%I'", "'Abcdefghijklmno'"}, tooLong, ""},
		{"quote_literal", []string{"'abcdefghijklmn'"}, "'abcdefghijklmn'", "text"},
		{"quote_literal", []string{`'a\bcdefghijklm'`}, tooLong, ""},
		{"quote_ident", []string{`'a"bcdefghijklm'`}, tooLong, ""},
		{"regexp_replace", []string{"'abcd'", "'.'", "'\\&\\&\\&\\&'", "'g'"}, "aaaabbbbccccdddd", "text"},
		{"regexp_replace", []string{"'abcde'", "'.'", "'\\&\\&\\&\\&'", "'g'"}, oom, ""},
		{"regexp_replace", []string{"'abcdefgh'", "''", "'x'", "'g'"}, oom, ""},
		{"translate", []string{"'aaaaaaaa'", "'a'", "'é'"}, "éééééééé", "text"},
		{"translate", []string{"'aaaaaaaaa'", "'a'", "'é'"}, oom, ""},
		{"overlay", []string{"'abcdefghijklmnop'", "'xy'", "2", "1"}, oom, ""},
		{"overlay", []string{"'abcdefghijklmnop'", "'x'", "2", "1"}, "axcdefghijklmnop", "text"},
		{"array_to_string", []string{"'{abcdefgh,abcdefgh}'::text[]", "''"}, "abcdefghabcdefgh", "text"},
		{"array_to_string", []string{"'{abcdefgh,abcdefgh}'::text[]", "','"}, oom, ""},
		{"array_to_string", []string{"'{abcdefgh,NULL,abcdefgh}'::text[]", "''", "'x'"}, oom, ""},
		{"concat", []string{"'abcdefgh'", "'abcdefghi'"}, oom, ""},
		{"concat_ws", []string{"','", "'abcdefgh'", "'abcdefgh'"}, oom, ""},
		{"encode", []string{"'abcdefgh'::bytea", "'hex'"}, "6162636465666768", "text"},
		{"encode", []string{"'abcdefghi'::bytea", "'hex'"}, "ERROR 54000: result of encoding conversion is too large", ""},
		{"encode", []string{"'abcdefghijklm'::bytea", "'base64'"}, "ERROR 54000: result of encoding conversion is too large", ""},
		{"encode", []string{`'\x0000000000'::bytea`, "'escape'"}, "ERROR 54000: result of encoding conversion is too large", ""},
		{"upper", []string{"'ɐɐɐɐɐ'"}, "ⱯⱯⱯⱯⱯ", "text"},
		{"upper", []string{"'ɐɐɐɐɐɐ'"}, tooLong, ""},
		{"repeat", []string{"'ab'", "9"}, tooLong, ""},
		{"lpad", []string{"'a'", "5"}, tooLong, ""},
	})
}
