package storage

import (
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Role DDL commits, survives a reopen, and conflicts with concurrent role
// DDL as other DDL does: two transactions that created roles under the
// same OID, or altered the same role, do not both commit (40001), so a
// membership never lands on the wrong role and no change is lost.
func TestRoleDDL(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	a, b := db.Begin(), db.Begin()
	oidA, err := a.CreateRole(&catalog.RoleDef{Name: "a", Login: true, ConnLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	oidB, err := b.CreateRole(&catalog.RoleDef{Name: "b", ConnLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if oidA != catalog.FirstRoleOID || oidB != oidA {
		t.Fatalf("OIDs %d and %d, want both %d before either commits", oidA, oidB, catalog.FirstRoleOID)
	}
	if err := b.GrantRole(catalog.MemberDef{Role: oidB, Member: catalog.BootstrapRoleOID}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, a)
	if err := b.Commit(); sqlstate(err) != "40001" {
		t.Fatalf("second creator under the same OID: %v, want 40001", err)
	}

	c, d := db.Begin(), db.Begin()
	for i, tx := range []*Tx{c, d} {
		r := tx.Catalog().Role("a").Clone()
		r.ConnLimit = i + 1
		if err := tx.AlterRole(r); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, c)
	if err := d.Commit(); sqlstate(err) != "40001" {
		t.Fatalf("second ALTER of one role: %v, want 40001", err)
	}

	e := db.Begin()
	oidG, err := e.CreateRole(&catalog.RoleDef{Name: "g", ConnLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.GrantRole(catalog.MemberDef{Role: oidG, Member: oidA, Admin: true}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, e)
	db.Close()

	db = openDB(t, dir, Options{})
	cat := db.Catalog()
	if r := cat.Role("a"); r == nil || r.OID != oidA || r.ConnLimit != 1 || !r.Login {
		t.Fatalf("role a after reopen: %+v", r)
	}
	if cat.Role("b") != nil || cat.RoleByOID(catalog.BootstrapRoleOID) == nil {
		t.Fatalf("roles after reopen: %v", cat.RoleList())
	}
	if i := cat.Membership(oidG, oidA); i < 0 || !cat.Members[i].Admin {
		t.Fatalf("membership after reopen: %+v", cat.Members)
	}
	f := db.Begin()
	if err := f.DropRole(oidG, "g"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, f)
	if len(db.Catalog().Members) != 0 {
		t.Fatalf("DROP ROLE left memberships: %+v", db.Catalog().Members)
	}
}
