package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
)

// ReadsTables reports whether running the body may read a table: it holds
// a statement other than assignments, IF, loops over integers or arrays,
// EXIT, RAISE, RETURN, GET DIAGNOSTICS and blocks, or an expression that
// names a table, holds a subquery or calls a function that is not built in
// (which may read one). A BEFORE INSERT trigger whose function reads none
// runs on a batch of rows at once: no row's trigger can tell whether the
// rows before it are written yet (PostgreSQL writes each row before the
// next one's triggers run).
func (f *PLFunction) ReadsTables() bool {
	reads := false
	expr := func(e *PLExpr) {
		if e == nil || e.Stmt == nil || reads {
			return
		}
		walkMessages(e.Stmt.node.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *pg_query.RangeVar, *pg_query.SubLink, *pg_query.RangeFunction:
				reads = true
			case *pg_query.FuncCall:
				name := strings.ToLower(nameOf(x.Funcname))
				if len(functions.Overloads(name)) == 0 && !functions.IsAggregate(name) && functions.SetReturningFunc(name) == nil {
					reads = true
				}
			}
		})
	}
	var stmts func([]PLStmt)
	stmts = func(list []PLStmt) {
		for _, s := range list {
			switch x := s.(type) {
			case *PLBlock:
				stmts(x.Body)
				for _, h := range x.Handlers {
					stmts(h.Body)
				}
			case *PLAssign:
				expr(x.Expr)
			case *PLIf:
				for _, c := range x.Conds {
					expr(c)
				}
				for _, b := range x.Bodies {
					stmts(b)
				}
				stmts(x.Else)
			case *PLRaise:
				for _, p := range x.Params {
					expr(p)
				}
				for _, o := range x.Options {
					expr(o.Expr)
				}
			case *PLReturn:
				expr(x.Expr)
			case *PLLoop:
				if x.Query != nil {
					reads = true
				}
				for _, e := range []*PLExpr{x.Cond, x.Lower, x.Upper, x.Step, x.Array} {
					expr(e)
				}
				stmts(x.Body)
			case *PLExit:
				expr(x.Cond)
			case *PLGetDiag:
			default: // SQL statements, PERFORM, EXECUTE, RETURN QUERY / NEXT
				reads = true
			}
		}
	}
	for _, v := range f.Vars {
		expr(v.Default)
	}
	stmts([]PLStmt{f.Body})
	return reads
}
