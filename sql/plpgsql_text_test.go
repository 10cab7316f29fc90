package sql

import "testing"

// TestWithoutCommentsAndStrings: the RETURN NEXTs a body's comments and
// strings hold are not taken for its statements'.
func TestWithoutCommentsAndStrings(t *testing.T) {
	body := "BEGIN -- RETURN NEXT a;\n /* RETURN NEXT b; */ RAISE NOTICE 'RETURN NEXT c; it''s'; RETURN NEXT d; END"
	var got []string
	for _, m := range returnNextRE.FindAllStringSubmatch(withoutCommentsAndStrings(body), -1) {
		got = append(got, m[1])
	}
	if len(got) != 1 || got[0] != "d" {
		t.Fatalf("RETURN NEXT variables %q, want [d]", got)
	}
	if out := withoutCommentsAndStrings("x 'unterminated"); len(out) != len("x 'unterminated") {
		t.Fatalf("length changed: %q", out)
	}
}
