package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
)

// SharedCTE is a WITH query computed once per statement however many
// times the statement reads it, as PostgreSQL materializes a WITH query
// that is read more than once, calls volatile functions or is written
// AS MATERIALIZED: every reader then sees the same rows (random() draws
// once per row, not once per reader). Other WITH queries are bound into
// the query reading them, where the planner can push work into them.
type SharedCTE struct {
	Name string
	Plan Node
}

// SharedCTEScan reads the rows of a SharedCTE, which the first reader to
// run computes for all (exec keeps them per statement).
type SharedCTEScan struct {
	CTE *SharedCTE
	Out []Col
}

func (n *SharedCTEScan) Columns() []Col   { return n.Out }
func (n *SharedCTEScan) Children() []Node { return nil }
func (n *SharedCTEScan) String() string   { return "CTE Scan on " + n.CTE.Name }

// materializeCTE reports whether the uncorrelated, non-recursive WITH
// query cte of the statement stmt is computed once (SharedCTE): written
// AS MATERIALIZED, or not NOT MATERIALIZED and either named more than once
// in stmt (a name an inner WITH query shadows counts too, which only
// materializes one PostgreSQL might inline) or calling a volatile
// function.
func materializeCTE(cte *pg_query.CommonTableExpr, stmt protoreflect.ProtoMessage) bool {
	switch cte.Ctematerialized {
	case pg_query.CTEMaterialize_CTEMaterializeAlways:
		return true
	case pg_query.CTEMaterialize_CTEMaterializeNever:
		return false
	}
	if stmt != nil {
		refs := 0
		walkParse(stmt.ProtoReflect(), func(m protoreflect.Message) {
			if rv, ok := m.Interface().(*pg_query.RangeVar); ok && rv.Schemaname == "" && rv.Relname == cte.Ctename {
				refs++
			}
		})
		if refs > 1 {
			return true
		}
	}
	volatile := false
	walkParse(cte.Ctequery.ProtoReflect(), func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*pg_query.FuncCall); ok && volatileName(nameOf(fc.Funcname)) {
			volatile = true
		}
	})
	return volatile
}

// volatileName reports whether a function of that name may be volatile:
// one of the sequence functions the binder handles itself, or one with a
// volatile overload.
func volatileName(name string) bool {
	switch name {
	case "nextval", "setval":
		return true
	}
	for _, ov := range functions.Overloads(name) {
		if ov.Volatility == functions.Volatile {
			return true
		}
	}
	return false
}

// walkParse calls fn for m and every message inside it (a parse tree).
func walkParse(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkParse(l.Get(i).Message(), fn)
			}
			return true
		}
		if !fd.IsMap() {
			walkParse(v.Message(), fn)
		}
		return true
	})
}
