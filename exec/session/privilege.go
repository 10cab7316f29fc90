package session

import (
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// GRANT and REVOKE of privileges on tables and schemas, and changes of
// owner, with PostgreSQL 15's rules: the owner, a superuser (granting as
// the owner) or a holder of the grant option grants; a grantor grants
// only what it holds with grant option (a WARNING for what it lacks, 42501
// when it holds nothing at all); a REVOKE takes back what this grantor
// gave.

// aclObject is one table or schema a GRANT names: how to read and write
// its ACL, for the checks shared by both.
type aclObject struct {
	kind, name string
	owner      uint32
	acl        []catalog.ACLItem
	all        catalog.Priv
	// write stores acl; for a table, revoke (when not nil) is applied to
	// each column's ACL too, as a REVOKE on a table takes the same
	// privileges from its columns.
	write func(acl []catalog.ACLItem, revoke func([]catalog.ACLItem) []catalog.ACLItem) error
}

func (s *Session) runGrant(tx *storage.Tx, x *sql.GrantPrivileges) error {
	cat := tx.Catalog()
	var objs []aclObject
	table := func(t *catalog.TableDef) aclObject {
		return aclObject{kind: "table", name: t.Name, owner: t.Owner, acl: t.ACL, all: catalog.TablePrivs,
			write: func(acl []catalog.ACLItem, revoke func([]catalog.ACLItem) []catalog.ACLItem) error {
				d := tx.Catalog().Tables[t.ID].Clone()
				d.ACL = acl
				for i := range d.Columns {
					if revoke != nil && d.Columns[i].ACL != nil {
						d.Columns[i].ACL = revoke(d.Columns[i].ACL)
					}
				}
				return tx.AlterTable(d)
			}}
	}
	for _, t := range x.Tables {
		cur := cat.Tables[t.ID]
		if cur == nil { // dropped since the statement was bound
			return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", t.Name)
		}
		objs = append(objs, table(cur))
	}
	view := func(v *catalog.ViewDef) aclObject {
		key := catalog.Key(v.Schema, v.Name)
		return aclObject{kind: "view", name: v.Name, owner: v.Owner, acl: v.ACL, all: catalog.TablePrivs,
			write: func(acl []catalog.ACLItem, _ func([]catalog.ACLItem) []catalog.ACLItem) error {
				d := *tx.Catalog().Views[key]
				d.ACL = acl
				return tx.CreateView(&d, true)
			}}
	}
	sequence := func(q *catalog.SequenceDef) aclObject {
		return aclObject{kind: "sequence", name: q.Name, owner: q.Owner, acl: q.ACL, all: catalog.SequencePrivs,
			write: func(acl []catalog.ACLItem, _ func([]catalog.ACLItem) []catalog.ACLItem) error {
				return tx.SetSequenceACL(q.Schema, q.Name, acl)
			}}
	}
	for _, q := range x.Sequences {
		cur := cat.Sequences[catalog.Key(q.Schema, q.Name)]
		if cur == nil { // dropped since the statement was bound
			return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", q.Name)
		}
		objs = append(objs, sequence(cur))
	}
	for _, v := range x.Views {
		cur := cat.Views[catalog.Key(v.Schema, v.Name)]
		if cur == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", v.Name)
		}
		objs = append(objs, view(cur))
	}
	for _, name := range x.InSchemas {
		if cat.Schemas[name] == nil {
			return pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		if x.OnSequences {
			for _, k := range slices.Sorted(maps.Keys(cat.Sequences)) {
				if q := cat.Sequences[k]; q.Schema == name {
					objs = append(objs, sequence(q))
				}
			}
			continue
		}
		for _, t := range cat.Tables {
			if t.Schema == name {
				objs = append(objs, table(t))
			}
		}
		// ALL TABLES takes in views, as in PostgreSQL.
		for _, v := range cat.Views {
			if v.Schema == name {
				objs = append(objs, view(v))
			}
		}
	}
	for _, name := range x.Schemas {
		sc := cat.Schemas[name]
		if sc == nil {
			return pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		objs = append(objs, aclObject{kind: "schema", name: name, owner: sc.Owner, acl: sc.ACL, all: catalog.SchemaPrivs,
			write: func(acl []catalog.ACLItem, _ func([]catalog.ACLItem) []catalog.ACLItem) error {
				d := *tx.Catalog().Schemas[name]
				d.ACL = acl
				return tx.AlterSchema(&d)
			}})
	}
	grantees, err := s.granteeOIDs(cat, x.Grantees)
	if err != nil {
		return err
	}
	me := s.currentRole(cat)
	if x.GrantedBy != nil {
		r, err := s.resolveRole(cat, *x.GrantedBy)
		if err != nil {
			return err
		}
		if r.OID != me.OID {
			return pgerr.New(pgerrcode.FeatureNotSupported, "grantor must be current user")
		}
	}
	if len(x.ColumnPrivs) > 0 {
		for _, t := range x.Tables {
			if err := s.grantColumns(tx, x, cat.Tables[t.ID], me, grantees); err != nil {
				return err
			}
		}
		if x.Privs == 0 {
			return nil
		}
	}
	for _, o := range objs {
		owner := catalog.OwnerOID(o.owner)
		acl := catalog.EffectiveACL(o.acl, owner, o.all)
		// A superuser or a member of the owning role grants as the owner.
		grantor := me.OID
		if me.Superuser || cat.Reaches(me.OID, owner, true) {
			grantor = owner
		}
		avail := o.all
		if grantor != owner {
			privs, opts := cat.Privileges(acl, me.OID)
			if privs == 0 {
				return denied("permission denied for %s %s", o.kind, o.name)
			}
			avail = opts
		}
		want := x.Privs
		if o.kind == "sequence" && !x.OnSequences {
			// A sequence named in ON [TABLE]: ALL is its own privileges,
			// and only those are given, as PostgreSQL does.
			if x.All {
				want = o.all
			} else if want&^o.all != 0 {
				s.notices = append(s.notices, Notice{Severity: "WARNING", Code: pgerrcode.InvalidGrantOperation,
					Message: fmt.Sprintf("sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges", o.name)})
				if want &= o.all; want == 0 {
					continue
				}
			}
		}
		privs := want & avail
		verb, code := "granted", pgerrcode.PrivilegeNotGranted
		if x.Revoke {
			verb, code = "revoked", pgerrcode.PrivilegeNotRevoked
		}
		switch {
		case privs == 0:
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: code, Message: fmt.Sprintf("no privileges were %s for \"%s\"", verb, o.name)})
			continue
		case privs != want && !x.All:
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: code, Message: fmt.Sprintf("not all privileges were %s for \"%s\"", verb, o.name)})
		}
		var err error
		if acl, err = applyGrant(cat, x, acl, owner, o.all, grantor, grantees, privs); err != nil {
			return err
		}
		var revoke func([]catalog.ACLItem) []catalog.ACLItem
		if x.Revoke && privs&catalog.ColumnPrivs != 0 {
			revoke = func(col []catalog.ACLItem) []catalog.ACLItem {
				for _, g := range grantees {
					col = catalog.RevokeACL(col, owner, 0, grantor, g, privs&catalog.ColumnPrivs, x.GrantOption)
				}
				return nilIfEmpty(col)
			}
		}
		if err := o.write(acl, revoke); err != nil {
			return err
		}
	}
	return nil
}

// grantColumns grants or revokes x's column privileges on t's columns,
// by the rules of runGrant: the owner (or a superuser, as the owner)
// grants them all, another role what it holds with grant option on the
// table or the column. A column's ACL starts empty (PostgreSQL's
// acldefault for columns).
// applyGrant grants privs on acl to each of grantees, or revokes them, as
// x asks, for grantor; all is every privilege the object has (0 for a
// column's ACL, which has no implicit owner entry).
func applyGrant(cat *catalog.Catalog, x *sql.GrantPrivileges, acl []catalog.ACLItem, owner uint32, all catalog.Priv, grantor uint32, grantees []uint32, privs catalog.Priv) ([]catalog.ACLItem, error) {
	for _, g := range grantees {
		if x.Revoke {
			var dependent bool
			if acl, dependent = cat.RevokeGrant(acl, owner, all, grantor, g, privs, x.GrantOption, x.Cascade); dependent {
				return nil, dependentPrivileges()
			}
			continue
		}
		if x.GrantOption && g == catalog.PublicOID {
			return nil, pgerr.New(pgerrcode.InvalidGrantOperation, "grant options can only be granted to roles")
		}
		opts := catalog.Priv(0)
		if x.GrantOption {
			opts = privs
		}
		acl = catalog.GrantACL(acl, owner, all, grantor, g, privs, opts)
	}
	return acl, nil
}

func (s *Session) grantColumns(tx *storage.Tx, x *sql.GrantPrivileges, t *catalog.TableDef, me *catalog.RoleDef, grantees []uint32) error {
	cat := tx.Catalog()
	d := t.Clone()
	owner := catalog.OwnerOID(t.Owner)
	grantor := me.OID
	if me.Superuser || cat.Reaches(me.OID, owner, true) {
		grantor = owner
	}
	verb, code := "granted", pgerrcode.PrivilegeNotGranted
	if x.Revoke {
		verb, code = "revoked", pgerrcode.PrivilegeNotRevoked
	}
	for _, cp := range x.ColumnPrivs {
		i := slices.IndexFunc(d.Columns, func(c catalog.ColumnDef) bool { return c.Name == cp.Column })
		if i < 0 {
			return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cp.Column, t.Name)
		}
		col := d.Columns[i].ACL
		if col == nil {
			col = []catalog.ACLItem{}
		}
		avail := catalog.ColumnPrivs
		if grantor != owner {
			tp, to := cat.Privileges(catalog.EffectiveACL(t.ACL, owner, catalog.TablePrivs), me.OID)
			colp, co := cat.Privileges(col, me.OID)
			if tp|colp == 0 {
				return denied("permission denied for column %s of relation %s", cp.Column, t.Name)
			}
			avail = to | co
		}
		privs := cp.Privs & avail
		switch {
		case privs == 0:
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: code, Message: fmt.Sprintf("no privileges were %s for column \"%s\" of relation \"%s\"", verb, cp.Column, t.Name)})
			continue
		case privs != cp.Privs:
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: code, Message: fmt.Sprintf("not all privileges were %s for column \"%s\" of relation \"%s\"", verb, cp.Column, t.Name)})
		}
		var err error
		if col, err = applyGrant(cat, x, col, owner, 0, grantor, grantees, privs); err != nil {
			return err
		}
		d.Columns[i].ACL = nilIfEmpty(col)
	}
	return tx.AlterTable(d)
}

// nilIfEmpty is acl, or nil (no privileges recorded) when it is empty.
func nilIfEmpty(acl []catalog.ACLItem) []catalog.ACLItem {
	if len(acl) == 0 {
		return nil
	}
	return acl
}

// dependentPrivileges is REVOKE's refusal, without CASCADE, to orphan
// the grants made with the grant options it takes.
func dependentPrivileges() error {
	return pgerr.New(pgerrcode.DependentObjectsStillExist, "dependent privileges exist").
		WithHint("Use CASCADE to revoke them too.")
}

// granteeOIDs are the roles a GRANT or REVOKE names, PUBLIC as
// catalog.PublicOID.
func (s *Session) granteeOIDs(cat *catalog.Catalog, specs []sql.RoleSpec) ([]uint32, error) {
	var out []uint32
	for _, g := range specs {
		if g.Keyword == "public" {
			out = append(out, catalog.PublicOID)
			continue
		}
		r, err := s.resolveRole(cat, g)
		if err != nil {
			return nil, err
		}
		out = append(out, r.OID)
	}
	return out, nil
}

// runDefaultPrivileges applies ALTER DEFAULT PRIVILEGES to the entries
// of each role named (the current one by default), in each schema named
// or globally, as PostgreSQL does: the current role must be a member of
// each (or a superuser), grants are made by that role, and an entry that comes back to the
// built-in default (the owner's privileges globally, nothing in a
// schema) goes.
func (s *Session) runDefaultPrivileges(tx *storage.Tx, x *sql.AlterDefaultPrivileges) error {
	cat := tx.Catalog()
	me := s.currentRole(cat)
	roles := []uint32{me.OID}
	if len(x.Roles) > 0 {
		roles = roles[:0]
		for _, spec := range x.Roles {
			r, err := s.resolveRole(cat, spec)
			if err != nil {
				return err
			}
			if !me.Superuser && !cat.Reaches(me.OID, r.OID, true) {
				return denied("must be member of role \"%s\"", r.Name)
			}
			roles = append(roles, r.OID)
		}
	}
	schemas := []string{""}
	if len(x.Schemas) > 0 {
		schemas = x.Schemas
		for _, n := range schemas {
			if cat.Schemas[n] == nil {
				return pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", n)
			}
		}
	}
	grantees, err := s.granteeOIDs(cat, x.Grant.Grantees)
	if err != nil {
		return err
	}
	g, all := x.Grant, catalog.DefaultPrivs(x.Kind)
	list := slices.Clone(cat.DefaultACLs)
	for _, role := range roles {
		for _, schema := range schemas {
			base := []catalog.ACLItem{}
			if schema == "" {
				base = catalog.EffectiveACL(nil, role, all)
			}
			i := slices.IndexFunc(list, func(d catalog.DefaultACL) bool {
				return d.Role == role && d.Schema == schema && d.Kind == x.Kind
			})
			acl := base
			if i >= 0 {
				acl = list[i].ACL
			}
			for _, grantee := range grantees {
				if g.Revoke {
					acl = catalog.RevokeACL(acl, role, all, role, grantee, g.Privs, g.GrantOption)
					continue
				}
				if g.GrantOption && grantee == catalog.PublicOID {
					return pgerr.New(pgerrcode.InvalidGrantOperation, "grant options can only be granted to roles")
				}
				opts := catalog.Priv(0)
				if g.GrantOption {
					opts = g.Privs
				}
				acl = catalog.GrantACL(acl, role, all, role, grantee, g.Privs, opts)
			}
			switch {
			case slices.Equal(acl, base) && i >= 0:
				list = slices.Delete(list, i, i+1)
			case slices.Equal(acl, base):
			case i >= 0:
				list[i].ACL = acl
			default:
				list = append(list, catalog.DefaultACL{Role: role, Schema: schema, Kind: x.Kind, ACL: acl})
			}
		}
	}
	return tx.SetDefaultACLs(list)
}

// changeOwner makes newOwner the owner of an object owned by owner with
// acl: the caller must be a superuser, or a member of both the old and the
// new owner whom the new owner's CREATE on schema lets own it. The ACL's
// mentions of the old owner become the new one, items that then name the
// same grantee and grantor merging (aclnewowner).
func (s *Session) changeOwner(cat *catalog.Catalog, kind, name string, owner uint32, acl []catalog.ACLItem, spec sql.RoleSpec, schema *catalog.SchemaDef) (uint32, []catalog.ACLItem, error) {
	r, err := s.resolveRole(cat, spec)
	if err != nil {
		return 0, nil, err
	}
	owner = catalog.OwnerOID(owner)
	if r.OID == owner {
		return owner, acl, nil
	}
	me := s.currentRole(cat)
	if !me.Superuser {
		if !cat.Reaches(me.OID, owner, true) {
			return 0, nil, denied("must be owner of %s %s", kind, name)
		}
		if !cat.Reaches(me.OID, r.OID, false) {
			return 0, nil, denied("must be member of role \"%s\"", r.Name)
		}
		if schema != nil && !cat.HasPrivilege(schema.ACL, schema.Owner, r.OID, catalog.SchemaPrivs, catalog.PrivCreate, false) {
			return 0, nil, denied("permission denied for schema %s", schema.Name)
		}
	}
	out := make([]catalog.ACLItem, 0, len(acl))
	for _, it := range acl {
		if it.Grantee == owner {
			it.Grantee = r.OID
		}
		if it.Grantor == owner {
			it.Grantor = r.OID
		}
		if i := slices.IndexFunc(out, func(o catalog.ACLItem) bool { return o.Grantee == it.Grantee && o.Grantor == it.Grantor }); i >= 0 {
			out[i].Privs |= it.Privs
			out[i].GrantOpts |= it.GrantOpts
			continue
		}
		out = append(out, it)
	}
	if acl == nil {
		out = nil
	}
	return r.OID, out, nil
}

// checkAccesses fails with 42501 unless the current role (or, for the
// tables a view reads, the view's owner) holds every privilege the
// binder found the statement needs. It runs when a statement is bound: a
// binding is kept only for the same catalog and current user
// (bindKey), so a GRANT, REVOKE or SET ROLE binds, and checks, anew.
func (s *Session) checkAccesses(cat *catalog.Catalog, accesses []sql.Access) error {
	me := s.currentRole(cat).OID
	for _, a := range accesses {
		role := me
		if a.As != 0 {
			role = a.As
		}
		// owns is whether role may act as the owner: an empty ACL leaves
		// only superusers and members of the owner role.
		owns := func(owner uint32) bool {
			return cat.HasPrivilege([]catalog.ACLItem{}, owner, role, catalog.TablePrivs, catalog.TablePrivs, false)
		}
		switch {
		case a.Database:
			if !owns(catalog.BootstrapRoleOID) {
				return denied("permission denied for database %s", s.database)
			}
		case a.Sequence != nil && a.Owner:
			if !owns(a.Sequence.Owner) {
				return denied("must be owner of sequence %s", a.Sequence.Name)
			}
		case a.Sequence != nil:
			held := false
			for p := catalog.Priv(1); p <= a.Privs; p <<= 1 {
				held = held || a.Privs&p != 0 && cat.HasPrivilege(a.Sequence.ACL, a.Sequence.Owner, role, catalog.SequencePrivs, p, false)
			}
			if !held {
				return denied("permission denied for sequence %s", a.Sequence.Name)
			}
		case a.View != nil && a.Owner:
			if !owns(a.View.Owner) {
				return denied("must be owner of view %s", a.View.Name)
			}
		case a.View != nil:
			if !cat.HasPrivilege(a.View.ACL, a.View.Owner, role, catalog.TablePrivs, a.Privs, false) {
				return denied("permission denied for view %s", a.View.Name)
			}
		case a.Schema != "":
			sc := cat.Schemas[a.Schema]
			switch {
			case sc == nil:
			case a.Owner && !owns(sc.Owner):
				return denied("must be owner of schema %s", a.Schema)
			case !a.Owner && !cat.HasPrivilege(sc.ACL, sc.Owner, role, catalog.SchemaPrivs, a.Privs, false):
				return denied("permission denied for schema %s", a.Schema)
			}
		case a.Owner && a.Index != "":
			if !owns(a.Table.Owner) {
				return denied("must be owner of index %s", a.Index)
			}
		case a.Owner && a.Relation:
			if !owns(a.Table.Owner) {
				return denied("must be owner of relation %s", a.Table.Name)
			}
		case a.Owner:
			if !owns(a.Table.Owner) {
				return denied("must be owner of table %s", a.Table.Name)
			}
		default:
			if sc := cat.Schemas[a.Table.Schema]; sc != nil && !cat.HasPrivilege(sc.ACL, sc.Owner, role, catalog.SchemaPrivs, catalog.PrivUsage, false) {
				return denied("permission denied for schema %s", a.Table.Schema)
			}
			// Without the privilege on the table, the columns' privileges
			// may grant it for the columns the statement uses.
			if !cat.HasPrivilege(a.Table.ACL, a.Table.Owner, role, catalog.TablePrivs, a.Privs, false) &&
				(a.Privs&^catalog.ColumnPrivs != 0 || !cat.HasColumnsPrivilege(a.Table, a.Columns, role, a.Privs)) {
				return denied("permission denied for table %s", a.Table.Name)
			}
		}
	}
	return nil
}

// CheckSchemaUsage fails with 42501, as a statement naming one of its
// tables would, unless the current role has USAGE on schema; a schema
// that does not exist passes (a statement there reports it). The HTTP API
// checks a workspace with it before running anything there, so that
// every endpoint, listings included, refuses a workspace alike.
func (s *Session) CheckSchemaUsage(schema string) error {
	return s.checkAccesses(s.engine.db.Catalog(), []sql.Access{{Schema: schema, Privs: catalog.PrivUsage}})
}

// roleDependents lists, as DROP ROLE's 2BP01 detail does, the schemas,
// tables and views role owns, the tables and schemas it holds or gave
// privileges on and the policies that name it: a role is dropped only
// once nothing names it.
func (s *Session) roleDependents(cat *catalog.Catalog, role uint32) []string {
	path := s.searchPath()
	name := func(schema, n string) string {
		if slices.Contains(path, schema) {
			return n
		}
		return schema + "." + n
	}
	named := func(acl []catalog.ACLItem) bool {
		return slices.ContainsFunc(acl, func(it catalog.ACLItem) bool { return it.Grantee == role || it.Grantor == role })
	}
	var out []string
	schemas := slices.Sorted(maps.Keys(cat.Schemas))
	for _, n := range schemas {
		sc := cat.Schemas[n]
		if catalog.OwnerOID(sc.Owner) == role {
			out = append(out, "owner of schema "+n)
		} else if named(sc.ACL) {
			out = append(out, "privileges for schema "+n)
		}
	}
	ids := slices.Sorted(maps.Keys(cat.Tables))
	for _, id := range ids {
		t := cat.Tables[id]
		if catalog.OwnerOID(t.Owner) == role {
			out = append(out, "owner of table "+name(t.Schema, t.Name))
		} else if named(t.ACL) {
			out = append(out, "privileges for table "+name(t.Schema, t.Name))
		}
		for _, c := range t.Columns {
			if named(c.ACL) {
				out = append(out, "privileges for column "+c.Name+" of table "+name(t.Schema, t.Name))
			}
		}
		for _, p := range t.Policies {
			if slices.Contains(p.Roles, role) {
				out = append(out, "target of policy "+p.Name+" on table "+name(t.Schema, t.Name))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cat.Sequences)) {
		if q := cat.Sequences[k]; catalog.OwnerOID(q.Owner) == role {
			out = append(out, "owner of sequence "+name(q.Schema, q.Name))
		} else if named(q.ACL) {
			out = append(out, "privileges for sequence "+name(q.Schema, q.Name))
		}
	}
	for _, d := range cat.DefaultACLs {
		if d.Role == role || named(d.ACL) {
			what := map[string]string{"r": "relations", "S": "sequences"}[d.Kind]
			line := "owner of default privileges on new " + what + " belonging to role " + cat.RoleName(d.Role)
			if d.Schema != "" {
				line += " in schema " + d.Schema
			}
			out = append(out, line)
		}
	}
	views := slices.Sorted(maps.Keys(cat.Views))
	for _, k := range views {
		if v := cat.Views[k]; catalog.OwnerOID(v.Owner) == role {
			out = append(out, "owner of view "+name(v.Schema, v.Name))
		} else if named(v.ACL) {
			out = append(out, "privileges for view "+name(v.Schema, v.Name))
		}
	}
	return out
}
