package sql

import pg_query "github.com/pganalyze/pg_query_go/v5"

// PlainInsert recognizes a single-row INSERT whose values are all
// parameters, INSERT INTO [schema.]table (c1, c2, ...) VALUES ($i, $j,
// ...) with each parameter once in any order, and without WITH, ON
// CONFLICT, RETURNING or OVERRIDING: the statement the HTTP API's
// /query/batch can load as rows instead of running once per parameter
// list. cols are the columns named and params[k] the 0-based parameter
// that fills cols[k]; ok is false for anything else.
func PlainInsert(query string) (schema, table string, cols []string, params []int, ok bool) {
	tree, err := parseNested(query)
	if err != nil || len(tree.Stmts) != 1 {
		return "", "", nil, nil, false
	}
	ins := tree.Stmts[0].Stmt.GetInsertStmt()
	if ins == nil || ins.WithClause != nil || ins.OnConflictClause != nil || len(ins.ReturningList) > 0 ||
		ins.Override != pg_query.OverridingKind_OVERRIDING_NOT_SET || ins.Relation == nil || ins.Relation.Catalogname != "" {
		return "", "", nil, nil, false
	}
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) != 1 || len(sel.TargetList) > 0 || len(sel.FromClause) > 0 || sel.Op != pg_query.SetOperation_SETOP_NONE ||
		sel.WithClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.LockingClause) > 0 {
		return "", "", nil, nil, false
	}
	row := sel.ValuesLists[0].GetList().GetItems()
	if len(row) == 0 || len(row) != len(ins.Cols) {
		return "", "", nil, nil, false
	}
	cols = make([]string, len(row))
	params = make([]int, len(row))
	seen := make([]bool, len(row))
	for j, v := range row {
		p := v.GetParamRef()
		target := ins.Cols[j].GetResTarget()
		if p == nil || p.Number < 1 || int(p.Number) > len(row) || seen[p.Number-1] || target == nil || len(target.Indirection) > 0 {
			return "", "", nil, nil, false
		}
		seen[p.Number-1] = true
		cols[j], params[j] = target.Name, int(p.Number-1)
	}
	return ins.Relation.Schemaname, ins.Relation.Relname, cols, params, true
}
