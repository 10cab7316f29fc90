package session

import (
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// CREATE, ALTER and DROP POLICY: the binder checked the clauses and the
// expressions, and recorded that the statement needs the table's
// ownership; here the roles are resolved and the table's definition,
// which holds its policies, is written anew.

func (s *Session) runPolicy(tx *storage.Tx, st sql.Statement) error {
	cat := tx.Catalog()
	switch x := st.(type) {
	case *sql.CreatePolicy:
		def := currentTable(tx, x.Table)
		if def.Policy(x.Policy.Name) != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", x.Policy.Name, def.Name)
		}
		p := x.Policy
		var err error
		if p.Roles, err = s.policyRoles(cat, x.Roles); err != nil {
			return err
		}
		def.Policies = append(def.Policies, p)
		return tx.AlterTable(def)
	case *sql.AlterPolicy:
		def := currentTable(tx, x.Table)
		p := def.Policy(x.Name)
		if p == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", x.Name, def.Name)
		}
		if x.NewName != "" {
			if def.Policy(x.NewName) != nil {
				return pgerr.New(pgerrcode.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", x.NewName, def.Name)
			}
			p.Name = x.NewName
		}
		if x.Roles != nil {
			roles, err := s.policyRoles(cat, x.Roles)
			if err != nil {
				return err
			}
			p.Roles = roles
		}
		if x.Using != nil {
			p.Using = *x.Using
		}
		if x.Check != nil {
			p.Check = *x.Check
		}
		return tx.AlterTable(def)
	case *sql.DropPolicy:
		if x.Table == nil {
			s.notice("00000", "relation \"%s\" does not exist, skipping", x.Missing)
			return nil
		}
		def := currentTable(tx, x.Table)
		i := slices.IndexFunc(def.Policies, func(p catalog.PolicyDef) bool { return p.Name == x.Name })
		if i < 0 {
			if x.IfExists {
				s.notice("00000", "policy \"%s\" for relation \"%s\" does not exist, skipping", x.Name, def.Name)
				return nil
			}
			return pgerr.New(pgerrcode.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", x.Name, def.Name)
		}
		def.Policies = slices.Delete(def.Policies, i, i+1)
		if len(def.Policies) == 0 {
			def.Policies = nil
		}
		return tx.AlterTable(def)
	}
	return nil
}

// policyRoles resolves a policy's TO list to role OIDs: none, or PUBLIC
// among others, is PUBLIC alone (PostgreSQL warns that it ignores the
// others).
func (s *Session) policyRoles(cat *catalog.Catalog, specs []sql.RoleSpec) ([]uint32, error) {
	public := len(specs) == 0
	var out []uint32
	for _, spec := range specs {
		if spec.Keyword == "public" {
			public = true
			continue
		}
		r, err := s.resolveRole(cat, spec)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, r.OID) {
			out = append(out, r.OID)
		}
	}
	if public {
		if len(out) > 0 {
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: pgerrcode.InvalidParameterValue,
				Message: "ignoring specified roles other than PUBLIC"})
		}
		return []uint32{catalog.PublicOID}, nil
	}
	return out, nil
}

// dropColumnPolicies drops, with cascade, the policies of def that use
// column; without, it refuses to drop a column a policy uses (2BP01), as
// PostgreSQL's dependencies do.
func (s *Session) dropColumnPolicies(def *catalog.TableDef, column string, cascade bool) error {
	kept, err := dropColumnDependents(s, def, column, cascade, def.Policies, func(p catalog.PolicyDef) (string, bool) {
		return "policy " + p.Name, sql.PolicyUses(p.Using, column) || sql.PolicyUses(p.Check, column)
	})
	def.Policies = kept
	return err
}

// dropColumnDependents returns the objects of def (items) that do not
// depend on column, for ALTER TABLE ... DROP COLUMN: with cascade the
// others are dropped, a notice each; without, the first one refuses the
// drop (2BP01), as PostgreSQL's dependencies do. dependent names an item
// ("policy p") and reports whether it depends on the column.
func dropColumnDependents[T any](s *Session, def *catalog.TableDef, column string, cascade bool, items []T, dependent func(T) (string, bool)) ([]T, error) {
	var kept []T
	for _, it := range items {
		what, depends := dependent(it)
		if !depends {
			kept = append(kept, it)
			continue
		}
		if !cascade {
			return items, pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", column, def.Name).
				WithDetail("%s on table %s depends on column %s of table %s", what, def.Name, column, def.Name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		s.notice("00000", "drop cascades to %s on table %s", what, def.Name)
	}
	return kept, nil
}
