package jsonpath

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// TestNormalize checks canonical texts and errors against what
// PostgreSQL 15's jsonpath input and output print.
func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{in: "$.a[*] ? (@ > 1)", out: `$."a"[*]?(@ > 1)`},
		{in: "1 + 2", out: "(1 + 2)"},
		{in: "(1 + 2).type()", out: "(1 + 2).type()"},
		{in: "$.A.TYPE()", out: `$."A".type()`},
		{in: "-(1+2)*3 - -$.a", out: `(-(1 + 2) * 3 - -$."a")`},
		{in: "- - 1", out: "1"},
		{in: "-$", out: "(-$)"},
		{in: "1 - (2 - 3)", out: "(1 - (2 - 3))"},
		{in: "strict $.**{2 to last}.a ? (exists (@.b) && !(@ starts with \"x\") || (@ < 1) is unknown)",
			out: `strict $.**{2 to last}."a"?(exists (@."b") && !(@ starts with "x") || (@ < 1) is unknown)`},
		{in: `$ ? (@ like_regex "^a" flag "qsmi")`, out: `$?(@ like_regex "^a" flag "ismq")`},
		{in: `$."a b"."\u0041\n"`, out: `$."a b"."A\n"`},
		{in: "$.a[1.5, 2 to last]", out: `$."a"[1.5,2 to last]`},
		{in: "$.**{last}", out: "$.**{last}"},
		{in: "$.**{0 to 2}", out: "$.**{0 to 2}"},
		{in: `$"v a r"`, out: `$"v a r"`},
		{in: "$.a[1.2e3]", out: `$."a"[1200]`},
		{in: "$.null.true.last.size", out: `$."null"."true"."last"."size"`},
		{in: "$ ? (@.a)", err: `syntax error at or near ")" of jsonpath input`},
		{in: "$.a +", err: "syntax error at end of jsonpath input"},
		{in: "$.a ? (@ == TRUE)", err: "syntax error at end of jsonpath input"},
		{in: "$.a == 1 == 2", err: `syntax error at or near "==" of jsonpath input`},
		{in: "$ ? (@ is unknown)", err: `syntax error at or near " " of jsonpath input`},
		{in: "1.type()", err: `trailing junk after numeric literal at or near "1.t" of jsonpath input`},
		{in: "@", err: "@ is not allowed in root expressions"},
		{in: "last", err: "LAST is allowed only in array subscripts"},
		{in: "", err: `invalid input syntax for type jsonpath: ""`},
		{in: `$ ? (@ like_regex "a" flag "z")`, err: "invalid input syntax for type jsonpath"},
		{in: `"abc`, err: "unexpected end of quoted string at end of jsonpath input"},
	} {
		got, err := Normalize(c.in)
		if c.err != "" {
			var pe *pgerr.Error
			if !errors.As(err, &pe) || pe.Message != c.err {
				t.Errorf("Normalize(%q) = %q, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.out {
			t.Errorf("Normalize(%q) = %q, %v; want %q", c.in, got, err, c.out)
		}
		// the canonical text reads back as itself
		if again, err := Normalize(got); err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, %v; want it unchanged", got, again, err)
		}
	}
}

// TestDepthLimit checks that nesting and accessor chains deeper than
// maxDepth are refused with 54001 (and quickly: a chain is built in linear
// time), while ones within it parse; the parser, printer and evaluator
// recurse over both, so unbounded input would overflow the stack.
func TestDepthLimit(t *testing.T) {
	deep := maxDepth + 10
	for _, in := range []string{
		strings.Repeat("(", deep) + "1" + strings.Repeat(")", deep),
		strings.Repeat("-", deep) + "1",
		"$" + strings.Repeat(".a", 50*deep),
		"$" + strings.Repeat("[0]", deep),
		"$" + strings.Repeat(" ? (@.a", deep/2) + " > 1" + strings.Repeat(")", deep/2),
		// Operator chains build left-deep trees as deep as they are long:
		// 3,000,000 terms overflowed the printer's goroutine stack.
		"1" + strings.Repeat("+1", 3_000_000),
		"1" + strings.Repeat("*2-1", deep),
		"$ ? (@ == 1" + strings.Repeat(" && @ == 1", deep) + ")",
		"$ ? (@ == 1" + strings.Repeat(" || @ == 1", deep) + ")",
	} {
		start := time.Now()
		_, err := Parse(in)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != "54001" {
			t.Errorf("%.20s... (%d bytes): got %v, want 54001", in, len(in), err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.20s...: refused after %v", in, d)
		}
	}
	if _, err := Parse("1" + strings.Repeat("+1", maxDepth/2)); err != nil {
		t.Fatalf("a chain of %d additions: %v", maxDepth/2, err)
	}
	ok := "$" + strings.Repeat(".a", maxDepth/2) + " ? (" + strings.Repeat("(", 100) + "@ > 1" + strings.Repeat(")", 100) + ")"
	p, err := Parse(ok)
	if err != nil {
		t.Fatalf("a chain of %d accessors: %v", maxDepth/2, err)
	}
	if s := p.String(); !strings.HasPrefix(s, `$."a"."a"`) {
		t.Fatalf("printed %.30s...", s)
	}
}
