package syscat

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/sql/catalog"
)

// viewQuery is a view's query as pg_get_viewdef prints it, and the OIDs
// of the relations it names (what pg_depend says its _RETURN rule
// depends on, so that pg_dump creates them first). A view's query is
// kept as written and bound under the search path it was created with;
// a relation it names whose schema the session does not search is
// printed schema-qualified, as PostgreSQL prints it, so that the text
// means the same under pg_dump's empty search path. A query that does
// not parse is returned as it is, naming nothing.
func (v *View) viewQuery(d *catalog.ViewDef) (query string, refs []int64) {
	tree, err := pg_query.Parse(d.Query)
	if err != nil {
		return d.Query, nil
	}
	ctes := map[string]bool{}
	walkMessages(tree.ProtoReflect(), func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg_query.CommonTableExpr); ok {
			ctes[c.Ctename] = true
		}
	})
	changed := false
	walkMessages(tree.ProtoReflect(), func(m protoreflect.Message) {
		rv, ok := m.Interface().(*pg_query.RangeVar)
		if !ok || rv.Schemaname == "" && ctes[rv.Relname] {
			return
		}
		schema, oid := v.resolveRelation(d.SearchPath, rv.Schemaname, rv.Relname)
		if oid == 0 {
			return
		}
		if !slices.Contains(refs, oid) {
			refs = append(refs, oid)
		}
		if rv.Schemaname == "" && !v.visible(schema) {
			rv.Schemaname, changed = schema, true
		}
	})
	if !changed {
		return d.Query, refs
	}
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return d.Query, refs
	}
	return out, refs
}

// resolveRelation finds the table, view, sequence or system relation
// schema.name names, with schema "" on searchPath (after the implicit
// pg_catalog): its schema and OID, 0 when none.
func (v *View) resolveRelation(searchPath []string, schema, name string) (string, int64) {
	schemas := []string{schema}
	if schema == "" {
		schemas = append([]string{"pg_catalog"}, searchPath...)
	}
	for _, s := range schemas {
		switch {
		case v.Cat.Table(s, name) != nil:
			return s, TableOID(v.Cat.Table(s, name).ID)
		case v.Cat.View(s, name) != nil:
			return s, ViewOID(s, name)
		case v.Cat.Sequences[catalog.Key(s, name)] != nil:
			return s, SequenceOID(s, name)
		case Lookup(s, name) != nil:
			return s, Lookup(s, name).OID
		}
	}
	return "", 0
}

// walkMessages calls f on m and on every message inside it.
func walkMessages(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := val.List()
			for i := range l.Len() {
				walkMessages(l.Get(i).Message(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(val.Message(), f)
		}
		return true
	})
}

// indexColumnName is the name PostgreSQL's FigureIndexColname gives the
// attribute of an index key that is the expression text: the name of the
// function it calls (COALESCE, GREATEST, LEAST, NULLIF by their own), the
// column or type name of a cast, else "expr".
func indexColumnName(text string) string {
	tree, err := pg_query.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return "expr"
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return "expr"
	}
	n := sel.TargetList[0].GetResTarget().GetVal()
	last := func(names []*pg_query.Node) string {
		if len(names) == 0 {
			return "expr"
		}
		return names[len(names)-1].GetString_().GetSval()
	}
	switch {
	case n.GetFuncCall() != nil:
		return last(n.GetFuncCall().Funcname)
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil && n.GetMinMaxExpr().Op == pg_query.MinMaxOp_IS_GREATEST:
		return "greatest"
	case n.GetMinMaxExpr() != nil:
		return "least"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetTypeCast() != nil:
		if ref := n.GetTypeCast().Arg.GetColumnRef(); ref != nil {
			return last(ref.Fields)
		}
		return last(n.GetTypeCast().TypeName.Names)
	}
	return "expr"
}

// looksLikeFunction is ruleutils.c's looks_like_function for an
// expression printed as PostgreSQL prints it: a function call (or a form
// with a function's syntax: COALESCE, GREATEST, NULLIF, CURRENT_DATE)
// needs no parentheses of its own as an index key.
func looksLikeFunction(text string) bool {
	tree, err := pg_query.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return false
	}
	n := sel.TargetList[0].GetResTarget().GetVal()
	switch {
	case n.GetFuncCall() != nil, n.GetCoalesceExpr() != nil, n.GetMinMaxExpr() != nil, n.GetSqlvalueFunction() != nil:
		return true
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return true
	}
	return false
}
