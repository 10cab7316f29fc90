package jsonstr

import (
	"encoding/json"
	"testing"
)

// TestAppend checks the escapes by name and by code, that UTF-8 passes
// as it is, and that what it writes reads back as the same string.
func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"":                 `""`,
		"plain":            `"plain"`,
		"a\"b\\c":          `"a\"b\\c"`,
		"\b\f\n\r\t":       `"\b\f\n\r\t"`,
		"\x00\x01\x1f\x7f": `"\u0000\u0001\u001f` + "\x7f" + `"`,
		"héllo ✓ 日本":       `"héllo ✓ 日本"`,
		"</script>":        `"</script>"`,
	} {
		got := string(Append([]byte("x"), in))
		if got != "x"+want {
			t.Errorf("Append(%q) = %s, want %s", in, got[1:], want)
		}
		var back string
		if err := json.Unmarshal([]byte(got[1:]), &back); err != nil || back != in {
			t.Errorf("%s reads back as %q (%v), want %q", got[1:], back, err, in)
		}
	}
}
