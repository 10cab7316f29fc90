package sql

// User-defined functions and triggers: CREATE [OR REPLACE] FUNCTION keeps
// the function's signature and body in the catalog. A LANGUAGE sql
// function, whose body is one SELECT, is inlined where it is called: the
// call is replaced by the body's expression (or by the body as a scalar
// subquery when it reads tables), with the arguments in place of the
// parameters. A LANGUAGE plpgsql function returning trigger is attached
// to a table by CREATE TRIGGER (BEFORE or AFTER, for each row or
// statement), or to a view (INSTEAD OF, for each row, which runs in
// place of each row's write; BEFORE or AFTER for each statement), and
// the session runs it (exec/session/trigger.go); one of one
// RETURN QUERY is inlined in FROM as a SQL set-returning function is,
// and one returning a value is a call the session runs for each row
// (plCall, exec/session/plpgsql_call.go), or inlined when its body is
// one RETURN expr.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CreateFunction is CREATE [OR REPLACE] FUNCTION.
type CreateFunction struct {
	Def     *catalog.FunctionDef
	Replace bool
}

// DropFunction is DROP FUNCTION: the keys of the functions to drop;
// Missing are those IF EXISTS skips, as they were written.
type DropFunction struct {
	Keys    []string
	Missing []string
	Cascade bool
}

// CreateTrigger is CREATE [OR REPLACE] TRIGGER on Table or, when it is
// nil, on View.
type CreateTrigger struct {
	Table   *catalog.TableDef
	View    *catalog.ViewDef
	Def     catalog.TriggerDef
	Replace bool
}

// DropTrigger is DROP TRIGGER [IF EXISTS] name ON Table (or, when it is
// nil, View); Missing is set when IF EXISTS found no such trigger.
type DropTrigger struct {
	Table   *catalog.TableDef
	View    *catalog.ViewDef
	Name    string
	Missing string
}

// RenameViewTrigger is ALTER TRIGGER name ON view RENAME TO new_name
// (a table's trigger is an AlterTable command).
type RenameViewTrigger struct {
	View          *catalog.ViewDef
	Name, NewName string
}

func (*CreateFunction) statement()    {}
func (*DropFunction) statement()      {}
func (*CreateTrigger) statement()     {}
func (*DropTrigger) statement()       {}
func (*RenameViewTrigger) statement() {}

// maxInlineDepth bounds how deeply SQL function calls are inlined into
// each other: a function calling itself fails with 54001 there.
const maxInlineDepth = 64

// functionSchema is the schema a new function goes in: the one named, or
// the first existing schema of the search path.
func (b *Binder) functionSchema(names []string) (string, error) {
	if len(names) > 2 {
		return "", pgerr.New(pgerrcode.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, "."))
	}
	if len(names) == 2 {
		if b.Catalog.Schemas[names[0]] == nil {
			return "", pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", names[0])
		}
		return names[0], nil
	}
	return b.CreationSchema("", names[0])
}

// bindCreateFunction binds CREATE [OR REPLACE] FUNCTION: LANGUAGE sql
// with a single SELECT as its body, or LANGUAGE plpgsql returning
// trigger; the body is checked now.
func (b *Binder) bindCreateFunction(s *pg_query.CreateFunctionStmt) (Statement, error) {
	if s.IsProcedure {
		return nil, pgerr.NotSupported("CREATE PROCEDURE")
	}
	if s.SqlBody != nil {
		return nil, pgerr.NotSupported("a function body of BEGIN ATOMIC")
	}
	names := strList(s.Funcname)
	schema, err := b.functionSchema(names)
	if err != nil {
		return nil, err
	}
	def := &catalog.FunctionDef{Schema: schema, Name: names[len(names)-1], Volatility: "v", Owner: b.Role}
	for _, p := range s.Parameters {
		fp := p.GetFunctionParameter()
		if err := b.refuseDomain(fp.ArgType, "function parameters"); err != nil {
			return nil, err
		}
		t, err := b.typeFromName(fp.ArgType)
		if err != nil {
			return nil, err
		}
		t = withoutTypmod(t) // as PostgreSQL, which keeps no modifier in a signature
		switch fp.Mode {
		case pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
			def.Columns = append(def.Columns, catalog.FunctionColumn{Name: fp.Name, Type: t})
			continue
		case pg_query.FunctionParameterMode_FUNC_PARAM_IN, pg_query.FunctionParameterMode_FUNC_PARAM_DEFAULT:
		default:
			return nil, pgerr.NotSupported("%s parameters", strings.TrimPrefix(fp.Mode.String(), "FUNC_PARAM_"))
		}
		var dflt string
		if fp.Defexpr != nil {
			if _, err := b.bindExpr(&scope{}, fp.Defexpr); err != nil {
				return nil, err
			}
			if dflt, err = defaultText(fp.Defexpr, t); err != nil {
				return nil, err
			}
		} else if def.ArgDefaults != nil {
			return nil, pgerr.New(pgerrcode.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		if dflt != "" && def.ArgDefaults == nil {
			def.ArgDefaults = make([]string, len(def.ArgTypes))
		}
		if def.ArgDefaults != nil {
			def.ArgDefaults = append(def.ArgDefaults, dflt)
		}
		def.ArgNames = append(def.ArgNames, fp.Name)
		def.ArgTypes = append(def.ArgTypes, t)
	}
	if s.ReturnType == nil {
		return nil, pgerr.New(pgerrcode.InvalidFunctionDefinition, "function result type must be specified")
	}
	rn := strList(s.ReturnType.Names)
	switch {
	case len(def.Columns) > 0:
		// RETURNS TABLE (...), which the grammar gives as SETOF record.
		def.Setof, def.Returns = true, types.RecordT
	case strings.EqualFold(rn[len(rn)-1], "trigger") && !s.ReturnType.Setof:
		def.Trigger = true
	case strings.EqualFold(rn[len(rn)-1], "void") && (len(rn) == 1 || rn[0] == "pg_catalog") && len(s.ReturnType.ArrayBounds) == 0:
		if s.ReturnType.Setof {
			return nil, pgerr.NotSupported("RETURNS SETOF void")
		}
		def.Returns = types.VoidT
	default:
		rt := &pg_query.TypeName{Names: s.ReturnType.Names, Typmods: s.ReturnType.Typmods, Typemod: s.ReturnType.Typemod,
			ArrayBounds: s.ReturnType.ArrayBounds, PctType: s.ReturnType.PctType, Location: s.ReturnType.Location}
		if err := b.refuseDomain(rt, "function results"); err != nil {
			return nil, err
		}
		def.Returns, err = b.typeFromName(rt)
		def.Returns = withoutTypmod(def.Returns)
		if err != nil && s.ReturnType.Setof && len(s.ReturnType.ArrayBounds) == 0 {
			// RETURNS SETOF a table: rows of its columns.
			schema := ""
			if len(rn) == 2 {
				schema = rn[0]
			}
			if t, terr := b.lookupTable(schema, rn[len(rn)-1]); terr == nil {
				def.Returns, def.SetofSchema, def.SetofTable, err = types.RecordT, t.Schema, t.Name, nil
			}
		}
		if err != nil {
			return nil, err
		}
		def.Setof = s.ReturnType.Setof
	}
	for _, o := range s.Options {
		d := o.GetDefElem()
		switch d.Defname {
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) != 1 {
				return nil, pgerr.NotSupported("a function body of a C library")
			}
			def.Body = items[0].GetString_().GetSval()
		case "language":
			def.Language = strings.ToLower(d.Arg.GetString_().GetSval())
		case "volatility":
			def.Volatility = d.Arg.GetString_().GetSval()[:1]
		case "strict":
			def.Strict = d.Arg.GetBoolean().GetBoolval()
		case "security":
			if d.Arg.GetBoolean().GetBoolval() {
				return nil, pgerr.NotSupported("SECURITY DEFINER")
			}
		case "leakproof", "parallel", "cost", "rows", "support":
			// Planner hints, which cairn has no use for.
		default:
			return nil, pgerr.NotSupported("function option %s", strings.ToUpper(d.Defname))
		}
	}
	switch def.Language {
	case "sql":
		if def.Trigger {
			return nil, pgerr.New(pgerrcode.InvalidFunctionDefinition, "SQL functions cannot return type trigger")
		}
		if def.Returns.OID() == types.VoidOID {
			return nil, pgerr.NotSupported("SQL functions returning void (a SQL function body is one SELECT, inlined where it is called)")
		}
		if b.NoBodyChecks {
			// check_function_bodies off (pg_dump's restores): the body
			// must still be one query; its names are bound at each call.
			if _, err := sqlFunctionBody(def, nil); err != nil {
				return nil, err
			}
			break
		}
		if err := b.checkSQLFunction(def); err != nil {
			return nil, err
		}
	case "plpgsql":
		if def.Setof {
			if b.NoBodyChecks {
				break
			}
			if _, ok := returnQuery(def.Body); ok {
				// One RETURN QUERY: inlined in FROM as a SQL function is.
				if err := b.checkSQLFunction(def); err != nil {
					return nil, err
				}
				break
			}
			// Any other body runs at each call, its RETURN QUERYs
			// giving the rows (plSetReturning).
			if _, err := b.compilePL(def.Body, def, false); err != nil && pgerr.Code(err) != pgerrcode.UndefinedParameter {
				return nil, err
			}
			break
		}
		if !def.Trigger {
			// A function returning one value: its body runs in the
			// session at each call (PLCall).
			if err := plReturnType(def.Returns); err != nil {
				return nil, err
			}
			for _, t := range def.ArgTypes {
				if err := plReturnType(t); err != nil {
					return nil, pgerr.NotSupported("PL/pgSQL function parameters of type %s", t)
				}
			}
			if b.NoBodyChecks {
				break
			}
			// A $n beyond the parameters fails each call, not the
			// definition, as in PostgreSQL.
			if _, err := b.compilePL(def.Body, def, false); err != nil && pgerr.Code(err) != pgerrcode.UndefinedParameter {
				return nil, err
			}
			break
		}
		if len(def.ArgTypes) > 0 {
			return nil, pgerr.New(pgerrcode.InvalidFunctionDefinition, "trigger functions cannot have declared arguments").
				WithHint("The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead.")
		}
		if _, err := b.compilePL(def.Body, nil, true); err != nil {
			return nil, err
		}
	case "":
		return nil, pgerr.New(pgerrcode.InvalidFunctionDefinition, "no language specified")
	default:
		return nil, pgerr.New(pgerrcode.UndefinedObject, "language \"%s\" does not exist", def.Language)
	}
	return &CreateFunction{Def: def, Replace: s.Replace}, nil
}

// plReturnOnly is the expression of a PL/pgSQL body that is BEGIN
// RETURN expr; END and nothing else (no variables initialised, no
// handler), over the parameters alone, or nil.
func plReturnOnly(fn *PLFunction) *PLExpr {
	body := fn.Body
	if len(body.Init) > 0 || len(body.Handlers) > 0 || len(body.Body) != 1 {
		return nil
	}
	ret, ok := body.Body[0].(*PLReturn)
	if !ok || ret.Var >= 0 || ret.Expr == nil {
		return nil
	}
	for _, r := range ret.Expr.Refs {
		if r.Var >= fn.Args || r.Field != "" || r.Whole {
			return nil // a variable of the body's own (FOUND, a declared row)
		}
	}
	return ret.Expr
}

// plSetReturning is the set-returning function a call in FROM of def, a
// PL/pgSQL function returning a set whose body is not one RETURN QUERY,
// makes: each call hands the session (functions.Context.ProceduralSet)
// the compiled body and the arguments, and gives the rows its RETURN
// QUERYs returned, cast to the function's columns.
func (b *Binder) plSetReturning(def *catalog.FunctionDef) (*functions.SetReturning, error) {
	cols, err := b.functionColumns(def)
	if err != nil {
		return nil, err
	}
	fn, err := b.compilePL(def.Body, def, false)
	if err != nil {
		return nil, pgerr.From(err).WithDetail("In PL/pgSQL function \"%s\".", def.Name)
	}
	b.procedural = true
	out := make([]types.Field, len(cols))
	for i, c := range cols {
		out[i] = types.Field{Name: c.Name, T: c.T}
	}
	call := &PLCall{Def: def, Fn: fn, Out: out}
	return &functions.SetReturning{Name: def.Name, NullCall: !def.Strict,
		Type: func([]types.T, func([]types.T) (types.T, error)) (functions.SetSignature, bool, error) {
			return functions.SetSignature{Params: def.ArgTypes, Out: out}, true, nil
		},
		Rows: func(ctx *functions.Context, args []any, _ []types.T) (functions.NextRow, error) {
			if ctx == nil || ctx.ProceduralSet == nil {
				return nil, pgerr.NotSupported("calling PL/pgSQL function %s outside a session's statement", def.Name)
			}
			rows, err := ctx.ProceduralSet(call, args)
			if err != nil {
				return nil, err
			}
			return func() ([]any, bool, error) {
				if len(rows) == 0 {
					return nil, false, nil
				}
				row := rows[0]
				rows = rows[1:]
				return row, true, nil
			}, nil
		}}, nil
}

// callsUserFunction reports whether parse tree n calls a function that
// is not built in (one of CREATE FUNCTION, or none).
func callsUserFunction(n *pg_query.Node) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*pg_query.FuncCall); ok {
			name := strings.ToLower(nameOf(fc.Funcname))
			if len(functions.Overloads(name)) == 0 && !functions.IsAggregate(name) && functions.SetReturningFunc(name) == nil {
				found = true
			}
		}
	})
	return found
}

// plReturnType refuses, with 0A000, a PL/pgSQL function's result type
// the interpreter cannot return: a row (record). (Polymorphic types such
// as anyelement are no types cairn knows, refused as any use of them.)
func plReturnType(t types.T) error {
	switch t.Family {
	case types.Record, types.Unknown:
		return pgerr.NotSupported("PL/pgSQL functions returning %s", t)
	}
	return nil
}

// plCall binds a call of def, a PL/pgSQL function returning one value,
// with arguments args (in positional form): a function call whose
// evaluation hands the session (functions.Context.Procedural) the body
// compiled and the arguments cast to the parameters' types, row by row.
// It is volatile whatever def says, so that it runs in the session's
// own goroutine, never in parallel partitions of a scan.
func (b *Binder) plCall(sc *scope, def *catalog.FunctionDef, argNodes []*pg_query.Node, location int32) (Expr, error) {
	fn, err := b.PLBodies.compile(b, def)
	if err != nil {
		return nil, pgerr.From(err).WithDetail("In PL/pgSQL function \"%s\".", def.Name)
	}
	if ret := plReturnOnly(fn); ret != nil && !callsUserFunction(ret.Stmt.node) {
		// BEGIN RETURN expr; END is inlined as a SQL function's SELECT
		// expr is, evaluated a batch at a time. Not when expr calls
		// functions of CREATE FUNCTION, which may be this one.
		inline := *def
		inline.Language, inline.Body = "sql", "SELECT "+ret.Text
		return b.inlineFunction(sc, &inline, argNodes, location)
	}
	argNodes, err = withDefaults(def, argNodes)
	if err != nil {
		return nil, err
	}
	args, err := b.bindExprs(sc, argNodes)
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		if args[i], err = b.coerce(a, def.ArgTypes[i], castAssignment); err != nil {
			return nil, pgerr.From(err).WithPositionIfUnset(location + 1)
		}
	}
	b.procedural = true
	call := &PLCall{Def: def, Fn: fn}
	name := def.Name
	ov := &functions.Overload{Name: name, Args: def.ArgTypes, Result: def.Returns, NullCall: !def.Strict, Volatility: functions.Volatile,
		Eval: func(ctx *functions.Context, a []any) (any, error) {
			if ctx == nil || ctx.Procedural == nil {
				return nil, pgerr.NotSupported("calling PL/pgSQL function %s outside a session's statement", name)
			}
			return ctx.Procedural(call, a)
		}}
	return &Call{Name: name, Overload: ov, Args: args, T: def.Returns}, nil
}

// PLBodies keeps the bodies of PL/pgSQL functions a session's calls
// compiled, by function, for as long as the catalog and search path they
// were compiled under are the session's: a call bound again (each level
// of a recursive function, a function another one's body calls) gets the
// same compiled body, and with it the bindings the session keeps for its
// statements, instead of compiling it and binding its statements once a
// call (fib(15) took 1 s that way).
type PLBodies struct {
	cat  *catalog.Catalog
	path string
	fns  map[string]*PLFunction
}

// compile returns def's body compiled, from c when it holds it (c may be
// nil: no keeping).
func (c *PLBodies) compile(b *Binder, def *catalog.FunctionDef) (*PLFunction, error) {
	if c == nil {
		return b.compilePL(def.Body, def, false)
	}
	path := strings.Join(b.SearchPath, ",")
	if c.cat != b.Catalog || c.path != path {
		c.cat, c.path, c.fns = b.Catalog, path, map[string]*PLFunction{}
	}
	key := def.Key()
	if fn := c.fns[key]; fn != nil {
		return fn, nil
	}
	fn, err := b.compilePL(def.Body, def, false)
	if err != nil {
		return nil, err
	}
	c.fns[key] = fn
	return fn, nil
}

// sqlFunctionBody parses a SQL function's body, which must be one
// SELECT, with each parameter (by name or $n) replaced by arg(i,
// location) for the i'th (nil: they are left as parameters $n).
func sqlFunctionBody(def *catalog.FunctionDef, arg func(i int, location int32) *pg_query.Node) (*pg_query.SelectStmt, error) {
	body := def.Body
	if def.Language == "plpgsql" {
		body, _ = returnQuery(def.Body)
	}
	tree, err := parseNested(body)
	if err != nil {
		return nil, nestedParseError(err).WithDetail("In the body of SQL function \"%s\".", def.Name)
	}
	if len(tree.Stmts) != 1 {
		return nil, pgerr.NotSupported("a SQL function body of %d statements", len(tree.Stmts))
	}
	node := tree.Stmts[0].Stmt
	sel := node.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.NotSupported("a SQL function body other than one SELECT")
	}
	if arg == nil {
		arg = func(i int, location int32) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_ParamRef{ParamRef: &pg_query.ParamRef{Number: int32(i + 1), Location: location}}}
		}
	}
	// The nodes are found first and replaced after, so that the walk
	// does not go into the arguments put in their place (which may name
	// columns called as the parameters are). The arguments are not
	// copied: a templated query's constants are known by their nodes.
	type replacement struct {
		n   *pg_query.Node
		arg int
		loc int32
	}
	var found []replacement
	walkMessages(node.ProtoReflect(), func(m protoreflect.Message) {
		n, ok := m.Interface().(*pg_query.Node)
		if !ok {
			return
		}
		if p := n.GetParamRef(); p != nil && p.Number >= 1 && int(p.Number) <= len(def.ArgTypes) {
			found = append(found, replacement{n, int(p.Number - 1), p.Location})
			return
		}
		cr := n.GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
			return
		}
		if i := slices.Index(def.ArgNames, cr.Fields[0].GetString_().Sval); i >= 0 && def.ArgNames[i] != "" {
			found = append(found, replacement{n, i, cr.Location})
		}
	})
	for _, r := range found {
		r.n.Node = arg(r.arg, r.loc).Node
	}
	return sel, nil
}

// withoutTypmod is t without its modifier (an array's element's too).
func withoutTypmod(t types.T) types.T {
	if t.IsArray() {
		elem := withoutTypmod(*t.Elem)
		t.Elem = &elem
	}
	t.Mod = -1
	return t
}

// defaultText is a parameter's DEFAULT as pg_get_function_arguments
// prints it: a NULL or a quoted literal cast to the parameter's type t
// (NULL::integer, '{}'::jsonb), anything else as written.
func defaultText(n *pg_query.Node, t types.T) (string, error) {
	if tc := n.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil && (tc.Arg.GetAConst().Isnull || tc.Arg.GetAConst().GetSval() != nil) {
		n = tc.Arg // a literal cast (as the text printed here reads back)
	}
	if c := n.GetAConst(); c != nil {
		switch {
		case c.Isnull:
			return "NULL::" + t.String(), nil
		case c.GetSval() != nil:
			return "'" + strings.ReplaceAll(c.GetSval().Sval, "'", "''") + "'::" + t.String(), nil
		}
	}
	return DeparseExpr(n)
}

// returnQuery is the query of a PL/pgSQL body that is one RETURN QUERY
// (BEGIN RETURN QUERY SELECT ...; END, after an optional
// #variable_conflict use_column), as the tutorials' search functions are
// written: such a function is inlined as a SQL function is, its
// parameters standing for their values and RETURNS TABLE's column names
// for the columns of the query's tables (use_column). ok is false for
// any other body.
func returnQuery(body string) (query string, ok bool) {
	s := strings.TrimSpace(body)
	for strings.HasPrefix(s, "#") {
		line, rest, _ := strings.Cut(s, "\n")
		if f := strings.Fields(strings.ToLower(line)); len(f) != 2 || f[0] != "#variable_conflict" || f[1] != "use_column" {
			return "", false
		}
		s = strings.TrimSpace(rest)
	}
	cut := func(word string) bool {
		if len(s) <= len(word) || !strings.EqualFold(s[:len(word)], word) || !unicode.IsSpace(rune(s[len(word)])) {
			return false
		}
		s = strings.TrimSpace(s[len(word):])
		return true
	}
	if !cut("begin") || !cut("return") || !cut("query") {
		return "", false
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	if len(s) < 3 || !strings.EqualFold(s[len(s)-3:], "end") {
		return "", false
	}
	s = strings.TrimSpace(s[:len(s)-3])
	if !strings.HasSuffix(s, ";") {
		return "", false
	}
	s = strings.TrimSuffix(s, ";")
	if tree, err := parseNested(s); err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return "", false
	}
	return s, true
}

// pgString is a String node.
func pgString(s string) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: s}}}
}

// typeNameNode is the parse tree's name of type t.
func typeNameNode(t types.T) *pg_query.TypeName {
	tree, err := pg_query.Parse("SELECT NULL::" + t.String())
	if err == nil {
		if tc := tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetTypeCast(); tc != nil {
			return tc.TypeName
		}
	}
	return &pg_query.TypeName{Names: []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "text"}}}}, Typemod: -1}
}

// checkSQLFunction binds a SQL function's body with its parameters, as
// PostgreSQL validates it at CREATE FUNCTION: it must return one column
// that converts to the declared result type.
func (b *Binder) checkSQLFunction(def *catalog.FunctionDef) error {
	sel, err := sqlFunctionBody(def, nil)
	if err != nil {
		return err
	}
	// The body sees the function as it is being defined: one that calls
	// itself is then 54001 here (inlining does not end), not 42883.
	cat := b.Catalog.Clone()
	cat.Functions[def.Key()] = def
	fb := &Binder{Catalog: cat, SearchPath: b.SearchPath, Location: b.Location, Now: b.Now, Role: b.Role,
		TempSchema: b.TempSchema, Params: slices.Clone(def.ArgTypes), expansions: b.expansions}
	plan, err := fb.bindSelect(sel, nil)
	if err != nil {
		return err
	}
	var cols []Col
	for _, c := range plan.Columns() {
		if !c.Hidden {
			cols = append(cols, c)
		}
	}
	if def.Setof {
		want, err := b.functionColumns(def)
		if err != nil {
			return err
		}
		if len(cols) != len(want) {
			return pgerr.New(pgerrcode.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", setofName(def)).
				WithDetail("Final statement returns %d columns, the function %d.", len(cols), len(want))
		}
		for i, c := range cols {
			if _, err := fb.coerce(&Param{T: c.T}, want[i].T, castAssignment); err != nil && c.T.Family != types.Unknown {
				return pgerr.New(pgerrcode.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", setofName(def)).
					WithDetail("Final statement returns %s instead of %s at column %d.", c.T, want[i].T, i+1)
			}
		}
		return nil
	}
	if len(cols) != 1 {
		return pgerr.New(pgerrcode.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", def.Returns).
			WithDetail("Final statement must return exactly one column.")
	}
	if _, err := fb.coerce(&Param{T: cols[0].T}, def.Returns, castAssignment); err != nil && cols[0].T.Family != types.Unknown {
		return pgerr.New(pgerrcode.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", def.Returns).
			WithDetail("Actual return type is %s.", cols[0].T)
	}
	return nil
}

// functionColumns are the columns of the rows set-returning function
// def returns: RETURNS TABLE's, its table's (RETURNS SETOF table, as the
// table is now), or one named after the function.
func (b *Binder) functionColumns(def *catalog.FunctionDef) ([]Col, error) {
	switch {
	case len(def.Columns) > 0:
		out := make([]Col, len(def.Columns))
		for i, c := range def.Columns {
			out[i] = Col{Name: c.Name, T: c.Type}
		}
		return out, nil
	case def.SetofTable != "":
		t, err := b.lookupTable(def.SetofSchema, def.SetofTable)
		if err != nil {
			return nil, err
		}
		return tableCols(t, t.Name), nil
	}
	return []Col{{Name: def.Name, T: def.Returns}}, nil
}

// setofName is how an error names a set-returning function's result.
func setofName(def *catalog.FunctionDef) string {
	switch {
	case def.SetofTable != "":
		return def.SetofTable
	case len(def.Columns) == 1:
		return def.Columns[0].Type.String() // a one-column table is a set of its type
	}
	return def.Returns.String()
}

// lookupFunction finds the user function a call names with arguments
// args: in its schema, or the first schema of the search path that has
// one of its name; among those, one whose argument types are args',
// else the first the arguments convert to. Nil when there is none.
func (b *Binder) lookupFunction(names []string, args []Expr) *catalog.FunctionDef {
	schemas := b.SearchPath
	if len(names) == 2 {
		schemas = names[:1]
	}
	name := names[len(names)-1]
	for _, schema := range schemas {
		var convertible *catalog.FunctionDef
		for _, f := range b.Catalog.FunctionsNamed(schema, name) {
			if f.Trigger || len(args) > len(f.ArgTypes) || len(args) < f.RequiredArgs() {
				continue
			}
			exact, converts := true, true
			for i, a := range args {
				if !a.Type().Equal(f.ArgTypes[i]) {
					exact = false
					if _, err := b.coerce(a, f.ArgTypes[i], castImplicit); err != nil {
						converts = false
					}
				}
			}
			if exact {
				return f
			}
			if converts && convertible == nil {
				convertible = f
			}
		}
		if convertible != nil {
			return convertible
		}
	}
	return nil
}

// withDefaults are the argument nodes of a call of def that gives
// argNodes: those, then the DEFAULT expressions of the parameters left
// out.
func withDefaults(def *catalog.FunctionDef, argNodes []*pg_query.Node) ([]*pg_query.Node, error) {
	out := slices.Clone(argNodes)
	for i := len(argNodes); i < len(def.ArgTypes); i++ {
		n, err := ParseExpr(def.ArgDefaults[i])
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// treeReadsColumns reports whether parse tree n refers to a column (or
// holds a subquery, which may).
func treeReadsColumns(n *pg_query.Node) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if x, ok := m.Interface().(*pg_query.Node); ok && (x.GetColumnRef() != nil || x.GetSubLink() != nil) {
			found = true
		}
	})
	return found
}

// bindFunctionScan binds a call in FROM of def, a set-returning SQL
// function (or PL/pgSQL one of one RETURN QUERY): its body inlined as a
// derived table, as PostgreSQL inlines such functions, so that the query
// it makes is planned with the caller's (a search function's ORDER BY
// embedding <=> $1 LIMIT k still takes the vector index). Each column is
// cast to the function's and named as its, or as the alias names them.
// The arguments stand in the body cast to the parameters' types, or,
// when they read columns (a lateral call), as the columns of a one-row
// derived table the body's own tables cannot shadow. argNodes are the
// call's arguments in positional form.
func (b *Binder) bindFunctionScan(def *catalog.FunctionDef, fn *pg_query.FuncCall, argNodes []*pg_query.Node, rf *pg_query.RangeFunction, outer *scope) (Node, []Col, error) {
	switch {
	case rf.Ordinality:
		return nil, nil, pgerr.NotSupported("WITH ORDINALITY on function %s", def.Name).WithPosition(fn.Location + 1)
	case len(rf.Coldeflist) > 0:
		return nil, nil, pgerr.New(pgerrcode.SyntaxError, "a column definition list is redundant for a function with OUT parameters").WithPosition(fn.Location + 1)
	case b.inlineDepth >= maxInlineDepth:
		return nil, nil, pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded").
			WithHint("SQL function \"%s\" calls itself (or other SQL functions) more than %d deep.", def.Name, maxInlineDepth)
	}
	if err := b.expand(); err != nil {
		return nil, nil, err
	}
	b.inlineDepth++
	defer func() { b.inlineDepth-- }()
	argNodes, err := withDefaults(def, argNodes)
	if err != nil {
		return nil, nil, err
	}
	cols, err := b.functionColumns(def)
	if err != nil {
		return nil, nil, err
	}
	typed := func(i int) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: argNodes[i], TypeName: typeNameNode(def.ArgTypes[i]), Location: -1}}}
	}
	// SELECT c1::t1 AS name1, ... FROM [(SELECT args) cairn_args,]
	// LATERAL (body) AS cairn_fn(c1, ...)
	wrap := &pg_query.SelectStmt{}
	var sel *pg_query.SelectStmt
	if !slices.ContainsFunc(argNodes, treeReadsColumns) {
		sel, err = sqlFunctionBody(def, func(i int, _ int32) *pg_query.Node { return typed(i) })
	} else {
		sel, err = sqlFunctionBody(def, func(i int, location int32) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{
				pgString("cairn_args"), pgString(fmt.Sprintf("p%d", i+1))}, Location: location}}}
		})
		argsSel := &pg_query.SelectStmt{}
		for i := range argNodes {
			argsSel.TargetList = append(argsSel.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
				Name: fmt.Sprintf("p%d", i+1), Val: typed(i), Location: -1}}})
		}
		wrap.FromClause = []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
			Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: argsSel}}, Alias: &pg_query.Alias{Aliasname: "cairn_args"}}}}}
	}
	if err != nil {
		return nil, nil, err
	}
	inner := &pg_query.Alias{Aliasname: "cairn_fn"}
	for i, c := range cols {
		field := fmt.Sprintf("c%d", i+1)
		inner.Colnames = append(inner.Colnames, pgString(field))
		ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{pgString("cairn_fn"), pgString(field)}, Location: -1}}}
		wrap.TargetList = append(wrap.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
			Name: c.Name, Val: &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: ref, TypeName: typeNameNode(c.T), Location: -1}}}, Location: -1}}})
	}
	wrap.FromClause = append(wrap.FromClause, &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Lateral: true, Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, Alias: inner}}})
	alias := &pg_query.Alias{Aliasname: def.Name}
	if rf.Alias != nil {
		alias = &pg_query.Alias{Aliasname: rf.Alias.Aliasname, Colnames: rf.Alias.Colnames}
		if len(alias.Colnames) == 0 && len(cols) == 1 && len(def.Columns) == 0 && def.SetofTable == "" {
			alias.Colnames = []*pg_query.Node{pgString(alias.Aliasname)} // a scalar set's column takes the alias's name
		}
	}
	plan, out, err := b.bindFromItem(&pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
		Lateral: true, Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: wrap}}, Alias: alias}}}, outer)
	if err != nil {
		return nil, nil, pgerr.From(err).WithDetail("In function \"%s\".", def.Name)
	}
	return plan, out, nil
}

// inlineFunction binds a call of SQL function def with the argument
// nodes argNodes: the body's one expression with the arguments in place
// of the parameters, or, when the body reads tables (or filters,
// groups...), the body as a scalar subquery; either cast to the result
// type.
func (b *Binder) inlineFunction(sc *scope, def *catalog.FunctionDef, argNodes []*pg_query.Node, location int32) (Expr, error) {
	if b.inlineDepth >= maxInlineDepth {
		return nil, pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded").
			WithHint("SQL function \"%s\" calls itself (or other SQL functions) more than %d deep.", def.Name, maxInlineDepth)
	}
	if def.Setof {
		return nil, pgerr.NotSupported("set-returning function %s in an expression (call it in FROM)", def.Name).WithPosition(location + 1)
	}
	if err := b.expand(); err != nil {
		return nil, err
	}
	b.inlineDepth++
	defer func() { b.inlineDepth-- }()
	argNodes, err := withDefaults(def, argNodes)
	if err != nil {
		return nil, err
	}
	sel, err := sqlFunctionBody(def, nil)
	if err != nil {
		return nil, err
	}
	if callsByName(sel, def.Name) {
		return b.recursiveSQLCall(sc, def, argNodes, location)
	}
	typed := func(i int) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: argNodes[i], TypeName: typeNameNode(def.ArgTypes[i]), Location: -1}}}
	}
	var body *pg_query.Node
	switch {
	case len(sel.TargetList) == 1 && len(sel.FromClause) == 0 && sel.WhereClause == nil && len(sel.GroupClause) == 0 &&
		sel.HavingClause == nil && len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.LimitOffset == nil &&
		sel.Op == pg_query.SetOperation_SETOP_NONE && sel.WithClause == nil && len(sel.DistinctClause) == 0 &&
		len(sel.ValuesLists) == 0 && sel.IntoClause == nil:
		// SELECT expr: the expression, with the arguments in it.
		if sel, err = sqlFunctionBody(def, func(i int, _ int32) *pg_query.Node { return typed(i) }); err != nil {
			return nil, err
		}
		body = sel.TargetList[0].GetResTarget().GetVal()
	case sel.Op == pg_query.SetOperation_SETOP_NONE && len(sel.ValuesLists) == 0 && len(argNodes) > 0:
		// A query: a scalar subquery whose FROM clause starts with the
		// arguments, as a one-row derived table (cairn_args.p1, ...), so
		// that the body's tables cannot capture the names the argument
		// expressions read.
		if sel, err = sqlFunctionBody(def, func(i int, location int32) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{
				pgString("cairn_args"), pgString(fmt.Sprintf("p%d", i+1))}, Location: location}}}
		}); err != nil {
			return nil, err
		}
		argsSel := &pg_query.SelectStmt{}
		for i := range argNodes {
			argsSel.TargetList = append(argsSel.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
				Name: fmt.Sprintf("p%d", i+1), Val: typed(i), Location: -1}}})
		}
		from := &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
			Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: argsSel}}, Alias: &pg_query.Alias{Aliasname: "cairn_args"}}}}
		sel.FromClause = append([]*pg_query.Node{from}, sel.FromClause...)
		body = &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{
			SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Subselect: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sqlFunctionResult(sel)}}, Location: location}}}
	default:
		if sel, err = sqlFunctionBody(def, func(i int, _ int32) *pg_query.Node { return typed(i) }); err != nil {
			return nil, err
		}
		body = &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{
			SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Subselect: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sqlFunctionResult(sel)}}, Location: location}}}
	}
	e, err := b.bindExpr(sc, &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{
		Arg: body, TypeName: typeNameNode(def.Returns), Location: -1}}})
	if err != nil {
		return nil, pgerr.From(err).WithDetail("In SQL function \"%s\".", def.Name)
	}
	if def.Strict {
		// A STRICT function is NULL when any argument is, without
		// running its body.
		args, err := b.bindExprs(sc, argNodes)
		if err != nil {
			return nil, err
		}
		var whens []When
		for _, a := range args {
			whens = append(whens, When{Cond: &IsNull{Arg: a}, Result: &Const{T: e.Type()}})
		}
		if len(whens) > 0 {
			e = &Case{Whens: whens, Else: e, T: e.Type()}
		}
	}
	return e, nil
}

// callsByName reports whether query sel calls a function named name (a
// SQL function's body that calls itself).
func callsByName(sel *pg_query.SelectStmt, name string) bool {
	found := false
	walkMessages(sel.ProtoReflect(), func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*pg_query.FuncCall); ok && len(fc.Funcname) > 0 &&
			strings.EqualFold(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval(), name) {
			found = true
		}
	})
	return found
}

// recursiveSQLCall binds a call of def, a SQL function whose body calls
// itself and so cannot be inlined: the call runs at execution time, as
// the PL/pgSQL function RETURN (body) would, with the body's first row
// as a SQL function returns it (LIMIT 1, or around a body that has its
// own limit). Each level of the recursion is such a call.
func (b *Binder) recursiveSQLCall(sc *scope, def *catalog.FunctionDef, argNodes []*pg_query.Node, location int32) (Expr, error) {
	sel, err := sqlFunctionBody(def, nil)
	if err != nil {
		return nil, err
	}
	sel = sqlFunctionResult(sel)
	text, err := DeparseExpr(&pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{
		SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK, Subselect: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}}}})
	if err != nil {
		return nil, pgerr.From(err).WithDetail("In SQL function \"%s\".", def.Name)
	}
	pl := *def
	pl.Language, pl.Body = "plpgsql", "BEGIN RETURN "+text+"; END"
	return b.plCall(sc, &pl, argNodes, location)
}

// sqlFunctionResult returns query sel limited to its first row, as a SQL
// function returns the first row of its body: sel with LIMIT 1, or, when
// it has a limit of its own, SELECT * FROM (sel) LIMIT 1.
func sqlFunctionResult(sel *pg_query.SelectStmt) *pg_query.SelectStmt {
	if sel.LimitCount != nil || sel.LimitOffset != nil {
		sel = &pg_query.SelectStmt{
			TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: &pg_query.Node{Node: &pg_query.Node_ColumnRef{
				ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{{Node: &pg_query.Node_AStar{AStar: &pg_query.A_Star{}}}}}}}}}}},
			FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
				Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, Alias: &pg_query.Alias{Aliasname: "cairn_body"}}}}},
		}
	}
	sel.LimitCount = &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Ival{Ival: &pg_query.Integer{Ival: 1}}}}}
	sel.LimitOption = pg_query.LimitOption_LIMIT_OPTION_COUNT
	return sel
}

// bindDropFunction binds DROP FUNCTION [IF EXISTS] name[(types)], ...
// [CASCADE]: a name without argument types must name one function.
func (b *Binder) bindDropFunction(s *pg_query.DropStmt) (Statement, error) {
	d := &DropFunction{Cascade: s.Behavior == pg_query.DropBehavior_DROP_CASCADE}
	for _, o := range s.Objects {
		found, written, err := b.resolveFunction(o.GetObjectWithArgs())
		if err != nil {
			return nil, err
		}
		if found == nil {
			if s.MissingOk {
				d.Missing = append(d.Missing, written)
				continue
			}
			return nil, errNoFunction(o.GetObjectWithArgs(), written)
		}
		d.Keys = append(d.Keys, found.Key())
	}
	return d, nil
}

// resolveFunction finds the function an object name with arguments
// names (nil if none), and the name as written, for errors and notices.
// A name without argument types must name one function.
func (b *Binder) resolveFunction(ow *pg_query.ObjectWithArgs) (*catalog.FunctionDef, string, error) {
	names := strList(ow.Objname)
	schemas := b.SearchPath
	if len(names) == 2 {
		schemas = names[:1]
	}
	name := names[len(names)-1]
	var args []types.T
	for _, a := range ow.Objargs {
		t, err := b.typeFromName(a.GetTypeName())
		if err != nil {
			return nil, "", err
		}
		args = append(args, t)
	}
	written := strings.Join(names, ".")
	if !ow.ArgsUnspecified {
		ts := make([]string, len(args))
		for i, t := range args {
			ts[i] = t.String()
		}
		written += "(" + strings.Join(ts, ", ") + ")"
	}
	for _, schema := range schemas {
		if !ow.ArgsUnspecified {
			if f := b.Catalog.Functions[catalog.FunctionKey(schema, name, args)]; f != nil {
				return f, written, nil
			}
			continue
		}
		fs := b.Catalog.FunctionsNamed(schema, name)
		if len(fs) > 1 {
			return nil, "", pgerr.New(pgerrcode.AmbiguousFunction, "function name \"%s\" is not unique", name).
				WithHint("Specify the argument list to select the function unambiguously.")
		}
		if len(fs) == 1 {
			return fs[0], written, nil
		}
	}
	return nil, written, nil
}

// existingFunction is resolveFunction for a statement on a function that
// must exist (ALTER FUNCTION, COMMENT ON FUNCTION): 42883 when ow names
// none.
func (b *Binder) existingFunction(ow *pg_query.ObjectWithArgs) (*catalog.FunctionDef, error) {
	f, written, err := b.resolveFunction(ow)
	if err == nil && f == nil {
		err = errNoFunction(ow, written)
	}
	return f, err
}

// errNoFunction is the error of a function name that names none.
func errNoFunction(ow *pg_query.ObjectWithArgs, written string) error {
	if ow.ArgsUnspecified {
		return pgerr.New(pgerrcode.UndefinedFunction, "could not find a function named \"%s\"", written)
	}
	return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", written)
}

// AlterFunctionOwner is ALTER FUNCTION name[(types)] OWNER TO role
// (pg_dump writes one after each function).
type AlterFunctionOwner struct {
	Key   string
	Owner RoleSpec
}

func (*AlterFunctionOwner) statement() {}

// bindAlterFunctionOwner binds ALTER FUNCTION ... OWNER TO.
func (b *Binder) bindAlterFunctionOwner(s *pg_query.AlterOwnerStmt) (Statement, error) {
	f, err := b.existingFunction(s.Object.GetObjectWithArgs())
	if err != nil {
		return nil, err
	}
	return &AlterFunctionOwner{Key: f.Key(), Owner: roleSpec(s.Newowner)}, nil
}

// Trigger types of pg_trigger.tgtype (and of CreateTrigStmt's timing and
// events).
const (
	triggerBefore  = 1 << 1
	triggerInsert  = 1 << 2
	triggerDelete  = 1 << 3
	triggerUpdate  = 1 << 4
	triggerTrunc   = 1 << 5
	triggerInstead = 1 << 6
)

// bindCreateTrigger binds CREATE [OR REPLACE] TRIGGER: row- and
// statement-level BEFORE and AFTER triggers on INSERT, UPDATE and DELETE
// of a table, INSTEAD OF row triggers and BEFORE and AFTER statement
// triggers of a view, of a PL/pgSQL trigger function, are what the
// session runs; anything else is refused here, never accepted and
// ignored.
func (b *Binder) bindCreateTrigger(s *pg_query.CreateTrigStmt) (Statement, error) {
	if s.Isconstraint {
		return nil, pgerr.NotSupported("CREATE CONSTRAINT TRIGGER")
	}
	if s.TransitionRels != nil {
		return nil, pgerr.NotSupported("REFERENCING transition tables")
	}
	instead := s.Timing&triggerInstead != 0
	table, err := b.lookupTable(s.Relation.Schemaname, s.Relation.Relname)
	var view *catalog.ViewDef
	if pgerr.Code(err) == pgerrcode.WrongObjectType {
		view = b.lookupView(s.Relation.Schemaname, s.Relation.Relname)
	}
	switch {
	case view != nil:
		if err := viewTriggerAllowed(s); err != nil {
			return nil, err
		}
		b.accesses = append(b.accesses, Access{View: view, Owner: true})
		table = view.TriggerTable()
	case err != nil:
		return nil, err
	case instead:
		return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is a table", table.Name).WithDetail("Tables cannot have INSTEAD OF triggers.")
	case s.Events&triggerTrunc != 0 && s.Row:
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "TRUNCATE FOR EACH ROW triggers are not supported")
	default:
		b.needOwner(table)
	}
	names := strList(s.Funcname)
	schemas := b.SearchPath
	if len(names) == 2 {
		schemas = names[:1]
	}
	var fn *catalog.FunctionDef
	for _, schema := range schemas {
		if fn = b.Catalog.Functions[catalog.FunctionKey(schema, names[len(names)-1], nil)]; fn != nil {
			break
		}
	}
	if fn == nil {
		return nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s() does not exist", strings.Join(names, "."))
	}
	if !fn.Trigger {
		return nil, pgerr.New(pgerrcode.InvalidObjectDefinition, "function %s must return type trigger", fn.Name)
	}
	def := catalog.TriggerDef{Name: s.Trigname, Function: fn.Key(), Before: s.Timing&triggerBefore != 0, Instead: instead, ForEachRow: s.Row}
	// The grammar makes every argument a string (numbers and names as
	// written).
	for _, a := range s.Args {
		str := a.GetString_()
		if str == nil {
			return nil, pgerr.New(pgerrcode.InternalError, "trigger argument of %T", a.Node)
		}
		def.Args = append(def.Args, str.Sval)
	}
	// In pg_get_triggerdef's order.
	if s.Events&triggerInsert != 0 {
		def.Events = append(def.Events, "INSERT")
	}
	if s.Events&triggerDelete != 0 {
		def.Events = append(def.Events, "DELETE")
	}
	if s.Events&triggerUpdate != 0 {
		def.Events = append(def.Events, "UPDATE")
	}
	if s.Events&triggerTrunc != 0 {
		def.Events = append(def.Events, "TRUNCATE")
	}
	for _, c := range s.Columns {
		name := c.GetString_().GetSval()
		_, col := table.Column(name)
		if col == nil {
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, table.Name)
		}
		id := col.ID
		if slices.Contains(def.Columns, id) {
			return nil, pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		def.Columns = append(def.Columns, id)
	}
	if s.WhenClause != nil {
		if hasSubLink(s.WhenClause) {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in trigger WHEN condition")
		}
		when, err := DeparseExpr(s.WhenClause)
		if err != nil {
			return nil, err
		}
		cond, err := b.CompileTrigger(TriggerWhenBody(when))
		if err != nil {
			return nil, err
		}
		if err := triggerWhenRefs(cond, s.Row, def); err != nil {
			return nil, err
		}
		def.When = when
	}
	if view != nil {
		return &CreateTrigger{View: view, Def: def, Replace: s.Replace}, nil
	}
	return &CreateTrigger{Table: table, Def: def, Replace: s.Replace}, nil
}

// viewTriggerAllowed refuses, as PostgreSQL does, a trigger a view
// cannot have: row-level BEFORE or AFTER, TRUNCATE (42809), and an
// INSTEAD OF trigger for each statement, with a WHEN condition or
// UPDATE OF columns (0A000).
func viewTriggerAllowed(s *pg_query.CreateTrigStmt) error {
	wrongKind := func(detail string) error {
		return pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is a view", s.Relation.Relname).WithDetail("%s", detail)
	}
	instead := s.Timing&triggerInstead != 0
	switch {
	case !instead && s.Row:
		return wrongKind("Views cannot have row-level BEFORE or AFTER triggers.")
	case s.Events&triggerTrunc != 0:
		return wrongKind("Views cannot have TRUNCATE triggers.")
	case !instead:
		return nil
	case !s.Row:
		return pgerr.New(pgerrcode.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
	case s.WhenClause != nil:
		return pgerr.New(pgerrcode.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
	case len(s.Columns) > 0:
		return pgerr.New(pgerrcode.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
	}
	return nil
}

// triggerWhenRefs refuses, as PostgreSQL does (42P17), a WHEN condition
// cond that reads a row its trigger does not have: any column of a
// statement trigger, OLD of an INSERT trigger, NEW of a DELETE trigger;
// and one naming TG_OP or another variable of trigger functions (42703).
func triggerWhenRefs(cond *PLFunction, row bool, def catalog.TriggerDef) error {
	refs := func(v int) bool {
		if v < 0 || len(cond.Body.Body) != 1 {
			return false
		}
		ret, ok := cond.Body.Body[0].(*PLReturn)
		if !ok || ret.Expr == nil {
			return false
		}
		return slices.ContainsFunc(ret.Expr.Refs, func(r PLRef) bool { return r.Var == v })
	}
	// The condition sees NEW and OLD only, not the function's TG_
	// variables (it is compiled as a trigger function's body).
	for _, tv := range plTriggerVars {
		if refs(cond.TG[tv.name]) {
			return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", tv.name)
		}
	}
	bad := func(msg string) error { return pgerr.New(pgerrcode.InvalidObjectDefinition, "%s", msg) }
	switch {
	case !row && (refs(cond.New) || refs(cond.Old)):
		return bad("statement trigger's WHEN condition cannot reference column values")
	case def.Fires("INSERT") && refs(cond.Old):
		return bad("INSERT trigger's WHEN condition cannot reference OLD values")
	case def.Fires("DELETE") && refs(cond.New):
		return bad("DELETE trigger's WHEN condition cannot reference NEW values")
	}
	return nil
}

// hasSubLink reports whether expression n holds a subquery.
func hasSubLink(n *pg_query.Node) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg_query.SubLink); ok {
			found = true
		}
	})
	return found
}

// TriggerWhenBody is the PL/pgSQL body that computes a trigger's WHEN
// condition: run as a trigger function, with the trigger's NEW and OLD.
func TriggerWhenBody(when string) string { return "BEGIN RETURN (" + when + "); END" }

// bindDropTrigger binds DROP TRIGGER [IF EXISTS] name ON table (or view).
func (b *Binder) bindDropTrigger(s *pg_query.DropStmt) (Statement, error) {
	if len(s.Objects) != 1 {
		return nil, pgerr.NotSupported("DROP TRIGGER of several triggers")
	}
	names := strList(s.Objects[0].GetList().GetItems())
	schema := ""
	if len(names) == 3 {
		schema = names[0]
	}
	name := names[len(names)-1]
	table, err := b.lookupTable(schema, names[len(names)-2])
	var view *catalog.ViewDef
	if pgerr.Code(err) == pgerrcode.WrongObjectType {
		view = b.lookupView(schema, names[len(names)-2])
	}
	switch {
	case view != nil:
		b.accesses = append(b.accesses, Access{View: view, Owner: true})
		table = view.TriggerTable()
	case err != nil:
		if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
			return &DropTrigger{Name: name, Missing: names[len(names)-2]}, nil
		}
		return nil, err
	default:
		b.needOwner(table)
	}
	for _, t := range table.Triggers {
		if t.Name == name && view != nil {
			return &DropTrigger{View: view, Name: name}, nil
		}
		if t.Name == name {
			return &DropTrigger{Table: table, Name: name}, nil
		}
	}
	if s.MissingOk {
		return &DropTrigger{Name: name, Missing: table.Name}, nil
	}
	return nil, pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, table.Name)
}
