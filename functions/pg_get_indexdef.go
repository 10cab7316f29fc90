package functions

// pg_get_indexdef(index_oid) and pg_get_indexdef(index_oid, column_no,
// pretty): an index's CREATE INDEX statement, from Context.Catalog (NULL
// for an OID naming no index, or without a catalog). A column_no other
// than 0 asks for that column of the index alone (key columns first, then
// INCLUDE columns; "" past the last), which JDBC's getIndexInfo reads as
// the column's name. cairn prints one form, so pretty changes nothing.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	def := func(ctx *Context, id, colno int64) any {
		if ctx == nil || ctx.Catalog == nil {
			return nil
		}
		s, ok := ctx.Catalog.IndexDef(id)
		if !ok {
			return nil
		}
		if colno == 0 {
			return s
		}
		return indexColumn(s, colno)
	}
	Register(allStable(
		fn("pg_get_indexdef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), 0), nil
		}),
		fn("pg_get_indexdef", targs(types.OidT, tInt4, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), a[1].(int64)), nil
		}),
	)...)
}

// indexColumn is the colno-th (from 1) column of a CREATE INDEX statement:
// the items of its column list, then those of its INCLUDE list.
func indexColumn(def string, colno int64) string {
	open := indexByteOutsideQuotes(def, '(')
	if open < 0 || colno < 1 {
		return ""
	}
	cols, end := splitParenList(def, open)
	if rest := def[end:]; strings.HasPrefix(rest, " INCLUDE (") {
		more, _ := splitParenList(rest, len(" INCLUDE "))
		cols = append(cols, more...)
	}
	if colno > int64(len(cols)) {
		return ""
	}
	return cols[colno-1]
}

// indexByteOutsideQuotes is the index of the first c in s that is not
// inside a quoted identifier or string literal, or -1.
func indexByteOutsideQuotes(s string, c byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0 // a doubled quote closes and reopens: same state
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == c:
			return i
		}
	}
	return -1
}

// splitParenList splits the parenthesised list opening at s[open] at its
// top-level commas (not those inside quotes or nested parentheses, as in
// lower(a, b)); end is the index just past its closing parenthesis.
func splitParenList(s string, open int) (items []string, end int) {
	var quote byte
	depth, start := 0, open+1
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return append(items, strings.TrimSpace(s[start:i])), i + 1
			}
		case c == ',' && depth == 1:
			items = append(items, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(items, strings.TrimSpace(s[start:])), len(s)
}
