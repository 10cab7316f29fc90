package catalog

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Privileges on tables and schemas, kept as PostgreSQL keeps them: an
// object has an owner and an ACL, a list of items each giving one grantee
// (a role, or PUBLIC) the privileges one grantor gave it, some of them
// with grant option. A nil ACL is the default one (acldefault): the owner
// holds every privilege with grant option, nobody else anything; the
// first GRANT or REVOKE writes it out.

// Priv is a set of privileges, with PostgreSQL's bits (ACL_INSERT...), so
// that the text form orders them as PostgreSQL does.
type Priv uint16

// The privileges tables and schemas have.
const (
	PrivInsert Priv = 1 << iota
	PrivSelect
	PrivUpdate
	PrivDelete
	PrivTruncate
	PrivReferences
	PrivTrigger
	privExecute
	PrivUsage
	PrivCreate
)

// aclChars are the letters of aclitem's text form, bit by bit.
const aclChars = "arwdDxtXUC"

// TablePrivs, ColumnPrivs and SchemaPrivs are ALL on a table, on a
// column and on a schema.
const (
	TablePrivs  = PrivInsert | PrivSelect | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger
	ColumnPrivs = PrivInsert | PrivSelect | PrivUpdate | PrivReferences
	SchemaPrivs = PrivUsage | PrivCreate
	// SequencePrivs are ALL on a sequence.
	SequencePrivs = PrivSelect | PrivUpdate | PrivUsage
)

// PublicOID stands for PUBLIC as an ACL grantee (PostgreSQL's ACL_ID_PUBLIC).
const PublicOID = 0

// ACLItem is one aclitem: Grantee holds Privs from Grantor, those in
// GrantOpts with grant option (GrantOpts is a subset of Privs).
type ACLItem struct {
	Grantee   uint32 `json:"grantee"`
	Grantor   uint32 `json:"grantor"`
	Privs     Priv   `json:"privs"`
	GrantOpts Priv   `json:"grant_opts,omitempty"`
}

// OwnerOID is the owner a catalog entry records: 0 (an entry made before
// owners were recorded) is the bootstrap superuser.
func OwnerOID(owner uint32) uint32 {
	if owner == 0 {
		return BootstrapRoleOID
	}
	return owner
}

// EffectiveACL is acl, or for a nil one the default ACL of an object
// owned by owner whose privileges are all: the owner holds them, without
// grant option written down, as the owner's grant options are implicit
// (see HasPrivilege).
func EffectiveACL(acl []ACLItem, owner uint32, all Priv) []ACLItem {
	if acl != nil {
		return acl
	}
	return []ACLItem{{Grantee: owner, Grantor: owner, Privs: all}}
}

// Privileges are the privileges role holds in acl, directly, through
// PUBLIC, or through the roles it is a member of (inheriting), and those
// of them it holds with grant option. Superusers and the owner are not
// special here: see HasPrivilege.
func (c *Catalog) Privileges(acl []ACLItem, role uint32) (privs, grantOpts Priv) {
	for _, it := range acl {
		if it.Grantee == PublicOID || it.Grantee == role || c.Reaches(role, it.Grantee, true) {
			privs |= it.Privs
			grantOpts |= it.GrantOpts
		}
	}
	return privs, grantOpts
}

// HasPrivilege reports whether role holds every privilege in want on an
// object with owner and acl (nil for the default); with grantOption, it
// must hold them with grant option. Superusers and members of the owner
// role hold everything.
func (c *Catalog) HasPrivilege(acl []ACLItem, owner, role uint32, all, want Priv, grantOption bool) bool {
	owner = OwnerOID(owner)
	if r := c.RoleByOID(role); r != nil && r.Superuser || c.Reaches(role, owner, true) {
		return true
	}
	privs, opts := c.Privileges(EffectiveACL(acl, owner, all), role)
	if grantOption {
		return opts&want == want
	}
	return privs&want == want
}

// HasColumnPrivilege reports whether role holds every privilege in want
// on column col of t, through the table's ACL or the column's.
func (c *Catalog) HasColumnPrivilege(t *TableDef, col int, role uint32, want Priv, grantOption bool) bool {
	if c.HasPrivilege(t.ACL, t.Owner, role, TablePrivs, want, grantOption) {
		return true
	}
	privs, opts := c.Privileges(t.ACL, role)
	cp, co := c.Privileges(t.Columns[col].ACL, role)
	if grantOption {
		return (opts|co)&want == want
	}
	return (privs|cp)&want == want
}

// HasColumnsPrivilege reports whether role holds every privilege in want
// on each of columns of t (positions in t.Columns), or with no columns on
// at least one column, as PostgreSQL checks the columns a statement uses.
func (c *Catalog) HasColumnsPrivilege(t *TableDef, columns []int, role uint32, want Priv) bool {
	if len(columns) == 0 {
		for i := range t.Columns {
			if c.HasColumnPrivilege(t, i, role, want, false) {
				return true
			}
		}
		return false
	}
	for _, col := range columns {
		if !c.HasColumnPrivilege(t, col, role, want, false) {
			return false
		}
	}
	return true
}

// DefaultACL is one entry of ALTER DEFAULT PRIVILEGES: the privileges
// objects of Kind ('r' tables and views, 'S' sequences) that Role
// creates, in Schema or ("" ) anywhere, start with. A global entry
// replaces the owner-only default; a schema's entry adds to it.
type DefaultACL struct {
	Role   uint32    `json:"role"`
	Schema string    `json:"schema,omitempty"`
	Kind   string    `json:"kind"`
	ACL    []ACLItem `json:"acl"`
}

// DefaultPrivs are ALL for a DefaultACL kind.
func DefaultPrivs(kind string) Priv {
	if kind == "S" {
		return SequencePrivs
	}
	return TablePrivs
}

// InitialACL is the ACL an object of kind that owner creates in schema
// starts with, its default privileges applied (PostgreSQL's
// get_user_default_acl); nil when they are the built-in default.
func (c *Catalog) InitialACL(owner uint32, schema, kind string) []ACLItem {
	all := DefaultPrivs(kind)
	acl := EffectiveACL(nil, owner, all)
	for _, global := range []bool{true, false} {
		for _, d := range c.DefaultACLs {
			if d.Role != owner || d.Kind != kind || (d.Schema == "") != global || (!global && d.Schema != schema) {
				continue
			}
			if global {
				acl = slices.Clone(d.ACL)
				continue
			}
			for _, it := range d.ACL {
				acl = GrantACL(acl, owner, all, it.Grantor, it.Grantee, it.Privs, it.GrantOpts)
			}
		}
	}
	// Sorted, as PostgreSQL sorts the merged ACL (aclitemsort): by
	// grantee, grantor, then privileges with grant options above them.
	slices.SortFunc(acl, func(a, b ACLItem) int {
		return cmp.Or(cmp.Compare(a.Grantee, b.Grantee), cmp.Compare(a.Grantor, b.Grantor),
			cmp.Compare(uint32(a.Privs)|uint32(a.GrantOpts)<<16, uint32(b.Privs)|uint32(b.GrantOpts)<<16))
	})
	if slices.Equal(acl, EffectiveACL(nil, owner, all)) {
		return nil
	}
	return acl
}

// GrantACL is acl (nil for the default) with privs granted to grantee by
// grantor, those in opts with grant option.
func GrantACL(acl []ACLItem, owner uint32, all Priv, grantor, grantee uint32, privs, opts Priv) []ACLItem {
	out := slices.Clone(EffectiveACL(acl, OwnerOID(owner), all))
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Privs |= privs
			out[i].GrantOpts |= opts
			return out
		}
	}
	return append(out, ACLItem{Grantee: grantee, Grantor: grantor, Privs: privs, GrantOpts: opts})
}

// RevokeACL is acl (nil for the default) with privs taken from what
// grantor gave grantee; with optsOnly, only their grant option. Items
// left with no privileges go.
func RevokeACL(acl []ACLItem, owner uint32, all Priv, grantor, grantee uint32, privs Priv, optsOnly bool) []ACLItem {
	out := make([]ACLItem, 0, len(acl))
	for _, it := range EffectiveACL(acl, OwnerOID(owner), all) {
		if it.Grantee == grantee && it.Grantor == grantor {
			it.GrantOpts &^= privs
			if !optsOnly {
				it.Privs &^= privs
			}
			if it.Privs == 0 {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// RevokeGrant is RevokeACL followed by PostgreSQL's recursive_revoke:
// the grant options grantee loses (and holds by no other path) take back
// the grants it made with them, and theirs in turn, when cascade; without
// cascade, dependent reports that such grants exist and acl is returned
// unchanged (2BP01 for the caller).
func (c *Catalog) RevokeGrant(acl []ACLItem, owner uint32, all Priv, grantor, grantee uint32, privs Priv, optsOnly, cascade bool) (out []ACLItem, dependent bool) {
	owner = OwnerOID(owner)
	acl = EffectiveACL(acl, owner, all)
	var lost Priv
	for _, it := range acl {
		if it.Grantee == grantee && it.Grantor == grantor {
			lost = it.GrantOpts & privs
		}
	}
	out = RevokeACL(acl, owner, all, grantor, grantee, privs, optsOnly)
	if grantee == owner || grantee == PublicOID {
		return out, false
	}
	_, still := c.Privileges(out, grantee)
	lost &^= still
	for lost != 0 {
		i := slices.IndexFunc(out, func(it ACLItem) bool { return it.Grantor == grantee && it.Privs&lost != 0 })
		if i < 0 {
			break
		}
		if !cascade {
			return acl, true
		}
		out, _ = c.RevokeGrant(out, owner, all, grantee, out[i].Grantee, lost, false, true)
	}
	return out, false
}

// ACLText is acl in PostgreSQL's aclitem[] text form, one
// "grantee=privs/grantor" each (grantee empty for PUBLIC, '*' after a
// privilege held with grant option); nil for the default ACL.
func (c *Catalog) ACLText(acl []ACLItem) []string {
	if acl == nil {
		return nil
	}
	out := make([]string, 0, len(acl))
	for _, it := range acl {
		var b strings.Builder
		if it.Grantee != PublicOID {
			b.WriteString(c.RoleName(it.Grantee))
		}
		b.WriteByte('=')
		for i := range len(aclChars) {
			if p := Priv(1) << i; it.Privs&p != 0 {
				b.WriteByte(aclChars[i])
				if it.GrantOpts&p != 0 {
					b.WriteByte('*')
				}
			}
		}
		b.WriteByte('/')
		b.WriteString(c.RoleName(it.Grantor))
		out = append(out, b.String())
	}
	return out
}

// RoleName is the name of the role with OID oid, or the OID itself for a
// role since dropped (as PostgreSQL prints one).
func (c *Catalog) RoleName(oid uint32) string {
	if r := c.RoleByOID(oid); r != nil {
		return r.Name
	}
	return strconv.FormatUint(uint64(oid), 10)
}
