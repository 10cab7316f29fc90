package sql

import (
	"fmt"
	"strings"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/types"
)

// Expr is a bound, typed expression. Column references are positions in the
// input row of the node that evaluates the expression. An Expr is immutable
// once bound: a plan's expressions are shared, unsynchronised, by every
// operator and parallel partition that evaluates them.
type Expr interface {
	// Type is the expression's SQL type.
	Type() types.T
	// String renders the expression for EXPLAIN.
	String() string
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index int
	Name  string
	T     types.T
	// Of is the expression a hidden ORDER BY column holds, printed in
	// the reference's place when Name is empty: naming such a key when it
	// is bound would print the whole expression (a query embedding's
	// thousands of digits) on every bind, for an EXPLAIN that seldom
	// comes.
	Of Expr
}

// Const is a constant datum (see package types for Go representations).
type Const struct {
	Value any
	T     types.T
	// Pos is the 1-based position of the literal in the statement (0: not
	// a literal), which an error reading it as its type points at.
	Pos int32
}

// Param is the statement parameter $Index+1.
type Param struct {
	Index int
	T     types.T
}

// Call applies a scalar function or operator overload.
type Call struct {
	Name     string
	Overload *functions.Overload
	Args     []Expr
	T        types.T
	// Infix marks a binary operator (for EXPLAIN rendering).
	Infix bool
}

// Cast converts Arg to type To. Explicit is false for implicit and
// assignment casts (varchar(n) overflow is then an error, not a truncation).
type Cast struct {
	Arg      Expr
	To       types.T
	Explicit bool
}

// BoolOpKind is AND, OR or NOT.
type BoolOpKind uint8

// Boolean operators, with SQL's three-valued logic.
const (
	And BoolOpKind = iota
	Or
	Not
)

// BoolOp is AND/OR over its Args, or NOT of its single Arg.
type BoolOp struct {
	Op   BoolOpKind
	Args []Expr
}

// IsNull is "Arg IS NULL" (or IS NOT NULL when Negate).
type IsNull struct {
	Arg    Expr
	Negate bool
}

// IsDistinct is "Left IS [NOT] DISTINCT FROM Right"; Equal is the "="
// overload used to compare non-null values.
type IsDistinct struct {
	Left, Right Expr
	Equal       *functions.Overload
	Negate      bool
}

// When is one WHEN ... THEN ... arm of a Case.
type When struct {
	Cond   Expr
	Result Expr
}

// Case is a searched CASE (simple CASE is rewritten into equalities).
type Case struct {
	Whens []When
	Else  Expr // nil: NULL
	T     types.T
}

// Coalesce returns its first non-null argument.
type Coalesce struct {
	Args []Expr
	T    types.T
}

// InList is "Arg [NOT] IN (List...)"; Equal compares Arg with each item.
type InList struct {
	Arg    Expr
	List   []Expr
	Equal  *functions.Overload
	Negate bool
}

// AnyAll is "Left op ANY(Array)" or "Left op ALL(Array)".
type AnyAll struct {
	Left  Expr
	Op    *functions.Overload
	OpStr string
	Array Expr
	All   bool
}

// ArrayExpr is ARRAY[e1, e2, ...].
type ArrayExpr struct {
	Elems []Expr
	T     types.T
}

// Subscript is Arg[i] or Arg[lo:hi] (one entry per dimension).
type Subscript struct {
	Arg     Expr
	Indexes []SubscriptIndex
	T       types.T
}

// SubscriptIndex is one [i] or [lo:hi]; Lower/Upper may be nil in a slice.
type SubscriptIndex struct {
	Lower, Upper Expr
	Slice        bool
}

// RowExpr is a row constructor (a, b, ...).
type RowExpr struct {
	Args []Expr
	T    types.T
}

// NextVal is nextval('seq'): a durable, non-transactional sequence draw.
type NextVal struct {
	Schema, Name string
}

// SubqueryKind tells how a subquery's rows are used.
type SubqueryKind uint8

// Subquery uses.
const (
	ScalarSubquery SubqueryKind = iota
	ExistsSubquery
	InSubquery
	ArraySubquery
)

// Subquery is a subquery used as an expression: scalar (one column, at
// most one row), EXISTS, "Left [NOT] IN (subquery)" or ARRAY(subquery).
// Without Args it is uncorrelated and runs once per statement. A
// correlated subquery reads columns of the query around it: Args are those
// values as expressions of the outer row, and the plan reads them as
// OuterRefs; it runs once per distinct outer row.
type Subquery struct {
	Kind  SubqueryKind
	Plan  Node
	Left  Expr                // InSubquery only
	Equal *functions.Overload // InSubquery only
	// All makes an InSubquery "Left op ALL (subquery)": true when the
	// comparison holds for every row (or there are none), where Equal is
	// the comparison; otherwise it holds for some row (op ANY, IN).
	All    bool
	Negate bool
	T      types.T
	Args   []Expr
	// Hashed is, for a correlated ExistsSubquery whose only correlation
	// is one equality (exists_hashed.go), the same test as an
	// uncorrelated InSubquery over the outer row, a NULL meaning false:
	// the executor switches to it once the correlated plan has run for
	// many outer rows (a hashed semi or anti join). nil otherwise.
	Hashed *Subquery
}

// OuterRef is a correlated subquery's reference to a value of the outer
// row: Args[Slot] of the innermost Subquery whose plan contains it.
type OuterRef struct {
	Slot int
	Name string
	T    types.T
}

// Type implementations.

func (e *ColumnRef) Type() types.T  { return e.T }
func (e *Const) Type() types.T      { return e.T }
func (e *Param) Type() types.T      { return e.T }
func (e *Call) Type() types.T       { return e.T }
func (e *Cast) Type() types.T       { return e.To }
func (e *BoolOp) Type() types.T     { return types.BoolT }
func (e *IsNull) Type() types.T     { return types.BoolT }
func (e *IsDistinct) Type() types.T { return types.BoolT }
func (e *Case) Type() types.T       { return e.T }
func (e *Coalesce) Type() types.T   { return e.T }
func (e *InList) Type() types.T     { return types.BoolT }
func (e *AnyAll) Type() types.T     { return types.BoolT }
func (e *ArrayExpr) Type() types.T  { return e.T }
func (e *Subscript) Type() types.T  { return e.T }
func (e *RowExpr) Type() types.T    { return e.T }
func (e *NextVal) Type() types.T    { return types.Int8T }
func (e *Subquery) Type() types.T   { return e.T }
func (e *OuterRef) Type() types.T   { return e.T }

// String implementations (EXPLAIN).

func (e *ColumnRef) String() string {
	if e.Name == "" && e.Of != nil {
		return e.Of.String()
	}
	return e.Name
}
func (e *Const) String() string {
	if e.Value == nil {
		return "NULL"
	}
	s := types.FormatText(e.Value, e.T)
	if e.T.IsNumeric() || e.T.Family == types.Bool {
		return s
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::" + e.T.String()
}
func (e *Param) String() string { return fmt.Sprintf("$%d", e.Index+1) }
func (e *Call) String() string {
	if e.Infix && len(e.Args) == 2 {
		return "(" + e.Args[0].String() + " " + e.Name + " " + e.Args[1].String() + ")"
	}
	return e.Name + "(" + joinExprs(e.Args, ", ") + ")"
}
func (e *Cast) String() string { return "(" + e.Arg.String() + ")::" + e.To.String() }
func (e *BoolOp) String() string {
	switch e.Op {
	case Not:
		return "(NOT " + e.Args[0].String() + ")"
	case Or:
		return "(" + joinExprs(e.Args, " OR ") + ")"
	}
	return "(" + joinExprs(e.Args, " AND ") + ")"
}
func (e *IsNull) String() string {
	if e.Negate {
		return "(" + e.Arg.String() + " IS NOT NULL)"
	}
	return "(" + e.Arg.String() + " IS NULL)"
}
func (e *IsDistinct) String() string {
	op := " IS DISTINCT FROM "
	if e.Negate {
		op = " IS NOT DISTINCT FROM "
	}
	return "(" + e.Left.String() + op + e.Right.String() + ")"
}
func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}
func (e *Coalesce) String() string { return "COALESCE(" + joinExprs(e.Args, ", ") + ")" }
func (e *InList) String() string {
	op := " IN "
	if e.Negate {
		op = " NOT IN "
	}
	return "(" + e.Arg.String() + op + "(" + joinExprs(e.List, ", ") + "))"
}
func (e *AnyAll) String() string {
	q := "ANY"
	if e.All {
		q = "ALL"
	}
	return "(" + e.Left.String() + " " + e.OpStr + " " + q + " (" + e.Array.String() + "))"
}
func (e *ArrayExpr) String() string { return "ARRAY[" + joinExprs(e.Elems, ", ") + "]" }
func (e *Subscript) String() string {
	var b strings.Builder
	b.WriteString(e.Arg.String())
	for _, ix := range e.Indexes {
		b.WriteString("[")
		if ix.Lower != nil {
			b.WriteString(ix.Lower.String())
		}
		if ix.Slice {
			b.WriteString(":")
			if ix.Upper != nil {
				b.WriteString(ix.Upper.String())
			}
		}
		b.WriteString("]")
	}
	return b.String()
}
func (e *RowExpr) String() string  { return "ROW(" + joinExprs(e.Args, ", ") + ")" }
func (e *NextVal) String() string  { return fmt.Sprintf("nextval('%s.%s')", e.Schema, e.Name) }
func (e *Subquery) String() string { return "(SubPlan)" }
func (e *OuterRef) String() string { return e.Name }

func joinExprs(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}
