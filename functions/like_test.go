package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

func TestLike(t *testing.T) {
	runCases(t, []tc{
		{"~~", []string{"'hello'", "'h%'"}, "t", "boolean"},
		{"~~", []string{"'hello'", "'%llo'"}, "t", "boolean"},
		{"~~", []string{"'hello'", "'%ell%'"}, "t", "boolean"},
		{"~~", []string{"'hello'", "'h_llo'"}, "t", "boolean"},
		{"~~", []string{"'héllo'", "'h_llo'"}, "t", "boolean"},
		{"~~", []string{"'hello'", "'H%'"}, "f", "boolean"},
		{"~~", []string{"'hello'", "'hello'"}, "t", "boolean"},
		{"~~", []string{"'hello'", "'hell'"}, "f", "boolean"},
		{"~~", []string{"'hello'", "'%'"}, "t", "boolean"},
		{"~~", []string{"''", "'%'"}, "t", "boolean"},
		{"~~", []string{"'abcabc'", "'%b_c'"}, "f", "boolean"},
		{"~~", []string{"'abcabc'", "'%b_'"}, "t", "boolean"},
		{"~~", []string{"'a%c'", "'a\\%c'"}, "t", "boolean"},
		{"~~", []string{"'abc'", "'a\\%c'"}, "f", "boolean"},
		{"~~", []string{"'a_c'", "'%\\_%'"}, "t", "boolean"},
		{"~~", []string{"'abc'", "'abc\\'"}, "f", "boolean"},
		{"~~", []string{"'abcd'", "'abc\\'"}, "ERROR 22025: LIKE pattern must not end with escape character", ""},
		{"~~", []string{"'abcd'", "'ab%\\'"}, "ERROR 22025: LIKE pattern must not end with escape character", ""},
		{"~~", []string{"'mississippi'", "'%s%s%ippi'"}, "t", "boolean"},
		{"~~", []string{"'mississippi'", "'m%ss%x'"}, "f", "boolean"},
		{"!~~", []string{"'hello'", "'h%'"}, "f", "boolean"},
		{"~~*", []string{"'HeLLo'", "'hel%'"}, "t", "boolean"},
		{"~~*", []string{"'ÉCOLE'", "'éc%'"}, "t", "boolean"},
		{"!~~*", []string{"'HeLLo'", "'x%'"}, "t", "boolean"},
		{"~~", []string{"NULL", "'a'"}, NULL, "boolean"},
		{"~~", []string{"'ab  '::char(4)", "'ab'"}, "f", "boolean"},
		{"~~", []string{"'ab  '::char(4)", "'ab  '"}, "t", "boolean"},
		{"like_escape", []string{"'a#%c'", "'#'"}, "a\\%c", "text"},
		{"like_escape", []string{"'a#%c#'", "'#'"}, "a\\%c\\", "text"},
		{"like_escape", []string{"'a##b'", "'#'"}, "a\\#b", "text"},
		{"like_escape", []string{"'a#%c\\'", "'#'"}, "a\\%c\\\\", "text"},
		{"like_escape", []string{"'a\\%'", "''"}, "a\\\\%", "text"},
		{"like_escape", []string{"'a'", "'ab'"}, "ERROR 22025: invalid escape string", ""},
		{"~~", []string{"'\\x616263'::bytea", "'\\x6125'::bytea"}, "t", "boolean"},
	})
}

func TestRegexOperators(t *testing.T) {
	runCases(t, []tc{
		{"~", []string{"'hello world'", "'^hel+o'"}, "t", "boolean"},
		{"~", []string{"'hello'", "'H'"}, "f", "boolean"},
		{"~*", []string{"'hello'", "'H'"}, "t", "boolean"},
		{"!~", []string{"'hello'", "'x'"}, "t", "boolean"},
		{"!~*", []string{"'hello'", "'L'"}, "f", "boolean"},
		{"~", []string{"E'a\\nb'", "'a.b'"}, "t", "boolean"},
		{"~", []string{"'foo bar'", "'\\mbar'"}, "t", "boolean"},
		{"~", []string{"'abc123'", "'[[:digit:]]+$'"}, "t", "boolean"},
		{"~", []string{"'abc'", "'a{2,1}'"}, "ERROR 2201B: invalid regular expression: invalid repetition count(s)", ""},
		{"~", []string{"'abc'", "'[a'"}, "ERROR 2201B: invalid regular expression: brackets [] not balanced", ""},
	})
}

// BenchmarkLikeKernel matches a 64k-row text column against '%memory%'.
func BenchmarkLikeKernel(b *testing.B) {
	const n = 1 << 16
	m := memory.NewGoAllocator()
	ctx := testCtx(m)
	sb := array.NewStringBuilder(m)
	for i := 0; i < n; i++ {
		sb.Append([]string{"agent memory of tasks", "a trace of a tool call", "long term memory", "user preference"}[i%4])
	}
	col := sb.NewArray()
	ov, _, err := Resolve("~~", []types.T{types.TextT, types.TextT})
	if err != nil {
		b.Fatal(err)
	}
	args := []Arg{{Array: col, Type: types.TextT}, {Const: "%memory%", Type: types.TextT}}
	b.SetBytes(n * 8)
	for i := 0; i < b.N; i++ {
		out, err := ov.Kernel(ctx, args, n)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}

func TestSimilarToEscape(t *testing.T) {
	runCases(t, []tc{
		{"similar_to_escape", []string{"'a%b_c'"}, "^(?:a.*b.c)$", "text"},
		{"similar_to_escape", []string{"'(a|b)[x.]\\%.$'"}, `^(?:(?:a|b)[x.]\%\.\$)$`, "text"},
		{"similar_to_escape", []string{"'a#%'", "'#'"}, `^(?:a\%)$`, "text"},
		{"similar_to_escape", []string{"'a\\b'", "''"}, `^(?:a\\b)$`, "text"},
		// Escape-double-quote separators: a leading part matched as little
		// as possible, the part substring(... SIMILAR ...) returns, a
		// trailing part; no more than two.
		{"similar_to_escape", []string{`'a#"b#"c'`, "'#'"}, `^(?:a){1,1}?(b){1,1}(?:c)$`, "text"},
		{"similar_to_escape", []string{`'a#"b'`, "'#'"}, `^(?:a){1,1}?(b)$`, "text"},
		{"substring", []string{"'abcdef'", `'a#"b_d#"%'`, "'#'"}, "bcd", "text"},
		{"substring", []string{"'abcdef'", `'a#"%#"'`, "'#'"}, "bcdef", "text"},
		{"substring", []string{"'abc'", `'x#"b#"c'`, "'#'"}, NULL, "text"},
		{"substring", []string{"'abc'", "'abc'", "'#'"}, "abc", "text"},
		{"substring", []string{"'abc'", "'a#\"b#\"c#\"'", "'#'"}, "ERROR 2200C: SQL regular expression may not contain more than two escape-double-quote separators", ""},
		{"substring", []string{"'abcdef'", "'2'", "'3'"}, NULL, "text"},
		{"similar_to_escape", []string{"'a'", "'ab'"}, "ERROR 22025: invalid escape string", ""},
		{"~", []string{"'abc'", "'^(?:a.*c)$'"}, "t", "boolean"},
	})
}
