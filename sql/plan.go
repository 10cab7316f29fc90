package sql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/types"
)

// Node is a logical plan node. Nodes are plain structs; exec builds an
// operator for each. Columns describes the rows the node produces. A plan
// is immutable once bound, and may be run more than once (a prepared
// statement's portal, a cursor) and by several goroutines at a time (the
// partitions of a parallel scan).
type Node interface {
	Columns() []Col
	Children() []Node
	// String is the node's EXPLAIN line (without children).
	String() string
}

// Col is one output column of a node.
type Col struct {
	Name string
	T    types.T
	// TableOID and Attnum identify a plain table column (RowDescription).
	TableOID uint32
	Attnum   int16
	// Table is the range-table alias the column came from ("" for computed
	// columns); the binder uses it to resolve qualified names.
	Table string
	// Hidden columns (row IDs) are not visible to "*".
	Hidden bool
	// ByName marks a Hidden column an unqualified name reaches too: a
	// column a SEARCH or CYCLE clause adds, which the recursive term
	// reads from its work table by name but not in "*", as in PostgreSQL.
	ByName bool
	// Merged marks a join input's own copy of a USING (or NATURAL)
	// column, which the join's merged column stands for: it is reached
	// by its qualified name (t.x) and in t.*, not by an unqualified name
	// or "*".
	Merged bool
	// FuncValue marks the one column of a FROM function returning a
	// single value (generate_series(1, 3) g): its alias used as a value
	// is that value, not a one-field record, as in PostgreSQL.
	FuncValue bool
	// Base is the table of a column of a table the query level reads
	// directly (nil for any other: computed, or read through a subquery,
	// view or WITH query): that table's primary key determines the
	// column, so grouping by the key groups by it (functional
	// dependency, as PostgreSQL allows in GROUP BY).
	Base *catalog.TableDef
}

// Scan reads columns Cols (positions in Table.Columns) of a table, plus the
// row ID as a last int64 column when WithRowID.
type Scan struct {
	Table     *catalog.TableDef
	Alias     string
	Cols      []int
	WithRowID bool
	Out       []Col
}

// SystemScan reads a system relation (pg_catalog, information_schema):
// its rows are computed from the catalog the statement sees.
type SystemScan struct {
	Rel   *syscat.Relation
	Alias string
	Out   []Col
}

// Values produces literal rows.
type Values struct {
	Rows [][]Expr
	Out  []Col
}

// ScalarSelect is the one expression of plan when plan is a SELECT of
// one expression over no table and reads no table (no subquery): what a
// PL/pgSQL body's expressions mostly are, which the interpreter then
// evaluates without running a plan. nil otherwise.
func ScalarSelect(plan Node) Expr {
	var e Expr
	switch n := plan.(type) {
	case *Values:
		if len(n.Rows) == 1 && len(n.Rows[0]) == 1 {
			e = n.Rows[0][0]
		}
	case *Project:
		if v, ok := n.Input.(*Values); ok && len(v.Rows) == 1 && len(v.Out) == 0 && len(n.Exprs) == 1 {
			e = n.Exprs[0]
		}
	}
	if e == nil {
		return nil
	}
	reads := false
	WalkExpr(e, func(x Expr) {
		if _, ok := x.(*Subquery); ok {
			reads = true
		}
	})
	if reads {
		return nil
	}
	return e
}

// Filter keeps the rows where Cond is true.
type Filter struct {
	Input Node
	Cond  Expr
}

// Project computes Exprs over each input row.
type Project struct {
	Input Node
	Exprs []Expr
	Out   []Col
}

// AggCall is one aggregate call of an Aggregate node.
type AggCall struct {
	Agg      *functions.Aggregate
	Name     string
	Args     []Expr
	Distinct bool
	Filter   Expr // nil: none
	// OrderBy orders the rows fed to order-sensitive aggregates
	// (array_agg, string_agg); may be empty.
	OrderBy []SortKey
	T       types.T
}

// Aggregate groups its input by GroupBy and computes Aggs per group. Its
// output is the group keys followed by the aggregate results.
type Aggregate struct {
	Input   Node
	GroupBy []Expr
	Aggs    []AggCall
	// Sets are the grouping sets of GROUPING SETS, ROLLUP and CUBE, each
	// the GroupBy positions it groups by (the other keys are NULL in its
	// rows); nil for a plain GROUP BY. With sets, Out ends with an int4
	// column numbering each row's set from 1, which GROUPING() reads.
	Sets [][]int
	Out  []Col
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

// Sort orders its input by Keys.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Count rows (nil: no limit).
// Both are evaluated once per execution (they may be parameters).
type Limit struct {
	Input  Node
	Count  Expr
	Offset Expr
	// Ties, for FETCH FIRST n ROWS WITH TIES, are the ORDER BY keys the
	// input is sorted by: the rows after the first Count whose keys equal
	// the last one's pass too.
	Ties []SortKey
}

// TopK is Sort followed by Limit, fused: a bounded heap of Count+Offset rows.
type TopK struct {
	Input  Node
	Keys   []SortKey
	Count  Expr
	Offset Expr
}

// Distinct removes duplicate rows (on all columns, or on the first
// OnCount columns for DISTINCT ON, keeping the first row of each group).
type Distinct struct {
	Input   Node
	OnCount int
}

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	CrossJoin
	SemiJoin
	AntiJoin
)

// Join combines Left and Right rows where Cond holds (nil: always). The
// output is the left columns followed by the right columns.
// EquiLeft/EquiRight, when set, are equality keys a hash join can use;
// Cond then holds only the rest of the condition.
type Join struct {
	Kind      JoinKind
	Left      Node
	Right     Node
	Cond      Expr
	EquiLeft  []Expr
	EquiRight []Expr
	Out       []Col
	// On is the whole ON condition of an explicit join as written (Cond
	// and the Equi keys split from it), so that join planning can take an
	// INNER JOIN apart with the WHERE clause (planWhere).
	On Expr
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

// Set operations.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two inputs with the same column count.
type SetOp struct {
	Kind        SetOpKind
	All         bool
	Left, Right Node
	Out         []Col
}

// inputs are n's Left and Right, and for a UNION those of the UNIONs on
// its left that its own rule covers, in order: a UNION deduplicates
// whatever its inputs are, and UNION ALL takes in UNION ALLs. A chain of
// k UNIONs (a UNION b UNION c ..., which parses as ((a UNION b) UNION c)
// ...) is one node with k+1 inputs, run with one set of rows seen (k
// operators each deduplicated all the rows before them: a 2,000-way
// UNION took 1.9 s, PostgreSQL's one Append under one aggregate 0.03 s).
func (n *SetOp) inputs() []Node {
	if n.Kind != Union {
		return []Node{n.Left, n.Right}
	}
	right := []Node{n.Right}
	left := n.Left
	for {
		l, ok := left.(*SetOp)
		if !ok || l.Kind != Union || n.All && !l.All {
			break
		}
		right = append(right, l.Right)
		left = l.Left
	}
	slices.Reverse(right)
	return append([]Node{left}, right...)
}

// OnConflict is INSERT's ON CONFLICT clause.
type OnConflict struct {
	// Columns are the conflict target's column positions (may be empty for
	// DO NOTHING without a target).
	Columns []int
	// DoUpdate is false for DO NOTHING.
	DoUpdate bool
	// Set assigns column positions from expressions over the existing row
	// followed by the EXCLUDED row (2 x len(Table.Columns) input columns).
	Set map[int]Expr
	// Gen computes the generated columns over the new row Set makes.
	Gen   map[int]Expr
	Where Expr
	// Existing and Updated are DO UPDATE's row-level security checks:
	// of the existing row it updates (the UPDATE and SELECT policies'
	// USING) and of the row it makes of it, as UPDATE's Policies.
	Existing, Updated []PolicyCheck
}

// Insert writes the rows of Input (one column per table column, already
// cast and defaulted) into Table.
type Insert struct {
	Table      *catalog.TableDef
	Input      Node
	OnConflict *OnConflict
	// Returning is evaluated over the inserted row (table columns).
	Returning []Expr
	Out       []Col
	// Policies are the row-level security checks of the new rows.
	Policies []PolicyCheck
	// ViewChecks are the CHECK OPTIONs of the view written through, if
	// any, on the new rows (those ON CONFLICT DO UPDATE makes too).
	ViewChecks []ViewCheck
	// Instead is set when Table is a view's catalog.ViewDef.TriggerTable:
	// its INSTEAD OF trigger runs on each row in place of a write.
	Instead bool
}

// Update rewrites rows of Table: Input yields the table's columns plus the
// row ID (last); Set gives the new value of a column position as an
// expression over Input's row.
type Update struct {
	Table *catalog.TableDef
	Input Node
	Set   map[int]Expr
	// Gen computes the generated columns (position -> expression) over
	// the new row Set makes.
	Gen map[int]Expr
	// Returning is over the new row (table columns), the system columns
	// (ReturningSystemColumns) and the FROM relations' columns that
	// follow the row ID in Input.
	Returning []Expr
	Out       []Col
	// Policies are the row-level security checks of the new rows.
	Policies []PolicyCheck
	// ViewChecks are the CHECK OPTIONs of the view written through, if
	// any, on the new rows.
	ViewChecks []ViewCheck
	// Instead is set when Table is a view's catalog.ViewDef.TriggerTable
	// (Input its rows, with a NULL row ID): its INSTEAD OF trigger runs
	// on each row in place of a write.
	Instead bool
	// Fill marks ALTER TABLE's fill of an added column's default into
	// the existing rows, which applies only the checks that hold for
	// them: not those added NOT VALID, as PostgreSQL's table rewrite.
	Fill bool
}

// Delete removes the rows Input yields (table columns plus row ID, last).
type Delete struct {
	Table *catalog.TableDef
	Input Node
	// Returning is over the deleted row (table columns), the system
	// columns and the USING relations' columns that follow the row ID
	// in Input.
	Returning []Expr
	Out       []Col
	// Instead is as Update's.
	Instead bool
}

// Explain describes (and with Analyze, runs and times) Input.
type Explain struct {
	Input   Node
	Analyze bool
	Format  ExplainFormat
}

// Columns implementations.

func (n *Scan) Columns() []Col       { return n.Out }
func (n *SystemScan) Columns() []Col { return n.Out }
func (n *Values) Columns() []Col     { return n.Out }
func (n *Filter) Columns() []Col     { return n.Input.Columns() }
func (n *Project) Columns() []Col    { return n.Out }
func (n *Aggregate) Columns() []Col  { return n.Out }
func (n *Sort) Columns() []Col       { return n.Input.Columns() }
func (n *Limit) Columns() []Col      { return n.Input.Columns() }
func (n *TopK) Columns() []Col       { return n.Input.Columns() }
func (n *Distinct) Columns() []Col   { return n.Input.Columns() }
func (n *Join) Columns() []Col       { return n.Out }
func (n *SetOp) Columns() []Col      { return n.Out }
func (n *Insert) Columns() []Col     { return n.Out }
func (n *Update) Columns() []Col     { return n.Out }
func (n *Delete) Columns() []Col     { return n.Out }
func (n *Explain) Columns() []Col {
	return []Col{{Name: "QUERY PLAN", T: ExplainColumnType(n.Format)}}
}

// Children implementations.

func (n *Scan) Children() []Node       { return nil }
func (n *SystemScan) Children() []Node { return nil }
func (n *Values) Children() []Node     { return nil }
func (n *Filter) Children() []Node     { return []Node{n.Input} }
func (n *Project) Children() []Node    { return []Node{n.Input} }
func (n *Aggregate) Children() []Node  { return []Node{n.Input} }
func (n *Sort) Children() []Node       { return []Node{n.Input} }
func (n *Limit) Children() []Node      { return []Node{n.Input} }
func (n *TopK) Children() []Node       { return []Node{n.Input} }
func (n *Distinct) Children() []Node   { return []Node{n.Input} }
func (n *Join) Children() []Node       { return []Node{n.Left, n.Right} }
func (n *SetOp) Children() []Node      { return n.inputs() }
func (n *Insert) Children() []Node     { return []Node{n.Input} }
func (n *Update) Children() []Node     { return []Node{n.Input} }
func (n *Delete) Children() []Node     { return []Node{n.Input} }
func (n *Explain) Children() []Node    { return []Node{n.Input} }

// String implementations: the EXPLAIN line of each node.

func (n *Scan) String() string {
	s := fmt.Sprintf("Seq Scan on %s", n.Table.Name)
	if n.Alias != "" && n.Alias != n.Table.Name {
		s += " " + n.Alias
	}
	return s
}
func (n *Values) String() string { return fmt.Sprintf("Values Scan (%d rows)", len(n.Rows)) }
func (n *SystemScan) String() string {
	return fmt.Sprintf("System Scan on %s.%s", n.Rel.Schema, n.Rel.Name)
}
func (n *Filter) String() string  { return "Filter: " + n.Cond.String() }
func (n *Project) String() string { return "Project: " + joinExprs(n.Exprs, ", ") }
func (n *Aggregate) String() string {
	if n.Sets != nil {
		sets := make([]string, len(n.Sets))
		for i, set := range n.Sets {
			keys := make([]Expr, len(set))
			for j, k := range set {
				keys[j] = n.GroupBy[k]
			}
			sets[i] = "(" + joinExprs(keys, ", ") + ")"
		}
		return "MixedAggregate: Grouping Sets: " + strings.Join(sets, ", ")
	}
	if len(n.GroupBy) == 0 {
		return "Aggregate"
	}
	return "HashAggregate: Group Key: " + joinExprs(n.GroupBy, ", ")
}
func (n *Sort) String() string { return "Sort: " + sortKeys(n.Keys) }
func (n *Limit) String() string {
	return "Limit" + limitText(n.Count, n.Offset)
}
func (n *TopK) String() string {
	return "TopK: " + sortKeys(n.Keys) + limitText(n.Count, n.Offset)
}
func (n *Distinct) String() string { return "Unique" }
func (n *Join) String() string {
	names := [...]string{"Inner", "Left", "Right", "Full", "Cross", "Semi", "Anti"}
	kind := "Nested Loop"
	if len(n.EquiLeft) > 0 {
		kind = "Hash"
	}
	s := fmt.Sprintf("%s %s Join", kind, names[n.Kind])
	if len(n.EquiLeft) > 0 {
		conds := make([]string, len(n.EquiLeft))
		for i := range n.EquiLeft {
			conds[i] = n.EquiLeft[i].String() + " = " + n.EquiRight[i].String()
		}
		s += ": " + strings.Join(conds, " AND ")
	}
	if n.Cond != nil {
		s += " Filter: " + n.Cond.String()
	}
	return s
}
func (n *SetOp) String() string {
	s := [...]string{"Union", "Intersect", "Except"}[n.Kind]
	if n.All {
		s += " All"
	}
	return s
}
func (n *Insert) String() string  { return "Insert on " + n.Table.Name }
func (n *Update) String() string  { return "Update on " + n.Table.Name }
func (n *Delete) String() string  { return "Delete on " + n.Table.Name }
func (n *Explain) String() string { return "Explain" }

func sortKeys(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Expr.String()
		if k.Desc {
			parts[i] += " DESC"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				parts[i] += " NULLS FIRST"
			} else {
				parts[i] += " NULLS LAST"
			}
		}
	}
	return strings.Join(parts, ", ")
}

func limitText(count, offset Expr) string {
	s := ""
	if count != nil {
		s += " Count: " + count.String()
	}
	if offset != nil {
		s += " Offset: " + offset.String()
	}
	return s
}

// ExplainLines renders a plan tree as EXPLAIN prints it, one line per node,
// children indented under "->".
func ExplainLines(n Node) []string {
	var lines []string
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		if p, ok := n.(*Project); ok {
			// Projections are part of every node in PostgreSQL's
			// EXPLAIN; cairn does not show them either.
			walk(p.Input, depth)
			return
		}
		if depth == 0 {
			lines = append(lines, n.String())
		} else {
			lines = append(lines, strings.Repeat("  ", 3*depth-2)+"->  "+n.String())
		}
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return lines
}
