package syscat

import (
	"strings"

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

// domainCheckDef is the constraint's pg_get_constraintdef, plain or
// pretty: the expression as PostgreSQL prints it, or the stored text with
// VALUE in capitals when that cannot be done.
func (v *View) domainCheckDef(c *domainCheck, pretty bool) string {
	base := c.domain.Domain.Base
	text, ok := v.ruleText(c.check.Expr, ExprContext{Value: &base, Schema: c.domain.Schema, Pretty: pretty})
	if !ok {
		text = shownCheck(c.check.Expr)
	}
	def := "CHECK (" + text + ")"
	if c.check.NotValid {
		def += " NOT VALID"
	}
	return def
}

// shownCheck is the text of a domain's CHECK as PostgreSQL prints it, with
// VALUE in capitals: the text is kept as pg_query deparses it, where
// VALUE is the identifier value. Quoted strings and identifiers, and a
// value that is a function's name or part of a qualified name, are left.
func shownCheck(expr string) string {
	identStart := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
	var b strings.Builder
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(expr) {
				if expr[j] == c {
					if j+1 < len(expr) && expr[j+1] == c {
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			b.WriteString(expr[i:j])
			i = j
		case identStart(c):
			j := i
			for j < len(expr) && (identStart(expr[j]) || expr[j] >= '0' && expr[j] <= '9' || expr[j] == '$') {
				j++
			}
			w := expr[i:j]
			if w == "value" && (i == 0 || expr[i-1] != '.') && (j == len(expr) || expr[j] != '(' && expr[j] != '.') {
				w = "VALUE"
			}
			b.WriteString(w)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
