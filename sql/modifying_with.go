package sql

// Data-modifying statements in WITH: WITH d AS (DELETE FROM t ... RETURNING
// *) INSERT INTO archive SELECT * FROM d. Each INSERT, UPDATE or DELETE of
// the top-level WITH clause runs once, to completion, in the order
// written, before the statement it heads; references to it read its
// RETURNING rows (a CTEScan). PostgreSQL runs them on one snapshot, so that
// neither sees the other's changes nor the main statement theirs; cairn
// runs them in turn, so a statement whose other parts read or write a
// table that a data-modifying WITH query modifies would see its changes:
// that is 0A000 rather than a different answer.

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// ModifyingCTE is one data-modifying WITH query: Stmt is its Insert,
// Update or Delete.
type ModifyingCTE struct {
	Name string
	Stmt Node
}

// ModifyingWith runs CTEs (in order) and then Input, the statement they
// head (a SELECT's plan, or an Insert, Update or Delete).
type ModifyingWith struct {
	CTEs  []*ModifyingCTE
	Input Node
}

// CTEScan reads the RETURNING rows of a data-modifying WITH query.
type CTEScan struct {
	CTE *ModifyingCTE
	Out []Col
}

func (n *ModifyingWith) Columns() []Col { return n.Input.Columns() }
func (n *ModifyingWith) Children() []Node {
	out := make([]Node, 0, len(n.CTEs)+1)
	for _, c := range n.CTEs {
		out = append(out, c.Stmt)
	}
	return append(out, n.Input)
}
func (n *ModifyingWith) String() string {
	names := ""
	for i, c := range n.CTEs {
		if i > 0 {
			names += ", "
		}
		names += c.Name
	}
	return "Data-modifying WITH: " + names
}

func (n *CTEScan) Columns() []Col   { return n.Out }
func (n *CTEScan) Children() []Node { return nil }
func (n *CTEScan) String() string   { return "CTE Scan on " + n.CTE.Name }

// modifyingQuery is the INSERT, UPDATE or DELETE of a WITH query, or nil.
func modifyingQuery(cte *pg_query.CommonTableExpr) *pg_query.Node {
	switch cte.Ctequery.Node.(type) {
	case *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt:
		return cte.Ctequery
	}
	return nil
}

// hasModifying reports whether a WITH clause holds a data-modifying query.
func hasModifying(w *pg_query.WithClause) bool {
	if w == nil {
		return false
	}
	for _, c := range w.Ctes {
		if modifyingQuery(c.GetCommonTableExpr()) != nil {
			return true
		}
	}
	return false
}

// bindModifyingCTE binds a data-modifying WITH query of the statement's
// top-level WITH clause, recording which of the statement's accesses are
// its own (checkModifying).
func (b *Binder) bindModifyingCTE(cte *pg_query.CommonTableExpr, q *pg_query.Node) (*cteDef, error) {
	if cte.Aliascolnames != nil {
		return nil, pgerr.NotSupported("column names for a data-modifying WITH query")
	}
	from := len(b.accesses)
	// The query's own WITH clause, if any, is not the statement's.
	top := b.topWith
	b.topWith = nil
	var stmt Node
	var err error
	switch s := q.Node.(type) {
	case *pg_query.Node_InsertStmt:
		if stmt, err = b.bindInsert(s.InsertStmt); err == nil {
			stmt = PruneColumns(stmt)
		}
	case *pg_query.Node_UpdateStmt:
		stmt, err = b.bindUpdate(s.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		stmt, err = b.bindDelete(s.DeleteStmt)
	}
	b.topWith = top
	if err != nil {
		return nil, err
	}
	m := &ModifyingCTE{Name: cte.Ctename, Stmt: stmt}
	b.modifying = append(b.modifying, modifyingAccess{cte: m, target: dmlTarget(stmt), from: from, to: len(b.accesses)})
	return &cteDef{plan: &CTEScan{CTE: m, Out: stmt.Columns()}, modifying: m}, nil
}

// modifyingAccess is a bound data-modifying WITH query: its table and the
// range of the binder's accesses its own statement made.
type modifyingAccess struct {
	cte      *ModifyingCTE
	target   uint64
	from, to int
}

// dmlTarget is the table an Insert, Update or Delete writes.
func dmlTarget(n Node) uint64 {
	switch x := n.(type) {
	case *Insert:
		return x.Table.ID
	case *Update:
		return x.Table.ID
	case *Delete:
		return x.Table.ID
	}
	return 0
}

// withModifying wraps plan, the statement a top-level WITH clause with
// data-modifying queries heads, into a ModifyingWith, after checking that
// nothing else in the statement reads or writes their tables.
func (b *Binder) withModifying(plan Node) (Node, error) {
	if len(b.modifying) == 0 {
		return plan, nil
	}
	out := &ModifyingWith{Input: plan}
	for _, m := range b.modifying {
		for i, a := range b.accesses {
			if a.Table != nil && a.Table.ID == m.target && (i < m.from || i >= m.to) {
				return nil, pgerr.NotSupported(
					"a statement that reads or writes table \"%s\" outside the data-modifying WITH query \"%s\" that modifies it",
					a.Table.Name, m.cte.Name)
			}
		}
		out.CTEs = append(out.CTEs, m.cte)
	}
	return out, nil
}
