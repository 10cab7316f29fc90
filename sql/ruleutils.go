package sql

// The text of a stored expression (a CHECK, a column DEFAULT or generated
// column, an index key or predicate, a domain's CHECK) as PostgreSQL's
// ruleutils.c prints it: pg_get_constraintdef, pg_get_expr,
// pg_get_indexdef and information_schema read it, and ORM migration tools
// compare it with their own. cairn keeps such expressions as SQL text (in
// the form pg_query deparses); PostgreSQL keeps the analysed tree and
// decompiles that, showing what analysis added: the implicit casts of
// operator and function arguments ((b)::text, (0)::numeric), string
// constants with their type ('x'::text), IN lists as = ANY (ARRAY[...]),
// BETWEEN as >= AND <=, LIKE as ~~. RuleText analyses the text again
// (rule) with the binder's types and prints that tree as get_rule_expr
// does, in its plain form (every operator in parentheses) or its pretty
// one (parentheses by precedence, isSimpleNode). The text is printed at
// read time, so catalogs written before keep their stored form.

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// RuleText prints the stored SQL text of an expression as ruleutils.c
// prints its analysed tree, in the context ec (the table whose columns it
// reads, or a domain's VALUE; the type a DEFAULT is coerced to). An
// expression it cannot analyse (a form ruleutils prints in a way not
// modelled here) is an error, and the caller keeps the stored text.
func RuleText(cat *catalog.Catalog, text string, ec syscat.ExprContext) (string, error) {
	n, err := ParseExpr(text)
	if err != nil {
		return "", err
	}
	a := &ruleAnalyzer{}
	switch {
	case ec.Table != nil:
		a.b = tableExprBinder(cat, ec.Table)
		a.sc = &scope{cols: tableCols(ec.Table, ec.Table.Name)}
		a.table = ec.Table
	case ec.Value != nil:
		a.b = tableExprBinder(cat, &catalog.TableDef{Schema: ec.Schema})
		a.sc = &scope{cols: []Col{{Name: "value", T: *ec.Value}}}
		a.domain = true
	default:
		a.b = tableExprBinder(cat, &catalog.TableDef{Schema: "public"})
		a.sc = &scope{}
	}
	a.b.NoParams = true
	r, err := a.node(n)
	if err != nil {
		return "", err
	}
	if ec.Column != nil {
		// cookDefault coerces a DEFAULT to the column's type: an untyped
		// literal becomes a constant of the type (its modifier applied
		// by a cast that, like any cast at the top, is not shown).
		to := *ec.Column
		to.Mod = -1
		if r, err = a.coerce(r, to); err != nil {
			return "", err
		}
		if r.kind == rCast && r.implicit {
			r = r.args[0]
		}
	}
	p := &rulePrinter{pretty: ec.Pretty, qualified: ec.Qualified}
	if p.qualified == nil {
		p.qualified = ident.QualifiedName
	}
	p.expr(r, false)
	return p.buf.String(), nil
}

// ruleKind is the kind of an analysed node, named after PostgreSQL's.
type ruleKind uint8

const (
	rVar       ruleKind = iota // a column, or a domain's VALUE
	rConst                     // Const
	rOp                        // OpExpr: binary, or prefix with one arg
	rFunc                      // FuncExpr called as a function
	rCast                      // a cast: FuncExpr, RelabelType, CoerceViaIO or ArrayCoerceExpr
	rBool                      // BoolExpr: name is AND, OR or NOT
	rNullTest                  // name is IS NULL or IS NOT NULL
	rBoolTest                  // name is IS TRUE, IS NOT FALSE, ...
	rDistinct                  // DistinctExpr
	rNullIf                    // NullIfExpr
	rArrayOp                   // ScalarArrayOpExpr: name the operator, any ANY or ALL
	rCase                      // CaseExpr: args are WHEN, THEN pairs, then ELSE; caseArg the CASE operand
	rCoalesce                  // CoalesceExpr
	rMinMax                    // MinMaxExpr: name is GREATEST or LEAST
	rArray                     // ArrayExpr
	rSQLValue                  // SQLValueFunction: name is its keyword
	rSubscript                 // SubscriptingRef: args[0] the array, then the subscripts
	rRow                       // RowExpr
	rSQLFunc                   // FuncExpr of SQL syntax: name the function
	rCollate                   // CollateExpr: name the quoted collation
)

// castForm is how a cast node is kept (it matters to pretty printing):
// a function call, or one of the nodes whose simplicity is their
// argument's.
type castForm uint8

const (
	castFunc castForm = iota
	castRelabel
)

// ruleNode is an analysed expression, as much of PostgreSQL's node as
// ruleutils reads.
type ruleNode struct {
	kind ruleKind
	t    types.T
	name string
	args []*ruleNode
	// text is a Const's output form, a Var's quoted name.
	text   string
	isNull bool
	// implicit marks a cast analysis added (COERCE_IMPLICIT_CAST), form
	// how it is kept; any marks ScalarArrayOpExpr's ANY (else ALL).
	implicit bool
	form     castForm
	any      bool
	// caseArg is a CASE's operand (CASE x WHEN ...), whose WHEN values
	// print bare.
	caseArg *ruleNode
	// ofDomain marks a value of a domain over t, which any use casts;
	// domain is the domain a cast (CoerceToDomain) converts to.
	ofDomain bool
	domain   *catalog.TypeDef
}

// ruleAnalyzer turns the parse tree of a stored expression into
// ruleNodes, asking the binder the types PostgreSQL's analysis would
// give.
type ruleAnalyzer struct {
	b      *Binder
	sc     *scope
	table  *catalog.TableDef
	domain bool
}

// errRuleForm is the error for a form not modelled: the caller keeps the
// stored text.
func errRuleForm(what string) error { return pgerr.NotSupported("printing %s as ruleutils does", what) }

func (a *ruleAnalyzer) node(n *pg_query.Node) (*ruleNode, error) {
	switch x := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		e, err := a.b.bindExpr(a.sc, n)
		if err != nil {
			return nil, err
		}
		cr, ok := e.(*ColumnRef)
		if !ok {
			return nil, errRuleForm("a system column")
		}
		r := &ruleNode{kind: rVar, t: e.Type(), text: ident.Quote(cr.Name)}
		if a.domain {
			r.text = "VALUE"
		}
		// A column of a domain holds the domain's type, of which its
		// base type (e.Type()) is the representation: any use of it
		// casts (a RelabelType to the base type or beyond).
		r.ofDomain = a.table != nil && cr.Index < len(a.table.Columns) && a.table.Columns[cr.Index].Domain != 0
		return r, nil
	case *pg_query.Node_AConst:
		return a.constant(x.AConst)
	case *pg_query.Node_TypeCast:
		return a.typeCast(x.TypeCast)
	case *pg_query.Node_AExpr:
		return a.aExpr(x.AExpr)
	case *pg_query.Node_BoolExpr:
		args, err := a.nodes(x.BoolExpr.Args)
		if err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = a.coerce(args[i], types.BoolT); err != nil {
				return nil, err
			}
		}
		name := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND", pg_query.BoolExprType_OR_EXPR: "OR", pg_query.BoolExprType_NOT_EXPR: "NOT"}[x.BoolExpr.Boolop]
		return &ruleNode{kind: rBool, t: types.BoolT, name: name, args: args}, nil
	case *pg_query.Node_NullTest:
		arg, err := a.node(x.NullTest.Arg)
		if err != nil {
			return nil, err
		}
		if arg.kind == rRow {
			return nil, errRuleForm("IS NULL of a row")
		}
		name := "IS NULL"
		if x.NullTest.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL {
			name = "IS NOT NULL"
		}
		return &ruleNode{kind: rNullTest, t: types.BoolT, name: name, args: []*ruleNode{arg}}, nil
	case *pg_query.Node_BooleanTest:
		arg, err := a.node(x.BooleanTest.Arg)
		if err != nil {
			return nil, err
		}
		if arg, err = a.coerce(arg, types.BoolT); err != nil {
			return nil, err
		}
		name := map[pg_query.BoolTestType]string{pg_query.BoolTestType_IS_TRUE: "IS TRUE", pg_query.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
			pg_query.BoolTestType_IS_FALSE: "IS FALSE", pg_query.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
			pg_query.BoolTestType_IS_UNKNOWN: "IS UNKNOWN", pg_query.BoolTestType_IS_NOT_UNKNOWN: "IS NOT UNKNOWN"}[x.BooleanTest.Booltesttype]
		return &ruleNode{kind: rBoolTest, t: types.BoolT, name: name, args: []*ruleNode{arg}}, nil
	case *pg_query.Node_FuncCall:
		return a.funcCall(n, x.FuncCall)
	case *pg_query.Node_SqlvalueFunction:
		e, err := a.b.bindExpr(a.sc, n)
		if err != nil {
			return nil, err
		}
		name := strings.ToUpper(sqlValueFunctionName(x.SqlvalueFunction.Op))
		if x.SqlvalueFunction.Typmod >= 0 {
			name += "(" + strconv.Itoa(int(x.SqlvalueFunction.Typmod)) + ")"
		}
		return &ruleNode{kind: rSQLValue, t: e.Type(), name: name}, nil
	case *pg_query.Node_CaseExpr:
		return a.caseExpr(x.CaseExpr)
	case *pg_query.Node_CoalesceExpr:
		return a.common(rCoalesce, "COALESCE", x.CoalesceExpr.Args)
	case *pg_query.Node_MinMaxExpr:
		name := "GREATEST"
		if x.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		return a.common(rMinMax, name, x.MinMaxExpr.Args)
	case *pg_query.Node_AArrayExpr:
		if len(x.AArrayExpr.Elements) == 0 {
			return nil, errRuleForm("an empty ARRAY[]")
		}
		r, err := a.common(rArray, "", x.AArrayExpr.Elements)
		if err != nil {
			return nil, err
		}
		if r.t.IsArray() {
			return nil, errRuleForm("a nested ARRAY[]")
		}
		r.t = types.ArrayOf(r.t, 1)
		return r, nil
	case *pg_query.Node_AIndirection:
		return a.indirection(n, x.AIndirection)
	case *pg_query.Node_CollateClause:
		arg, err := a.node(x.CollateClause.Arg)
		if err != nil {
			return nil, err
		}
		names := strList(x.CollateClause.Collname)
		if len(names) != 1 {
			return nil, errRuleForm("a qualified collation")
		}
		if arg.kind == rConst && arg.t.Family == types.Unknown {
			if arg, err = a.literalAs(arg, types.TextT); err != nil {
				return nil, err
			}
		}
		return &ruleNode{kind: rCollate, t: arg.t, name: ident.Quote(names[0]), args: []*ruleNode{arg}}, nil
	case *pg_query.Node_RowExpr:
		args, err := a.nodes(x.RowExpr.Args)
		if err != nil {
			return nil, err
		}
		return &ruleNode{kind: rRow, t: types.RecordT, args: args}, nil
	}
	return nil, errRuleForm("this expression")
}

// nodes analyses the expressions ns, in order.
func (a *ruleAnalyzer) nodes(ns []*pg_query.Node) ([]*ruleNode, error) {
	out := make([]*ruleNode, len(ns))
	for i, n := range ns {
		r, err := a.node(n)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// constant is a literal as make_const types it: an integer int4 (int8
// beyond), a number with a point numeric, a string unknown until an
// operator, a function or a cast gives it its type.
func (a *ruleAnalyzer) constant(c *pg_query.A_Const) (*ruleNode, error) {
	e, err := bindConst(c)
	if err != nil {
		return nil, err
	}
	k := e.(*Const)
	if k.Value == nil {
		return &ruleNode{kind: rConst, t: types.UnknownT, isNull: true}, nil
	}
	if k.T.Family == types.Unknown {
		return &ruleNode{kind: rConst, t: types.UnknownT, text: k.Value.(string)}, nil
	}
	return &ruleNode{kind: rConst, t: k.T, text: types.FormatText(k.Value, k.T)}, nil
}

// typeCast is expr::type: a typed literal is a constant of the type (with
// its modifier applied by a cast); anything else is an explicit cast,
// none when the type is already the expression's.
func (a *ruleAnalyzer) typeCast(tc *pg_query.TypeCast) (*ruleNode, error) {
	to, err := a.b.typeFromName(tc.TypeName)
	if err != nil {
		return nil, err
	}
	if td := a.b.lookupDomain(tc.TypeName); td != nil {
		// x::domain is a CoerceToDomain over x as the base type, printed
		// with the domain's name; what uses it casts it back.
		arg, err := a.node(tc.Arg)
		if err != nil {
			return nil, err
		}
		if arg, err = a.coerce(arg, td.Domain.Base); err != nil {
			return nil, err
		}
		return &ruleNode{kind: rCast, t: td.Domain.Base, args: []*ruleNode{arg}, form: castRelabel, domain: td, ofDomain: true}, nil
	}
	if arr := tc.Arg.GetAArrayExpr(); arr != nil && to.IsArray() {
		// ARRAY[...]::type[]: transformTypeCast hands the element type
		// down, each element is cast to it.
		elems, err := a.nodes(arr.Elements)
		if err != nil {
			return nil, err
		}
		for i := range elems {
			if elems[i].t.IsArray() {
				return nil, errRuleForm("a nested ARRAY[]")
			}
			if elems[i], err = a.coerce(elems[i], *to.Elem); err != nil {
				return nil, err
			}
			elems[i].implicit = false
		}
		return &ruleNode{kind: rArray, t: to, args: elems}, nil
	}
	arg, err := a.node(tc.Arg)
	if err != nil {
		return nil, err
	}
	if arg.kind == rConst && arg.t.Family == types.Unknown {
		bare := to
		bare.Mod = -1
		k, err := a.literalAs(arg, bare)
		if err != nil {
			return nil, err
		}
		if to.Mod < 0 {
			return k, nil
		}
		return &ruleNode{kind: rCast, t: to, args: []*ruleNode{k}, form: castFunc}, nil
	}
	if sameType(arg.t, to) && (to.Mod < 0 || to.Mod == arg.t.Mod) {
		return arg, nil
	}
	return &ruleNode{kind: rCast, t: to, args: []*ruleNode{arg}, form: castFormOf(arg.t, to)}, nil
}

// literalAs is the untyped literal k read as type t: a Const of t in its
// output form, as coerce_type folds it.
func (a *ruleAnalyzer) literalAs(k *ruleNode, t types.T) (*ruleNode, error) {
	if k.isNull {
		return &ruleNode{kind: rConst, t: t, isNull: true}, nil
	}
	if isReg(t) {
		// nextval('seq'::regclass): the name as written; syscat prints it
		// as regclass would.
		return &ruleNode{kind: rConst, t: t, text: k.text}, nil
	}
	e, err := a.b.coerce(&Const{Value: k.text, T: types.UnknownT}, t, castImplicit)
	if err != nil {
		return nil, err
	}
	c, ok := e.(*Const)
	if !ok || c.Value == nil {
		return nil, errRuleForm("this literal")
	}
	return &ruleNode{kind: rConst, t: t, text: types.FormatText(c.Value, t)}, nil
}

// coerce is r converted to t as PostgreSQL's coerce_type converts an
// argument: an untyped literal becomes a constant of t, anything of
// another type gets an implicit cast.
func (a *ruleAnalyzer) coerce(r *ruleNode, t types.T) (*ruleNode, error) {
	if t.Family == types.Unknown || t.Family == types.Null {
		return r, nil
	}
	if r.kind == rConst && (r.t.Family == types.Unknown || r.t.Family == types.Null) {
		return a.literalAs(r, t)
	}
	if r.t.Family == types.Null {
		return r, nil
	}
	if r.kind == rCollate {
		// coerce_type keeps a COLLATE above the cast it adds.
		arg, err := a.coerce(r.args[0], t)
		if err != nil {
			return nil, err
		}
		return &ruleNode{kind: rCollate, t: arg.t, name: r.name, args: []*ruleNode{arg}}, nil
	}
	if r.ofDomain {
		t.Mod = -1
		return &ruleNode{kind: rCast, t: t, args: []*ruleNode{r}, implicit: true, form: castRelabel}, nil
	}
	if sameType(r.t, t) && (t.Mod < 0 || t.Mod == r.t.Mod) {
		return r, nil
	}
	return &ruleNode{kind: rCast, t: t, args: []*ruleNode{r}, implicit: true, form: castFormOf(r.t, t)}, nil
}

// baseOf is r as an operator with exactly its types reads it: a domain's
// value cast to the base type.
func (a *ruleAnalyzer) baseOf(r *ruleNode) (*ruleNode, error) {
	if !r.ofDomain {
		return r, nil
	}
	t := r.t
	t.Mod = -1
	return a.coerce(r, t)
}

// sameType reports whether a and b are one type for coercion (modifiers
// aside): a domain is not its base type.
func sameType(a, b types.T) bool {
	return a.Equal(b) && a.Domain == b.Domain
}

// castFormOf is the node a cast from one type to another becomes: a
// binary-compatible one (varchar to text, a domain to its base type) is
// a RelabelType, an array's an ArrayCoerceExpr and a conversion through
// text a CoerceViaIO, all printed as the argument is simple; the rest are
// function calls.
func castFormOf(from, to types.T) castForm {
	str := func(t types.T) bool {
		return t.Family == types.Text || t.Family == types.Varchar || t.Family == types.Name
	}
	switch {
	case from.Domain != "" || to.Domain != "":
		return castRelabel
	case from.IsArray() || to.IsArray():
		return castRelabel
	case str(from) && str(to):
		return castRelabel
	case str(to) && from.Family != types.Char || str(from) && to.Family != types.Char:
		return castRelabel // CoerceViaIO
	}
	return castFunc
}

// resolve is the argument types an operator or function call resolves
// to, as the binder resolves them; an untyped literal is unknown.
func (a *ruleAnalyzer) resolve(name string, args []*ruleNode) ([]types.T, error) {
	ts := nodeTypes(args)
	_, castTo, err := functions.Resolve(name, ts)
	if err != nil {
		return nil, err
	}
	return castTo, nil
}

// crossTypeOperator reports whether PostgreSQL has an operator for
// exactly these two argument types that cairn resolves with a cast: the
// integer and the float types among themselves (int84lt, float48pl), and
// comparisons of date, timestamp and timestamptz.
func crossTypeOperator(op string, l, r types.T) bool {
	if l.Domain != "" || r.Domain != "" {
		return false
	}
	cmp := op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">="
	arith := op == "+" || op == "-" || op == "*" || op == "/"
	isInt := func(t types.T) bool {
		return t.Family == types.Int2 || t.Family == types.Int4 || t.Family == types.Int8
	}
	isFloat := func(t types.T) bool { return t.Family == types.Float4 || t.Family == types.Float8 }
	isDate := func(t types.T) bool {
		return t.Family == types.DateFamily || t.Family == types.TimestampFamily || t.Family == types.TimestampTZ
	}
	switch {
	case (cmp || arith) && isInt(l) && isInt(r):
		return true
	case (cmp || arith) && isFloat(l) && isFloat(r):
		return true
	case cmp && isDate(l) && isDate(r):
		return true
	}
	return false
}

// operator is "l op r" (l nil for a prefix operator) with its arguments
// coerced to the operator's types.
func (a *ruleAnalyzer) operator(op string, l, r *ruleNode) (*ruleNode, error) {
	if l == nil {
		castTo, err := a.resolve(op, []*ruleNode{r})
		if err != nil {
			return nil, err
		}
		if r, err = a.coerce(r, castTo[0]); err != nil {
			return nil, err
		}
		t, err := a.resultType(op, []*ruleNode{r})
		if err != nil {
			return nil, err
		}
		return &ruleNode{kind: rOp, t: t, name: op, args: []*ruleNode{r}}, nil
	}
	args := []*ruleNode{l, r}
	if crossTypeOperator(op, l.t, r.t) {
		for i := range args {
			var err error
			if args[i], err = a.baseOf(args[i]); err != nil {
				return nil, err
			}
		}
	} else {
		castTo, err := a.resolve(op, args)
		if err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = a.coerce(args[i], castTo[i]); err != nil {
				return nil, err
			}
		}
	}
	t, err := a.resultType(op, args)
	if err != nil {
		return nil, err
	}
	return &ruleNode{kind: rOp, t: t, name: op, args: args}, nil
}

// resultType is the type of name applied to args, typed as they are.
func (a *ruleAnalyzer) resultType(name string, args []*ruleNode) (types.T, error) {
	ts := nodeTypes(args)
	ov, castTo, err := functions.Resolve(name, ts)
	if err != nil {
		return types.T{}, err
	}
	return functions.ResultType(ov, castTo), nil
}

func (a *ruleAnalyzer) aExpr(x *pg_query.A_Expr) (*ruleNode, error) {
	op := ""
	if len(x.Name) > 0 {
		op = nameOf(x.Name)
	}
	switch x.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		var l *ruleNode
		if x.Lexpr != nil {
			var err error
			if l, err = a.node(x.Lexpr); err != nil {
				return nil, err
			}
		}
		r, err := a.node(x.Rexpr)
		if err != nil {
			return nil, err
		}
		if l == nil && op == "-" && r.kind == rConst {
			return nil, errRuleForm("a negated constant")
		}
		return a.operator(op, l, r)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		ns, err := a.nodes([]*pg_query.Node{x.Lexpr, x.Rexpr})
		if err != nil {
			return nil, err
		}
		l, r := ns[0], ns[1]
		if r.kind == rConst && r.t.Family == types.Unknown {
			if r, err = a.literalAs(r, types.ArrayOf(l.t, 1)); err != nil {
				return nil, err
			}
		}
		return a.arrayOp(op, l, r, x.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ANY)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return a.in(op, x)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := x.Rexpr.GetList().GetItems()
		ns, err := a.nodes([]*pg_query.Node{x.Lexpr, bounds[0], bounds[1]})
		if err != nil {
			return nil, err
		}
		l, lo, hi := ns[0], ns[1], ns[2]
		geOp, leOp, join := ">=", "<=", "AND"
		if x.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			geOp, leOp, join = "<", ">", "OR"
		}
		ge, err := a.operator(geOp, l, lo)
		if err != nil {
			return nil, err
		}
		le, err := a.operator(leOp, l, hi)
		if err != nil {
			return nil, err
		}
		return &ruleNode{kind: rBool, t: types.BoolT, name: join, args: []*ruleNode{ge, le}}, nil
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NULLIF:
		ns, err := a.nodes([]*pg_query.Node{x.Lexpr, x.Rexpr})
		if err != nil {
			return nil, err
		}
		eq, err := a.operator("=", ns[0], ns[1])
		if err != nil {
			return nil, err
		}
		if x.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return &ruleNode{kind: rNullIf, t: eq.args[0].t, args: eq.args}, nil
		}
		d := &ruleNode{kind: rDistinct, t: types.BoolT, args: eq.args}
		if x.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			return &ruleNode{kind: rBool, t: types.BoolT, name: "NOT", args: []*ruleNode{d}}, nil
		}
		return d, nil
	}
	return nil, errRuleForm("this operator form")
}

// arrayOp is "l op ANY (r)" or ALL, r an array, its elements and l
// coerced to the operator's types (the array by an array cast).
func (a *ruleAnalyzer) arrayOp(op string, l, r *ruleNode, any bool) (*ruleNode, error) {
	if !r.t.IsArray() {
		return nil, errRuleForm("ANY of a non-array")
	}
	elem := &ruleNode{kind: rVar, t: *r.t.Elem}
	if !crossTypeOperator(op, l.t, elem.t) {
		castTo, err := a.resolve(op, []*ruleNode{l, elem})
		if err != nil {
			return nil, err
		}
		if l, err = a.coerce(l, castTo[0]); err != nil {
			return nil, err
		}
		if castTo[1].Family != types.Unknown && !sameType(castTo[1], elem.t) {
			if r, err = a.coerce(r, types.ArrayOf(castTo[1], 1)); err != nil {
				return nil, err
			}
		}
	}
	return &ruleNode{kind: rArrayOp, t: types.BoolT, name: op, args: []*ruleNode{l, r}, any: any}, nil
}

// in is "l IN (list)" (op =) or NOT IN (op <>), as transformAExprIn
// builds it: the list's values that read no column in an ARRAY of the
// common type of l and them, compared with = ANY (<> ALL) when there are
// several; each other value compared on its own, joined by OR (AND).
func (a *ruleAnalyzer) in(op string, x *pg_query.A_Expr) (*ruleNode, error) {
	l, err := a.node(x.Lexpr)
	if err != nil {
		return nil, err
	}
	items, err := a.nodes(x.Rexpr.GetList().GetItems())
	if err != nil {
		return nil, err
	}
	var consts, vars []*ruleNode
	for _, it := range items {
		if it.kind == rRow {
			return nil, errRuleForm("IN of rows")
		}
		if hasVar(it) {
			vars = append(vars, it)
		} else {
			consts = append(consts, it)
		}
	}
	var result *ruleNode
	rest := items
	if len(consts) > 1 {
		common, err := commonRuleType("IN", l.t, consts)
		if err != nil {
			return nil, err
		}
		common.Mod = -1
		for i := range consts {
			if consts[i], err = a.coerce(consts[i], common); err != nil {
				return nil, err
			}
		}
		arr := &ruleNode{kind: rArray, t: types.ArrayOf(common, 1), args: consts}
		if result, err = a.arrayOp(op, l, arr, op != "<>"); err != nil {
			return nil, err
		}
		rest = vars
	}
	join := "OR"
	if op == "<>" {
		join = "AND"
	}
	for _, it := range rest {
		cmp, err := a.operator(op, l, it)
		if err != nil {
			return nil, err
		}
		if result == nil {
			result = cmp
		} else {
			result = &ruleNode{kind: rBool, t: types.BoolT, name: join, args: []*ruleNode{result, cmp}}
		}
	}
	return result, nil
}

// hasVar reports whether r reads a column.
func hasVar(r *ruleNode) bool {
	if r.kind == rVar {
		return true
	}
	for _, c := range r.args {
		if hasVar(c) {
			return true
		}
	}
	return r.caseArg != nil && hasVar(r.caseArg)
}

// common is COALESCE, GREATEST, LEAST or ARRAY[]: its arguments coerced
// to their common type (text when all are untyped literals).
func (a *ruleAnalyzer) common(kind ruleKind, name string, ns []*pg_query.Node) (*ruleNode, error) {
	args, err := a.nodes(ns)
	if err != nil {
		return nil, err
	}
	ts := nodeTypes(args)
	t, err := commonType(name, ts)
	if err != nil {
		return nil, err
	}
	if t.Family == types.Unknown {
		t = types.TextT
	}
	for i := range args {
		if args[i], err = a.coerce(args[i], t); err != nil {
			return nil, err
		}
	}
	return &ruleNode{kind: kind, t: t, name: name, args: args}, nil
}

// caseExpr is CASE: its results coerced to their common type, a missing
// ELSE a NULL of it.
func (a *ruleAnalyzer) caseExpr(ce *pg_query.CaseExpr) (*ruleNode, error) {
	r := &ruleNode{kind: rCase}
	var err error
	if ce.Arg != nil {
		if r.caseArg, err = a.node(ce.Arg); err != nil {
			return nil, err
		}
	}
	var results []*ruleNode
	var conds []*ruleNode
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		cond, err := a.node(cw.Expr)
		if err != nil {
			return nil, err
		}
		if r.caseArg != nil {
			eq, err := a.operator("=", r.caseArg, cond)
			if err != nil {
				return nil, err
			}
			cond = eq.args[1]
		} else if cond, err = a.coerce(cond, types.BoolT); err != nil {
			return nil, err
		}
		res, err := a.node(cw.Result)
		if err != nil {
			return nil, err
		}
		conds, results = append(conds, cond), append(results, res)
	}
	var def *ruleNode
	if ce.Defresult != nil {
		if def, err = a.node(ce.Defresult); err != nil {
			return nil, err
		}
	} else {
		def = &ruleNode{kind: rConst, t: types.UnknownT, isNull: true}
	}
	t, err := commonRuleType("CASE", def.t, results)
	if err != nil {
		return nil, err
	}
	for i := range results {
		res, err := a.coerce(results[i], t)
		if err != nil {
			return nil, err
		}
		r.args = append(r.args, conds[i], res)
	}
	if def, err = a.coerce(def, t); err != nil {
		return nil, err
	}
	r.args = append(r.args, def)
	r.t = t
	return r, nil
}

// funcCall is a function call with its arguments coerced to the
// function's parameter types.
func (a *ruleAnalyzer) funcCall(n *pg_query.Node, fc *pg_query.FuncCall) (*ruleNode, error) {
	if fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.Over != nil || fc.FuncVariadic {
		return nil, errRuleForm("this function call")
	}
	names := strList(fc.Funcname)
	if len(names) > 1 && names[0] != "pg_catalog" {
		return nil, errRuleForm("a qualified function name")
	}
	name := names[len(names)-1]
	for _, arg := range fc.Args {
		if arg.GetNamedArgExpr() != nil {
			return nil, errRuleForm("named arguments")
		}
	}
	args, err := a.nodes(fc.Args)
	if err != nil {
		return nil, err
	}
	if name == "nextval" && len(args) == 1 && args[0].kind == rConst && (args[0].t.Family == types.Unknown || args[0].t.Family == types.RegClass) {
		// nextval('seq'): the name, as regclass prints it (syscat
		// qualifies it as the search path needs); looking the sequence
		// up is not needed to print it.
		args[0] = &ruleNode{kind: rConst, t: types.T{Family: types.RegClass, Mod: -1}, text: args[0].text}
		return &ruleNode{kind: rFunc, t: types.Int8T, name: name, args: args}, nil
	}
	e, err := a.b.bindExpr(a.sc, n)
	if err != nil {
		return nil, err
	}
	ts := nodeTypes(args)
	ov, castTo, err := functions.Resolve(name, ts)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if i < len(castTo) && !anyParam(ov, i) {
			if args[i], err = a.coerce(args[i], castTo[i]); err != nil {
				return nil, err
			}
		}
	}
	r := &ruleNode{kind: rFunc, t: e.Type(), name: ident.Quote(name), args: args}
	if fc.Funcformat == pg_query.CoercionForm_COERCE_SQL_SYNTAX {
		return sqlSyntax(r, name)
	}
	return r, nil
}

// anyParam reports whether overload ov's parameter i is "any", which
// takes its argument as it is (an untyped literal stays unknown).
func anyParam(ov *functions.Overload, i int) bool {
	if len(ov.Args) == 0 {
		return false
	}
	p := ov.Args[min(i, len(ov.Args)-1)]
	return p.Family == types.Unknown && p.Domain == "any"
}

// sqlSyntax is a call the grammar made of SQL syntax (EXTRACT(field FROM
// x), SUBSTRING(s FROM i FOR n), POSITION(a IN b), TRIM(BOTH FROM s),
// x AT TIME ZONE z), which ruleutils prints in that syntax again.
func sqlSyntax(r *ruleNode, name string) (*ruleNode, error) {
	ok := false
	switch name {
	case "extract":
		ok = len(r.args) == 2 && r.args[0].kind == rConst && !r.args[0].isNull
	case "substring":
		ok = len(r.args) >= 2 && r.args[1].t.IsInteger()
	case "position", "timezone":
		ok = len(r.args) == 2
	case "btrim", "ltrim", "rtrim":
		ok = len(r.args) >= 1
	}
	if !ok {
		return nil, errRuleForm("this SQL-syntax function")
	}
	r.kind, r.name = rSQLFunc, name
	return r, nil
}

// indirection is arr[i] (subscripts only).
func (a *ruleAnalyzer) indirection(n *pg_query.Node, ind *pg_query.A_Indirection) (*ruleNode, error) {
	e, err := a.b.bindExpr(a.sc, n)
	if err != nil {
		return nil, err
	}
	arg, err := a.node(ind.Arg)
	if err != nil {
		return nil, err
	}
	r := &ruleNode{kind: rSubscript, t: e.Type(), args: []*ruleNode{arg}}
	for _, i := range ind.Indirection {
		ai := i.GetAIndices()
		if ai == nil || ai.IsSlice {
			return nil, errRuleForm("this indirection")
		}
		idx, err := a.node(ai.Uidx)
		if err != nil {
			return nil, err
		}
		if idx, err = a.coerce(idx, types.Int4T); err != nil {
			return nil, err
		}
		r.args = append(r.args, idx)
	}
	return r, nil
}

// rulePrinter is ruleutils.c's get_rule_expr over ruleNodes, with
// PRETTYFLAG_INDENT (both forms indent CASE) and, when pretty,
// PRETTYFLAG_PAREN.
type rulePrinter struct {
	buf    strings.Builder
	pretty bool
	indent int
	// qualified prints a user type's name (an enum's, a domain's) as
	// format_type does.
	qualified func(schema, name string) string
}

// formatType is format_type_with_typemod's name for t.
func (p *rulePrinter) formatType(t types.T) string {
	if t.Enum != nil {
		return p.qualified(t.Enum.Schema, t.Enum.Name)
	}
	if t.IsArray() {
		return p.formatType(*t.Elem) + "[]"
	}
	if t.Family == types.Char && t.Mod < 0 {
		return "bpchar"
	}
	return t.String()
}

// keyword is appendContextKeyword: with indentation, a new line
// indented to the level, the keyword, the level moved.
func (p *rulePrinter) keyword(s string, before, after int) {
	p.indent += before
	trimmed := strings.TrimRight(p.buf.String(), " ")
	p.buf.Reset()
	p.buf.WriteString(trimmed)
	p.buf.WriteByte('\n')
	p.buf.WriteString(strings.Repeat(" ", max(p.indent, 0)))
	p.buf.WriteString(s)
	p.indent = max(p.indent+after, 0)
}

// open and close are the parentheses the plain form puts around an
// operator, a test or a boolean (!PRETTY_PAREN).
func (p *rulePrinter) open() {
	if !p.pretty {
		p.buf.WriteByte('(')
	}
}

func (p *rulePrinter) close() {
	if !p.pretty {
		p.buf.WriteByte(')')
	}
}

// paren is get_rule_expr_paren: n in parentheses when pretty printing
// and n is not simple under parent.
func (p *rulePrinter) paren(n *ruleNode, showImplicit bool, parent *ruleNode) {
	need := p.pretty && !isSimple(n, parent)
	if need {
		p.buf.WriteByte('(')
	}
	p.expr(n, showImplicit)
	if need {
		p.buf.WriteByte(')')
	}
}

// expr is get_rule_expr.
func (p *rulePrinter) expr(n *ruleNode, showImplicit bool) {
	b := &p.buf
	switch n.kind {
	case rVar:
		b.WriteString(n.text)
	case rConst:
		p.constant(n, 0)
	case rOp:
		p.open()
		if len(n.args) == 1 {
			b.WriteString(n.name + " ")
			p.paren(n.args[0], true, n)
		} else {
			p.paren(n.args[0], true, n)
			b.WriteString(" " + n.name + " ")
			p.paren(n.args[1], true, n)
		}
		p.close()
	case rFunc:
		b.WriteString(n.name + "(")
		for i, arg := range n.args {
			if i > 0 {
				b.WriteString(", ")
			}
			p.expr(arg, true)
		}
		b.WriteByte(')')
	case rCast:
		if n.implicit && !showImplicit {
			p.paren(n.args[0], false, n)
			return
		}
		p.coercion(n)
	case rBool:
		if n.name == "NOT" {
			p.open()
			b.WriteString("NOT ")
			p.paren(n.args[0], false, n)
			p.close()
			return
		}
		p.open()
		for i, arg := range n.args {
			if i > 0 {
				b.WriteString(" " + n.name + " ")
			}
			p.paren(arg, false, n)
		}
		p.close()
	case rNullTest:
		p.open()
		p.paren(n.args[0], true, n)
		b.WriteString(" " + n.name)
		p.close()
	case rBoolTest:
		p.open()
		p.paren(n.args[0], false, n)
		b.WriteString(" " + n.name)
		p.close()
	case rDistinct:
		p.open()
		p.paren(n.args[0], true, n)
		b.WriteString(" IS DISTINCT FROM ")
		p.paren(n.args[1], true, n)
		p.close()
	case rNullIf:
		b.WriteString("NULLIF(")
		p.expr(n.args[0], true)
		b.WriteString(", ")
		p.expr(n.args[1], true)
		b.WriteByte(')')
	case rArrayOp:
		p.open()
		p.paren(n.args[0], true, n)
		quant := "ALL"
		if n.any {
			quant = "ANY"
		}
		b.WriteString(" " + n.name + " " + quant + " (")
		p.paren(n.args[1], true, n)
		b.WriteByte(')')
		p.close()
	case rCase:
		p.keyword("CASE", 0, 4)
		if n.caseArg != nil {
			b.WriteByte(' ')
			p.expr(n.caseArg, true)
		}
		for i := 0; i+1 < len(n.args); i += 2 {
			p.keyword("WHEN ", 0, 0)
			p.expr(n.args[i], false)
			b.WriteString(" THEN ")
			p.expr(n.args[i+1], true)
		}
		p.keyword("ELSE ", 0, 0)
		p.expr(n.args[len(n.args)-1], true)
		p.keyword("END", -4, 0)
	case rCoalesce, rMinMax:
		b.WriteString(n.name + "(")
		p.list(n.args)
		b.WriteByte(')')
	case rArray:
		b.WriteString("ARRAY[")
		p.list(n.args)
		b.WriteByte(']')
		if len(n.args) == 0 {
			// An empty ARRAY[] shows the type its elements would have
			// been coerced to.
			b.WriteString("::" + p.formatType(n.t))
		}
	case rRow:
		b.WriteString("ROW(")
		p.list(n.args)
		b.WriteByte(')')
	case rSQLValue:
		b.WriteString(n.name)
	case rSQLFunc:
		p.sqlFunc(n)
	case rCollate:
		p.open()
		p.paren(n.args[0], showImplicit, n)
		b.WriteString(" COLLATE " + n.name)
		p.close()
	case rSubscript:
		need := n.args[0].kind != rVar
		if need {
			b.WriteByte('(')
		}
		p.expr(n.args[0], true)
		if need {
			b.WriteByte(')')
		}
		for _, idx := range n.args[1:] {
			b.WriteByte('[')
			p.expr(idx, true)
			b.WriteByte(']')
		}
	}
}

// sqlFunc is get_func_sql_syntax: the call in the syntax the grammar
// read, its arguments without their implicit casts.
func (p *rulePrinter) sqlFunc(n *ruleNode) {
	b := &p.buf
	switch n.name {
	case "extract":
		b.WriteString("EXTRACT(" + n.args[0].text + " FROM ")
		p.expr(n.args[1], false)
		b.WriteByte(')')
	case "substring":
		b.WriteString("SUBSTRING(")
		p.expr(n.args[0], false)
		b.WriteString(" FROM ")
		p.expr(n.args[1], false)
		if len(n.args) == 3 {
			b.WriteString(" FOR ")
			p.expr(n.args[2], false)
		}
		b.WriteByte(')')
	case "position":
		b.WriteString("POSITION((")
		p.expr(n.args[1], false)
		b.WriteString(") IN (")
		p.expr(n.args[0], false)
		b.WriteString("))")
	case "timezone":
		b.WriteByte('(')
		p.paren(n.args[1], false, n)
		b.WriteString(" AT TIME ZONE ")
		p.paren(n.args[0], false, n)
		b.WriteByte(')')
	default:
		b.WriteString("TRIM(" + map[string]string{"btrim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}[n.name])
		if len(n.args) == 2 {
			b.WriteByte(' ')
			p.expr(n.args[1], false)
		}
		b.WriteString(" FROM ")
		p.expr(n.args[0], false)
		b.WriteByte(')')
	}
}

// list prints arguments separated by commas, each showing its implicit
// casts.
func (p *rulePrinter) list(args []*ruleNode) {
	for i, arg := range args {
		if i > 0 {
			p.buf.WriteString(", ")
		}
		p.expr(arg, true)
	}
}

// coercion is get_coercion_expr: (arg)::type, a constant of the type
// itself (under a modifier's cast) without its own label.
func (p *rulePrinter) coercion(n *ruleNode) {
	arg := n.args[0]
	if arg.kind == rConst && sameType(arg.t, n.t) && arg.t.Mod < 0 && n.domain == nil {
		p.constant(arg, -1)
	} else {
		p.open()
		p.paren(arg, false, n)
		p.close()
	}
	if n.domain != nil {
		p.buf.WriteString("::" + p.qualified(n.domain.Schema, n.domain.Name))
		return
	}
	p.buf.WriteString("::" + p.formatType(n.t))
}

// constant is get_const_expr: showType -1 never labels the constant with
// its type, 0 labels it unless it reads back as that type without.
func (p *rulePrinter) constant(n *ruleNode, showType int) {
	b := &p.buf
	if n.isNull {
		b.WriteString("NULL")
		if showType >= 0 && n.t.Family != types.Unknown && n.t.Family != types.Null {
			b.WriteString("::" + p.formatType(n.t))
		}
		return
	}
	needLabel := false
	quote := func(s string) { b.WriteString("'" + strings.ReplaceAll(s, "'", "''") + "'") }
	switch n.t.Family {
	case types.Int4:
		if !strings.HasPrefix(n.text, "-") {
			b.WriteString(n.text)
		} else {
			quote(n.text)
			needLabel = true
		}
	case types.Numeric:
		if n.text != "" && n.text[0] >= '0' && n.text[0] <= '9' && strings.ContainsAny(n.text, "eE.") {
			b.WriteString(n.text)
		} else {
			quote(n.text)
			needLabel = true
		}
		needLabel = needLabel || n.t.Mod >= 0
	case types.Bool:
		if n.text == "t" || n.text == "true" {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case types.Unknown:
		quote(n.text)
	default:
		quote(n.text)
		needLabel = true
	}
	if needLabel && showType >= 0 {
		b.WriteString("::" + p.formatType(n.t))
	}
}

// isSimple is ruleutils.c's isSimpleNode: whether n needs no parentheses
// of its own under parent when pretty printing.
func isSimple(n, parent *ruleNode) bool {
	switch n.kind {
	case rVar, rConst, rFunc, rSQLFunc, rCoalesce, rMinMax, rArray, rRow, rSQLValue, rNullIf, rCase, rSubscript:
		return true
	case rCast:
		if n.form == castFunc {
			return true // FuncExpr
		}
		return isSimple(n.args[0], n)
	case rOp:
		if parent.kind == rOp {
			op, parentOp := binaryOp(n), binaryOp(parent)
			lo := func(s string) bool { return s == "+" || s == "-" }
			hi := func(s string) bool { return s == "*" || s == "/" || s == "%" }
			if !(lo(op) || hi(op)) || !(lo(parentOp) || hi(parentOp)) {
				return false
			}
			if hi(op) && lo(parentOp) {
				return true
			}
			if lo(op) && hi(parentOp) {
				return false
			}
			return parent.args[0] == n
		}
		return simpleUnder(parent)
	case rNullTest, rBoolTest, rDistinct:
		return simpleUnder(parent)
	case rBool:
		if parent.kind == rBool {
			switch n.name {
			case "NOT", "AND":
				return parent.name == "AND" || parent.name == "OR"
			case "OR":
				return parent.name == "OR"
			}
			return false
		}
		return simpleUnder(parent)
	}
	return false
}

// binaryOp is get_simple_binary_op_name: the operator of a binary
// operator node, "" otherwise.
func binaryOp(n *ruleNode) string {
	if n.kind == rOp && len(n.args) == 2 {
		return n.name
	}
	return ""
}

// simpleUnder is isSimpleNode's test of the parent for an operator, a
// test or a boolean: a function call or a node with separators of its
// own needs no parentheses, a cast and anything else does.
func simpleUnder(parent *ruleNode) bool {
	switch parent.kind {
	case rFunc, rSQLFunc:
		return true
	case rBool, rSubscript, rArray, rRow, rCoalesce, rMinMax, rNullIf, rCase:
		return true
	}
	return false
}

// commonRuleType is the type PostgreSQL resolves first and the types of
// nodes to together (the common type of context's rules), text when all
// are unknown.
func commonRuleType(context string, first types.T, nodes []*ruleNode) (types.T, error) {
	t, err := commonType(context, append([]types.T{first}, nodeTypes(nodes)...))
	if err != nil {
		return types.T{}, err
	}
	if t.Family == types.Unknown {
		t = types.TextT
	}
	return t, nil
}

// nodeTypes is the types of nodes.
func nodeTypes(nodes []*ruleNode) []types.T {
	ts := make([]types.T, len(nodes))
	for i, n := range nodes {
		ts[i] = n.t
	}
	return ts
}
