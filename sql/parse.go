package sql

import (
	"errors"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// RawStatement is one parsed statement of a query string.
type RawStatement struct {
	// Text is the statement's own text, trimmed.
	Text string
	// Node is the statement's parse tree.
	Node *pg_query.Node
}

// Parse splits and parses a query string into statements. A syntax error
// is 42601 with the 1-based position of the offending token. An empty or
// comment-only string gives no statements.
//
// A statement nested or chained too deeply is 54001 (see depth.go), as in
// PostgreSQL, and never reaches the C parser's stack limit.
func Parse(query string) ([]RawStatement, error) {
	tree, err := parse(query)
	if err != nil {
		return nil, err
	}
	stmts := make([]RawStatement, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		text := query
		start := int(raw.StmtLocation)
		if start >= 0 && start <= len(query) {
			end := len(query)
			if raw.StmtLen > 0 && start+int(raw.StmtLen) <= len(query) {
				end = start + int(raw.StmtLen)
			}
			text = query[start:end]
		}
		stmts = append(stmts, RawStatement{Text: strings.TrimSpace(text), Node: raw.Stmt})
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
	return sel.TargetList[0].GetResTarget().Val, nil
}

// parse runs pg_query on a query that checkDepth has let through. A syntax
// error is 42601 at the offending token; a tree deeper than the protobuf
// decoder's recursion limit is 54001, as PostgreSQL answers for it.
func parse(query string) (*pg_query.ParseResult, error) {
	if err := checkDepth(query); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(query)
	if err == nil {
		return tree, nil
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "%s", pe.Message).WithPosition(int32(pe.Cursorpos))
	}
	if strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return nil, stackDepthExceeded()
	}
	return nil, pgerr.New(pgerrcode.SyntaxError, "%s", err.Error())
}
