package textsearch

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Machine-Learning, CI/CD!", []string{"machine-learning", "ci", "cd"}},
		{"-lead trail_ a--b", []string{"lead", "trail", "a--b"}},
		{"done-_- ok__ é-", []string{"done", "ok", "é"}},
		{"  ", nil},
		{"Ünïcode Straße 42x", []string{"ünïcode", "straße", "42x"}},
	} {
		if got := Tokenize(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
