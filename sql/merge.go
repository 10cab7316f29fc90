package sql

// MERGE, as in PostgreSQL 15: MERGE INTO t USING source ON cond, then WHEN
// MATCHED [AND cond] THEN UPDATE SET ... | DELETE | DO NOTHING and WHEN NOT
// MATCHED [AND cond] THEN INSERT ... | DO NOTHING clauses, the first whose
// condition holds acting on each joined row. The binder joins the table
// (its columns and row ID) to the source; the executor (exec/merge.go)
// chooses each row's action and writes through the paths INSERT, UPDATE
// and DELETE use.

import (
	"fmt"
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// MergeKind is what a WHEN clause of MERGE does.
type MergeKind uint8

// The actions of MERGE's WHEN clauses.
const (
	MergeNothing MergeKind = iota
	MergeUpdate
	MergeDelete
	MergeInsert
)

// MergeAction is one WHEN clause of MERGE.
type MergeAction struct {
	// Matched is true for WHEN MATCHED, false for WHEN NOT MATCHED.
	Matched bool
	Kind    MergeKind
	// Cond is the clause's AND condition (nil: none): over Merge.Input's
	// row for a MATCHED clause, over the source columns alone (Input's
	// columns from Merge.Source on) for a NOT MATCHED one.
	Cond Expr
	// Set gives UPDATE's new value of a column position, over Input's row.
	Set map[int]Expr
	// Row is INSERT's new row: one expression per table column, over the
	// source columns alone.
	Row []Expr
	// Existing are the row-level security checks of the target row an
	// UPDATE or DELETE changes (its policies' USING); Policies those of
	// the row an UPDATE or INSERT writes.
	Existing, Policies []PolicyCheck
}

// Merge is MERGE INTO Table. Input joins the table's rows (its columns,
// then its row ID) to the source rows (Input's columns from Source on):
// an inner join when every clause is WHEN MATCHED, else a right join,
// whose source rows without a match have a NULL row ID. Actions are the
// WHEN clauses in order.
type Merge struct {
	Table   *catalog.TableDef
	Input   Node
	Source  int
	Actions []MergeAction
	// Gen computes the generated columns (position -> expression) over
	// each new row, inserted or updated.
	Gen map[int]Expr
}

// Columns implements Node: MERGE returns no rows (RETURNING is
// PostgreSQL 17's).
func (n *Merge) Columns() []Col { return nil }

// Children implements Node.
func (n *Merge) Children() []Node { return []Node{n.Input} }

// String implements Node.
func (n *Merge) String() string { return "Merge on " + n.Table.Name }

func (b *Binder) bindMerge(s *pg_query.MergeStmt) (Node, error) {
	// PostgreSQL refuses an unreachable clause before it looks at tables.
	var terminal [2]bool
	notMatched := false
	for _, n := range s.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		k := 0
		if !w.Matched {
			k, notMatched = 1, true
		}
		if terminal[k] {
			return nil, pgerr.New(pgerrcode.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		terminal[k] = w.Condition == nil
	}
	if s.WithClause != nil {
		defer b.popWith()
		if err := b.bindWith(s.WithClause, s, nil); err != nil {
			return nil, err
		}
	}
	def, err := b.rangeVarTable(s.Relation)
	if pgerr.Code(err) == pgerrcode.WrongObjectType { // a view
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot execute MERGE on relation \"%s\"", s.Relation.Relname).
			WithDetail("This operation is not supported for views.")
	}
	if err != nil {
		return nil, pgerr.From(err).WithPosition(s.Relation.Location + 1)
	}
	alias := def.Name
	if s.Relation.Alias != nil {
		alias = s.Relation.Alias.Aliasname
	}
	source, src, err := b.bindFrom([]*pg_query.Node{s.SourceRelation}, nil)
	if err != nil {
		return nil, err
	}
	for _, c := range src.cols {
		if c.Table == alias {
			return nil, pgerr.New(pgerrcode.DuplicateAlias, "name \"%s\" specified more than once", alias).
				WithDetail("The name is used both as MERGE target table and data source.")
		}
	}
	ncols := len(def.Columns)
	scan := &Scan{Table: def, Alias: alias, WithRowID: true}
	for i := range def.Columns {
		scan.Cols = append(scan.Cols, i)
	}
	scan.Out = append(tableCols(def, alias), Col{Name: catalog.RowIDColumn, T: types.Int8T, Table: alias, Hidden: true})
	all := &scope{cols: append(append([]Col{}, scan.Out...), src.cols...)}
	m := &Merge{Table: def, Source: ncols + 1}
	if m.Gen, err = b.generatedExprs(def); err != nil {
		return nil, err
	}

	on, err := b.bindCondition(all, s.JoinCondition, "JOIN/ON")
	if err != nil {
		return nil, err
	}
	// Whether the statement reads the table's columns: then it needs
	// SELECT on them, and the SELECT policies apply, as in PostgreSQL.
	reads := false
	readsTarget := func(e Expr) {
		WalkExpr(e, func(e Expr) {
			if c, ok := e.(*ColumnRef); ok && c.Index < ncols {
				reads = true
			}
		})
	}
	readsTarget(on)
	var setCols, insertCols []int
	var update, insert, del bool
	for _, n := range s.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		act := MergeAction{Matched: w.Matched}
		if w.Condition != nil {
			if w.Matched {
				act.Cond, err = b.bindCondition(all, w.Condition, "WHEN")
				readsTarget(act.Cond)
			} else {
				act.Cond, err = b.sourceOnly(src, all, alias, func(sc *scope) (Expr, error) {
					return b.bindCondition(sc, w.Condition, "WHEN")
				})
			}
			if err != nil {
				return nil, err
			}
		}
		switch w.CommandType {
		case pg_query.CmdType_CMD_UPDATE:
			act.Kind, update = MergeUpdate, true
			saved := b.clause
			b.clause = "UPDATE" // for errors: "aggregate functions are not allowed in UPDATE"
			act.Set, err = b.bindSetList(def, nil, "", all, w.TargetList, nil)
			b.clause = saved
			if err != nil {
				return nil, err
			}
			for pos, e := range act.Set {
				readsTarget(e)
				if !slices.Contains(setCols, pos) {
					setCols = append(setCols, pos)
				}
			}
		case pg_query.CmdType_CMD_DELETE:
			act.Kind, del = MergeDelete, true
		case pg_query.CmdType_CMD_INSERT:
			act.Kind, insert = MergeInsert, true
			var targets []int
			if act.Row, targets, err = b.mergeInsertRow(def, src, all, alias, w); err != nil {
				return nil, err
			}
			for _, pos := range targets {
				if !slices.Contains(insertCols, pos) {
					insertCols = append(insertCols, pos)
				}
			}
		case pg_query.CmdType_CMD_NOTHING:
		default:
			return nil, pgerr.NotSupported("this MERGE action")
		}
		m.Actions = append(m.Actions, act)
	}
	if insert {
		slices.Sort(insertCols)
		b.need(def, catalog.PrivInsert, insertCols...)
	}
	if update {
		slices.Sort(setCols)
		b.need(def, catalog.PrivUpdate, setCols...)
	}
	if del {
		b.need(def, catalog.PrivDelete)
	}
	if reads {
		b.need(def, catalog.PrivSelect)
	}
	if err := b.mergePolicies(def, m.Actions, reads); err != nil {
		return nil, err
	}

	var target Node = scan
	if reads {
		if target, err = b.securityFilter(def, scan, catalog.PolicySelect); err != nil {
			return nil, err
		}
	}
	join := &Join{Kind: InnerJoin, Left: target, Right: source, Cond: on, On: on, Out: all.cols}
	if notMatched {
		join.Kind = RightJoin
	}
	splitEquiJoin(join, ncols+1)
	m.Input = join
	return m, nil
}

// mergePolicies sets the row-level security checks of MERGE's actions,
// as PostgreSQL 15 does: UPDATE and DELETE check the target row against
// their policies' USING (an error, where UPDATE and DELETE statements skip
// the row), UPDATE and INSERT check the rows they write as UPDATE and
// INSERT statements do. The SELECT policies filter the table's rows
// where the statement reads them (reads), and then also check UPDATE's
// new rows.
func (b *Binder) mergePolicies(def *catalog.TableDef, actions []MergeAction, reads bool) error {
	on, err := b.rowSecurity(def)
	if err != nil || !on {
		return err
	}
	for i := range actions {
		act := &actions[i]
		switch act.Kind {
		case MergeUpdate:
			if act.Existing, err = b.policyChecks(def, catalog.PolicyUpdate, true); err == nil {
				act.Policies, err = b.writeChecks(def, catalog.PolicyUpdate, reads)
			}
		case MergeDelete:
			act.Existing, err = b.policyChecks(def, catalog.PolicyDelete, true)
		case MergeInsert:
			act.Policies, err = b.writeChecks(def, catalog.PolicyInsert, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mergeInsertRow binds the INSERT of a WHEN NOT MATCHED clause: the new
// row (one expression per table column, over the source columns src) and
// the columns it names (positions).
func (b *Binder) mergeInsertRow(def *catalog.TableDef, src, all *scope, alias string, w *pg_query.MergeWhenClause) ([]Expr, []int, error) {
	var names []string
	var locs []int32
	for _, c := range w.TargetList {
		rt := c.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, nil, pgerr.NotSupported("INSERT into a subfield or array element")
		}
		names = append(names, rt.Name)
		locs = append(locs, rt.Location)
	}
	targets, err := targetColumns(def, names, locs)
	if err != nil {
		return nil, nil, err
	}
	if w.Values == nil { // DEFAULT VALUES
		targets = nil
	}
	switch n := len(w.Values); {
	case n > len(targets):
		return nil, nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more expressions than target columns")
	case n < len(targets) && len(names) > 0:
		return nil, nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more target columns than expressions")
	case n < len(targets):
		targets = targets[:n] // the first columns; the rest take their defaults
	}
	vals := make([]Expr, len(targets))
	for i, v := range w.Values {
		pos := targets[i]
		col := def.Columns[pos]
		useDefault := v.GetSetToDefault() != nil
		if !useDefault {
			if err := generatedValue(col); err != nil {
				return nil, nil, err
			}
			if useDefault, err = identityValue(col, w.Override); err != nil {
				return nil, nil, err
			}
		}
		if useDefault {
			vals[i], err = b.columnDefault(def, pos)
		} else {
			vals[i], err = b.sourceOnly(src, all, alias, func(sc *scope) (Expr, error) {
				saved := b.clause
				b.clause = "VALUES" // for errors, as for the UPDATE above
				e, err := b.bindExpr(sc, v)
				b.clause = saved
				if err != nil {
					return nil, err
				}
				return b.coerceColumn(e, col.Name, col.Type)
			})
		}
		if err != nil {
			return nil, nil, err
		}
	}
	row, err := b.rowExprs(def, targets, vals)
	return row, targets, err
}

// sourceOnly binds an expression of a WHEN NOT MATCHED clause (bind, over
// the source's columns src), which may not read the target table: a
// reference that binds over all (the target's and the source's columns)
// is PostgreSQL's 42P01 naming the target's alias (42703 with a hint for
// an unqualified column of the target).
func (b *Binder) sourceOnly(src, all *scope, alias string, bind func(*scope) (Expr, error)) (Expr, error) {
	e, err := bind(src)
	if err == nil {
		return e, nil
	}
	if code := pgerr.Code(err); code != pgerrcode.UndefinedColumn && code != pgerrcode.UndefinedTable {
		return nil, err
	}
	if _, again := bind(all); again != nil {
		return nil, err
	}
	pe := pgerr.From(err)
	for _, c := range all.cols {
		if c.Table == alias && !c.Hidden && pe.Message == fmt.Sprintf("column \"%s\" does not exist", c.Name) {
			return nil, pe.WithHint("There is a column named \"%s\" in table \"%s\", but it cannot be referenced from this part of the query.", c.Name, alias)
		}
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", alias).
		WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", alias).
		WithPosition(pe.Position)
}
