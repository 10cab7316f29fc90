package sql

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// Parsed is one statement of a query string, parsed and not yet bound:
// its text, and its parse tree, which nothing outside this package sees
// (Binder.Bind turns it into a typed Statement).
type Parsed struct {
	// Text is the statement's own text, trimmed.
	Text string
	node *pg_query.Node
	// tmpl is the template node comes from (template.go), shared with
	// the other queries of its shape; nil when node is the statement's
	// own.
	tmpl *template
	// consts are this query's constants in place of the template's, and
	// query its whole text, which the positions of errors refer to.
	consts map[*pg_query.A_Const]*pg_query.A_Const
	query  string
}

// Templated reports whether the statement's tree is a template's, shared
// with the other queries of its shape (template.go).
func (p *Parsed) Templated() bool { return p.tmpl != nil }

// Normalize is Normalize of the statement's text, shared by all the
// queries of a template.
func (p *Parsed) Normalize() (text string, id int64, err error) {
	if p.tmpl != nil {
		return p.tmpl.normalized()
	}
	return Normalize(p.Text)
}

// EndsTransaction reports whether the statement is COMMIT, ROLLBACK or
// ROLLBACK TO SAVEPOINT, which run even in an aborted transaction.
func (p *Parsed) EndsTransaction() bool {
	t := p.node.GetTransactionStmt()
	if t == nil {
		return false
	}
	switch t.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT, pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO, pg_query.TransactionStmtKind_TRANS_STMT_PREPARE:
		return true
	}
	return false
}

// TakesSnapshot reports whether the statement reads or writes data, and so
// takes a snapshot in a transaction: everything but transaction control,
// SET, SHOW, PREPARE and DEALLOCATE.
func (p *Parsed) TakesSnapshot() bool {
	switch p.node.Node.(type) {
	case *pg_query.Node_TransactionStmt, *pg_query.Node_VariableSetStmt, *pg_query.Node_VariableShowStmt,
		*pg_query.Node_PrepareStmt, *pg_query.Node_DeallocateStmt:
		return false
	}
	return true
}

// Parse splits and parses a query string into statements. A syntax error
// is 42601 with the 1-based position of the offending token. An empty or
// comment-only string gives no statements.
//
// A statement nested or chained too deeply is 54001 (see depth.go), as in
// PostgreSQL, and never reaches the C parser's stack limit.
func Parse(query string) ([]*Parsed, error) {
	p, learn := parseShaped(query)
	if p != nil {
		return []*Parsed{p}, nil
	}
	tree, err := parse(query)
	if learn != nil {
		learn(tree)
	}
	if err != nil {
		fixed, ok := parenthesizeHybridIndexKey(query)
		if !ok {
			return nil, err
		}
		var ferr error
		if tree, ferr = parse(fixed); ferr != nil {
			return nil, err
		}
		query = fixed
	}
	stmts := make([]*Parsed, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		if err := setParam(raw.Stmt); err != nil {
			return nil, err
		}
		text := query
		start := int(raw.StmtLocation)
		if start >= 0 && start <= len(query) {
			end := len(query)
			if raw.StmtLen > 0 && start+int(raw.StmtLen) <= len(query) {
				end = start + int(raw.StmtLen)
			}
			text = query[start:end]
		}
		stmts = append(stmts, &Parsed{Text: strings.TrimSpace(text), node: raw.Stmt})
	}
	return stmts, nil
}

// DeparseExpr renders an expression parse tree back to SQL text (used to
// store DEFAULT and CHECK expressions in the catalog).
func DeparseExpr(n *pg_query.Node) (string, error) {
	tree := &pg_query.ParseResult{Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{
		Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
			TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: n}}}},
		}},
	}}}}
	s, err := pg_query.Deparse(tree)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(s, "SELECT "), nil
}

// ParseExpr parses the SQL text of a single expression.
func ParseExpr(text string) (*pg_query.Node, error) {
	tree, err := parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if len(tree.Stmts) != 1 || sel == nil || len(sel.TargetList) != 1 || sel.TargetList[0].GetResTarget() == nil {
		return nil, pgerr.New(pgerrcode.SyntaxError, "not one expression: %q", text)
	}
	return sel.TargetList[0].GetResTarget().Val, nil
}

// parseNested parses SQL text that arrives inside a statement already
// checked: a function's body, a PL/pgSQL statement or expression, a query
// the HTTP API inspects. checkDepth saw that text as one string literal,
// so it must be checked on its own: pg_query overflows the C stack on a
// deep enough tree, which kills the process. A statement too deep is the
// *pgerr.Error 54001, as from parse; any other error is pg_query's own, for
// the caller to report in its words.
func parseNested(text string) (*pg_query.ParseResult, error) {
	if err := checkDepth(text); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(text)
	if err != nil && strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return nil, stackDepthExceeded()
	}
	return tree, err
}

// nestedParseError is the error for nested SQL text (see parseNested) that
// did not parse: a depth error as it is, anything else a syntax error.
func nestedParseError(err error) *pgerr.Error {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return pe
	}
	return pgerr.New(pgerrcode.SyntaxError, "%s", err.Error())
}

// parse runs pg_query on a query that checkDepth has let through. A syntax
// error is 42601 at the offending token; a tree deeper than the protobuf
// decoder's recursion limit is 54001, as PostgreSQL answers for it.
func parse(query string) (*pg_query.ParseResult, error) {
	// The parser reads a C string: a NUL would end the statement there
	// and run what comes before it alone. PostgreSQL's protocol cannot
	// carry one; the HTTP API and MCP can.
	if at := strings.IndexByte(query, 0); at >= 0 {
		return nil, pgerr.New(pgerrcode.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x00").WithPosition(int32(utf8.RuneCountInString(query[:at]) + 1))
	}
	if err := checkDepth(query); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(query)
	if err == nil {
		return tree, nil
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		code := pgerrcode.SyntaxError
		switch {
		case grammarNotSupported(pe.Message):
			code = pgerrcode.FeatureNotSupported
		case strings.HasPrefix(pe.Message, "invalid byte sequence for encoding"):
			// An escape in a string constant (E'\xff', E'\000') that makes
			// invalid UTF-8: the scanner's encoding check, 22021 as in
			// PostgreSQL.
			code = pgerrcode.CharacterNotInRepertoire
		}
		return nil, pgerr.New(code, "%s", pe.Message).WithPosition(int32(pe.Cursorpos))
	}
	if strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return nil, stackDepthExceeded()
	}
	return nil, pgerr.New(pgerrcode.SyntaxError, "%s", err.Error())
}

// parenthesizeHybridIndexKey rewrites pg_deeplake's hybrid index DDL as
// its users write it, "USING deeplake_index ((emb, text)::
// deeplake_hybrid_record)", which PostgreSQL's grammar refuses (an
// expression key needs parentheses of its own), into the form it
// accepts, "USING deeplake_index (((emb, text)::deeplake_hybrid_record))".
// ok is false when query has no such key.
func parenthesizeHybridIndexKey(query string) (string, bool) {
	lower := strings.ToLower(query)
	i := strings.Index(lower, "deeplake_index")
	if i < 0 {
		return "", false
	}
	skip := func(j int) int {
		for j < len(query) && (query[j] == ' ' || query[j] == '\t' || query[j] == '\n' || query[j] == '\r') {
			j++
		}
		return j
	}
	j := skip(i + len("deeplake_index"))
	if j >= len(query) || query[j] != '(' {
		return "", false
	}
	open := skip(j + 1)
	if open >= len(query) || query[open] != '(' {
		return "", false
	}
	depth, k := 0, open
	for ; k < len(query); k++ {
		switch query[k] {
		case '"':
			if e := strings.IndexByte(query[k+1:], '"'); e >= 0 {
				k += e + 1
			}
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	cast := skip(k + 1)
	if k >= len(query) || !strings.HasPrefix(query[cast:], "::") {
		return "", false
	}
	end := skip(cast + 2)
	for end < len(query) && (query[end] == '_' || query[end] == '.' || query[end] == '"' ||
		query[end] >= 'a' && query[end] <= 'z' || query[end] >= 'A' && query[end] <= 'Z' || query[end] >= '0' && query[end] <= '9') {
		end++
	}
	if !strings.Contains(strings.ToLower(query[cast:end]), "deeplake_hybrid_record") {
		return "", false
	}
	return query[:open] + "(" + query[open:end] + ")" + query[end:], true
}

// grammarNotSupported reports whether a parser error is one the grammar
// raises as 0A000 in PostgreSQL (the parser reports no SQLSTATE): the
// foreign key clauses it parses but refuses, and the attributes a kind of
// constraint cannot take.
func grammarNotSupported(msg string) bool {
	for _, attr := range []string{"DEFERRABLE", "INITIALLY DEFERRED", "NOT VALID", "NO INHERIT"} {
		if strings.HasSuffix(msg, " constraints cannot be marked "+attr) {
			return true // "UNIQUE constraints cannot be marked NOT VALID"
		}
	}
	return msg == "MATCH PARTIAL not yet implemented" || msg == "a column list with SET NULL is only supported for ON DELETE actions" ||
		msg == "a column list with SET DEFAULT is only supported for ON DELETE actions"
}

// setParam refuses a parameter as the value of SET (SET hnsw.ef_search =
// $1, as LlamaIndex's async path sends): PostgreSQL's grammar has no
// place for one there, which pg_query's admits for its fingerprinting.
func setParam(stmt *pg_query.Node) error {
	vs := stmt.GetVariableSetStmt()
	if vs == nil {
		return nil
	}
	for _, a := range vs.Args {
		if p := a.GetParamRef(); p != nil {
			return pgerr.New(pgerrcode.SyntaxError, "syntax error at or near \"$%d\"", p.Number).WithPosition(p.Location + 1)
		}
	}
	return nil
}
