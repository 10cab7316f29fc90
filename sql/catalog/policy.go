package catalog

import "slices"

// PolicyDef is a row-level security policy of the table that holds it
// (CREATE POLICY): the rows a role it applies to may see and write when
// the table's RowSecurity is on.
type PolicyDef struct {
	Name string `json:"name"`
	// Cmd is the command it is for, as pg_policy.polcmd: "*" (ALL), "r"
	// (SELECT), "a" (INSERT), "w" (UPDATE) or "d" (DELETE).
	Cmd string `json:"cmd"`
	// Restrictive policies are AND'ed with the rest; permissive ones
	// (the default) OR'ed with each other.
	Restrictive bool `json:"restrictive,omitempty"`
	// Roles are the OIDs of the roles it applies to; PublicOID is PUBLIC.
	Roles []uint32 `json:"roles"`
	// Using and Check are the USING and WITH CHECK expressions as SQL text
	// over the table's columns ("" for none).
	Using string `json:"using,omitempty"`
	Check string `json:"check,omitempty"`
}

// Policy commands (PolicyDef.Cmd).
const (
	PolicyAll    = "*"
	PolicySelect = "r"
	PolicyInsert = "a"
	PolicyUpdate = "w"
	PolicyDelete = "d"
)

// PolicyCmdName is a policy command as CREATE POLICY's FOR and
// pg_policies.cmd name it.
func PolicyCmdName(cmd string) string {
	switch cmd {
	case PolicySelect:
		return "SELECT"
	case PolicyInsert:
		return "INSERT"
	case PolicyUpdate:
		return "UPDATE"
	case PolicyDelete:
		return "DELETE"
	}
	return "ALL"
}

// Policy returns the policy of t called name, or nil.
func (t *TableDef) Policy(name string) *PolicyDef {
	if i := slices.IndexFunc(t.Policies, func(p PolicyDef) bool { return p.Name == name }); i >= 0 {
		return &t.Policies[i]
	}
	return nil
}

// AppliesTo reports whether p applies to role: it names PUBLIC, the role,
// or a role whose privileges role has (PostgreSQL's check_role_for_policy).
func (c *Catalog) AppliesTo(p *PolicyDef, role uint32) bool {
	return slices.ContainsFunc(p.Roles, func(r uint32) bool {
		return r == PublicOID || c.Reaches(role, r, true)
	})
}

// RowSecurityApplies reports whether t's policies bind role: row-level
// security is on, and role is no superuser nor, unless it is forced, the
// owner or one with the owner's privileges.
func (c *Catalog) RowSecurityApplies(t *TableDef, role uint32) bool {
	if !t.RowSecurity {
		return false
	}
	if r := c.RoleByOID(role); r != nil && (r.Superuser || r.BypassRLS) {
		return false
	}
	return t.ForceRowSecurity || !c.Reaches(role, OwnerOID(t.Owner), true)
}
