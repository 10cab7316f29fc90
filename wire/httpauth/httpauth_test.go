package httpauth

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	h := sha256.Sum256([]byte("tok-b"))
	var tk Tokens
	if err := tk.Parse(strings.NewReader("# comment\n\nagent_a tok-a\n  agent_b sha256:" + hex.EncodeToString(h[:]) + "  \n")); err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]string{"tok-a": "agent_a", "tok-b": "agent_b", "tok-c": "", "": "", "sha256:" + hex.EncodeToString(h[:]): ""} {
		if got, ok := tk.Role(tok); got != want || ok != (want != "") {
			t.Errorf("Role(%q) = %q, %v; want %q", tok, got, ok, want)
		}
	}
	for _, bad := range []string{"only-a-role\n", "a b c\n", "a sha256:abc\n", "a sha256:" + strings.Repeat("zz", 32) + "\n", "a tok-b\n", "a tok-a\n"} {
		if err := tk.Parse(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Parse(%q) = %v, want a line 1 error", bad, err)
		}
	}
	var none *Tokens
	if none.Enabled() || (&Tokens{}).Enabled() || !tk.Enabled() {
		t.Error("Enabled")
	}
}

func TestSessionCookie(t *testing.T) {
	var tk Tokens
	tk.Add("a", "tok-a")
	tk.Add("b", "tok-b")
	ca, cb := tk.SessionValue("tok-a"), tk.SessionValue("tok-b")
	if ca == "" || ca == cb || strings.Contains(ca, "tok-a") {
		t.Fatalf("cookies %q %q", ca, cb)
	}
	if r, ok := tk.SessionRole(cb); !ok || r != "b" {
		t.Errorf("SessionRole(b's cookie) = %q, %v", r, ok)
	}
	if tk.SessionValue("wrong") != "" {
		t.Error("a cookie for an unknown token")
	}
	forged := []byte(ca)
	forged[len(forged)-1] ^= 1 // one byte changed
	if _, ok := tk.SessionRole(string(forged)); ok {
		t.Error("a forged cookie passed")
	}
}

func TestBearer(t *testing.T) {
	for header, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "Basic abc": "", "Bearer": "", "Bearer ": "", "": ""} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", header)
		if got, ok := Bearer(r); got != want || ok != (want != "") {
			t.Errorf("Bearer(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}
