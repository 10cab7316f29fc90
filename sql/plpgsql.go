package sql

// PL/pgSQL: the body of a DO block is parsed by pg_query's PL/pgSQL parser
// (ParsePlPgSqlToJSON) and compiled here into a small program, PLFunction,
// that exec/session interprets. Each expression and SQL statement of the
// body is parsed once, with the identifiers that name the block's
// variables rewritten to parameters ($n), so that the interpreter runs it
// as a prepared statement whose parameter values are the variables'.
// What the interpreter cannot run is refused here with 0A000 naming it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Do is DO: a PL/pgSQL block run once.
type Do struct{ Fn *PLFunction }

// PLFunction is a compiled PL/pgSQL body: its variables (PostgreSQL's
// datums, by number) and its outer block.
type PLFunction struct {
	Vars []PLVar
	Body *PLBlock
	// Found, SQLState and SQLErrm are the numbers of the FOUND, SQLSTATE
	// and SQLERRM variables, New and Old those of a trigger function's
	// NEW and OLD records (-1 where the body has none).
	Found, SQLState, SQLErrm, New, Old int
	// Trigger marks a trigger function's body; TG are the numbers of
	// its special variables by name (tg_op, tg_name, tg_when, tg_level,
	// tg_table_name, tg_table_schema, tg_nargs, tg_argv).
	Trigger bool
	TG      map[string]int
	// Args is how many of the first variables are the parameters of a
	// function's body (0 for a DO block or a trigger), which a call
	// gives the arguments' values.
	Args int
}

// PLCall is what a call of a PL/pgSQL function of CREATE FUNCTION hands
// the session (functions.Context.Procedural): the function and its body
// compiled.
type PLCall struct {
	Def *catalog.FunctionDef
	Fn  *PLFunction
	// Out are a set-returning function's columns, which the rows of its
	// RETURN QUERYs are cast to.
	Out []types.Field
}

// plTriggerVars are the special variables of a trigger function and their
// types. TG_ARGV counts from 0 in PostgreSQL, cairn's arrays from 1: a
// body reads it only subscripted, its subscripts shifted by one
// (plTriggerArgv).
var plTriggerVars = []struct {
	name string
	t    types.T
}{
	{"tg_op", types.TextT}, {"tg_name", types.TextT}, {"tg_when", types.TextT}, {"tg_level", types.TextT},
	{"tg_table_name", types.TextT}, {"tg_table_schema", types.TextT},
	{"tg_nargs", types.Int4T}, {"tg_argv", types.ArrayOf(types.TextT, 1)},
}

// CompileTrigger compiles the body of a PL/pgSQL trigger function.
func (b *Binder) CompileTrigger(body string) (*PLFunction, error) {
	return b.compilePL(body, nil, true)
}

// PLVar is one variable of a PL/pgSQL body.
type PLVar struct {
	Name string
	// T is the declared type; the zero T (Unknown) for a variable typed
	// by what it is given (a FOR loop's integer, FOUND).
	T types.T
	// Record marks a record variable (declared record, NEW, OLD): it
	// holds a row whose fields are read as name.field.
	Record bool
	// Row are the fields of a variable of a table's row type
	// (table%ROWTYPE), which it has from the start, all NULL.
	Row []PLField
	// Default is the initial value (nil: NULL), cast to T.
	Default  *PLExpr
	Constant bool
	NotNull  bool
	// Field, when set, makes this datum a field of record variable
	// FieldOf (NEW.n): an INTO target writes that field.
	Field   string
	FieldOf int
}

// PLField is a field of a row-typed variable.
type PLField struct {
	Name string
	T    types.T
}

// PLExpr is one expression or SQL statement of a body, parsed, with the
// variable references in it made parameters: parameter $i+1 is Refs[i].
type PLExpr struct {
	Text string
	Stmt *Parsed
	Refs []PLRef
}

// PLRef is the variable (or record field) a parameter stands for; Whole
// marks a record variable read as a whole (NEW IS DISTINCT FROM OLD), a
// record of its fields.
type PLRef struct {
	Var   int
	Field string
	Whole bool
}

// PLStmt is one statement of a PL/pgSQL body.
type PLStmt interface{ plStmt() }

// PLBlock is BEGIN ... [EXCEPTION ...] END: Init are the variables its
// DECLARE section (re)initialises when the block starts.
type PLBlock struct {
	Label    string
	Init     []int
	Body     []PLStmt
	Handlers []PLHandler
}

// PLHandler is one WHEN ... THEN of an EXCEPTION clause: the SQLSTATEs it
// catches (a class's code ends in 000 and catches the whole class; ""
// is OTHERS).
type PLHandler struct {
	Codes []string
	Body  []PLStmt
}

// PLAssign is var := expr (or rec.field := expr).
type PLAssign struct {
	Var   int
	Field string
	Expr  *PLExpr
}

// PLIf is IF ... ELSIF ... ELSE ... END IF.
type PLIf struct {
	Conds  []*PLExpr
	Bodies [][]PLStmt
	Else   []PLStmt
}

// PLExecSQL is a SQL statement, with INTO targets when Into is set.
// NoDestination marks a SELECT without INTO, which PostgreSQL refuses
// when it runs (42601: its rows would go nowhere).
type PLExecSQL struct {
	SQL           *PLExpr
	Into          []int
	Strict        bool
	NoDestination bool
}

// PLPerform is PERFORM query: a query run for its effects.
type PLPerform struct{ Query *PLExpr }

// PLDynExecute is EXECUTE string [INTO ...] [USING ...].
type PLDynExecute struct {
	Query  *PLExpr
	Params []*PLExpr
	Into   []int
	Strict bool
}

// PLRaise is RAISE: Level is NOTICE, WARNING, INFO, LOG, DEBUG or
// EXCEPTION; an empty Message and Cond re-raise the error being handled.
type PLRaise struct {
	Level   string
	Cond    string // SQLSTATE named in RAISE cond_name / SQLSTATE 'xxxxx'
	Message string
	Params  []*PLExpr
	Options []PLRaiseOption
}

// PLRaiseOption is one USING option of RAISE (ERRCODE, MESSAGE, DETAIL,
// HINT).
type PLRaiseOption struct {
	Kind string
	Expr *PLExpr
}

// PLReturn is RETURN [expr]; Var is set (>= 0) when expr is a record
// variable (RETURN NEW), Null for RETURN NULL.
type PLReturn struct {
	Expr *PLExpr
	Var  int
}

// PLLoop is LOOP, WHILE, FOR i IN a..b and FOR target IN query: the kind
// is which of Cond, the integer range or Query is set.
type PLLoop struct {
	Label string
	// Cond is WHILE's condition.
	Cond *PLExpr
	// Var, Lower, Upper, Step and Reverse are an integer FOR loop's.
	Var                 int
	Lower, Upper, Step  *PLExpr
	Reverse, IntegerFor bool
	// Query and Target are a FOR loop over a query's rows.
	Query  *PLExpr
	Target []int
	// Array is FOREACH Var IN ARRAY's array, whose elements Var takes
	// in turn.
	Array *PLExpr
	Body  []PLStmt
}

// PLReturnQuery is RETURN QUERY query: its rows are added to the rows of
// a set-returning function.
type PLReturnQuery struct{ Query *PLExpr }

// PLReturnNext is RETURN NEXT value: a row added to the rows of a
// set-returning function, the value of Expr, or of variable Var (>= 0),
// a record's fields or a scalar.
type PLReturnNext struct {
	Expr *PLExpr
	Var  int
}

// PLGetDiag is GET [CURRENT | STACKED] DIAGNOSTICS var = item, ...: each
// item's value is assigned to its variable. GET CURRENT's item is
// ROW_COUNT, the rows the last SQL statement of the body read or changed;
// GET STACKED's (stackedDiagItems) describe the error the exception
// handler running caught.
type PLGetDiag struct {
	Stacked bool
	Items   []PLDiagItem
}

// PLDiagItem is an item of GET DIAGNOSTICS: its kind, as PostgreSQL
// names it (ROW_COUNT, RETURNED_SQLSTATE, MESSAGE_TEXT, ...), and the
// number of the variable it sets.
type PLDiagItem struct {
	Kind string
	Var  int
}

// stackedDiagItems are the items of GET STACKED DIAGNOSTICS.
var stackedDiagItems = map[string]bool{
	"RETURNED_SQLSTATE": true, "MESSAGE_TEXT": true, "PG_EXCEPTION_DETAIL": true, "PG_EXCEPTION_HINT": true,
	"PG_EXCEPTION_CONTEXT": true, "COLUMN_NAME": true, "CONSTRAINT_NAME": true, "PG_DATATYPE_NAME": true,
	"TABLE_NAME": true, "SCHEMA_NAME": true,
}

// PLExit is EXIT or CONTINUE [label] [WHEN cond].
type PLExit struct {
	Continue bool
	Label    string
	Cond     *PLExpr
}

func (*PLBlock) plStmt()       {}
func (*PLAssign) plStmt()      {}
func (*PLIf) plStmt()          {}
func (*PLExecSQL) plStmt()     {}
func (*PLPerform) plStmt()     {}
func (*PLDynExecute) plStmt()  {}
func (*PLRaise) plStmt()       {}
func (*PLReturn) plStmt()      {}
func (*PLLoop) plStmt()        {}
func (*PLExit) plStmt()        {}
func (*PLGetDiag) plStmt()     {}
func (*PLReturnQuery) plStmt() {}
func (*PLReturnNext) plStmt()  {}

// PLCondition is the SQLSTATE of a condition name or SQLSTATE code of
// EXCEPTION WHEN or RAISE ("" for OTHERS), false if there is none.
func PLCondition(name string) (string, bool) {
	name = strings.ToLower(name)
	if name == "others" {
		return "", true
	}
	if code, ok := plConditions[name]; ok {
		return code, true
	}
	if len(name) == 5 && strings.Trim(strings.ToUpper(name), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return strings.ToUpper(name), true
	}
	return "", false
}

// PLConditionName is the condition name of a SQLSTATE, "" if it has none.
func PLConditionName(code string) string {
	for name, c := range plConditions {
		if c == code {
			return name
		}
	}
	return ""
}

// bindDo compiles a DO statement's body.
func (b *Binder) bindDo(n *pg_query.DoStmt) (Statement, error) {
	var body, lang string
	lang = "plpgsql"
	for _, a := range n.Args {
		d := a.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "as":
			body = d.Arg.GetString_().GetSval()
		case "language":
			lang = strings.ToLower(d.Arg.GetString_().GetSval())
		}
	}
	if lang != "plpgsql" {
		if lang == "sql" {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "language \"sql\" does not support inline code execution")
		}
		return nil, pgerr.New(pgerrcode.UndefinedObject, "language \"%s\" does not exist", lang)
	}
	fn, err := b.compilePL(body, nil, false)
	if err != nil {
		return nil, err
	}
	return &Do{Fn: fn}, nil
}

// dollarQuote quotes s as a dollar-quoted string whose tag s does not hold.
func dollarQuote(s string) string {
	tag := "$cairn$"
	for i := 0; strings.Contains(s, tag); i++ {
		tag = fmt.Sprintf("$cairn%d$", i)
	}
	return tag + s + tag
}

// plJSON is a node of pg_query's PL/pgSQL JSON: one key, the node type.
type plJSON map[string]json.RawMessage

// plExprJSON is a PLpgSQL_expr.
type plExprJSON struct {
	PLpgSQLExpr *struct {
		Query     string `json:"query"`
		ParseMode int    `json:"parseMode"`
	} `json:"PLpgSQL_expr"`
}

// plRowJSON is an INTO or FOR target: a row of variables, or one record.
type plRowJSON struct {
	Row *struct {
		Fields []struct {
			Name  string `json:"name"`
			Varno int    `json:"varno"`
		} `json:"fields"`
	} `json:"PLpgSQL_row"`
	Rec *struct {
		Dno int `json:"dno"`
	} `json:"PLpgSQL_rec"`
	Var *struct {
		Dno int `json:"dno"`
	} `json:"PLpgSQL_var"`
}

// plCompiler holds what compiling one body needs.
type plCompiler struct {
	b      *Binder
	fn     *PLFunction
	byName map[string]int
	// typeNames are the declared types of the variables, as written.
	typeNames []string
	// returnsVoid marks the body of a function returning void, whose
	// RETURN takes no value; setof one returning a set (RETURN QUERY).
	returnsVoid, setof bool
	// bareNexts are the variables of the body's RETURN NEXT variable
	// statements, in order (read from its text: see returnNextRE), of
	// which nextVars have been compiled.
	bareNexts []string
	nextVars  int
	// outColumns marks a body of RETURNS TABLE (...), whose columns are
	// OUT parameters.
	outColumns bool
}

// withoutCommentsAndStrings is a body's text with its comments and the
// insides of its quoted strings blanked out, for returnNextRE to find
// only statements.
func withoutCommentsAndStrings(body string) string {
	b := []byte(body)
	for i := 0; i < len(b); i++ {
		var end int
		switch {
		case b[i] == '-' && i+1 < len(b) && b[i+1] == '-':
			end = bytes.IndexByte(b[i:], '\n')
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			if end = bytes.Index(b[i+2:], []byte("*/")); end >= 0 {
				end += 4
			}
		case b[i] == '\'':
			end = 1
			for i+end < len(b) && (b[i+end] != '\'' || i+end+1 < len(b) && b[i+end+1] == '\'') {
				if b[i+end] == '\'' {
					end++ // a doubled quote
				}
				end++
			}
			end++
		default:
			continue
		}
		if end < 0 || i+end > len(b) {
			end = len(b) - i
		}
		for j := i; j < i+end; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i += end - 1
	}
	return string(b)
}

// returnNextRE finds RETURN NEXT of a bare variable in a body's text.
var returnNextRE = regexp.MustCompile(`(?i)\bRETURN\s+NEXT\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)\s*;`)

// compilePL compiles a PL/pgSQL body: a DO block's, a trigger function's
// (trigger: with NEW and OLD), or the body of def, a function returning
// a value, whose parameters are its first variables, named as def names
// them (and $1, $2, ... in its statements).
func (b *Binder) compilePL(body string, def *catalog.FunctionDef, trigger bool) (*PLFunction, error) {
	returns, params := "void", ""
	if trigger {
		returns = "trigger"
	}
	if def != nil {
		returns = def.Returns.String()
		if def.Setof {
			// Its rows come from RETURN QUERY; RETURNS TABLE's columns
			// are not variables here (a query's columns of those names
			// are the columns, as with #variable_conflict use_column).
			returns = "SETOF record"
		}
		for i, t := range def.ArgTypes {
			if i > 0 {
				params += ", "
			}
			params += ident.Quote(plParamName(def, i)) + " " + t.String()
		}
	}
	text := "CREATE FUNCTION cairn_inline(" + params + ") RETURNS " + returns + " LANGUAGE plpgsql AS " + dollarQuote(body)
	out, err := pg_query.ParsePlPgSqlToJSON(text)
	if err != nil {
		if def != nil && len(def.Columns) > 0 && outColumnParseError(err) {
			// The body is parsed without RETURNS TABLE's columns as
			// variables (see returns above).
			return nil, pgerr.NotSupported("assigning RETURNS TABLE's columns or RETURN NEXT without a value in PL/pgSQL (%s)", err.Error())
		}
		return nil, pgerr.New(pgerrcode.SyntaxError, "%s", err.Error())
	}
	var fns []struct {
		Fn struct {
			Datums []plJSON        `json:"datums"`
			Action json.RawMessage `json:"action"`
		} `json:"PLpgSQL_function"`
	}
	if err := json.Unmarshal([]byte(out), &fns); err != nil || len(fns) != 1 {
		return nil, pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
	}
	c := &plCompiler{b: b, fn: &PLFunction{Found: -1, SQLState: -1, SQLErrm: -1, New: -1, Old: -1, Trigger: trigger}, byName: map[string]int{}}
	if err := c.datums(fns[0].Fn.Datums); err != nil {
		return nil, err
	}
	if def != nil {
		c.returnsVoid, c.setof, c.outColumns = def.Returns.OID() == types.VoidOID, def.Setof, len(def.Columns) > 0
		for _, m := range returnNextRE.FindAllStringSubmatch(withoutCommentsAndStrings(body), -1) {
			c.bareNexts = append(c.bareNexts, m[1])
		}
		// The parser lists the parameters first, untyped.
		c.fn.Args = len(def.ArgTypes)
		if len(c.fn.Vars) < c.fn.Args {
			return nil, pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %d parameters, %d variables", c.fn.Args, len(c.fn.Vars))
		}
		for i, t := range def.ArgTypes {
			c.fn.Vars[i].T = t
			c.typeNames[i] = t.String() // what an assignment to it casts to
			if def.ArgNames == nil || i >= len(def.ArgNames) || def.ArgNames[i] == "" {
				delete(c.byName, strings.ToLower(plParamName(def, i))) // unnamed: only $n names it
			}
		}
	}
	if trigger {
		c.fn.TG = map[string]int{}
		for _, tv := range plTriggerVars {
			c.fn.TG[tv.name] = len(c.fn.Vars)
			c.byName[tv.name] = len(c.fn.Vars)
			c.fn.Vars = append(c.fn.Vars, PLVar{Name: tv.name, T: tv.t, Constant: true})
			c.typeNames = append(c.typeNames, tv.t.String())
		}
	}
	var action plJSON
	if err := json.Unmarshal(fns[0].Fn.Action, &action); err != nil {
		return nil, pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
	}
	st, err := c.stmt(action)
	if err != nil {
		return nil, err
	}
	blk, ok := st.(*PLBlock)
	if !ok {
		blk = &PLBlock{Body: []PLStmt{st}}
	}
	c.fn.Body = blk
	return c.fn, nil
}

// outColumnParseError reports whether a parse error of a RETURNS TABLE function's body is
// one its columns as variables would have avoided.
func outColumnParseError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "is not a known variable") || strings.Contains(msg, "missing expression")
}

// plParamName is the name of def's parameter i in its compiled body: its
// own, or one no body uses for a parameter without a name.
func plParamName(def *catalog.FunctionDef, i int) string {
	if i < len(def.ArgNames) && def.ArgNames[i] != "" {
		return def.ArgNames[i]
	}
	return fmt.Sprintf("cairn_param_%d", i+1)
}

// datums reads the body's variables, with their types and defaults.
func (c *plCompiler) datums(ds []plJSON) error {
	for i, d := range ds {
		v := PLVar{}
		typeName := ""
		var defaultExpr *plExprJSON
		switch {
		case d["PLpgSQL_var"] != nil:
			var x struct {
				Refname  string `json:"refname"`
				Datatype struct {
					Type struct {
						Typname string `json:"typname"`
					} `json:"PLpgSQL_type"`
				} `json:"datatype"`
				DefaultVal *plExprJSON `json:"default_val"`
				Isconst    bool        `json:"isconst"`
				Notnull    bool        `json:"notnull"`
			}
			if err := json.Unmarshal(d["PLpgSQL_var"], &x); err != nil {
				return pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
			}
			v.Name, v.Constant, v.NotNull = x.Refname, x.Isconst, x.Notnull
			typeName = strings.TrimSpace(x.Datatype.Type.Typname)
			defaultExpr = x.DefaultVal
		case d["PLpgSQL_rec"] != nil:
			var x struct {
				Refname string `json:"refname"`
			}
			if err := json.Unmarshal(d["PLpgSQL_rec"], &x); err != nil {
				return pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
			}
			v.Name, v.Record = x.Refname, true
		case d["PLpgSQL_recfield"] != nil:
			// A record's field, as an INTO target names it (expressions
			// name fields by their text).
			var x struct {
				Fieldname   string `json:"fieldname"`
				Recparentno int    `json:"recparentno"`
			}
			if err := json.Unmarshal(d["PLpgSQL_recfield"], &x); err != nil {
				return pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
			}
			c.fn.Vars = append(c.fn.Vars, PLVar{Field: x.Fieldname, FieldOf: x.Recparentno})
			c.typeNames = append(c.typeNames, "")
			continue
		default:
			// Rows (INTO and FOR targets) are read where the statements
			// name them.
			c.fn.Vars = append(c.fn.Vars, PLVar{})
			c.typeNames = append(c.typeNames, "")
			continue
		}
		switch strings.ToLower(typeName) {
		case "", "unknown":
		case "record":
			v.Record = true
		default:
			t, row, err := c.declaredType(typeName)
			if err != nil {
				return err
			}
			if row != nil {
				v.Record, v.Row, typeName = true, row, "record"
			} else {
				v.T, typeName = t, t.String()
			}
		}
		c.fn.Vars = append(c.fn.Vars, v)
		c.typeNames = append(c.typeNames, typeName)
		c.byName[strings.ToLower(v.Name)] = i
		c.byName[v.Name] = i // as a quoted name reads it (CASE's hidden variable)
		switch strings.ToLower(v.Name) {
		case "found":
			c.fn.Found = i
		case "sqlstate":
			c.fn.SQLState = i
		case "sqlerrm":
			c.fn.SQLErrm = i
		case "new":
			if v.Record {
				c.fn.New = i
			}
		case "old":
			if v.Record {
				c.fn.Old = i
			}
		}
		if defaultExpr != nil {
			e, err := c.typedExpr(defaultExpr, typeName)
			if err != nil {
				return err
			}
			c.fn.Vars[i].Default = e
		}
	}
	return nil
}

// declaredType is the type a declaration names: a type, var%TYPE (an
// earlier variable's), [schema.]table.column%TYPE (a column's), or the
// row type of a table (table%ROWTYPE, or the table's name), whose columns
// row then holds.
func (c *plCompiler) declaredType(name string) (t types.T, row []PLField, err error) {
	lower := strings.ToLower(strings.TrimSpace(name))
	if base, ok := strings.CutSuffix(lower, "%rowtype"); ok {
		row, err := c.tableRow(base)
		return types.T{}, row, err
	}
	if base, ok := strings.CutSuffix(lower, "%type"); ok {
		// What names nothing is a syntax error at the %, as in
		// PostgreSQL (whose parser then reads the words as a type name).
		unknown := pgerr.New(pgerrcode.SyntaxError, "syntax error at or near \"%%\"")
		parts := strings.Split(strings.ReplaceAll(base, `"`, ""), ".")
		if len(parts) == 1 {
			if i, ok := c.byName[parts[0]]; ok && !c.fn.Vars[i].Record && c.fn.Vars[i].T.Family != types.Unknown {
				return c.fn.Vars[i].T, nil, nil
			}
			return types.T{}, nil, unknown
		}
		table, err := c.table(strings.Join(parts[:len(parts)-1], "."))
		if err != nil {
			return types.T{}, nil, unknown
		}
		_, col := table.Column(parts[len(parts)-1])
		if col == nil {
			return types.T{}, nil, unknown
		}
		return col.Type, nil, nil
	}
	t, err = c.b.plType(name)
	if err != nil {
		if row, rerr := c.tableRow(lower); rerr == nil {
			return types.T{}, row, nil
		}
	}
	return t, nil, err
}

// table is the table [schema.]name names.
func (c *plCompiler) table(name string) (*catalog.TableDef, error) {
	schema, table, _ := strings.Cut(strings.ReplaceAll(name, `"`, ""), ".")
	if table == "" {
		schema, table = "", schema
	}
	return c.b.lookupTable(schema, table)
}

// tableRow is the row type of the table name names: its columns.
func (c *plCompiler) tableRow(name string) ([]PLField, error) {
	def, err := c.table(name)
	if err != nil {
		return nil, err
	}
	row := make([]PLField, len(def.Columns))
	for i, col := range def.Columns {
		row[i] = PLField{Name: col.Name, T: col.Type}
	}
	return row, nil
}

// plType is the type a PL/pgSQL declaration names.
func (b *Binder) plType(name string) (types.T, error) {
	tree, err := pg_query.Parse("SELECT NULL::" + name)
	if err != nil {
		return types.T{}, pgerr.New(pgerrcode.SyntaxError, "invalid type name \"%s\"", name)
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetTypeCast()
	if tc == nil {
		return types.T{}, pgerr.New(pgerrcode.SyntaxError, "invalid type name \"%s\"", name)
	}
	if err := b.refuseDomain(tc.TypeName, "PL/pgSQL variables"); err != nil {
		return types.T{}, err
	}
	return b.typeFromName(tc.TypeName)
}

// stmts compiles a list of statements.
func (c *plCompiler) stmts(raw []plJSON) ([]PLStmt, error) {
	out := make([]PLStmt, 0, len(raw))
	for _, r := range raw {
		s, err := c.stmt(r)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// plStmtNames are the SQL words of the PL/pgSQL statements the
// interpreter does not run, for their 0A000.
var plStmtNames = map[string]string{
	"PLpgSQL_stmt_forc":    "FOR over a cursor",
	"PLpgSQL_stmt_dynfors": "FOR ... IN EXECUTE",

	"PLpgSQL_stmt_open": "OPEN", "PLpgSQL_stmt_fetch": "FETCH", "PLpgSQL_stmt_close": "CLOSE", "PLpgSQL_stmt_call": "CALL",
	"PLpgSQL_stmt_commit": "COMMIT", "PLpgSQL_stmt_rollback": "ROLLBACK",
}

// stmt compiles one statement.
func (c *plCompiler) stmt(r plJSON) (PLStmt, error) {
	for kind, raw := range r {
		switch kind {
		case "PLpgSQL_stmt_block":
			return c.block(raw)
		case "PLpgSQL_stmt_assign":
			return c.assign(raw)
		case "PLpgSQL_stmt_if":
			return c.ifStmt(raw)
		case "PLpgSQL_stmt_execsql":
			var x struct {
				SQLStmt plExprJSON `json:"sqlstmt"`
				Into    bool       `json:"into"`
				Strict  bool       `json:"strict"`
				Target  *plRowJSON `json:"target"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			e, err := c.sqlStmt(&x.SQLStmt)
			if err != nil {
				return nil, err
			}
			s := &PLExecSQL{SQL: e, Strict: x.Strict}
			if !x.Into && e.Stmt.node.GetSelectStmt() != nil {
				s.NoDestination = true
			}
			if x.Into {
				if s.Into, err = c.target(x.Target); err != nil {
					return nil, err
				}
			}
			return s, nil
		case "PLpgSQL_stmt_perform":
			var x struct {
				Expr plExprJSON `json:"expr"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			e, err := c.sqlStmt(&x.Expr)
			if err != nil {
				return nil, err
			}
			return &PLPerform{Query: e}, nil
		case "PLpgSQL_stmt_dynexecute":
			var x struct {
				Query  plExprJSON   `json:"query"`
				Into   bool         `json:"into"`
				Strict bool         `json:"strict"`
				Target *plRowJSON   `json:"target"`
				Params []plExprJSON `json:"params"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			q, err := c.typedExpr(&x.Query, "text")
			if err != nil {
				return nil, err
			}
			s := &PLDynExecute{Query: q, Strict: x.Strict}
			for i := range x.Params {
				p, err := c.expr(&x.Params[i])
				if err != nil {
					return nil, err
				}
				s.Params = append(s.Params, p)
			}
			if x.Into {
				if s.Into, err = c.target(x.Target); err != nil {
					return nil, err
				}
			}
			return s, nil
		case "PLpgSQL_stmt_raise":
			return c.raise(raw)
		case "PLpgSQL_stmt_return":
			var x struct {
				Expr   *plExprJSON `json:"expr"`
				Lineno int         `json:"lineno"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			if x.Lineno == 0 && x.Expr == nil {
				// The parser ends every body with a RETURN of its own
				// (no line): a trigger function that reaches the end
				// without one of its own fails, as in PostgreSQL.
				return nil, nil
			}
			s := &PLReturn{Var: -1}
			if x.Expr == nil || x.Expr.PLpgSQLExpr == nil {
				return s, nil
			}
			if c.returnsVoid {
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "RETURN cannot have a parameter in function returning void")
			}
			q := strings.TrimSpace(x.Expr.PLpgSQLExpr.Query)
			if i, ok := c.byName[strings.ToLower(q)]; ok && c.fn.Vars[i].Record {
				s.Var = i
				return s, nil
			}
			e, err := c.expr(x.Expr)
			if err != nil {
				return nil, err
			}
			s.Expr = e
			return s, nil
		case "PLpgSQL_stmt_loop", "PLpgSQL_stmt_while", "PLpgSQL_stmt_fori", "PLpgSQL_stmt_fors", "PLpgSQL_stmt_foreach_a":
			return c.loop(kind, raw)
		case "PLpgSQL_stmt_exit":
			var x struct {
				IsExit bool        `json:"is_exit"`
				Label  string      `json:"label"`
				Cond   *plExprJSON `json:"cond"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			s := &PLExit{Continue: !x.IsExit, Label: x.Label}
			if x.Cond != nil {
				e, err := c.typedExpr(x.Cond, "boolean")
				if err != nil {
					return nil, err
				}
				s.Cond = e
			}
			return s, nil
		case "PLpgSQL_stmt_case":
			return c.caseStmt(raw)
		case "PLpgSQL_stmt_return_next":
			var x struct {
				Expr *plExprJSON `json:"expr"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			if !c.setof {
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "cannot use RETURN NEXT in a non-SETOF function")
			}
			if c.outColumns {
				// RETURNS TABLE: RETURN NEXT; adds the OUT columns'
				// values, which cairn's parse of the body cannot read.
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "RETURN NEXT cannot have a parameter in function with OUT parameters")
			}
			if x.Expr != nil && x.Expr.PLpgSQLExpr != nil {
				e, err := c.expr(x.Expr)
				if err != nil {
					return nil, err
				}
				return &PLReturnNext{Expr: e, Var: -1}, nil
			}
			// RETURN NEXT variable: the parse keeps no trace of the
			// variable, so it is read from the body's text, the bare
			// RETURN NEXTs in their order.
			if c.nextVars >= len(c.bareNexts) {
				return nil, pgerr.NotSupported("this form of RETURN NEXT")
			}
			name := plIdent(c.bareNexts[c.nextVars])
			c.nextVars++
			v, ok := c.byName[name]
			if !ok {
				return nil, pgerr.New(pgerrcode.SyntaxError, "\"%s\" is not a known variable", name)
			}
			return &PLReturnNext{Var: v}, nil
		case "PLpgSQL_stmt_return_query":
			var x struct {
				Query    *plExprJSON `json:"query"`
				DynQuery *plExprJSON `json:"dynquery"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			if !c.setof {
				return nil, pgerr.New(pgerrcode.DatatypeMismatch, "cannot use RETURN QUERY in a non-SETOF function")
			}
			if x.Query == nil {
				return nil, pgerr.NotSupported("RETURN QUERY EXECUTE")
			}
			q, err := c.sqlStmt(x.Query)
			if err != nil {
				return nil, err
			}
			return &PLReturnQuery{Query: q}, nil
		case "PLpgSQL_stmt_assert":
			// ASSERT cond [, message]: a RAISE of P0004 unless cond holds
			// (NULL does not).
			var x struct {
				Cond    plExprJSON  `json:"cond"`
				Message *plExprJSON `json:"message"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			cond, err := c.typedExpr(&x.Cond, "boolean")
			if err != nil {
				return nil, err
			}
			fail := &PLRaise{Level: "EXCEPTION", Cond: pgerrcode.AssertFailure, Message: "assertion failed"}
			if x.Message != nil {
				msg, err := c.typedExpr(x.Message, "text")
				if err != nil {
					return nil, err
				}
				fail.Message, fail.Params = "%", []*PLExpr{msg}
			}
			return &PLIf{Conds: []*PLExpr{cond}, Bodies: [][]PLStmt{nil}, Else: []PLStmt{fail}}, nil
		case "PLpgSQL_stmt_getdiag":
			var x struct {
				IsStacked bool `json:"is_stacked"`
				Items     []struct {
					Item struct {
						Kind   string `json:"kind"`
						Target int    `json:"target"`
					} `json:"PLpgSQL_diag_item"`
				} `json:"diag_items"`
			}
			if err := json.Unmarshal(raw, &x); err != nil {
				return nil, errPLJSON(err)
			}
			s := &PLGetDiag{Stacked: x.IsStacked}
			which := map[bool]string{false: "CURRENT", true: "STACKED"}[x.IsStacked]
			for _, it := range x.Items {
				kind := it.Item.Kind
				switch {
				case kind == "ROW_COUNT" && !x.IsStacked, stackedDiagItems[kind] && x.IsStacked:
				case kind == "ROW_COUNT" || stackedDiagItems[kind] || kind == "PG_CONTEXT" && x.IsStacked:
					return nil, pgerr.New(pgerrcode.SyntaxError, "diagnostics item %s is not allowed in GET %s DIAGNOSTICS", kind, which)
				default:
					return nil, pgerr.NotSupported("GET DIAGNOSTICS item %s", kind)
				}
				s.Items = append(s.Items, PLDiagItem{Kind: kind, Var: it.Item.Target})
			}
			return s, nil
		}
		if name, ok := plStmtNames[kind]; ok {
			return nil, pgerr.NotSupported("PL/pgSQL statement %s", name)
		}
		return nil, pgerr.NotSupported("PL/pgSQL statement %s", strings.TrimPrefix(kind, "PLpgSQL_stmt_"))
	}
	return nil, nil
}

func errPLJSON(err error) error {
	return pgerr.New(pgerrcode.InternalError, "reading the PL/pgSQL parse: %v", err)
}

// block compiles BEGIN ... END with its DECLARE section and handlers.
func (c *plCompiler) block(raw json.RawMessage) (PLStmt, error) {
	var x struct {
		Label      string   `json:"label"`
		Body       []plJSON `json:"body"`
		Initvarnos []int    `json:"initvarnos"`
		Exceptions *struct {
			Block struct {
				ExcList []struct {
					Exc struct {
						Conditions []struct {
							Cond struct {
								Condname string `json:"condname"`
							} `json:"PLpgSQL_condition"`
						} `json:"conditions"`
						Action []plJSON `json:"action"`
					} `json:"PLpgSQL_exception"`
				} `json:"exc_list"`
			} `json:"PLpgSQL_exception_block"`
		} `json:"exceptions"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	body, err := c.stmts(x.Body)
	if err != nil {
		return nil, err
	}
	blk := &PLBlock{Label: x.Label, Init: x.Initvarnos, Body: body}
	if x.Exceptions == nil {
		return blk, nil
	}
	for _, e := range x.Exceptions.Block.ExcList {
		h := PLHandler{}
		for _, cond := range e.Exc.Conditions {
			code, ok := PLCondition(cond.Cond.Condname)
			if !ok {
				return nil, pgerr.New(pgerrcode.UndefinedObject, "unrecognized exception condition \"%s\"", cond.Cond.Condname)
			}
			h.Codes = append(h.Codes, code)
		}
		if h.Body, err = c.stmts(e.Exc.Action); err != nil {
			return nil, err
		}
		blk.Handlers = append(blk.Handlers, h)
	}
	return blk, nil
}

// assignRE splits the text of an assignment, "target := expr" (or "="),
// into its target and expression.
var assignRE = regexp.MustCompile(`(?s)^\s*("(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)(?:\s*\.\s*("(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*))?\s*:?=(.*)$`)

// assign compiles var := expr.
func (c *plCompiler) assign(raw json.RawMessage) (PLStmt, error) {
	var x struct {
		Varno int        `json:"varno"`
		Expr  plExprJSON `json:"expr"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	q := x.Expr.PLpgSQLExpr.Query
	m := assignRE.FindStringSubmatch(q)
	if m == nil {
		return nil, pgerr.NotSupported("PL/pgSQL assignment \"%s\"", q)
	}
	name, field := plIdent(m[1]), plIdent(m[2])
	v, ok := c.byName[name]
	if !ok {
		return nil, pgerr.New(pgerrcode.SyntaxError, "\"%s\" is not a known variable", name)
	}
	s := &PLAssign{Var: v, Field: field}
	if c.fn.Vars[v].Constant {
		return nil, pgerr.New(pgerrcode.SyntaxError, "variable \"%s\" is declared CONSTANT", name)
	}
	if field == "" && c.fn.Vars[v].Record {
		return nil, pgerr.NotSupported("assigning a whole record variable")
	}
	if field != "" && !c.fn.Vars[v].Record {
		return nil, pgerr.NotSupported("PL/pgSQL assignment \"%s\"", q)
	}
	typeName := ""
	if field == "" {
		typeName = c.typeNames[v]
	}
	e, err := c.exprText(m[3], typeName)
	if err != nil {
		return nil, err
	}
	s.Expr = e
	return s, nil
}

// plIdent is an identifier as PostgreSQL folds it: quoted as written,
// unquoted lower-cased.
func plIdent(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// caseStmt compiles CASE [expr] WHEN ... THEN ... [ELSE ...] END CASE as
// an IF: the parser gives the simple form's WHENs as tests of a hidden
// variable (x IN (values)) which the statement first assigns expr to.
// Without ELSE, no WHEN matching is 20000, as in PostgreSQL.
func (c *plCompiler) caseStmt(raw json.RawMessage) (PLStmt, error) {
	var x struct {
		TExpr *plExprJSON `json:"t_expr"`
		TVar  int         `json:"t_varno"`
		Whens []struct {
			When struct {
				Expr  plExprJSON `json:"expr"`
				Stmts []plJSON   `json:"stmts"`
			} `json:"PLpgSQL_case_when"`
		} `json:"case_when_list"`
		HaveElse bool     `json:"have_else"`
		Else     []plJSON `json:"else_stmts"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	s := &PLIf{}
	for _, w := range x.Whens {
		cond, err := c.typedExpr(&w.When.Expr, "boolean")
		if err != nil {
			return nil, err
		}
		body, err := c.stmts(w.When.Stmts)
		if err != nil {
			return nil, err
		}
		s.Conds, s.Bodies = append(s.Conds, cond), append(s.Bodies, body)
	}
	if x.HaveElse {
		var err error
		if s.Else, err = c.stmts(x.Else); err != nil {
			return nil, err
		}
	} else {
		hint, err := c.exprText("'CASE statement is missing ELSE part.'", "")
		if err != nil {
			return nil, err
		}
		s.Else = []PLStmt{&PLRaise{Level: "EXCEPTION", Cond: pgerrcode.CaseNotFound, Message: "case not found",
			Options: []PLRaiseOption{{Kind: "HINT", Expr: hint}}}}
	}
	if x.TExpr == nil {
		return s, nil
	}
	value, err := c.expr(x.TExpr)
	if err != nil {
		return nil, err
	}
	return &PLBlock{Body: []PLStmt{&PLAssign{Var: x.TVar, Expr: value}, s}}, nil
}

// ifStmt compiles IF ... ELSIF ... ELSE.
func (c *plCompiler) ifStmt(raw json.RawMessage) (PLStmt, error) {
	var x struct {
		Cond   plExprJSON `json:"cond"`
		Then   []plJSON   `json:"then_body"`
		Else   []plJSON   `json:"else_body"`
		ElsIfs []struct {
			E struct {
				Cond  plExprJSON `json:"cond"`
				Stmts []plJSON   `json:"stmts"`
			} `json:"PLpgSQL_if_elsif"`
		} `json:"elsif_list"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	s := &PLIf{}
	add := func(cond *plExprJSON, body []plJSON) error {
		e, err := c.typedExpr(cond, "boolean")
		if err != nil {
			return err
		}
		stmts, err := c.stmts(body)
		if err != nil {
			return err
		}
		s.Conds, s.Bodies = append(s.Conds, e), append(s.Bodies, stmts)
		return nil
	}
	if err := add(&x.Cond, x.Then); err != nil {
		return nil, err
	}
	for i := range x.ElsIfs {
		if err := add(&x.ElsIfs[i].E.Cond, x.ElsIfs[i].E.Stmts); err != nil {
			return nil, err
		}
	}
	var err error
	s.Else, err = c.stmts(x.Else)
	return s, err
}

// raiseLevels names RAISE's levels by PostgreSQL's elog numbers.
var raiseLevels = map[int]string{14: "DEBUG", 15: "LOG", 17: "INFO", 18: "NOTICE", 19: "WARNING", 21: "EXCEPTION"}

// raiseOptions names RAISE's USING options by number.
var raiseOptions = []string{"ERRCODE", "MESSAGE", "DETAIL", "HINT", "COLUMN", "CONSTRAINT", "DATATYPE", "TABLE", "SCHEMA"}

// raise compiles RAISE.
func (c *plCompiler) raise(raw json.RawMessage) (PLStmt, error) {
	var x struct {
		Level    int          `json:"elog_level"`
		Condname string       `json:"condname"`
		Message  string       `json:"message"`
		Params   []plExprJSON `json:"params"`
		Options  []struct {
			O struct {
				Type int        `json:"opt_type"`
				Expr plExprJSON `json:"expr"`
			} `json:"PLpgSQL_raise_option"`
		} `json:"options"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	s := &PLRaise{Level: raiseLevels[x.Level], Message: x.Message}
	if s.Level == "" {
		s.Level = "DEBUG"
	}
	if x.Condname != "" {
		code, ok := PLCondition(x.Condname)
		if !ok || code == "" {
			return nil, pgerr.New(pgerrcode.UndefinedObject, "unrecognized exception condition \"%s\"", x.Condname)
		}
		s.Cond = code
	}
	if n := strings.Count(strings.ReplaceAll(x.Message, "%%", ""), "%"); n != len(x.Params) {
		if n > len(x.Params) {
			return nil, pgerr.New(pgerrcode.SyntaxError, "too few parameters specified for RAISE")
		}
		return nil, pgerr.New(pgerrcode.SyntaxError, "too many parameters specified for RAISE")
	}
	for i := range x.Params {
		e, err := c.typedExpr(&x.Params[i], "text")
		if err != nil {
			return nil, err
		}
		s.Params = append(s.Params, e)
	}
	for _, o := range x.Options {
		if o.O.Type >= len(raiseOptions) || o.O.Type > 3 {
			return nil, pgerr.NotSupported("RAISE option %s", raiseOptions[min(o.O.Type, len(raiseOptions)-1)])
		}
		e, err := c.typedExpr(&o.O.Expr, "text")
		if err != nil {
			return nil, err
		}
		s.Options = append(s.Options, PLRaiseOption{Kind: raiseOptions[o.O.Type], Expr: e})
	}
	return s, nil
}

// loop compiles LOOP, WHILE and the FOR loops.
func (c *plCompiler) loop(kind string, raw json.RawMessage) (PLStmt, error) {
	var x struct {
		Label   string          `json:"label"`
		Body    []plJSON        `json:"body"`
		Cond    *plExprJSON     `json:"cond"`
		Lower   *plExprJSON     `json:"lower"`
		Upper   *plExprJSON     `json:"upper"`
		Step    *plExprJSON     `json:"step"`
		Reverse bool            `json:"reverse"`
		Query   *plExprJSON     `json:"query"`
		Var     json.RawMessage `json:"var"`
		// FOREACH's target, array and SLICE.
		Varno int         `json:"varno"`
		Expr  *plExprJSON `json:"expr"`
		Slice int         `json:"slice"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, errPLJSON(err)
	}
	s := &PLLoop{Label: x.Label, Var: -1, Reverse: x.Reverse}
	var err error
	switch kind {
	case "PLpgSQL_stmt_while":
		if s.Cond, err = c.typedExpr(x.Cond, "boolean"); err != nil {
			return nil, err
		}
	case "PLpgSQL_stmt_fori":
		s.IntegerFor = true
		var v struct {
			Var struct {
				Refname string `json:"refname"`
			} `json:"PLpgSQL_var"`
		}
		if err := json.Unmarshal(x.Var, &v); err != nil {
			return nil, errPLJSON(err)
		}
		s.Var = c.lastNamed(v.Var.Refname)
		if s.Lower, err = c.typedExpr(x.Lower, "integer"); err != nil {
			return nil, err
		}
		if s.Upper, err = c.typedExpr(x.Upper, "integer"); err != nil {
			return nil, err
		}
		if x.Step != nil {
			if s.Step, err = c.typedExpr(x.Step, "integer"); err != nil {
				return nil, err
			}
		}
	case "PLpgSQL_stmt_foreach_a":
		if x.Slice != 0 {
			return nil, pgerr.NotSupported("FOREACH ... SLICE")
		}
		if c.fn.Vars[x.Varno].Record {
			return nil, pgerr.NotSupported("FOREACH into a record variable")
		}
		s.Var = x.Varno
		if s.Array, err = c.expr(x.Expr); err != nil {
			return nil, err
		}
	case "PLpgSQL_stmt_fors":
		if s.Query, err = c.sqlStmt(x.Query); err != nil {
			return nil, err
		}
		var target plRowJSON
		if err := json.Unmarshal(x.Var, &target); err != nil {
			return nil, errPLJSON(err)
		}
		if s.Target, err = c.target(&target); err != nil {
			return nil, err
		}
	}
	if s.Body, err = c.stmts(x.Body); err != nil {
		return nil, err
	}
	return s, nil
}

// lastNamed is the number of the last variable called name: the one an
// integer FOR loop declares.
func (c *plCompiler) lastNamed(name string) int {
	for i := len(c.fn.Vars) - 1; i >= 0; i-- {
		if strings.EqualFold(c.fn.Vars[i].Name, name) {
			return i
		}
	}
	return -1
}

// target reads an INTO or FOR target: the numbers of its variables.
func (c *plCompiler) target(r *plRowJSON) ([]int, error) {
	switch {
	case r == nil:
		return nil, pgerr.New(pgerrcode.SyntaxError, "missing INTO target")
	case r.Row != nil:
		out := make([]int, len(r.Row.Fields))
		for i, f := range r.Row.Fields {
			out[i] = f.Varno
		}
		return out, nil
	case r.Rec != nil:
		return []int{r.Rec.Dno}, nil
	}
	return nil, pgerr.NotSupported("this PL/pgSQL INTO target")
}

// typedExpr compiles an expression cast to typeName (none when "").
func (c *plCompiler) typedExpr(e *plExprJSON, typeName string) (*PLExpr, error) {
	if e == nil || e.PLpgSQLExpr == nil {
		return nil, pgerr.New(pgerrcode.SyntaxError, "missing expression")
	}
	return c.exprText(e.PLpgSQLExpr.Query, typeName)
}

// expr compiles an expression as it is.
func (c *plCompiler) expr(e *plExprJSON) (*PLExpr, error) { return c.typedExpr(e, "") }

// exprText compiles the expression text as SELECT expr, cast to typeName
// unless that is "".
func (c *plCompiler) exprText(text, typeName string) (*PLExpr, error) {
	q := "SELECT " + text
	if typeName != "" {
		q = "SELECT CAST((" + text + ") AS " + typeName + ")"
	}
	return c.compileSQL(q, strings.TrimSpace(text), true)
}

// sqlStmt compiles an embedded SQL statement.
func (c *plCompiler) sqlStmt(e *plExprJSON) (*PLExpr, error) {
	if e == nil || e.PLpgSQLExpr == nil {
		return nil, pgerr.New(pgerrcode.SyntaxError, "missing SQL statement")
	}
	return c.compileSQL(e.PLpgSQLExpr.Query, e.PLpgSQLExpr.Query, false)
}

// compileSQL parses q and makes the variables it names parameters. As in
// PostgreSQL, only queries and data-modifying statements take variables:
// a utility statement (DDL) is run as written. A name that is both a
// variable and a column of a table the query reads is the variable.
func (c *plCompiler) compileSQL(q, text string, isExpr bool) (*PLExpr, error) {
	tree, err := parseNested(q)
	if err != nil {
		if isExpr {
			return nil, nestedParseError(err).WithDetail("In the PL/pgSQL expression \"%s\".", text)
		}
		return nil, nestedParseError(err).WithDetail("In the PL/pgSQL statement \"%s\".", text)
	}
	if len(tree.Stmts) != 1 {
		return nil, pgerr.New(pgerrcode.SyntaxError, "PL/pgSQL statement \"%s\" is not a single statement", text)
	}
	node := tree.Stmts[0].Stmt
	e := &PLExpr{Text: text, Stmt: &Parsed{Text: text, node: node, query: q}}
	switch node.Node.(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt:
	default:
		return e, nil
	}
	refs := map[PLRef]int32{}
	number := func(ref PLRef) int32 {
		num, seen := refs[ref]
		if !seen {
			e.Refs = append(e.Refs, ref)
			num = int32(len(e.Refs))
			refs[ref] = num
		}
		return num
	}
	// $n in a function's body is its parameter n. They are found before
	// the variables' names are made parameters, and renumbered after.
	var params []*pg_query.ParamRef
	walkMessages(node.ProtoReflect(), func(m protoreflect.Message) {
		if p, ok := m.Interface().(*pg_query.ParamRef); ok {
			params = append(params, p)
		}
	})
	argv := c.triggerArgv(node)
	var failed error
	walkMessages(node.ProtoReflect(), func(m protoreflect.Message) {
		n, ok := m.Interface().(*pg_query.Node)
		if !ok || failed != nil {
			return
		}
		cr := n.GetColumnRef()
		if cr == nil || len(cr.Fields) == 0 || len(cr.Fields) > 2 {
			return
		}
		var names []string
		for _, f := range cr.Fields {
			s := f.GetString_()
			if s == nil {
				return
			}
			names = append(names, s.Sval)
		}
		v, ok := c.byName[names[0]]
		if !ok {
			return
		}
		ref := PLRef{Var: v}
		if c.fn.Trigger && v == c.fn.TG["tg_argv"] && !argv[cr] {
			failed = pgerr.NotSupported("TG_ARGV other than subscripted (TG_ARGV[i]; TG_NARGS is their number)")
			return
		}
		if c.fn.Vars[v].Record {
			if len(names) == 2 {
				ref.Field = names[1]
			} else {
				ref.Whole = true
			}
		} else if len(names) != 1 {
			return
		}
		n.Node = &pg_query.Node_ParamRef{ParamRef: &pg_query.ParamRef{Number: number(ref), Location: cr.Location}}
	})
	if failed != nil {
		return nil, failed
	}
	for _, p := range params {
		if p.Number < 1 || int(p.Number) > c.fn.Args {
			return nil, pgerr.New(pgerrcode.UndefinedParameter, "there is no parameter $%d", p.Number).WithDetail("In the PL/pgSQL statement \"%s\".", text)
		}
		p.Number = number(PLRef{Var: int(p.Number) - 1})
	}
	return e, nil
}

// triggerArgv shifts the subscripts of TG_ARGV in node by one, to
// cairn's arrays' first index (TG_ARGV[0] is the first argument), and
// returns the column references it shifted. Nothing in a function that is
// no trigger's, or that declares a variable of that name.
func (c *plCompiler) triggerArgv(node *pg_query.Node) map[*pg_query.ColumnRef]bool {
	shifted := map[*pg_query.ColumnRef]bool{}
	if !c.fn.Trigger || c.byName["tg_argv"] != c.fn.TG["tg_argv"] {
		return shifted
	}
	plusOne := func(n *pg_query.Node) *pg_query.Node {
		if n == nil {
			return nil
		}
		if c := n.GetAConst(); c != nil && c.GetIval() != nil {
			// A constant subscript (the usual TG_ARGV[0]) is shifted
			// here; past the largest integer it is no element, NULL
			// as PostgreSQL's out-of-range subscripts (x + 1 overflowed).
			if v := c.GetIval().Ival; v < math.MaxInt32 {
				return pg_query.MakeAConstIntNode(int64(v)+1, c.Location)
			}
			return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: c.Location}}}
		}
		return pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")},
			n, pg_query.MakeAConstIntNode(1, -1), -1)
	}
	walkMessages(node.ProtoReflect(), func(m protoreflect.Message) {
		ind, ok := m.Interface().(*pg_query.A_Indirection)
		if !ok {
			return
		}
		cr := ind.Arg.GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil || cr.Fields[0].GetString_().Sval != "tg_argv" {
			return
		}
		first := ind.Indirection[0].GetAIndices()
		if first == nil || shifted[cr] {
			return
		}
		first.Lidx, first.Uidx = plusOne(first.Lidx), plusOne(first.Uidx)
		shifted[cr] = true
	})
	return shifted
}

func (*Do) statement() {}
