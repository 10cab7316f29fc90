package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// A query's shape is its text with every literal constant (a string in
// single quotes, a number) cut out: queries that differ only in their
// constants, as a driver that interpolates its parameters sends them
// (psycopg2, psql, the simple protocol), share a shape. shapeOf finds the
// literals with the few rules of PostgreSQL 15's scanner that decide where
// a token starts and ends; anything it does not model (escape strings,
// dollar quoting, bit strings, a number with junk after it) makes the
// query shapeless, and the query is parsed the ordinary way.

// literalKind is the scanner token a literal is: a string, an integer that
// fits int4 (the grammar's ICONST, an Integer constant), or any other
// number (FCONST, a Float constant kept as its text).
type literalKind byte

const (
	literalString  literalKind = 's'
	literalInteger literalKind = 'i'
	literalNumber  literalKind = 'n'
)

// literal is one literal token of a query: its kind and where it is.
type literal struct {
	kind       literalKind
	start, end int // byte offsets of the token, quotes included
}

// constant is the constant the grammar makes of literal l of query: a
// string's contents with doubled quotes undone, an Integer, or a Float
// holding the number's text. ok is false for a string that is not valid
// UTF-8 (the parser decides what to say about it).
func (l literal) constant(query string) (c *pg_query.A_Const, ok bool) {
	text := query[l.start:l.end]
	c = &pg_query.A_Const{Location: int32(l.start)}
	switch l.kind {
	case literalString:
		s := strings.ReplaceAll(text[1:len(text)-1], "''", "'")
		if !utf8.ValidString(s) {
			return nil, false
		}
		c.Val = &pg_query.A_Const_Sval{Sval: &pg_query.String{Sval: s}}
	case literalInteger:
		v, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return nil, false
		}
		c.Val = &pg_query.A_Const_Ival{Ival: &pg_query.Integer{Ival: int32(v)}}
	default:
		c.Val = &pg_query.A_Const_Fval{Fval: &pg_query.Float{Fval: text}}
	}
	return c, true
}

// shapeOf returns query's shape, each literal replaced by a NUL (which no
// query can hold: Parse refuses it) and its kind, and the literals in
// order, appended to lits. ok is false when the query holds a token
// shapeOf does not model.
func shapeOf(query string, lits []literal) (shape string, out []literal, ok bool) {
	var b strings.Builder
	b.Grow(len(query))
	copied := 0 // query[:copied] is in b
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			i = skipLineComment(query, i)
		case c == '/' && i+1 < len(query) && query[i+1] == '*':
			end, closed := blockCommentEnd(query, i)
			if !closed {
				return "", nil, false
			}
			i = end
		case c == '"':
			end, closed := quotedEnd(query, i+1, c, false)
			if !closed {
				return "", nil, false
			}
			i = end
		case c == '\'':
			end, closed := quotedEnd(query, i+1, c, false)
			if !closed || continuesString(query, end) {
				return "", nil, false
			}
			lits = append(lits, literal{kind: literalString, start: i, end: end})
			b.WriteString(query[copied:i])
			b.WriteByte(0)
			b.WriteByte(byte(literalString))
			copied, i = end, end
		case isDigit(c) || c == '.' && i+1 < len(query) && isDigit(query[i+1]):
			end, kind, ok := numberEnd(query, i)
			if !ok {
				return "", nil, false
			}
			lits = append(lits, literal{kind: kind, start: i, end: end})
			b.WriteString(query[copied:i])
			b.WriteByte(0)
			b.WriteByte(byte(kind))
			copied, i = end, end
		case c == '$':
			// $n is a parameter; anything else may start a dollar quote.
			j := i + 1
			for j < len(query) && isDigit(query[j]) {
				j++
			}
			if j == i+1 || j < len(query) && isIdentByte(query[j]) {
				return "", nil, false
			}
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(query) && (isIdentByte(query[j]) || query[j] == '$') {
				j++
			}
			// E'...', B'...', X'...', N'...', U&'...' and U&"..." are
			// strings and identifiers with rules of their own.
			if j == i+1 && j < len(query) {
				switch c | 0x20 {
				case 'e', 'b', 'x', 'n':
					if query[j] == '\'' {
						return "", nil, false
					}
				case 'u':
					if query[j] == '&' {
						return "", nil, false
					}
				}
			}
			i = j
		default:
			i++
		}
	}
	if len(lits) == 0 {
		return query, lits, true
	}
	b.WriteString(query[copied:])
	return b.String(), lits, true
}

// continuesString reports whether another string may follow the one
// ending at end across a newline: PostgreSQL reads 'a'<newline>'b' as
// one constant 'ab'.
func continuesString(query string, end int) bool {
	newline := false
	for i := end; i < len(query); i++ {
		switch c := query[i]; {
		case c == '\n' || c == '\r':
			newline = true
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			i = skipLineComment(query, i) - 1
			newline = true // the comment ends with one, or the query does
		case c == '\'':
			return newline
		default:
			return false
		}
	}
	return false
}

// numberEnd scans the number at i as PostgreSQL 15's scanner does:
// digits, an optional fraction, an optional exponent. ok is false for the
// forms it splits or refuses (1..2, 1e, 1e+, junk right after a number).
func numberEnd(query string, i int) (end int, kind literalKind, ok bool) {
	j := i
	for j < len(query) && isDigit(query[j]) {
		j++
	}
	integer := true
	if j < len(query) && query[j] == '.' {
		if j+1 < len(query) && query[j+1] == '.' {
			return 0, 0, false
		}
		integer = false
		j++
		for j < len(query) && isDigit(query[j]) {
			j++
		}
	}
	if j < len(query) && (query[j] == 'e' || query[j] == 'E') {
		integer = false
		j++
		if j < len(query) && (query[j] == '+' || query[j] == '-') {
			j++
		}
		if j >= len(query) || !isDigit(query[j]) {
			return 0, 0, false
		}
		for j < len(query) && isDigit(query[j]) {
			j++
		}
	}
	if j < len(query) && (isIdentByte(query[j]) || query[j] == '.' || query[j] == '$') {
		return 0, 0, false
	}
	kind = literalNumber
	if _, err := strconv.ParseInt(query[i:j], 10, 32); integer && err == nil {
		kind = literalInteger
	}
	return j, kind, true
}

// isIdentByte reports whether c continues an identifier ($ aside).
func isIdentByte(c byte) bool { return isIdentStart(c) || isDigit(c) }
