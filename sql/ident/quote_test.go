package ident

import "testing"

// TestQuote checks Quote against what PostgreSQL 15's quote_ident answers
// for the same names.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"memories", "memories"},
		{"_x1", "_x1"},
		{"1x", `"1x"`},
		{"Memories", `"Memories"`},
		{"with space", `"with space"`},
		{`a"b`, `"a""b"`},
		{"", `""`},
		{"ünï", `"ünï"`},
		{"select", `"select"`},               // reserved
		{"between", `"between"`},             // col_name keyword
		{"authorization", `"authorization"`}, // type_func_name keyword
		{"user", `"user"`},
		{"action", "action"}, // unreserved
		{"text", "text"},
		{"name", "name"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
