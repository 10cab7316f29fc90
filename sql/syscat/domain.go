package syscat

import (
	"github.com/cairn-db/cairn/sql/catalog"
)

// domainLayout is what a domain's pg_type row takes from its base type:
// typlen, typbyval, typcategory, typcollation and the I/O functions
// (typelem is 0: a domain over an array is no array type itself).
func domainLayout(d *catalog.DomainDef) (length int64, byVal bool, category string, coll int64, procs typeProcs) {
	base := d.Base
	length, byVal, category = int64(base.TypLen()), base.TypLen() > 0 && base.TypLen() <= 8, "U"
	for _, bt := range builtinTypes {
		switch int64(base.OID()) {
		case bt.oid:
			category, coll, procs = bt.category, bt.collation, procsOf(bt, false)
		case bt.array:
			category, coll, procs = "A", bt.collation, procsOf(bt, true)
		}
	}
	return
}

// domainCheck is a CHECK constraint of a domain as pg_constraint lists
// it (contypid the domain's OID, conrelid 0).
type domainCheck struct {
	oid    int64
	domain *catalog.TypeDef
	check  catalog.DomainCheck
}

// domainChecks are the CHECK constraints of cat's domains, by domain OID
// and then in the order they were added, each put in byOID.
func (v *View) domainChecks() []*domainCheck {
	var out []*domainCheck
	for _, td := range v.userTypes() {
		if td.Domain == nil {
			continue
		}
		for _, c := range td.Domain.Checks {
			out = append(out, &domainCheck{oid: ConstraintOID(int64(td.Domain.OID), c.Name), domain: td, check: c})
		}
	}
	return out
}

// def is the constraint's pg_get_constraintdef.
func (c *domainCheck) def() string {
	def := "CHECK (" + c.check.Expr + ")"
	if c.check.NotValid {
		def += " NOT VALID"
	}
	return def
}
