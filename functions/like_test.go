package functions

import (
	"math/rand"
	"regexp"
	"strings"
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
	benchPatternKernel(b, "~~", "%memory%", []string{"agent memory of tasks", "a trace of a tool call", "long term memory", "user preference"})
}

// BenchmarkILikeKernel matches a 64k-row column of ~110-byte mixed-case
// lines (bench/trigram.sh's shape) against '%quorum%', case-insensitively.
func BenchmarkILikeKernel(b *testing.B) {
	benchPatternKernel(b, "~~*", "%quorum%", []string{
		"session 17 step 4242: retry the Quorum write after the lease expired id=c4ca4238a0b923820dcc509a6f75849b",
		"session 903 step 77: compaction merged two segments, DEADLOCK avoided id=eccbc87e4b5ce2fe28308fd9f2a7baf3",
	})
}

// benchPatternKernel runs operator op's kernel over a 64k-row column of
// subjects (in turn) against the constant pattern pat.
func benchPatternKernel(b *testing.B, op, pat string, subjects []string) {
	const n = 1 << 16
	m := memory.NewGoAllocator()
	ctx := testCtx(m)
	sb := array.NewStringBuilder(m)
	bytes := 0
	for i := 0; i < n; i++ {
		sb.Append(subjects[i%len(subjects)])
		bytes += len(subjects[i%len(subjects)])
	}
	col := sb.NewArray()
	ov, _, err := Resolve(op, []types.T{types.TextT, types.TextT})
	if err != nil {
		b.Fatal(err)
	}
	args := []Arg{{Array: col, Type: types.TextT}, {Const: pat, Type: types.TextT}}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		out, err := ov.Kernel(ctx, args, n)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}

// TestLowerASCII checks the eight-bytes-at-a-time fold against
// strings.ToLower on random strings over the bytes around the letters'
// edges, of every length up to three words and a tail, and that a
// non-ASCII byte anywhere sends the string to strings.ToLower.
func TestLowerASCII(t *testing.T) {
	edges := []byte("@AZ[`az{\x00\x7f09 mQ")
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 40; n++ {
		for trial := 0; trial < 200; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = edges[rng.Intn(len(edges))]
			}
			s := string(b)
			out, ok := lowerASCII(make([]byte, n), s)
			if !ok || string(out) != strings.ToLower(s) {
				t.Fatalf("lowerASCII(%q) = %q, %v; want %q", s, out, ok, strings.ToLower(s))
			}
			if n > 0 {
				b[rng.Intn(n)] = 0x80 | byte(rng.Intn(0x80))
				if _, ok := lowerASCII(make([]byte, n), string(b)); ok {
					t.Fatalf("lowerASCII(%q) took a non-ASCII string", b)
				}
			}
			var buf [8]byte
			if got := foldLower(buf[:], s); got != strings.ToLower(s) {
				t.Fatalf("foldLower(%q) = %q", s, got)
			}
		}
	}
	for _, s := range []string{"ÉCOLE Normale", "İSTANBUL", "ǅungla", "MIXED ascii then Ä"} {
		var buf [foldBufSize]byte
		if got := foldLower(buf[:], s); got != strings.ToLower(s) {
			t.Errorf("foldLower(%q) = %q, want %q", s, got, strings.ToLower(s))
		}
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

// TestLikeAgainstRegexp checks the matcher, with its early abort, against
// the same patterns as regular expressions on random short strings.
func TestLikeAgainstRegexp(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pick := func(alpha string, n int) string {
		b := make([]byte, rng.Intn(n+1))
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		return string(b)
	}
	for range 20000 {
		pat, s := pick("ab%_", 7), pick("ab", 8)
		var re strings.Builder
		re.WriteString("^(?s:")
		for _, c := range pat {
			switch c {
			case '%':
				re.WriteString(".*")
			case '_':
				re.WriteString(".")
			default:
				re.WriteRune(c)
			}
		}
		re.WriteString(")$")
		want := regexp.MustCompile(re.String()).MatchString(s)
		got, err := parseLike(pat, false).match(s)
		if err != nil || got != want {
			t.Fatalf("%q LIKE %q: got %v, %v, want %v", s, pat, got, err, want)
		}
	}
}

// TestLikeManyWildcards: a pattern of many %s that cannot match fails
// at once rather than trying every split of the text between them.
func TestLikeManyWildcards(t *testing.T) {
	s := strings.Repeat("x", 100000)
	pat := strings.Repeat("%x", 1000) + "%y"
	if got, _ := parseLike(pat, false).match(s); got {
		t.Fatal("matched")
	}
	pat = strings.Repeat("%x_", 100) + "%y"
	if got, _ := parseLike(pat, false).match(s); got {
		t.Fatal("matched")
	}
}

// TestRegexUnsupported: what RE2 lacks of PostgreSQL's regular
// expressions is 0A000 naming it, not an invalid expression.
func TestRegexUnsupported(t *testing.T) {
	for pat, want := range map[string]string{
		`(a)\1`:   "back-references (\\1) in regular expressions",
		`(?=y)y`:  "lookahead constraints in regular expressions",
		`x(?!y)`:  "lookahead constraints in regular expressions",
		`(?<=a)b`: "lookbehind constraints in regular expressions",
		`(?<!a)b`: "lookbehind constraints in regular expressions",
	} {
		_, err := compileRegex(pat, "")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: got %v, want %s not supported", pat, err, want)
		}
	}
	if _, err := compileRegex(`(`, ""); err == nil || strings.Contains(err.Error(), "not supported") {
		t.Errorf("(: got %v", err)
	}
}
