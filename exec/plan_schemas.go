package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
)

// PlanSchemas are the Arrow schemas of a plan's nodes, computed once for
// a plan that runs many times (a prepared statement's): building an
// operator would otherwise make its schema again at every execution, and
// arrow.NewSchema is a dozen allocations (a field copy and a name index).
// A plan is immutable once bound, so its nodes' schemas never change;
// the map is read-only after PrepareSchemas and safe for concurrent use.
type PlanSchemas struct {
	m map[sql.Node]*arrow.Schema
}

// PrepareSchemas computes the schemas of the operators of plan and
// below it that a small statement runs (projections, scans, key lookups,
// VALUES); others, and the plans of subqueries in expressions, build
// theirs as they run.
func PrepareSchemas(plan sql.Node) *PlanSchemas {
	ps := &PlanSchemas{m: map[sql.Node]*arrow.Schema{}}
	var walk func(n sql.Node)
	walk = func(n sql.Node) {
		if n == nil {
			return
		}
		switch n.(type) {
		case *sql.Project, *sql.KeyLookup, *sql.Scan, *sql.Values:
			if _, ok := ps.m[n]; ok {
				return
			}
			ps.m[n] = schemaOf(n.Columns())
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(plan)
	return ps
}

// schemaFor is the Arrow schema of n's columns: the prepared one when
// the statement's plan has them (Runtime.Schemas), else a new one.
func (rt *Runtime) schemaFor(n sql.Node) *arrow.Schema {
	if rt != nil && rt.Schemas != nil {
		if s, ok := rt.Schemas.m[n]; ok {
			return s
		}
	}
	return schemaOf(n.Columns())
}
