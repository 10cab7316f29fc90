package sql

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// bindCondition binds a boolean clause (WHERE, HAVING, ON).
func (b *Binder) bindCondition(sc *scope, n *pg_query.Node, clause string) (Expr, error) {
	saved, savedStored := b.clause, b.storedExpr
	b.clause = clause
	if clause == "CHECK" {
		b.storedExpr = "check constraint"
	}
	e, err := b.bindExpr(sc, n)
	b.clause, b.storedExpr = saved, savedStored
	if err != nil {
		return nil, err
	}
	if t := e.Type(); t.Family != types.Bool && t.Family != types.Unknown && t.Family != types.Null {
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, t)
	}
	return b.coerce(e, types.BoolT, castImplicit)
}

// bindLimit binds the count or offset of LIMIT / OFFSET (clause names
// which) as a bigint; a value of a type with no assignment cast to it is
// PostgreSQL's 42804 naming the clause.
func (b *Binder) bindLimit(sc *scope, n *pg_query.Node, clause string) (Expr, error) {
	e, err := b.bindExpr(sc, n)
	if err != nil {
		return nil, err
	}
	out, err := b.coerce(e, types.Int8T, castAssignment)
	if c := pgerr.Code(err); c == pgerrcode.DatatypeMismatch || c == pgerrcode.CannotCoerce {
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "argument of %s must be type bigint, not type %s", clause, e.Type())
	}
	return out, err
}

// bindExprWant binds n and coerces it (by assignment rules) to want.
func (b *Binder) bindExprWant(sc *scope, n *pg_query.Node, want types.T) (Expr, error) {
	e, err := b.bindExpr(sc, n)
	if err != nil {
		return nil, err
	}
	return b.coerce(e, want, castAssignment)
}

// bindExpr binds one expression parse tree against a scope.
func (b *Binder) bindExpr(sc *scope, n *pg_query.Node) (Expr, error) {
	if n == nil {
		return nil, pgerr.New(pgerrcode.SyntaxError, "missing expression")
	}
	if b.exprDepth >= maxExprDepth {
		return nil, stackDepthExceeded()
	}
	b.exprDepth++
	defer func() { b.exprDepth-- }()
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		if isStar(v.ColumnRef) {
			// t.* inside an expression is t's whole row.
			if f := v.ColumnRef.Fields; len(f) == 2 {
				if e, found, err := b.wholeRowOuter(sc, f[0].GetString_().GetSval()); found || err != nil {
					return e, err
				}
			}
			return nil, pgerr.NotSupported("* in this position")
		}
		return b.resolveColumn(sc, v.ColumnRef)
	case *pg_query.Node_AConst:
		return bindConst(b.constant(v.AConst))
	case *pg_query.Node_ParamRef:
		return b.bindParam(v.ParamRef)
	case *pg_query.Node_TypeCast:
		return b.bindTypeCast(sc, v.TypeCast)
	case *pg_query.Node_AExpr:
		return b.bindAExpr(sc, v.AExpr)
	case *pg_query.Node_BoolExpr:
		return b.bindBoolExpr(sc, v.BoolExpr)
	case *pg_query.Node_NullTest:
		arg, err := b.bindExpr(sc, v.NullTest.Arg)
		if err != nil {
			return nil, err
		}
		return &IsNull{Arg: arg, Negate: v.NullTest.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL}, nil
	case *pg_query.Node_BooleanTest:
		return b.bindBooleanTest(sc, v.BooleanTest)
	case *pg_query.Node_FuncCall:
		return b.bindFuncCall(sc, v.FuncCall)
	case *pg_query.Node_CaseExpr:
		return b.bindCase(sc, v.CaseExpr)
	case *pg_query.Node_CoalesceExpr:
		srfs := b.srfs
		args, err := b.bindExprs(sc, v.CoalesceExpr.Args)
		if err != nil {
			return nil, err
		}
		if b.srfs != srfs {
			return nil, srfNotAllowed("COALESCE", v.CoalesceExpr.Location)
		}
		t, args, err := b.unify("COALESCE", args)
		if err != nil {
			return nil, err
		}
		return &Coalesce{Args: args, T: t}, nil
	case *pg_query.Node_MinMaxExpr:
		name := "greatest"
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			name = "least"
		}
		args, err := b.bindExprs(sc, v.MinMaxExpr.Args)
		if err != nil {
			return nil, err
		}
		t, args, err := b.unify(strings.ToUpper(name), args)
		if err != nil {
			return nil, err
		}
		return b.bindCall(name, args, func([]types.T) types.T { return t })
	case *pg_query.Node_SqlvalueFunction:
		return b.bindSQLValueFunction(v.SqlvalueFunction)
	case *pg_query.Node_SubLink:
		return b.bindSubLink(sc, v.SubLink)
	case *pg_query.Node_AArrayExpr:
		return b.bindArrayExpr(sc, v.AArrayExpr, types.UnknownT)
	case *pg_query.Node_AIndirection:
		return b.bindIndirection(sc, v.AIndirection)
	case *pg_query.Node_GroupingFunc:
		return b.bindGroupingFunc(sc, v.GroupingFunc)
	case *pg_query.Node_RowExpr:
		args, err := b.bindRowArgs(sc, v.RowExpr.Args)
		if err != nil {
			return nil, err
		}
		// The fields are f1, f2, ... as in PostgreSQL, so (ROW(...)).f1
		// reads one and the binary form names each field's type.
		t := types.RecordT
		for i, a := range args {
			ft := a.Type()
			if ft.Family == types.Unknown || ft.Family == types.Null {
				ft = types.TextT
			}
			t.Fields = append(t.Fields, types.Field{Name: "f" + itoa(int64(i+1)), T: ft})
		}
		return &RowExpr{Args: args, T: t}, nil
	case *pg_query.Node_CollateClause:
		if err := checkCollation(v.CollateClause.Collname, v.CollateClause.Location); err != nil {
			return nil, err
		}
		return b.bindExpr(sc, v.CollateClause.Arg)
	case *pg_query.Node_SetToDefault:
		return nil, pgerr.New(pgerrcode.SyntaxError, "DEFAULT is not allowed in this context")
	}
	return nil, pgerr.NotSupported("%s", expressionName(n))
}

// bindRowArgs binds the fields of ROW(...), where t.* stands for t's
// columns, one field each, as in PostgreSQL's transformRowExpr: ROW(t.*, 1)
// has a field per column of t and then 1. (A bare * there is a syntax
// error of the parser.)
func (b *Binder) bindRowArgs(sc *scope, ns []*pg_query.Node) ([]Expr, error) {
	var args []Expr
	for _, n := range ns {
		cr := n.GetColumnRef()
		if cr == nil || !isStar(cr) {
			e, err := b.bindExpr(sc, n)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			continue
		}
		e, err := b.bindExpr(sc, n)
		if err != nil {
			return nil, err
		}
		// The whole row is a RowExpr of the columns, or a CASE giving
		// NULL for a null-extended row and that RowExpr otherwise: its
		// columns are the fields either way (NULLs when null-extended).
		if c, ok := e.(*Case); ok && c.Else != nil {
			e = c.Else
		}
		row, ok := e.(*RowExpr)
		if !ok {
			return nil, pgerr.NotSupported("* in this position")
		}
		args = append(args, row.Args...)
	}
	return args, nil
}

func (b *Binder) bindExprs(sc *scope, ns []*pg_query.Node) ([]Expr, error) {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		e, err := b.bindExpr(sc, n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// unify coerces args to their common type.
func (b *Binder) unify(context string, args []Expr) (types.T, []Expr, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := commonType(context, ts)
	if err != nil {
		return t, nil, err
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		if out[i], err = b.coerce(a, t, castImplicit); err != nil {
			return t, nil, err
		}
	}
	return t, out, nil
}

// correlation collects the values of outer rows that a subquery being
// bound reads: they become its Args, and OuterRefs inside its plan.
type correlation struct {
	args []Expr
}

// slot returns the index of e (a column of the outer query level, or an
// outer value of that level) among the args, adding it once.
func (c *correlation) slot(e Expr) int {
	for i, a := range c.args {
		switch x := a.(type) {
		case *ColumnRef:
			if y, ok := e.(*ColumnRef); ok && y.Index == x.Index {
				return i
			}
		case *OuterRef:
			if y, ok := e.(*OuterRef); ok && y.Slot == x.Slot {
				return i
			}
		}
	}
	c.args = append(c.args, e)
	return len(c.args) - 1
}

// outerColumn is the expression for column idx of scope level s, read from
// the query level of sc inside it: a ColumnRef at s itself, else an
// OuterRef through the correlation of each subquery boundary in between.
// ok is false when a boundary is not a subquery expression (a column of
// a sibling FROM item: LATERAL, unsupported).
func (b *Binder) outerColumn(sc, s *scope, idx int, name string) (Expr, bool) {
	c := s.cols[idx]
	b.useCol(c)
	var e Expr = &ColumnRef{Index: idx, Name: name, T: c.T}
	// levels[j] is the scope j levels out from sc.
	var levels []*scope
	for l := sc; l != s; l = l.outer {
		levels = append(levels, l)
	}
	for j := len(levels) - 1; j >= 0; j-- {
		corr := b.corrs[levels[j].outer]
		if corr == nil {
			return nil, false
		}
		e = &OuterRef{Slot: corr.slot(e), Name: name, T: c.T}
	}
	if len(levels) > 0 {
		b.outerRefs++
	}
	return e, true
}

// resolveColumn finds a (possibly qualified) column in the scope or, for
// a correlated subquery, in the scope of an enclosing query.
func (b *Binder) resolveColumn(sc *scope, cr *pg_query.ColumnRef) (Expr, error) {
	names := strList(cr.Fields)
	var qual, name string
	switch len(names) {
	case 1:
		name = names[0]
	case 2:
		qual, name = names[0], names[1]
	case 3:
		qual, name = names[1], names[2]
	default:
		return nil, pgerr.New(pgerrcode.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	for s := sc; s != nil; s = s.outer {
		idx := -1
		qualFound := false
		for i, c := range s.cols {
			if qual != "" && c.Table != qual {
				continue
			}
			qualFound = true
			if c.Name != name || ((c.Hidden && !c.ByName || c.Merged) && qual == "") {
				continue
			}
			if idx >= 0 {
				return nil, pgerr.New(pgerrcode.AmbiguousColumn, "column reference \"%s\" is ambiguous", name).WithPosition(cr.Location + 1)
			}
			idx = i
		}
		if idx < 0 && qual == "" {
			// The alias of a FROM function returning one value stands
			// for that value, as PostgreSQL's whole-row reference does;
			// any other FROM item's alias is a record of its columns.
			idx = singleColumnOf(s.cols, name)
		}
		if idx < 0 && name == "tableoid" {
			if e, err := tableOIDColumn(s, qual, cr.Location); e != nil || err != nil {
				return e, err
			}
		}
		if idx < 0 && IsSystemColumn(name) && name != "tableoid" {
			e, err := systemColumn(s, qual, name, cr.Location)
			if e != nil || err != nil {
				if ref, ok := e.(*ColumnRef); ok && s != sc {
					// RETURNING's own row, from a subquery of it.
					if e, ok = b.outerColumn(sc, s, ref.Index, name); !ok {
						return nil, pgerr.NotSupported("LATERAL references (column \"%s\" of another FROM item)", name)
					}
				}
				return e, err
			}
		}
		if idx >= 0 {
			e, ok := b.outerColumn(sc, s, idx, name)
			if !ok {
				return nil, pgerr.NotSupported("LATERAL references (column \"%s\" of another FROM item)", name)
			}
			if b.trace != nil {
				b.trace.col(cr.Location, s.cols[idx])
			}
			return e, nil
		}
		if qual != "" && s == sc && !qualFound && s.outer == nil {
			return nil, pgerr.New(pgerrcode.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual).WithPosition(cr.Location + 1)
		}
	}
	if qual != "" { // PostgreSQL quotes neither part here
		return nil, pgerr.New(pgerrcode.UndefinedColumn, "column %s.%s does not exist", qual, name).WithPosition(cr.Location + 1)
	}
	// A name no level has as a column may be a FROM item's alias used as
	// a value: its whole row.
	if e, found, err := b.wholeRowOuter(sc, name); found || err != nil {
		return e, err
	}
	return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", name).WithPosition(cr.Location + 1)
}

// tableOIDColumn is the system column tableoid of the table FROM item
// (qual, or the only one) of scope s: its OID, a constant. nil when s has
// no such table.
func tableOIDColumn(s *scope, qual string, location int32) (Expr, error) {
	oids := map[string]uint32{}
	for _, c := range s.cols {
		if c.TableOID != 0 && c.Attnum > 0 && (qual == "" || c.Table == qual) {
			oids[c.Table] = c.TableOID
		}
	}
	if len(oids) > 1 {
		return nil, pgerr.New(pgerrcode.AmbiguousColumn, "column reference \"tableoid\" is ambiguous").WithPosition(location + 1)
	}
	for _, oid := range oids {
		return &Const{Value: int64(oid), T: types.OidT}, nil
	}
	return nil, nil
}

// IsSystemColumn reports whether name is one of PostgreSQL's system
// columns, which every table has and no user column may be named.
func IsSystemColumn(name string) bool {
	switch name {
	case "tableoid", "xmin", "xmax", "cmin", "cmax", "ctid":
		return true
	}
	return false
}

// FrozenXid is the xmin every stored row reads as: cairn keeps no
// per-row transaction IDs, and a committed row is visible to every later
// transaction, as PostgreSQL's frozen rows are (FrozenTransactionId).
const FrozenXid = 2

// firstNormalObjectID is PostgreSQL's FirstNormalObjectId: the system
// catalogs' OIDs are below it.
const firstNormalObjectID = 16384

// systemColumn binds xmin, xmax, cmin, cmax or ctid of the table FROM
// item (qual, or the only one) of scope s; nil when s has no table.
//
// cairn records no transaction per row: a row has xmin FrozenXid (in
// RETURNING too, so that a client comparing it later, as an xmin
// concurrency token, finds it equal), xmax 0 when a scan reads it (no
// transaction deleted or locked it), cmin and cmax 0. The RETURNING list
// of INSERT, UPDATE and DELETE reads hidden columns the statement fills
// (ReturningSystemColumns): there xmax tells the rows ON CONFLICT DO
// UPDATE updated (the transaction's ID, as in PostgreSQL) from those it
// inserted (0), the idiom clients use to count them, and is the
// transaction's ID for the rows DELETE removes. ctid (a tid, the row's
// physical place) is refused.
func systemColumn(s *scope, qual, name string, location int32) (Expr, error) {
	// A table FROM item shows by its hidden row ID (a subquery's or a
	// view's columns have none, nor system columns), RETURNING's row by
	// its hidden system columns.
	tables := map[string]bool{}
	for _, c := range s.cols {
		if c.Hidden && (c.Name == catalog.RowIDColumn || c.Name == name) && (qual == "" || c.Table == qual) {
			tables[c.Table] = true
		}
	}
	if len(tables) == 0 {
		// A system catalog (an OID below FirstNormalObjectId; its views
		// have none) has the system columns too: pgAdmin reads
		// pg_class.xmin. Its rows read as frozen ones.
		for _, c := range s.cols {
			if c.TableOID != 0 && c.TableOID < firstNormalObjectID && c.Attnum > 0 && (qual == "" || c.Table == qual) {
				tables[c.Table] = true
			}
		}
	}
	if len(tables) > 1 {
		return nil, pgerr.New(pgerrcode.AmbiguousColumn, "column reference \"%s\" is ambiguous", name).WithPosition(location + 1)
	}
	if len(tables) == 0 {
		return nil, nil
	}
	for i, c := range s.cols {
		if c.Hidden && c.Name == name && tables[c.Table] {
			return &ColumnRef{Index: i, Name: name, T: c.T}, nil
		}
	}
	switch name {
	case "xmin":
		return &Const{Value: int64(FrozenXid), T: types.XidT}, nil
	case "xmax":
		return &Const{Value: int64(0), T: types.XidT}, nil
	case "cmin", "cmax":
		return &Const{Value: int64(0), T: types.CidT}, nil
	}
	return nil, pgerr.NotSupported("system column \"%s\"", name).WithPosition(location + 1)
}

// ReturningSystemColumns are the hidden columns the RETURNING list of
// INSERT, UPDATE and DELETE may read after the table's columns, in this
// order: the row version's xmin and xmax (exec fills them).
var ReturningSystemColumns = []string{"xmin", "xmax"}

// wholeRowOuter binds a FROM item's alias used as a value (to_jsonb(t),
// row_to_json(t), t.* as an argument), the nearest level's item of that
// name (an enclosing query's for a correlated or LATERAL subquery).
func (b *Binder) wholeRowOuter(sc *scope, alias string) (e Expr, found bool, err error) {
	for s := sc; s != nil; s = s.outer {
		if e, found, err := b.wholeRow(sc, s, alias); found || err != nil {
			return e, found, err
		}
	}
	return nil, false, nil
}

// wholeRow binds the whole row of scope s's FROM item alias, as seen from
// scope sc: a record of its visible columns, whose fields carry the column
// names. found is false when no FROM item of s has that alias.
func (b *Binder) wholeRow(sc, s *scope, alias string) (e Expr, found bool, err error) {
	t := types.RecordT
	var args []Expr
	for i, c := range s.cols {
		if c.Table != alias || c.Hidden {
			continue
		}
		ref, ok := b.outerColumn(sc, s, i, c.Name)
		if !ok {
			return nil, true, pgerr.NotSupported("whole-row references to another FROM item")
		}
		args = append(args, ref)
		t.Fields = append(t.Fields, types.Field{Name: c.Name, T: c.T})
	}
	if len(args) == 0 {
		return nil, false, nil
	}
	var row Expr = &RowExpr{Args: args, T: t}
	// The whole row of a table that an outer join null-extended is NULL,
	// not a record of NULLs (count(t.*) counts no row for it): a stored
	// row always has a row ID, a null-extended one has none.
	for i, c := range s.cols {
		if c.Table == alias && c.Hidden && c.Name == catalog.RowIDColumn {
			if id, ok := b.outerColumn(sc, s, i, c.Name); ok {
				row = &Case{Whens: []When{{Cond: &IsNull{Arg: id}, Result: &Const{Value: nil, T: t}}}, Else: row, T: t}
			}
			break
		}
	}
	return row, true, nil
}

// bindConst binds a literal: integers are int4 (int8 or numeric when
// larger), decimals numeric, strings of still-unknown type.
func bindConst(c *pg_query.A_Const) (Expr, error) {
	if c.Isnull {
		return &Const{Value: nil, T: types.NullT}, nil
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return &Const{Value: int64(v.Ival.Ival), T: types.Int4T}, nil
	case *pg_query.A_Const_Fval:
		s := v.Fval.Fval
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			// As make_const: -2147483648 (the grammar's negation of
			// the bigint 2147483648) is an integer.
			if i >= math.MinInt32 && i <= math.MaxInt32 {
				return &Const{Value: i, T: types.Int4T}, nil
			}
			return &Const{Value: i, T: types.Int8T}, nil
		}
		// numeric_in, as PostgreSQL reads the literal: 22003 beyond
		// numeric's range.
		d, err := types.ParseText(s, types.NumericT)
		if err != nil {
			return nil, err
		}
		return &Const{Value: d, T: types.NumericT}, nil
	case *pg_query.A_Const_Sval:
		return &Const{Value: v.Sval.Sval, T: types.UnknownT, Pos: c.Location + 1}, nil
	case *pg_query.A_Const_Boolval:
		return &Const{Value: v.Boolval.Boolval, T: types.BoolT}, nil
	case *pg_query.A_Const_Bsval:
		return nil, pgerr.NotSupported("bit string literals")
	}
	return &Const{Value: nil, T: types.NullT}, nil
}

func (b *Binder) bindParam(p *pg_query.ParamRef) (Expr, error) {
	idx := int(p.Number) - 1
	if idx < 0 || idx >= 65535 || b.NoParams {
		return nil, pgerr.New(pgerrcode.UndefinedParameter, "there is no parameter $%d", p.Number).WithPosition(p.Location + 1)
	}
	for len(b.Params) <= idx {
		b.Params = append(b.Params, types.UnknownT)
	}
	for len(b.paramsUsed) <= idx {
		b.paramsUsed = append(b.paramsUsed, false)
	}
	b.paramsUsed[idx] = true
	return &Param{Index: idx, T: b.Params[idx]}, nil
}

// arraySuffix is "[]" for a type name with array bounds, as PostgreSQL
// names a missing type ("type \"mood[]\" does not exist"), else "".
func arraySuffix(tn *pg_query.TypeName) string {
	if len(tn.ArrayBounds) > 0 {
		return "[]"
	}
	return ""
}

// maxCharLength is the longest char(n) or varchar(n) PostgreSQL takes
// (MaxAttrSize, 10 MB).
const maxCharLength = 10485760

// typeFromName resolves a parse-tree type name (with modifiers and array
// bounds) to a type.
func (b *Binder) typeFromName(tn *pg_query.TypeName) (types.T, error) {
	if td := b.lookupDomain(tn); td != nil {
		// A domain is its base type here; its constraints are the
		// caller's (a column's or a cast's) to apply.
		if len(tn.Typmods) > 0 {
			return types.UnknownT, pgerr.New(pgerrcode.SyntaxError, "type modifier is not allowed for type \"%s\"", td.Name)
		}
		if len(tn.ArrayBounds) > 0 {
			return types.UnknownT, pgerr.NotSupported("arrays of domain %s (cairn has no arrays of domains)", td.Name)
		}
		if tn.Setof {
			return types.UnknownT, pgerr.NotSupported("SETOF types")
		}
		return td.Domain.Base, nil
	}
	names := strList(tn.Names)
	name := strings.ToLower(names[len(names)-1])
	if names[len(names)-1] == "char" {
		// Only the quoted "char" reaches here as char: the grammar turns
		// SQL's char and character into bpchar.
		name = `"char"`
	}
	// A built-in name wins unless qualified by another schema than
	// pg_catalog (public.vector is pgvector's type, which lives there).
	t, ok := types.Named(name)
	if len(names) == 2 && names[0] != "pg_catalog" {
		if et, found := b.userType(names); found {
			t, ok = et, true
		} else if names[0] != "public" {
			ok = false
		}
	} else if !ok {
		t, ok = b.userType(names)
	}
	if !ok && len(names) == 2 && names[0] != "pg_catalog" {
		if _, known := b.Catalog.Schemas[names[0]]; !known && names[0] != "information_schema" {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
		return types.UnknownT, pgerr.New(pgerrcode.UndefinedObject, "type \"%s%s\" does not exist", strings.Join(names, "."), arraySuffix(tn))
	}
	if !ok && (name == "halfvec" || name == "sparsevec") {
		// pgvector's other vector types (LlamaIndex's use_halfvec declares
		// halfvec columns): named rather than 42704, which reads as if the
		// vector extension were missing.
		return types.UnknownT, pgerr.NotSupported("pgvector's %s type (cairn has vector)", name).WithPosition(tn.Location + 1)
	}
	if !ok {
		return types.UnknownT, pgerr.New(pgerrcode.UndefinedObject, "type \"%s%s\" does not exist", name, arraySuffix(tn)).WithPosition(tn.Location + 1)
	}
	if tn.Setof {
		return types.UnknownT, pgerr.NotSupported("SETOF types")
	}
	var mods []int64
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c != nil {
			c = b.constant(c)
		}
		if c == nil {
			return types.UnknownT, pgerr.New(pgerrcode.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		iv, ok := c.Val.(*pg_query.A_Const_Ival)
		if !ok {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, int64(iv.Ival.Ival))
	}
	switch {
	case len(mods) == 0:
	case t.Family == types.Varchar || t.Family == types.Char:
		typeName := "varchar" // as PostgreSQL's typmodin functions name them
		if t.Family == types.Char {
			typeName = "char"
		}
		if mods[0] < 1 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "length for type %s must be at least 1", typeName)
		}
		// PostgreSQL's MaxAttrSize: char(1000000000) padded a literal
		// to a gigabyte.
		if mods[0] > maxCharLength {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "length for type %s cannot exceed %d", typeName, maxCharLength).WithPosition(tn.Location + 1)
		}
		t.Mod = int32(mods[0])
	case t.Family == types.Numeric:
		if len(mods) > 2 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "invalid NUMERIC type modifier")
		}
		p, s := mods[0], int64(0)
		if len(mods) > 1 {
			s = mods[1]
		}
		if p < 1 || p > 1000 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
		}
		if s < -1000 || s > 1000 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "NUMERIC scale %d must be between -1000 and 1000", s)
		}
		// NumericTypmod keeps a negative scale in the low 16 bits; p<<16|s
		// made numeric(3,-6) a negative Mod, which is no typmod at all.
		t.Mod = types.NumericTypmod(int(p), int(s))
	case t.Family == types.Vector:
		// pgvector's vector_typmod_in.
		switch {
		case len(mods) != 1:
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "invalid type modifier")
		case mods[0] < 1:
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "dimensions for type vector must be at least 1")
		case mods[0] > types.VectorMaxDim:
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "dimensions for type vector cannot exceed %d", types.VectorMaxDim)
		}
		t.Mod = int32(mods[0])
	case t.Family == types.TimestampFamily || t.Family == types.TimestampTZ || t.Family == types.Time:
		// Fractional-second precision (PostgreSQL warns above 6).
		if len(mods) != 1 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "invalid type modifier")
		}
		if mods[0] < 0 {
			return types.UnknownT, pgerr.New(pgerrcode.InvalidParameterValue, "%s(%d)%s precision must not be negative",
				strings.ToUpper(strings.TrimSuffix(name, "tz")), mods[0], map[bool]string{true: " WITH TIME ZONE"}[t.Family == types.TimestampTZ])
		}
		t.Mod = int32(min(mods[0], 6))
	case t.Family == types.Interval:
		// The grammar's field range mask, then the precision if any.
		prec := int64(-1)
		if len(mods) > 1 {
			prec = mods[1]
		}
		mod, err := types.IntervalTypmod(int(mods[0]), int(prec))
		if err != nil {
			return types.UnknownT, err
		}
		t.Mod = mod
	case t.Family == types.Float8 && name == "float":
		if mods[0] <= 24 {
			t = types.Float4T
		}
	default:
		return types.UnknownT, pgerr.New(pgerrcode.SyntaxError, "type modifier is not allowed for type \"%s\"", name)
	}
	if len(tn.ArrayBounds) > 0 {
		if t.Family == types.ArrayFamily {
			return types.UnknownT, pgerr.NotSupported("arrays of %s", t)
		}
		dims := len(tn.ArrayBounds)
		if dims > 2 {
			return types.UnknownT, pgerr.NotSupported("arrays of more than 2 dimensions")
		}
		return types.ArrayOf(t, dims), nil
	}
	return t, nil
}

func (b *Binder) bindTypeCast(sc *scope, tc *pg_query.TypeCast) (Expr, error) {
	if hybrid, weighted := isHybridTypeName(tc.TypeName); hybrid {
		return b.bindHybridCast(sc, tc.Arg, weighted)
	}
	t, err := b.typeFromName(tc.TypeName)
	if err != nil {
		return nil, err
	}
	if arr := tc.Arg.GetAArrayExpr(); arr != nil && t.IsArray() {
		// float4[] and float4[][] are one type in PostgreSQL: the
		// constructor's nesting decides the dimensions.
		if depth := arrayDepth(arr); depth > t.Dims {
			t = types.ArrayOf(*t.Elem, depth)
		}
		return b.bindArrayExpr(sc, arr, t)
	}
	if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil && t.IsArray() && t.Domain == "" {
		// So for a literal: '{{1,2},{3,4}}'::int[] is 2-D.
		if depth := literalArrayDepth(c.GetSval().Sval); depth > t.Dims {
			t = types.ArrayOf(*t.Elem, depth)
		}
	}
	arg, err := b.bindExpr(sc, tc.Arg)
	if err != nil {
		return nil, err
	}
	if at := arg.Type(); t.IsArray() && t.Domain == "" && at.IsArray() && at.Dims > t.Dims {
		// And for an array of more dimensions: a 2-D int[][] column
		// or parameter cast to int[] or bigint[] stays 2-D.
		t = types.ArrayOf(*t.Elem, at.Dims)
	}
	e, err := b.coerce(arg, t, castExplicit)
	if err != nil {
		return nil, pgerr.From(err).WithPositionIfUnset(tc.Location + 1)
	}
	if td := b.lookupDomain(tc.TypeName); td != nil {
		return b.castToDomain(e, td)
	}
	return e, nil
}

// bindOperator binds "l op r" through the function registry.
func (b *Binder) bindOperator(op string, l, r Expr) (Expr, error) {
	if lr, ok := l.(*RowExpr); ok {
		if rr, ok := r.(*RowExpr); ok {
			return b.bindRowCompare(op, lr.Args, rr.Args)
		}
	}
	e, err := b.bindCall(op, []Expr{l, r}, nil)
	if err != nil {
		return nil, err
	}
	if c, ok := e.(*Call); ok {
		c.Infix = true
	}
	return e, nil
}

// callOf is a bound comparison as the single operator call the forms
// built on one need; a row comparison (several calls) is refused there.
func callOf(e Expr, form string) (*Call, error) {
	c, ok := e.(*Call)
	if !ok {
		return nil, pgerr.NotSupported("%s on row constructors", form)
	}
	return c, nil
}

// bindDistinct binds "l IS [NOT] DISTINCT FROM r". Two row constructors
// are compared field by field, as PostgreSQL does: they are distinct when
// any pair of fields is (a NULL and a value are; two NULLs are not).
func (b *Binder) bindDistinct(l, r Expr, negate bool) (Expr, error) {
	if lr, ok := l.(*RowExpr); ok {
		if rr, ok := r.(*RowExpr); ok {
			if len(lr.Args) != len(rr.Args) {
				return nil, pgerr.New(pgerrcode.SyntaxError, "unequal number of entries in row expressions")
			}
			if len(lr.Args) == 0 {
				return nil, pgerr.NotSupported("comparison of zero-column rows")
			}
			fields := make([]Expr, len(lr.Args))
			for i := range lr.Args {
				f, err := b.bindDistinct(lr.Args[i], rr.Args[i], negate)
				if err != nil {
					return nil, err
				}
				fields[i] = f
			}
			if negate {
				return &BoolOp{Op: And, Args: fields}, nil
			}
			return &BoolOp{Op: Or, Args: fields}, nil
		}
	}
	eq, err := b.bindOperator("=", l, r)
	if err != nil {
		return nil, err
	}
	c, err := callOf(eq, "IS DISTINCT FROM")
	if err != nil {
		return nil, err
	}
	return &IsDistinct{Left: c.Args[0], Right: c.Args[1], Equal: c.Overload, Negate: negate}, nil
}

// bindRowIn binds (a, b) [NOT] IN ((x, y), ...): the row equals one of the
// rows of the list.
func (b *Binder) bindRowIn(row *RowExpr, items []Expr, negate bool) (Expr, error) {
	var eqs []Expr
	for _, it := range items {
		r, ok := it.(*RowExpr)
		if !ok {
			return nil, pgerr.NotSupported("IN of a row constructor and a value that is not one")
		}
		eq, err := b.bindRowCompare("=", row.Args, r.Args)
		if err != nil {
			return nil, err
		}
		eqs = append(eqs, eq)
	}
	var e Expr = &BoolOp{Op: Or, Args: eqs}
	if negate {
		e = &BoolOp{Op: Not, Args: []Expr{e}}
	}
	return e, nil
}

// bindRowCompare binds a comparison of two row constructors as PostgreSQL
// defines it: = and <> compare the fields pairwise (all equal; any
// different), <, <=, > and >= order the rows by their first unequal pair
// of fields.
func (b *Binder) bindRowCompare(op string, l, r []Expr) (Expr, error) {
	if len(l) != len(r) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "unequal number of entries in row expressions")
	}
	if len(l) == 0 {
		return nil, pgerr.NotSupported("comparison of zero-column rows")
	}
	pairs := func(op string) ([]Expr, error) {
		out := make([]Expr, len(l))
		for i := range l {
			e, err := b.bindOperator(op, l[i], r[i])
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	switch op {
	case "=":
		eq, err := pairs("=")
		return &BoolOp{Op: And, Args: eq}, err
	case "<>", "!=":
		ne, err := pairs("<>")
		return &BoolOp{Op: Or, Args: ne}, err
	case "<", "<=", ">", ">=":
		strict := op[:1] // the order of the unequal pair decides
		lt, err := pairs(strict)
		if err != nil {
			return nil, err
		}
		eq, err := pairs("=")
		if err != nil {
			return nil, err
		}
		// (l1 op' r1) OR (l1 = r1 AND (... (ln op rn))), op' strict.
		last, err := b.bindOperator(op, l[len(l)-1], r[len(r)-1])
		if err != nil {
			return nil, err
		}
		e := last
		for i := len(l) - 2; i >= 0; i-- {
			e = &BoolOp{Op: Or, Args: []Expr{lt[i], &BoolOp{Op: And, Args: []Expr{eq[i], e}}}}
		}
		return e, nil
	}
	return nil, pgerr.NotSupported("operator %s on rows", op)
}

// bindCall resolves a scalar function or operator overload and coerces the
// arguments to its parameter types. result, when set, overrides the
// result type (greatest/least).
func (b *Binder) bindCall(name string, args []Expr, result func([]types.T) types.T) (Expr, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	ov, castTo, err := functions.Resolve(name, ts)
	if err != nil {
		return nil, err
	}
	coerced := make([]Expr, len(args))
	for i, a := range args {
		to := a.Type()
		if i < len(castTo) {
			to = castTo[i]
		}
		if coerced[i], err = b.coerce(a, to, castImplicit); err != nil {
			return nil, err
		}
	}
	for i := range ts {
		ts[i] = coerced[i].Type()
	}
	var rt types.T
	switch {
	case result != nil:
		rt = result(ts)
	case ov.ResultFn != nil:
		rt = ov.ResultFn(ts)
	default:
		rt = ov.Result
	}
	return &Call{Name: name, Overload: ov, Args: coerced, T: rt}, nil
}

// bindOperands binds both sides of a binary operator expression.
func (b *Binder) bindOperands(sc *scope, a *pg_query.A_Expr) (Expr, Expr, error) {
	l, err := b.bindExpr(sc, a.Lexpr)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.bindExpr(sc, a.Rexpr)
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

func (b *Binder) bindAExpr(sc *scope, a *pg_query.A_Expr) (Expr, error) {
	op := ""
	if len(a.Name) > 0 {
		op = nameOf(a.Name)
	}
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			r, err := b.bindExpr(sc, a.Rexpr)
			if err != nil {
				return nil, err
			}
			if op == "-" {
				if c, ok := r.(*Const); ok {
					if neg, ok := negateConst(c); ok {
						return neg, nil
					}
				}
			}
			if op == "+" {
				return r, nil
			}
			return b.bindCall(op, []Expr{r}, nil)
		}
		if row, sub := a.Lexpr.GetRowExpr(), a.Rexpr.GetSubLink(); row != nil && sub != nil && sub.SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK {
			// (a, b) op (SELECT x, y ...): the row the subquery returns
			// (NULLs for none) compared with the row constructor.
			if n := len(sub.Subselect.GetSelectStmt().GetTargetList()); n > 0 && n != len(row.Args) {
				return nil, pgerr.New(pgerrcode.SyntaxError, "subquery has too %s columns", map[bool]string{true: "many", false: "few"}[n > len(row.Args)])
			}
			fields := make([]*pg_query.Node, len(row.Args))
			for i := range fields {
				f, err := multiAssignValue(&pg_query.MultiAssignRef{Source: a.Rexpr, Colno: int32(i + 1), Ncolumns: int32(len(row.Args))})
				if err != nil {
					return nil, err
				}
				fields[i] = f
			}
			a = &pg_query.A_Expr{Kind: a.Kind, Name: a.Name, Lexpr: a.Lexpr, Location: a.Location,
				Rexpr: &pg_query.Node{Node: &pg_query.Node_RowExpr{RowExpr: &pg_query.RowExpr{Args: fields, RowFormat: pg_query.CoercionForm_COERCE_IMPLICIT_CAST, Location: sub.Location}}}}
		}
		l, r, err := b.bindOperands(sc, a)
		if err != nil {
			return nil, err
		}
		e, err := b.bindOperator(op, l, r)
		if err != nil {
			return nil, pgerr.From(err).WithPositionIfUnset(a.Location + 1)
		}
		if c, ok := e.(*Call); ok && c.Overload.Search != functions.NotSearch {
			return b.bindSearch(sc, c, l, r)
		}
		return e, nil
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return b.bindLike(sc, a, op)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		l, r, err := b.bindOperands(sc, a)
		if err != nil {
			return nil, err
		}
		return b.bindAnyAll(op, l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, r, err := b.bindOperands(sc, a)
		if err != nil {
			return nil, err
		}
		return b.bindDistinct(l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		l, r, err := b.bindOperands(sc, a)
		if err != nil {
			return nil, err
		}
		eq, err := b.bindOperator("=", l, r)
		if err != nil {
			return nil, err
		}
		c, err := callOf(eq, "NULLIF")
		if err != nil {
			return nil, err
		}
		lt := c.Args[0]
		return &Case{Whens: []When{{Cond: eq, Result: &Const{T: lt.Type()}}}, Else: lt, T: lt.Type()}, nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		l, err := b.bindExpr(sc, a.Lexpr)
		if err != nil {
			return nil, err
		}
		items, err := b.bindExprs(sc, a.Rexpr.GetList().Items)
		if err != nil {
			return nil, err
		}
		if row, ok := l.(*RowExpr); ok {
			return b.bindRowIn(row, items, op == "<>")
		}
		all := append([]Expr{l}, items...)
		t, all, err := b.unify("IN", all)
		if err != nil {
			return nil, err
		}
		eq, err := b.bindOperator("=", all[0], all[0])
		if err != nil {
			return nil, err
		}
		_ = t
		c, err := callOf(eq, "IN")
		if err != nil {
			return nil, err
		}
		return &InList{Arg: all[0], List: all[1:], Equal: c.Overload, Negate: op == "<>"}, nil
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return b.bindBetween(sc, a)
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		// The parser has written the pattern as similar_to_escape(p [,
		// escape]) and the operator as ~ or !~.
		l, r, err := b.bindOperands(sc, a)
		if err != nil {
			return nil, err
		}
		return b.bindOperator(op, l, r)
	}
	return nil, pgerr.NotSupported("operator expression kind %s", a.Kind)
}

// negateConst folds unary minus into a numeric constant. An integer whose negation leaves its type's
// range (-'-9223372036854775808'::int8) is not folded: the operator then
// reports the overflow when it runs.
func negateConst(c *Const) (Expr, bool) {
	switch v := c.Value.(type) {
	case int64:
		if v == math.MinInt64 || c.T.Family == types.Int4 && -v > math.MaxInt32 || c.T.Family == types.Int2 && -v > math.MaxInt16 {
			return nil, false
		}
		return &Const{Value: -v, T: c.T}, true
	case float64:
		return &Const{Value: -v, T: c.T}, true
	case *apd.Decimal:
		d := new(apd.Decimal)
		d.Neg(v)
		return &Const{Value: d, T: c.T}, true
	}
	return nil, false
}

func (b *Binder) bindLike(sc *scope, a *pg_query.A_Expr, op string) (Expr, error) {
	l, err := b.bindExpr(sc, a.Lexpr)
	if err != nil {
		return nil, err
	}
	// "x LIKE p ESCAPE e" parses as like_escape(p, e) on the right.
	if fc := a.Rexpr.GetFuncCall(); fc != nil && nameOf(fc.Funcname) == "like_escape" {
		args, err := b.bindExprs(sc, fc.Args)
		if err != nil {
			return nil, err
		}
		pat, err := b.bindCall("like_escape", args, nil)
		if err != nil {
			return nil, err
		}
		return b.bindOperator(op, l, pat)
	}
	r, err := b.bindExpr(sc, a.Rexpr)
	if err != nil {
		return nil, err
	}
	return b.bindOperator(op, l, r)
}

func (b *Binder) bindBetween(sc *scope, a *pg_query.A_Expr) (Expr, error) {
	x, err := b.bindExpr(sc, a.Lexpr)
	if err != nil {
		return nil, err
	}
	// Bound in PostgreSQL's order, x >= lo before hi: a parameter of both
	// bounds (ts BETWEEN $1 AND $1 + interval '1 day') takes x's type
	// from the first.
	bounds := a.Rexpr.GetList().Items
	lo, err := b.bindExpr(sc, bounds[0])
	if err != nil {
		return nil, err
	}
	ge, err := b.bindOperator(">=", x, lo)
	if err != nil {
		return nil, err
	}
	hi, err := b.bindExpr(sc, bounds[1])
	if err != nil {
		return nil, err
	}
	le, err := b.bindOperator("<=", x, hi)
	if err != nil {
		return nil, err
	}
	var e Expr = &BoolOp{Op: And, Args: []Expr{ge, le}}
	sym := a.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
	if sym {
		ge2, err := b.bindOperator(">=", x, hi)
		if err != nil {
			return nil, err
		}
		le2, err := b.bindOperator("<=", x, lo)
		if err != nil {
			return nil, err
		}
		e = &BoolOp{Op: Or, Args: []Expr{e, &BoolOp{Op: And, Args: []Expr{ge2, le2}}}}
	}
	if a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
		e = &BoolOp{Op: Not, Args: []Expr{e}}
	}
	return e, nil
}

// bindAnyAll binds "l op ANY(array)" / ALL.
func (b *Binder) bindAnyAll(op string, l, r Expr, all bool) (Expr, error) {
	rt := r.Type()
	if rt.Family == types.Unknown {
		// '{1,2}' literal: an array of the left side's type.
		at := types.ArrayOf(l.Type(), 1)
		var err error
		if r, err = b.coerce(r, at, castImplicit); err != nil {
			return nil, err
		}
		rt = at
	}
	if !rt.IsArray() {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "op ANY/ALL (array) requires array on right side")
	}
	elem := &Const{T: *rt.Elem}
	probe, err := b.bindOperator(op, l, elem)
	if err != nil {
		return nil, err
	}
	c, err := callOf(probe, "ANY and ALL")
	if err != nil {
		return nil, err
	}
	if c.Type().Family != types.Bool {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean")
	}
	if want := c.Args[1].Type(); !want.Equal(*rt.Elem) {
		if r, err = b.coerce(r, types.ArrayOf(want, 1), castImplicit); err != nil {
			return nil, err
		}
	}
	return &AnyAll{Left: c.Args[0], Op: c.Overload, OpStr: op, Array: r, All: all}, nil
}

func (b *Binder) bindBoolExpr(sc *scope, be *pg_query.BoolExpr) (Expr, error) {
	args := make([]Expr, len(be.Args))
	for i, a := range be.Args {
		e, err := b.bindExpr(sc, a)
		if err != nil {
			return nil, err
		}
		if t := e.Type(); t.Family != types.Bool && t.Family != types.Unknown && t.Family != types.Null {
			name := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND", pg_query.BoolExprType_OR_EXPR: "OR", pg_query.BoolExprType_NOT_EXPR: "NOT"}[be.Boolop]
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "argument of %s must be type boolean, not type %s", name, t)
		}
		if args[i], err = b.coerce(e, types.BoolT, castImplicit); err != nil {
			return nil, err
		}
	}
	switch be.Boolop {
	case pg_query.BoolExprType_AND_EXPR:
		return &BoolOp{Op: And, Args: args}, nil
	case pg_query.BoolExprType_OR_EXPR:
		return &BoolOp{Op: Or, Args: args}, nil
	}
	return &BoolOp{Op: Not, Args: args}, nil
}

func (b *Binder) bindBooleanTest(sc *scope, bt *pg_query.BooleanTest) (Expr, error) {
	arg, err := b.bindExpr(sc, bt.Arg)
	if err != nil {
		return nil, err
	}
	if arg, err = b.coerce(arg, types.BoolT, castImplicit); err != nil {
		return nil, err
	}
	switch bt.Booltesttype {
	case pg_query.BoolTestType_IS_UNKNOWN:
		return &IsNull{Arg: arg}, nil
	case pg_query.BoolTestType_IS_NOT_UNKNOWN:
		return &IsNull{Arg: arg, Negate: true}, nil
	}
	// IS TRUE == IS NOT DISTINCT FROM true, IS NOT TRUE == IS DISTINCT FROM
	// true; IS FALSE and IS NOT FALSE likewise with false.
	want := bt.Booltesttype == pg_query.BoolTestType_IS_TRUE || bt.Booltesttype == pg_query.BoolTestType_IS_NOT_TRUE
	negate := bt.Booltesttype == pg_query.BoolTestType_IS_TRUE || bt.Booltesttype == pg_query.BoolTestType_IS_FALSE
	eq, err := b.bindOperator("=", arg, &Const{Value: want, T: types.BoolT})
	if err != nil {
		return nil, err
	}
	c, err := callOf(eq, "IS TRUE and IS FALSE")
	if err != nil {
		return nil, err
	}
	return &IsDistinct{Left: c.Args[0], Right: c.Args[1], Equal: c.Overload, Negate: negate}, nil
}

// bindCase binds a CASE expression. A set-returning function among its
// parts is 0A000, as in PostgreSQL: CASE evaluates only some of them.
func (b *Binder) bindCase(sc *scope, ce *pg_query.CaseExpr) (Expr, error) {
	srfs := b.srfs
	c, err := b.bindCaseParts(sc, ce)
	if err == nil && b.srfs != srfs {
		return nil, srfNotAllowed("CASE", ce.Location)
	}
	return c, err
}

// srfNotAllowed is the error of a set-returning function among the
// arguments of CASE or COALESCE, which evaluate only some of them.
func srfNotAllowed(what string, location int32) error {
	return pgerr.New(pgerrcode.FeatureNotSupported, "set-returning functions are not allowed in %s", what).
		WithHint("You might be able to move the set-returning function into a LATERAL FROM item.").WithPosition(location + 1)
}

// bindCaseParts binds a CASE expression's operand, conditions and results.
func (b *Binder) bindCaseParts(sc *scope, ce *pg_query.CaseExpr) (Expr, error) {
	var operand Expr
	var err error
	if ce.Arg != nil {
		if operand, err = b.bindExpr(sc, ce.Arg); err != nil {
			return nil, err
		}
	}
	var conds, results []Expr
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		var cond Expr
		if operand != nil {
			v, err := b.bindExpr(sc, cw.Expr)
			if err != nil {
				return nil, err
			}
			if cond, err = b.bindOperator("=", operand, v); err != nil {
				return nil, err
			}
		} else if cond, err = b.bindCondition(sc, cw.Expr, "CASE/WHEN"); err != nil {
			return nil, err
		}
		res, err := b.bindExpr(sc, cw.Result)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cond)
		results = append(results, res)
	}
	if ce.Defresult != nil {
		def, err := b.bindExpr(sc, ce.Defresult)
		if err != nil {
			return nil, err
		}
		results = append(results, def)
	}
	if ce.Defresult != nil {
		// PostgreSQL resolves the result type with the ELSE first.
		results = append(results[len(results)-1:], results[:len(results)-1]...)
	}
	t, results, err := b.unify("CASE", results)
	if err != nil {
		return nil, err
	}
	if ce.Defresult != nil {
		results = append(results[1:], results[0])
	}
	c := &Case{T: t}
	for i, cond := range conds {
		c.Whens = append(c.Whens, When{Cond: cond, Result: results[i]})
	}
	if ce.Defresult != nil {
		c.Else = results[len(results)-1]
	}
	return c, nil
}

func sqlValueFunctionName(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "current_date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "current_time"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "current_timestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "localtime"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "localtimestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "current_role"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		return "user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "current_catalog"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "current_schema"
	}
	return "?column?"
}

func (b *Binder) bindSQLValueFunction(f *pg_query.SQLValueFunction) (Expr, error) {
	name := sqlValueFunctionName(f.Op)
	switch name {
	case "current_time":
		return nil, pgerr.NotSupported("CURRENT_TIME (time with time zone; LOCALTIME and CURRENT_TIMESTAMP are)")
	case "current_timestamp":
		name = "now"
	case "current_role", "user":
		name = "current_user"
	case "current_catalog":
		name = "current_database"
	}
	return b.bindCall(name, nil, nil)
}

func (b *Binder) bindSubLink(sc *scope, sl *pg_query.SubLink) (Expr, error) {
	if b.clause == generationClause {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in column generation expression")
	}
	if b.storedExpr != "" {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in %s", b.storedExpr).WithPosition(sl.Location + 1)
	}
	sel := sl.Subselect.GetSelectStmt()
	plan, corr, err := b.bindSubselect(sc, sel)
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		e := &Subquery{Kind: ExistsSubquery, Plan: plan, T: types.BoolT, Args: corr.args}
		if len(corr.args) > 0 {
			e.Hashed = b.existsHashed(sc, sel)
		}
		return e, nil
	case pg_query.SubLinkType_EXPR_SUBLINK, pg_query.SubLinkType_ARRAY_SUBLINK:
		if len(cols) != 1 {
			return nil, pgerr.New(pgerrcode.SyntaxError, "subquery must return only one column")
		}
		if sl.SubLinkType == pg_query.SubLinkType_ARRAY_SUBLINK {
			// ARRAY(SELECT of arrays) stacks them one dimension deeper,
			// as ARRAY[...] of arrays does: its element type is theirs.
			t := types.ArrayOf(cols[0].T, 1)
			if et := cols[0].T; et.IsArray() {
				t = types.ArrayOf(*et.Elem, et.Dims+1)
			}
			return &Subquery{Kind: ArraySubquery, Plan: plan, T: t, Args: corr.args}, nil
		}
		return &Subquery{Kind: ScalarSubquery, Plan: plan, T: cols[0].T, Args: corr.args}, nil
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		if row := sl.Testexpr.GetRowExpr(); row != nil && len(cols) > 1 {
			return b.bindRowSubLink(sc, sl, row, plan, corr)
		}
		if len(cols) != 1 {
			return nil, pgerr.New(pgerrcode.SyntaxError, "subquery has too many columns")
		}
		left, err := b.bindExpr(sc, sl.Testexpr)
		if err != nil {
			return nil, err
		}
		op := "="
		if len(sl.OperName) > 0 {
			op = nameOf(sl.OperName)
		}
		e, err := b.inSubquery(left, op, plan)
		if err != nil {
			return nil, err
		}
		e.All, e.Args = sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK, corr.args
		return e, nil
	}
	return nil, pgerr.NotSupported("this kind of subquery (%s)", sl.SubLinkType)
}

// bindSubselect binds sel, a subquery in scope sc, as a query level of its
// own (its own aggregates and set-returning functions), and returns with
// its plan the columns of sc's level and further out that it reads.
func (b *Binder) bindSubselect(sc *scope, sel *pg_query.SelectStmt) (Node, *correlation, error) {
	saved, savedClause, savedSRFs := b.aggs, b.clause, b.srfs
	b.aggs, b.clause = nil, ""
	defer func() { b.srfs = savedSRFs }()
	corr := &correlation{}
	if b.corrs == nil {
		b.corrs = map[*scope]*correlation{}
	}
	savedCorr := b.corrs[sc]
	b.corrs[sc] = corr
	plan, err := b.bindSelect(sel, sc)
	b.aggs, b.clause = saved, savedClause
	b.corrs[sc] = savedCorr
	return plan, corr, err
}

// inSubquery is "left op ANY (plan)", plan of one column, whose values are
// cast to the operator's right operand type.
func (b *Binder) inSubquery(left Expr, op string, plan Node) (*Subquery, error) {
	col := plan.Columns()[0].T
	eq, err := b.bindOperator(op, left, &Const{T: col})
	if err != nil {
		return nil, err
	}
	c, err := callOf(eq, "subquery comparisons")
	if err != nil {
		return nil, err
	}
	if want := c.Args[1].Type(); !want.Equal(col) {
		if plan, err = b.castColumns(plan, []types.T{want}); err != nil {
			return nil, err
		}
	}
	return &Subquery{Kind: InSubquery, Plan: plan, Left: c.Args[0], Equal: c.Overload, T: types.BoolT}, nil
}

// bindRowSubLink binds "(a, b, ...) IN (SELECT x, y, ...)", its "= ANY"
// spelling, and "<> ALL", which is NOT IN. Each field and its column are
// compared in their common type; other operators are 0A000.
func (b *Binder) bindRowSubLink(sc *scope, sl *pg_query.SubLink, row *pg_query.RowExpr, plan Node, corr *correlation) (Expr, error) {
	cols := plan.Columns()
	all := sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK
	op := "="
	if len(sl.OperName) > 0 {
		op = nameOf(sl.OperName)
	}
	if op != map[bool]string{false: "=", true: "<>"}[all] {
		return nil, pgerr.NotSupported("row comparison %s %s with a subquery", op, map[bool]string{false: "ANY", true: "ALL"}[all])
	}
	if len(row.Args) != len(cols) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "subquery has too %s columns", map[bool]string{true: "many", false: "few"}[len(cols) > len(row.Args)])
	}
	fields, err := b.bindExprs(sc, row.Args)
	if err != nil {
		return nil, err
	}
	target := make([]types.T, len(cols))
	for i, c := range cols {
		t, unified, err := b.unify("IN", []Expr{fields[i], &Const{T: c.T}})
		if err != nil {
			return nil, err
		}
		target[i], fields[i] = t, unified[0]
	}
	if plan, err = b.castColumns(plan, target); err != nil {
		return nil, err
	}
	return &Subquery{Kind: InSubquery, Plan: plan, Left: &RowExpr{Args: fields, T: types.RecordT}, Negate: all, T: types.BoolT, Args: corr.args}, nil
}

// bindArrayExpr binds ARRAY[...] (and '{...}'-free array constructors);
// want is the array type of an enclosing cast, or Unknown.
func (b *Binder) bindArrayExpr(sc *scope, a *pg_query.A_ArrayExpr, want types.T) (Expr, error) {
	elems := make([]Expr, len(a.Elements))
	var innerWant types.T
	if want.IsArray() && want.Dims > 1 {
		innerWant = types.ArrayOf(*want.Elem, want.Dims-1)
	}
	for i, el := range a.Elements {
		var e Expr
		var err error
		if sub := el.GetAArrayExpr(); sub != nil {
			e, err = b.bindArrayExpr(sc, sub, innerWant)
		} else {
			e, err = b.bindExpr(sc, el)
		}
		if err != nil {
			return nil, err
		}
		elems[i] = e
	}
	if want.IsArray() && len(elems) > 0 {
		// int[] and int[][] are one type in PostgreSQL: the constructor's
		// nesting, down to elements that are not arrays, decides the
		// dimensions, so ARRAY[1,2]::int[][] is 1-D.
		d := 1
		if et := elems[0].Type(); et.IsArray() {
			d = et.Dims + 1
		}
		if d < want.Dims {
			want = types.ArrayOf(*want.Elem, d)
		}
	}
	var elemT types.T
	if want.IsArray() {
		if want.Dims > 1 {
			elemT = types.ArrayOf(*want.Elem, want.Dims-1)
		} else {
			elemT = *want.Elem
		}
		for i, e := range elems {
			var err error
			if elems[i], err = b.coerce(e, elemT, castExplicit); err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if elemT, elems, err = b.unify("ARRAY", elems); err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			return nil, pgerr.New(pgerrcode.IndeterminateDatatype, "cannot determine type of empty array").WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
		}
	}
	var t types.T
	if elemT.IsArray() {
		t = types.ArrayOf(*elemT.Elem, elemT.Dims+1)
	} else {
		t = types.ArrayOf(elemT, 1)
	}
	if t.Dims > types.MaxArrayDims {
		// Checked at each level, so that a constructor nested thousands
		// deep fails at the seventh instead of building them all.
		return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", t.Dims, types.MaxArrayDims)
	}
	if want.IsArray() {
		t = want
	}
	return &ArrayExpr{Elems: elems, T: t}, nil
}

// arrayDepth is the nesting depth of an ARRAY[...] constructor.
// literalArrayDepth is the nesting depth of an array literal's text: the
// braces it opens before its first element, after any dimension
// decoration ([1:2][1:2]=); 0 when it does not start with one.
func literalArrayDepth(s string) int {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, '='); i >= 0 {
			s = s[i+1:]
		}
	}
	depth := 0
	for _, c := range s {
		switch c {
		case '{':
			depth++
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return depth
		}
	}
	return depth
}

func arrayDepth(a *pg_query.A_ArrayExpr) int {
	for _, el := range a.Elements {
		if sub := el.GetAArrayExpr(); sub != nil {
			return 1 + arrayDepth(sub)
		}
	}
	return 1
}

func (b *Binder) bindIndirection(sc *scope, ind *pg_query.A_Indirection) (Expr, error) {
	arg, err := b.bindExpr(sc, ind.Arg)
	if err != nil {
		return nil, err
	}
	var idx []SubscriptIndex
	slice := false
	for i, n := range ind.Indirection {
		if name := n.GetString_(); name != nil {
			if len(idx) > 0 || i > 0 {
				return nil, pgerr.NotSupported("field selection after a subscript")
			}
			if arg, err = selectField(arg, name.Sval); err != nil {
				return nil, err
			}
			continue
		}
		ai := n.GetAIndices()
		if ai == nil {
			return nil, pgerr.NotSupported("this kind of indirection")
		}
		var ix SubscriptIndex
		ix.Slice = ai.IsSlice
		bindIndex := func(n *pg_query.Node) (Expr, error) { return b.bindExprWant(sc, n, types.Int4T) }
		if arg.Type().Family == types.JSONB {
			bindIndex = func(n *pg_query.Node) (Expr, error) { return b.bindJSONBSubscript(sc, n) }
		}
		if ai.Lidx != nil {
			if ix.Lower, err = bindIndex(ai.Lidx); err != nil {
				return nil, err
			}
		}
		if ai.Uidx != nil {
			if ix.Upper, err = bindIndex(ai.Uidx); err != nil {
				return nil, err
			}
		}
		if !ai.IsSlice {
			ix.Lower = ix.Upper
			ix.Upper = nil
		}
		slice = slice || ai.IsSlice
		idx = append(idx, ix)
	}
	if len(idx) == 0 {
		return arg, nil
	}
	at := arg.Type()
	switch {
	case at.IsCatalogVector():
		// int2vector and oidvector count from 0 (pg_index.indkey[0] is
		// the first key column); cairn's arrays count from 1.
		for i := range idx {
			for _, bound := range []*Expr{&idx[i].Lower, &idx[i].Upper} {
				if *bound == nil {
					continue
				}
				if *bound, err = b.bindOperator("+", *bound, &Const{Value: int64(1), T: types.Int4T}); err != nil {
					return nil, err
				}
			}
		}
	case at.IsArray():
	case at.Family == types.JSONB:
		// jsonb subscripting is #> with the subscripts as a text path, as
		// PostgreSQL's jsonb_get_element: a key of an object (j[1] is its
		// member "1"), an index into an array (j['1'] too; a text that is
		// no integer finds nothing), nothing in a scalar.
		path := make([]Expr, len(idx))
		for i, ix := range idx {
			if ix.Slice {
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "jsonb subscript does not support slices")
			}
			path[i] = ix.Lower
		}
		return b.bindOperator("#>", arg, &ArrayExpr{Elems: path, T: types.ArrayOf(types.TextT, 1)})
	case at.Family == types.Name && len(idx) == 1 && !slice:
		// name is a fixed-length array of "char" to PostgreSQL, from 0:
		// pg_dump tells array types apart by typname[0] = '_'.
		pos, err := b.bindOperator("+", idx[0].Lower, &Const{Value: int64(1), T: types.Int4T})
		if err != nil {
			return nil, err
		}
		text, err := b.coerce(arg, types.TextT, castExplicit)
		if err != nil {
			return nil, err
		}
		sub, err := b.bindCall("substr", []Expr{text, pos, &Const{Value: int64(1), T: types.Int4T}}, nil)
		if err != nil {
			return nil, err
		}
		return b.coerce(sub, types.InternalCharT, castExplicit)
	default:
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", at)
	}
	t := *at.Elem
	if slice {
		t = at
	} else if len(idx) < at.Dims {
		t = types.ArrayOf(*at.Elem, at.Dims-len(idx))
	}
	return &Subscript{Arg: arg, Indexes: idx, T: t}, nil
}

// selectField binds (arg).name for a record with known fields.
func selectField(arg Expr, name string) (Expr, error) {
	t := arg.Type()
	if t.Family != types.Record || t.Fields == nil {
		return nil, pgerr.NotSupported("field selection from a value of type %s", t)
	}
	for i, f := range t.Fields {
		if f.Name == name {
			return &FieldSelect{Arg: arg, Index: i, Name: name, T: f.T}, nil
		}
	}
	return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" not found in data type record", name)
}

// bindJSONBSubscript binds one subscript of a jsonb value as text: an
// integer (int2, int4) or a string (an untyped literal or parameter too),
// as PostgreSQL coerces them; any other type is 42804.
func (b *Binder) bindJSONBSubscript(sc *scope, n *pg_query.Node) (Expr, error) {
	e, err := b.bindExpr(sc, n)
	if err != nil {
		return nil, err
	}
	switch t := e.Type(); {
	case t.Family == types.Int2 || t.Family == types.Int4 || t.IsString() || t.Family == types.Unknown || t.Family == types.Null:
		return b.coerce(e, types.TextT, castExplicit)
	default:
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "subscript type %s is not supported", t).
			WithHint("jsonb subscript must be coercible to either integer or text.")
	}
}

// singleColumnOf is the index of the one visible column of the FROM item
// called alias when that item is a function returning one value
// (Col.FuncValue), or -1.
func singleColumnOf(cols []Col, alias string) int {
	idx := -1
	for i, c := range cols {
		if c.Table != alias || c.Hidden {
			continue
		}
		if idx >= 0 || !c.FuncValue {
			return -1
		}
		idx = i
	}
	return idx
}

// checkCollation accepts the collations cairn's byte-wise comparison of
// UTF-8 text implements (C, POSIX, ucs_basic, C.utf8 and the database
// default, which is C) and refuses the others, which would order text by
// a locale's rules, as PostgreSQL refuses a collation it does not have.
func checkCollation(name []*pg_query.Node, location int32) error {
	parts := strList(name)
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	if len(parts) == 1 {
		switch parts[0] {
		case "default", "C", "POSIX", "ucs_basic", "C.utf8":
			return nil
		}
	}
	return pgerr.New(pgerrcode.UndefinedObject, "collation \"%s\" for encoding \"UTF8\" does not exist", strings.Join(parts, ".")).WithPosition(location + 1)
}
