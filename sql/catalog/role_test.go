package catalog

import (
	"strings"
	"testing"
)

// A verifier PostgreSQL 15 made (CREATE ROLE ... PASSWORD 'pw') parses and
// verifies its password; one cairn makes has PostgreSQL's format and does
// too, and neither accepts another password.
func TestSCRAMVerifier(t *testing.T) {
	const pg = "SCRAM-SHA-256$4096:2wf7hfRS1XQc5Hd7C5elKg==$2FZcmgcBIbqrWaS02QT4AfkDZ1CFKo2pNtj4thxmnTw=:BaQvzvvhnggnFu6Umqzwm3AoRCPEARxOwSn+jVRBcTo="
	k, ok := ParseSCRAMVerifier(pg)
	if !ok || !k.Verifies("pw") || k.Verifies("pw2") || k.String() != pg {
		t.Fatalf("PostgreSQL's verifier: parsed %v, verifies pw %v", ok, k.Verifies("pw"))
	}
	v, err := SCRAMVerifier("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "s3cret") || !strings.HasPrefix(v, "SCRAM-SHA-256$4096:") {
		t.Fatalf("verifier %q", v)
	}
	k, ok = ParseSCRAMVerifier(v)
	if !ok || !k.Verifies("s3cret") || k.Verifies("S3cret") {
		t.Fatalf("cairn's verifier: parsed %v", ok)
	}
	for _, bad := range []string{"", "s3cret", "md5abcdef", "SCRAM-SHA-256$x:AA==$AA==:AA==", "SCRAM-SHA-256$4096:AA==$AA==:AA==", strings.TrimSuffix(pg, "=") + "!"} {
		if _, ok := ParseSCRAMVerifier(bad); ok {
			t.Errorf("%q parsed as a verifier", bad)
		}
	}
}

// Membership: direct and through other roles, USAGE stopping at a
// NOINHERIT role, superusers members of everything, and Reaches
// ignoring the superuser shortcut (GRANT's cycle check).
func TestIsMemberOf(t *testing.T) {
	c := New()
	add := func(oid uint32, name string, inherit, super bool) {
		c.Roles[name] = &RoleDef{OID: oid, Name: name, Inherit: inherit, Superuser: super, ConnLimit: -1}
	}
	add(20000, "u", true, false)
	add(20001, "mid", false, false)
	add(20002, "top", true, false)
	c.Members = []MemberDef{{Role: 20001, Member: 20000}, {Role: 20002, Member: 20001, Admin: true}}
	cases := []struct {
		member, role uint32
		inherit      bool
		want         bool
	}{
		{20000, 20001, false, true},
		{20000, 20002, false, true},
		{20000, 20001, true, true},
		{20000, 20002, true, false}, // mid does not inherit
		{20002, 20000, false, false},
		{BootstrapRoleOID, 20000, true, true},
	}
	for _, tc := range cases {
		if got := c.IsMemberOf(tc.member, tc.role, tc.inherit); got != tc.want {
			t.Errorf("IsMemberOf(%d, %d, %v) = %v", tc.member, tc.role, tc.inherit, got)
		}
	}
	if c.Reaches(BootstrapRoleOID, 20000, false) {
		t.Error("the superuser reaches u by grants")
	}
	if !c.HasAdminOf(20000, 20002) || c.HasAdminOf(20002, 20001) {
		t.Error("admin option of top: held through mid by u, not by top over mid")
	}
}
