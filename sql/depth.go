package sql

import (
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// The parser pg_query runs PostgreSQL's grammar in C on the calling thread
// and then serialises the parse tree recursively, one C stack frame per
// tree level. A left-associative chain such as 1+1+...+1 costs the grammar
// nothing (bison reduces as it goes) but builds a tree as deep as the chain
// is long, and at some tens of thousands of levels the serialiser overflows
// the thread's stack: the process dies with SIGSEGV, taking every session
// with it. Nothing inside C can be recovered from, so a statement whose
// tree could be that deep is refused before it reaches pg_query.
//
// The check reads the text with a small lexer that knows just enough of
// PostgreSQL's lexical rules (strings, quoted identifiers, dollar quotes,
// comments, operators) to find the tokens that can make a tree deeper, and
// computes two figures:
//
//   - treeDepth, an upper estimate of the parse tree's depth: every word
//     and operator character adds a level to the expression it is part of,
//     every bracket one more, while commas, AND, OR, WHEN, THEN, ELSE and
//     semicolons separate siblings (PostgreSQL's grammar keeps AND and OR
//     chains flat, and CASE branches are a list);
//   - heldDepth, a lower bound on the grammar's own stack: an open bracket,
//     an open CASE or a prefix operator waiting for its operand each hold
//     one entry until they close. PostgreSQL's grammar gives up with
//     "memory exhausted" (42601) once its stack passes 10,000 entries, and
//     it does so before any tree is built, so such a statement is safe to
//     hand on: pg_query answers with PostgreSQL's own error.
//
// A statement whose treeDepth passes maxTreeDepth and whose heldDepth stays
// below the grammar's limit is answered 54001, stack depth limit exceeded,
// which is what PostgreSQL 15 answers for long operator chains (it runs out
// of stack analysing them). Below maxTreeDepth the parse goes ahead, and a
// tree deeper than the protobuf decoder's recursion limit (10,000 messages,
// some 5,000 expression levels) is refused there with the same 54001.

// maxTreeDepth is the deepest estimated parse tree handed to pg_query. It
// lies above the grammar's stack limit, so nesting that only brackets make
// deep is always refused by the grammar, as in PostgreSQL, and far enough
// below the depth at which pg_query's serialiser overflows a thread's stack
// (more than 20,000 levels measured for every form of chain).
const maxTreeDepth = 12000

// maxExprDepth bounds how deeply a bound expression nests. One statement's
// text makes at most some 5,000 levels (the protobuf decoder's limit
// above), but SQL functions inlined into one another each add their
// body's: 64 bodies of a 3,000-term sum made a tree 192,000 deep, which
// took minutes to plan, uninterruptibly, and which execution refuses past
// 20,000 levels anyway (exec's maxEvalDepth). Deeper is 54001 here.
const maxExprDepth = 20000

// grammarStackLimit is bison's YYMAXDEPTH in PostgreSQL's grammar: a
// statement that holds this many grammar stack entries at once fails to
// parse with "memory exhausted".
const grammarStackLimit = 10000

// checkDepth refuses a query whose parse tree could be too deep for
// pg_query to serialise; see the comment above. Neither depth can exceed
// the query's length in bytes, so short queries are not scanned at all.
func checkDepth(query string) error {
	if len(query) <= maxTreeDepth {
		return nil
	}
	d := measureNesting(query)
	if d.tree > maxTreeDepth && d.held < grammarStackLimit+grammarStackLimit/100 {
		return stackDepthExceeded()
	}
	return nil
}

// stackDepthExceeded is PostgreSQL's error for a statement nested or
// chained too deeply to analyse.
func stackDepthExceeded() error {
	return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded").
		WithHint("Simplify the statement: split long operator chains (a list of values, a VALUES list or an array takes any length) or nest less deeply.")
}

// nestingDepth is what measureNesting finds.
type nestingDepth struct {
	tree int // upper estimate of the parse tree's depth
	held int // lower bound on the grammar's stack depth at its fullest
}

// nestingLevel is one open bracket (or CASE, or the statement itself).
type nestingLevel struct {
	closer byte // ')' or ']' for a bracket, 'E' for CASE ... END, 0 for the statement
	held   int  // grammar stack entries this level holds (bracket and pending prefix operators)
	chain  int  // words and operators in the current element of this level
	sub    int  // the deepest bracket closed inside the current element
	best   int  // the deepest element of this level so far
}

// depth is the estimated tree depth of the level's content so far.
func (l *nestingLevel) depth() int { return max(l.best, l.chain+l.sub) }

// nestingScanner walks a query's tokens, keeping the open levels.
type nestingScanner struct {
	levels []nestingLevel
	held   int // grammar entries held by the open levels
	prefix int // prefix operators waiting for their operand
	// operand is set after a token that ends an operand (word, literal,
	// closing bracket): an operator after it is binary, otherwise prefix.
	operand  bool
	lastNOT  bool // the previous token was the word NOT
	result   nestingDepth
	unclosed bool // a string, identifier or comment runs to the end
}

func (s *nestingScanner) top() *nestingLevel { return &s.levels[len(s.levels)-1] }

// separate starts a new sibling element in the current level.
func (s *nestingScanner) separate() {
	l := s.top()
	l.best = l.depth()
	l.chain, l.sub = 0, 0
	s.operand, s.prefix = false, 0
}

func (s *nestingScanner) open(closer byte) {
	l := nestingLevel{closer: closer, held: s.prefix + 1}
	s.held += l.held
	s.levels = append(s.levels, l)
	s.prefix, s.operand = 0, false
	s.noteHeld()
}

// close ends the innermost level; its depth, plus one for the bracket,
// becomes a candidate depth of the enclosing element.
func (s *nestingScanner) close() {
	if len(s.levels) == 1 {
		return // an unmatched closer: the grammar reports it
	}
	l := s.top()
	d := l.depth() + 1
	s.held -= l.held
	s.levels = s.levels[:len(s.levels)-1]
	p := s.top()
	p.sub = max(p.sub, d)
	s.prefix, s.operand = 0, true
}

// word counts an identifier, keyword or quoted identifier.
func (s *nestingScanner) word(w string) {
	isNOT := false
	switch strings.ToLower(w) {
	case "and", "or", "when", "then", "else":
		s.separate()
		s.lastNOT = false
		return
	case "case":
		s.top().chain++
		s.open('E')
		s.lastNOT = false
		return
	case "end":
		if s.top().closer == 'E' {
			s.close()
			s.lastNOT = false
			return
		}
	case "not":
		isNOT = true
		if s.lastNOT {
			// NOT NOT ...: each waits for its operand on the grammar's stack.
			s.prefix++
			s.noteHeld()
		}
	}
	s.top().chain++
	s.lastNOT = isNOT
	if !isNOT {
		s.prefix, s.operand = 0, true
	}
}

// operator counts a run of operator characters: one tree level per
// character (an upper bound: "->>" is one operator), one grammar stack
// entry for the run (a lower bound: "+-+-" is four prefix operators).
func (s *nestingScanner) operator(run string) {
	s.top().chain += len(run)
	s.lastNOT = false
	if !s.operand {
		// A prefix operator: held until its operand is complete. The run
		// counts once, since it may be a single operator ("@@").
		s.prefix++
		s.noteHeld()
	}
	s.operand = false
}

// operandLiteral notes a number, string or parameter: no depth of its own.
func (s *nestingScanner) operandLiteral() {
	s.prefix, s.operand, s.lastNOT = 0, true, false
}

func (s *nestingScanner) noteHeld() {
	s.result.held = max(s.result.held, s.held+s.prefix)
}

// measureNesting computes a query's nestingDepth. It never fails: text the
// lexer cannot follow (an unterminated string, say) ends the scan, and the
// grammar reports the error.
func measureNesting(q string) nestingDepth {
	s := &nestingScanner{levels: []nestingLevel{{}}}
	for i := 0; i < len(q) && !s.unclosed; {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			i = skipLineComment(q, i)
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			i = s.skipBlockComment(q, i)
		case c == '(' || c == '[':
			s.lastNOT = false
			if c == '(' {
				s.open(')')
			} else {
				s.open(']')
			}
			i++
		case c == ')' || c == ']':
			s.lastNOT = false
			s.close()
			i++
		case c == ',' || c == ';':
			s.lastNOT = false
			s.separate()
			i++
		case c == '\'':
			i = s.skipQuoted(q, i+1, '\'', false)
			s.operandLiteral()
		case c == '"':
			end := s.skipQuoted(q, i+1, '"', false)
			s.word(q[i:end])
			i = end
		case c == '$':
			i = s.dollar(q, i)
		case isDigit(c) || (c == '.' && i+1 < len(q) && isDigit(q[i+1])):
			i = skipNumber(q, i)
			s.operandLiteral()
		case c == '.':
			i++ // qualification (a.b) adds no level
		case isIdentStart(c):
			i = s.wordOrPrefixedString(q, i)
		case isOperatorChar(c):
			j := i
			for j < len(q) && isOperatorChar(q[j]) && !startsComment(q, j) {
				j++
			}
			s.operator(q[i:j])
			i = j
		default:
			// ':' of a cast, and anything the grammar will judge: one level.
			s.top().chain++
			s.operand, s.lastNOT = false, false
			i++
		}
	}
	for len(s.levels) > 1 {
		s.close()
	}
	s.separate()
	s.result.tree = s.top().best
	return s.result
}

// wordOrPrefixedString reads an identifier or keyword at q[i], or a string
// with a prefix (E'...', B'...', X'...', N'...', U&'...', U&"...").
func (s *nestingScanner) wordOrPrefixedString(q string, i int) int {
	next := func(k int) byte {
		if i+k < len(q) {
			return q[i+k]
		}
		return 0
	}
	switch c := q[i] | 0x20; {
	case c == 'e' && next(1) == '\'':
		end := s.skipQuoted(q, i+2, '\'', true)
		s.operandLiteral()
		return end
	case (c == 'b' || c == 'x' || c == 'n') && next(1) == '\'':
		end := s.skipQuoted(q, i+2, '\'', false)
		s.operandLiteral()
		return end
	case c == 'u' && next(1) == '&' && next(2) == '\'':
		end := s.skipQuoted(q, i+3, '\'', false)
		s.operandLiteral()
		return end
	case c == 'u' && next(1) == '&' && next(2) == '"':
		end := s.skipQuoted(q, i+3, '"', false)
		s.word(q[i:end])
		return end
	}
	j := i + 1
	for j < len(q) && (isIdentStart(q[j]) || isDigit(q[j]) || q[j] == '$') {
		j++
	}
	s.word(q[i:j])
	return j
}

// skipQuoted returns the index after the quote that closes a string or
// quoted identifier whose body starts at i (see quotedEnd).
func (s *nestingScanner) skipQuoted(q string, i int, quote byte, backslashes bool) int {
	end, closed := quotedEnd(q, i, quote, backslashes)
	if !closed {
		s.unclosed = true
		return len(q)
	}
	return end
}

// quotedEnd returns the index after the quote that closes a string or
// quoted identifier whose body starts at i. A doubled quote is part of the
// body; with backslashes (E'...') a backslash escapes the next byte.
func quotedEnd(q string, i int, quote byte, backslashes bool) (end int, closed bool) {
	for i < len(q) {
		switch q[i] {
		case '\\':
			if backslashes {
				i += 2
				continue
			}
		case quote:
			if i+1 < len(q) && q[i+1] == quote {
				i += 2
				continue
			}
			return i + 1, true
		}
		i++
	}
	return len(q), false
}

// dollar reads what starts with '$' at q[i]: a parameter ($1), a
// dollar-quoted string ($$...$$, $tag$...$tag$) or a lone '$'.
func (s *nestingScanner) dollar(q string, i int) int {
	j := i + 1
	if j < len(q) && isDigit(q[j]) {
		for j < len(q) && isDigit(q[j]) {
			j++
		}
		s.operandLiteral()
		return j
	}
	for j < len(q) && (isIdentStart(q[j]) || (j > i+1 && isDigit(q[j]))) {
		j++
	}
	if j < len(q) && q[j] == '$' {
		tag := q[i : j+1]
		end := strings.Index(q[j+1:], tag)
		s.operandLiteral()
		if end < 0 {
			s.unclosed = true
			return len(q)
		}
		return j + 1 + end + len(tag)
	}
	s.top().chain++
	s.operand, s.lastNOT = false, false
	return i + 1
}

// skipBlockComment returns the index after a /* ... */ comment starting at
// q[i] (see blockCommentEnd).
func (s *nestingScanner) skipBlockComment(q string, i int) int {
	end, closed := blockCommentEnd(q, i)
	if !closed {
		s.unclosed = true
	}
	return end
}

// blockCommentEnd returns the index after a /* ... */ comment starting at
// q[i]; such comments nest, as in PostgreSQL.
func blockCommentEnd(q string, i int) (end int, closed bool) {
	depth := 0
	for i < len(q) {
		switch {
		case strings.HasPrefix(q[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(q[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return len(q), false
}

func skipLineComment(q string, i int) int {
	if end := strings.IndexByte(q[i:], '\n'); end >= 0 {
		return i + end + 1
	}
	return len(q)
}

// skipNumber returns the index after a numeric literal at q[i], its
// exponent included (1e+5 is one token, not an addition).
func skipNumber(q string, i int) int {
	for i < len(q) && (isDigit(q[i]) || q[i] == '.' || q[i] == '_') {
		i++
	}
	if i+1 < len(q) && (q[i] == 'e' || q[i] == 'E') {
		j := i + 1
		if q[j] == '+' || q[j] == '-' {
			j++
		}
		if j < len(q) && isDigit(q[j]) {
			for j < len(q) && isDigit(q[j]) {
				j++
			}
			return j
		}
	}
	return i
}

func startsComment(q string, i int) bool {
	return i+1 < len(q) && ((q[i] == '-' && q[i+1] == '-') || (q[i] == '/' && q[i+1] == '*'))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80
}

// isOperatorChar reports the characters PostgreSQL builds operators from.
func isOperatorChar(c byte) bool {
	return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0
}
