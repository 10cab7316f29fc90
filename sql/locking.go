package sql

// SELECT ... FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE
// [OF table] [NOWAIT | SKIP LOCKED]: a LockRows node locks each row of the
// locked tables as it passes, after ORDER BY and before LIMIT, so that a
// row skipped or gone does not count against the limit (the queue pattern
// "take the next free job" relies on this). cairn's row locks have two
// modes: FOR SHARE and FOR KEY SHARE lock a row shared (many transactions
// at once; writers and FOR UPDATE wait), FOR UPDATE and FOR NO KEY UPDATE
// exclusively, as writers do.

import (
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// LockRows locks the rows of Targets as they pass.
type LockRows struct {
	Input   Node
	Targets []LockTarget
	Wait    LockWait
	// Strength is the clause's words (FOR UPDATE, FOR SHARE, ...).
	Strength string
	// Count and Offset are the LIMIT above (nil: none): only the rows it
	// will take are locked.
	Count, Offset Expr
}

// LockWait is what a locking clause does when another transaction holds a
// row: wait for it, fail (NOWAIT) or pass over the row (SKIP LOCKED).
type LockWait uint8

// The wait policies of SELECT ... FOR UPDATE.
const (
	LockWaitBlock LockWait = iota
	LockWaitNoWait
	LockWaitSkipLocked
)

// LockTarget is a locked table and the input column with its row IDs;
// Shared when the strongest clause that names it is FOR SHARE or FOR KEY
// SHARE.
type LockTarget struct {
	Table  *catalog.TableDef
	RowID  int
	Shared bool
}

func (n *LockRows) Columns() []Col   { return n.Input.Columns() }
func (n *LockRows) Children() []Node { return []Node{n.Input} }
func (n *LockRows) String() string {
	s := "LockRows: " + n.Strength
	switch n.Wait {
	case LockWaitNoWait:
		s += " NOWAIT"
	case LockWaitSkipLocked:
		s += " SKIP LOCKED"
	}
	return s
}

// rowLocking is a bound locking clause: what to lock, and the row ID
// expressions the select list carries (hidden) for it.
type rowLocking struct {
	tables   []*catalog.TableDef
	rowIDs   []Expr
	shared   []bool // per table
	wait     LockWait
	strength string
}

// bindLocking binds a SELECT's locking clause over its FROM scope and
// plan. As in PostgreSQL, locking a table's rows needs UPDATE on it (on
// some column at least), and where row-level security binds the
// statement, the table's UPDATE policies filter the rows too.
func (b *Binder) bindLocking(sc *scope, s *pg_query.SelectStmt, plan Node) (*rowLocking, error) {
	if len(s.LockingClause) == 0 {
		return nil, nil
	}
	lc := s.LockingClause[0].GetLockingClause()
	words := map[pg_query.LockClauseStrength]string{
		pg_query.LockClauseStrength_LCS_FORUPDATE: "FOR UPDATE", pg_query.LockClauseStrength_LCS_FORNOKEYUPDATE: "FOR NO KEY UPDATE",
		pg_query.LockClauseStrength_LCS_FORSHARE: "FOR SHARE", pg_query.LockClauseStrength_LCS_FORKEYSHARE: "FOR KEY SHARE",
	}[lc.Strength]
	for _, c := range s.LockingClause[1:] {
		if c.GetLockingClause().WaitPolicy != lc.WaitPolicy {
			return nil, pgerr.NotSupported("locking clauses with different wait policies")
		}
	}
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", words)
	case s.DistinctClause != nil:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with DISTINCT clause", words)
	case len(s.GroupClause) > 0:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with GROUP BY clause", words)
	case s.HavingClause != nil:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with HAVING clause", words)
	}
	l := &rowLocking{strength: words}
	switch lc.WaitPolicy {
	case pg_query.LockWaitPolicy_LockWaitError:
		l.wait = LockWaitNoWait
	case pg_query.LockWaitPolicy_LockWaitSkip:
		l.wait = LockWaitSkipLocked
	}
	// Each clause locks the tables its OF names, or every table of the
	// FROM clause; a table two clauses lock takes the stronger mode.
	var named []string
	for _, c := range s.LockingClause {
		for _, r := range c.GetLockingClause().LockedRels {
			named = append(named, r.GetRangeVar().Relname)
		}
	}
	for _, item := range fromRangeVars(s.FromClause) {
		alias := item.Relname
		if item.Alias != nil {
			alias = item.Alias.Aliasname
		}
		locked, shared := false, true
		for _, n := range s.LockingClause {
			c := n.GetLockingClause()
			if len(c.LockedRels) > 0 && !slices.ContainsFunc(c.LockedRels, func(r *pg_query.Node) bool { return r.GetRangeVar().Relname == alias }) {
				continue
			}
			locked = true
			shared = shared && (c.Strength == pg_query.LockClauseStrength_LCS_FORSHARE || c.Strength == pg_query.LockClauseStrength_LCS_FORKEYSHARE)
		}
		if !locked {
			continue
		}
		named = slices.DeleteFunc(named, func(n string) bool { return n == alias })
		def, err := b.lookupTable(item.Schemaname, item.Relname)
		if err != nil {
			return nil, pgerr.NotSupported("%s of a view, CTE or system relation", words)
		}
		idx := slices.IndexFunc(sc.cols, func(c Col) bool { return c.Hidden && c.Name == catalog.RowIDColumn && c.Table == alias })
		if idx < 0 {
			return nil, pgerr.NotSupported("%s of this FROM item", words)
		}
		b.need(def, catalog.PrivUpdate)
		if err := b.lockingPolicies(plan, def, alias); err != nil {
			return nil, err
		}
		l.tables = append(l.tables, def)
		l.shared = append(l.shared, shared)
		l.rowIDs = append(l.rowIDs, &ColumnRef{Index: idx, Name: catalog.RowIDColumn, T: sc.cols[idx].T})
	}
	if len(named) > 0 {
		return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" in %s clause not found in FROM clause", named[0], words)
	}
	if len(l.tables) == 0 {
		return nil, pgerr.NotSupported("%s without a table in FROM", words)
	}
	return l, nil
}

// lockingPolicies adds def's UPDATE policies to the row-security filter
// over its scan (as alias) in plan, when policies bind the statement.
func (b *Binder) lockingPolicies(plan Node, def *catalog.TableDef, alias string) error {
	on, err := b.rowSecurity(def)
	if err != nil || !on {
		return err
	}
	f := scanFilter(plan, def, alias)
	if f == nil {
		return pgerr.NotSupported("row locking of table \"%s\" under row-level security here", def.Name)
	}
	upd, err := b.securityQual(def, catalog.PolicyUpdate)
	if err != nil {
		return err
	}
	f.Cond = andAll([]Expr{upd, f.Cond})
	return nil
}

// scanFilter is the filter right over the scan of def as alias in plan,
// where its row-security filter is bound (nil when there is none).
func scanFilter(n Node, def *catalog.TableDef, alias string) *Filter {
	if f, ok := n.(*Filter); ok {
		if s, ok := f.Input.(*Scan); ok && s.Table.ID == def.ID && s.Alias == alias {
			return f
		}
	}
	for _, c := range n.Children() {
		if f := scanFilter(c, def, alias); f != nil {
			return f
		}
	}
	return nil
}

// fromRangeVars lists the tables named in a FROM clause, joins included;
// subqueries and functions are not tables to lock.
func fromRangeVars(from []*pg_query.Node) []*pg_query.RangeVar {
	var out []*pg_query.RangeVar
	var visit func(n *pg_query.Node)
	visit = func(n *pg_query.Node) {
		switch {
		case n.GetRangeVar() != nil:
			out = append(out, n.GetRangeVar())
		case n.GetJoinExpr() != nil:
			visit(n.GetJoinExpr().Larg)
			visit(n.GetJoinExpr().Rarg)
		}
	}
	for _, n := range from {
		visit(n)
	}
	return out
}
