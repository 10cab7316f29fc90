package functions

// The table-driven test harness every *_test.go file in this package uses.
//
// A case names a function or operator and gives its arguments as SQL
// literals ('abc', 'abc'::text, 42, 1.5, NULL, NULL::int4, true); the
// harness types them as PostgreSQL would, resolves the overload, casts the
// arguments, calls Eval, and compares the result's text output with want
// (PostgreSQL's output, NULL for SQL NULL, or "ERROR <SQLSTATE>: <message>"),
// and the result type with typ when given. Overloads with a Kernel are run
// again as batches (columns and constants mixed, with a NULL row) and must
// agree with Eval.
//
// The expected values were taken from PostgreSQL 15. With
// CAIRN_ORACLE_PORT set to the port of a PostgreSQL 15 server (see
// ../shared/tools/pg-oracle), every case is also run there and want and typ
// are checked against it, so the tables stay honest; without it the tests
// need no server.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgx/v5/pgconn"
)

// NULL is the want of a case whose result is SQL NULL.
const NULL = "<NULL>"

// tc is one scalar test case.
type tc struct {
	fn   string   // function or operator name
	args []string // arguments as SQL literals
	want string   // PostgreSQL's text output, NULL, or "ERROR <code>: <message>"
	typ  string   // result type as pg_typeof prints it; "" skips the check
}

// testNow is the fixed statement time of test contexts.
var testNow = time.Date(2024, 3, 15, 12, 34, 56, 789000000, time.UTC)

func testCtx(m memory.Allocator) *Context {
	return &Context{Now: testNow, Location: time.UTC, Mem: m}
}

// lit is a parsed SQL literal.
type lit struct {
	v any
	t types.T
}

// parseTypeName reads a type name as the tests write it: int4, float8,
// varchar(3), numeric(5,2), text[], int4[][] ...
func parseTypeName(s string) (types.T, error) {
	dims := 0
	for strings.HasSuffix(s, "[]") {
		dims++
		s = strings.TrimSuffix(s, "[]")
	}
	mod := int32(-1)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		inner := s[i+1 : len(s)-1]
		s = s[:i]
		parts := strings.Split(inner, ",")
		p, err := strconv.Atoi(strings.TrimSpace(parts[0]))
		if err != nil {
			return types.T{}, err
		}
		if s == "numeric" {
			sc := 0
			if len(parts) > 1 {
				sc, _ = strconv.Atoi(strings.TrimSpace(parts[1]))
			}
			mod = int32(p<<16 | sc)
		} else {
			mod = int32(p)
		}
	}
	t, ok := types.Named(strings.ReplaceAll(s, "_", " "))
	if !ok {
		t, ok = types.Named(s)
	}
	if !ok {
		return types.T{}, fmt.Errorf("unknown type %q", s)
	}
	t.Mod = mod
	if t.Family == types.Vector && mod > 0 {
		t = types.VectorOf(int(mod))
	}
	if dims > 0 {
		t = types.ArrayOf(t, dims)
	}
	return t, nil
}

// parseLit types and evaluates one literal as PostgreSQL would.
func parseLit(ctx *Context, s string) (lit, error) {
	s = strings.TrimSpace(s)
	body, typ := s, ""
	if i := strings.LastIndex(s, "::"); i >= 0 && !strings.Contains(s[i:], "'") {
		body, typ = s[:i], s[i+2:]
	}
	var l lit
	switch {
	case strings.EqualFold(body, "NULL"):
		l = lit{nil, types.NullT}
	case strings.EqualFold(body, "true"), strings.EqualFold(body, "false"):
		l = lit{strings.EqualFold(body, "true"), types.BoolT}
	case strings.HasPrefix(body, "'") || strings.HasPrefix(body, "E'"):
		esc := strings.HasPrefix(body, "E")
		if esc {
			body = body[1:]
		}
		if len(body) < 2 || !strings.HasSuffix(body, "'") {
			return lit{}, fmt.Errorf("bad string literal %s", s)
		}
		str := strings.ReplaceAll(body[1:len(body)-1], "''", "'")
		if esc {
			str = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\'`, "'").Replace(str)
		}
		l = lit{str, types.UnknownT}
	default:
		if i, err := strconv.ParseInt(body, 10, 64); err == nil {
			if i == int64(int32(i)) {
				l = lit{i, types.Int4T}
			} else {
				l = lit{i, types.Int8T}
			}
		} else {
			d, err := types.ParseText(body, types.NumericT)
			if err != nil {
				return lit{}, fmt.Errorf("bad literal %s", s)
			}
			l = lit{d, types.NumericT}
		}
	}
	if typ != "" {
		t, err := parseTypeName(typ)
		if err != nil {
			return lit{}, err
		}
		v, err := Cast(ctx, l.v, l.t, t, true)
		if err != nil {
			return lit{}, err
		}
		l = lit{v, t}
	}
	return l, nil
}

// sqlOf is the case as a PostgreSQL expression.
func (c tc) sqlOf() string {
	if c.fn == "extract" && len(c.args) == 2 {
		return fmt.Sprintf("extract(%s from %s)", c.args[0], c.args[1])
	}
	if c.fn == "position" && len(c.args) == 2 {
		return fmt.Sprintf("position(%s in %s)", c.args[1], c.args[0])
	}
	if isOperatorName(c.fn) {
		if len(c.args) == 1 {
			return fmt.Sprintf("(%s %s)", c.fn, c.args[0])
		}
		return fmt.Sprintf("(%s %s %s)", c.args[0], c.fn, c.args[1])
	}
	return fmt.Sprintf("%s(%s)", c.fn, strings.Join(c.args, ", "))
}

// errText is an error as the cases write it.
func errText(err error) string {
	pe := pgerr.From(err)
	return fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
}

// evalCase runs c through Resolve, Cast and Eval; it returns the output
// text (or error text), the result type and the overload with its
// arguments for kernel checks.
func evalCase(ctx *Context, c tc) (string, types.T, *Overload, []lit) {
	lits := make([]lit, len(c.args))
	argTypes := make([]types.T, len(c.args))
	for i, a := range c.args {
		l, err := parseLit(ctx, a)
		if err != nil {
			return errText(err), types.T{}, nil, nil
		}
		lits[i] = l
		argTypes[i] = l.t
	}
	ov, targets, err := Resolve(c.fn, argTypes)
	if err != nil {
		return errText(err), types.T{}, nil, nil
	}
	res := ResultType(ov, targets)
	vals := make([]any, len(lits))
	cast := make([]lit, len(lits))
	null := false
	for i, l := range lits {
		v, err := Cast(ctx, l.v, l.t, targets[i], false)
		if err != nil {
			return errText(err), res, nil, nil
		}
		vals[i] = v
		cast[i] = lit{v, targets[i]}
		null = null || v == nil
	}
	if null && !ov.NullCall {
		return NULL, res, ov, cast
	}
	v, err := ov.Eval(ctx, vals)
	if err != nil {
		return errText(err), res, ov, cast
	}
	if v == nil {
		return NULL, res, ov, cast
	}
	return outputText(ctx, v, res), res, ov, cast
}

// runCases runs a table of cases (see the file comment).
func runCases(t *testing.T, cases []tc) {
	t.Helper()
	runCasesWith(t, cases, openOracle(t))
}

// runCasesNoOracle runs cases of functions PostgreSQL itself does not
// have (pg_deeplake's, cairn's own).
func runCasesNoOracle(t *testing.T, cases []tc) {
	t.Helper()
	runCasesWith(t, cases, nil)
}

func runCasesWith(t *testing.T, cases []tc, oracle *oracleConn) {
	t.Helper()
	for _, c := range cases {
		c := c
		t.Run(c.sqlOf(), func(t *testing.T) {
			m := memory.NewCheckedAllocator(memory.NewGoAllocator())
			ctx := testCtx(m)
			got, res, ov, args := evalCase(ctx, c)
			if got != c.want {
				t.Errorf("%s = %q, want %q", c.sqlOf(), got, c.want)
			}
			if c.typ != "" && !strings.HasPrefix(got, "ERROR") && typeName(res) != c.typ {
				t.Errorf("%s: result type %s, want %s", c.sqlOf(), typeName(res), c.typ)
			}
			if ov != nil && ov.Kernel != nil {
				checkKernel(t, ctx, c, ov, args, res, got)
			}
			m.AssertSize(t, 0)
			if oracle != nil {
				pgWant, pgTyp := oracle.eval(c.sqlOf())
				if pgWant != c.want {
					t.Errorf("oracle: %s = %q, the case says %q", c.sqlOf(), pgWant, c.want)
				}
				if c.typ != "" && pgTyp != "" && pgTyp != c.typ {
					t.Errorf("oracle: %s has type %s, the case says %s", c.sqlOf(), pgTyp, c.typ)
				}
			}
		})
	}
}

// checkKernel runs ov's kernel over 3-row batches [v, NULL, v] in every
// mix of column and constant arguments and compares with Eval's answer.
func checkKernel(t *testing.T, ctx *Context, c tc, ov *Overload, args []lit, res types.T, want string) {
	t.Helper()
	n := len(args)
	for mask := 0; mask < 1<<n; mask++ {
		kargs := make([]Arg, n)
		hasNullRow := false
		for i, a := range args {
			if mask&(1<<i) == 0 {
				kargs[i] = Arg{Const: a.v, Type: a.t}
				continue
			}
			b := types.NewBuilder(ctx.Mem, a.t)
			for row := 0; row < 3; row++ {
				if row == 1 || a.v == nil {
					b.AppendNull()
				} else if err := types.AppendValue(b, a.v, a.t); err != nil {
					t.Fatalf("AppendValue: %v", err)
				}
			}
			kargs[i] = Arg{Array: b.NewArray(), Type: a.t}
			b.Release()
			hasNullRow = true
		}
		out, err := ov.Kernel(ctx, kargs, 3)
		for _, a := range kargs {
			if a.Array != nil {
				a.Array.Release()
			}
		}
		if err != nil {
			if errText(err) != want {
				t.Errorf("%s kernel (mask %b): error %v, Eval gave %q", c.sqlOf(), mask, errText(err), want)
			}
			continue
		}
		if strings.HasPrefix(want, "ERROR") {
			t.Errorf("%s kernel (mask %b): no error, Eval gave %q", c.sqlOf(), mask, want)
			out.Release()
			continue
		}
		if out.Len() != 3 {
			t.Errorf("%s kernel: %d rows", c.sqlOf(), out.Len())
		}
		for row := 0; row < 3; row++ {
			got := kernelText(ctx, out, row, res)
			w := want
			if row == 1 && hasNullRow && !ov.NullCall {
				w = NULL
			}
			if got != w {
				t.Errorf("%s kernel (mask %b) row %d = %q, want %q", c.sqlOf(), mask, row, got, w)
			}
		}
		out.Release()
	}
}

func kernelText(ctx *Context, a arrow.Array, i int, t types.T) string {
	if a.IsNull(i) {
		return NULL
	}
	return outputText(ctx, types.ValueAt(a, i, t), t)
}

// oracleConn is a connection to a PostgreSQL 15 server that checks the
// tables (only when CAIRN_ORACLE_PORT is set).
type oracleConn struct {
	t    *testing.T
	conn *pgconn.PgConn
}

func openOracle(t *testing.T) *oracleConn {
	port := os.Getenv("CAIRN_ORACLE_PORT")
	if port == "" {
		return nil
	}
	conn, err := pgconn.Connect(context.Background(), "postgres://postgres@127.0.0.1:"+port+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	o := &oracleConn{t: t, conn: conn}
	o.exec("SET TimeZone = 'UTC'")
	return o
}

// exec runs sql and returns the first column of the first row in text, or
// the error as the cases write it.
func (o *oracleConn) exec(sql string) string {
	res, err := o.conn.Exec(context.Background(), sql).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		if e, ok := err.(*pgconn.PgError); ok {
			pe = e
			return fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
		}
		o.t.Fatalf("oracle: %v", err)
	}
	last := res[len(res)-1]
	if len(last.Rows) == 0 || len(last.Rows[0]) == 0 {
		return ""
	}
	if last.Rows[0][0] == nil {
		return NULL
	}
	return string(last.Rows[0][0])
}

// eval returns PostgreSQL's output and result type for an expression.
func (o *oracleConn) eval(expr string) (string, string) {
	out := o.exec("SELECT " + expr)
	typ := ""
	if !strings.HasPrefix(out, "ERROR") {
		typ = o.exec("SELECT pg_typeof(" + expr + ")::text")
	}
	return out, typ
}
