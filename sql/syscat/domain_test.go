package syscat

import "testing"

// TestShownCheck: VALUE in capitals, and nothing else touched.
func TestShownCheck(t *testing.T) {
	for in, want := range map[string]string{
		"value > 0":                            "VALUE > 0",
		"value ~ '^value$'::text":              "VALUE ~ '^value$'::text",
		`length(value) > 1 AND "value" <> 'x'`: `length(VALUE) > 1 AND "value" <> 'x'`,
		"value(3) = t.value OR values_x > 1":   "value(3) = t.value OR values_x > 1",
		"'it''s value' <> value":               "'it''s value' <> VALUE",
	} {
		if got := shownCheck(in); got != want {
			t.Errorf("shownCheck(%q) = %q, want %q", in, got, want)
		}
	}
}
