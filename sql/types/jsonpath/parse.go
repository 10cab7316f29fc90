package jsonpath

import (
	"math"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// This file is a recursive-descent rendering of PostgreSQL 15's
// jsonpath_gram.y, with the checks jsonpath_in makes after parsing.

type parser struct {
	lex   lexer
	tok   token
	depth int // nesting of orExpr and unaryExpr calls (enter)
}

// maxDepth bounds the nesting of parenthesised expressions, filters and
// unary operators: deeper input is refused as PostgreSQL refuses input too
// deep for its stack (54001), where the parser's recursion would
// otherwise overflow the goroutine's stack and end the process.
const maxDepth = 10000

// enter counts one more level of nesting; the caller defers leave.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// Parse parses jsonpath text. Errors carry PostgreSQL's SQLSTATEs and
// messages (42601 for syntax errors).
func Parse(s string) (*Path, error) {
	p := &parser{lex: lexer{in: s}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type jsonpath: \"%s\"", s)
	}
	path := &Path{Lax: true}
	if p.tok.is("strict") || p.tok.is("lax") {
		path.Lax = p.tok.is("lax")
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	root, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.unexpected()
	}
	if err := check(root, 0, false); err != nil {
		return nil, err
	}
	path.Root = root
	return path, nil
}

// Normalize returns the canonical text of the jsonpath s, jsonpath's
// output for its input.
func Normalize(s string) (string, error) {
	p, err := Parse(s)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	p.tok = t
	return err
}

func (p *parser) unexpected() error { return syntaxError("syntax error", p.tok.text) }

func (p *parser) expectChar(c byte) error {
	if !p.tok.isChar(c) {
		return p.unexpected()
	}
	return p.advance()
}

// check applies jsonpath_in's rules: @ only inside filters, last only in
// array subscripts.
func check(it *Item, filters int, inSubscript bool) error {
	for ; it != nil; it = it.Next {
		switch it.Kind {
		case Current:
			if filters == 0 {
				return pgerr.New(pgerrcode.SyntaxError, "@ is not allowed in root expressions")
			}
		case Last:
			if !inSubscript {
				return pgerr.New(pgerrcode.SyntaxError, "LAST is allowed only in array subscripts")
			}
		case Filter:
			if err := check(it.Left, filters+1, false); err != nil {
				return err
			}
			continue
		case IndexArray:
			for _, s := range it.Subs {
				if err := check(s.From, filters, true); err != nil {
					return err
				}
				if err := check(s.To, filters, true); err != nil {
					return err
				}
			}
			continue
		}
		if err := check(it.Left, filters, inSubscript); err != nil {
			return err
		}
		if err := check(it.Right, filters, inSubscript); err != nil {
			return err
		}
	}
	return nil
}

// isExpr reports whether it is a value expression (not a bare predicate).
func isExpr(it *Item) bool { return !it.Kind.IsPredicate() || it.Next != nil }

func (p *parser) orExpr() (*Item, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	return p.logicChain("||", Or, p.andExpr)
}

func (p *parser) andExpr() (*Item, error) {
	return p.logicChain("&&", And, p.notExpr)
}

// logicChain parses operand (op operand)*, left-associative, where both
// sides of each op must be predicates (binaryChain's counterpart).
func (p *parser) logicChain(op string, kind Kind, operand func() (*Item, error)) (*Item, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	// Each operator makes the left-deep tree one level deeper, and the
	// tree is walked recursively when it is checked, printed and run: it
	// counts as nesting, as an accessor chain does.
	depth := p.depth
	defer func() { p.depth = depth }()
	for p.tok.isOp(op) {
		if err := p.enter(); err != nil {
			return nil, err
		}
		if isExpr(l) {
			return nil, p.unexpected()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		if isExpr(r) {
			return nil, p.unexpected()
		}
		l = &Item{Kind: kind, Left: l, Right: r}
	}
	return l, nil
}

var compOps = map[string]Kind{"==": Equal, "!=": NotEqual, "<": Less, ">": Greater, "<=": LessOrEqual, ">=": GreaterOrEqual}

// notExpr parses ! delimited_predicate, a comparison, starts with,
// like_regex, or an expression.
func (p *parser) notExpr() (*Item, error) {
	if p.tok.isOp("!") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		var arg *Item
		switch {
		case p.tok.is("exists"):
			e, err := p.existsPred()
			if err != nil {
				return nil, err
			}
			arg = e
		case p.tok.isChar('('):
			if err := p.advance(); err != nil {
				return nil, err
			}
			e, err := p.orExpr()
			if err != nil {
				return nil, err
			}
			if isExpr(e) {
				return nil, p.unexpected()
			}
			if err := p.expectChar(')'); err != nil {
				return nil, err
			}
			arg = e
		default:
			return nil, p.unexpected()
		}
		return &Item{Kind: Not, Left: arg}, nil
	}
	l, err := p.addExpr()
	if err != nil {
		return nil, err
	}
	if !isExpr(l) {
		return l, nil
	}
	switch {
	case p.tok.kind == tOp && compOps[p.tok.str] != 0:
		k := compOps[p.tok.str]
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := p.addExpr()
		if err != nil {
			return nil, err
		}
		if !isExpr(r) {
			return nil, p.unexpected()
		}
		return &Item{Kind: k, Left: l, Right: r}, nil
	case p.tok.is("starts"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.tok.is("with") {
			return nil, p.unexpected()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		var r *Item
		switch p.tok.kind {
		case tString:
			r = &Item{Kind: String, Str: p.tok.str}
		case tVariable:
			r = &Item{Kind: Variable, Str: p.tok.str}
		default:
			return nil, p.unexpected()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &Item{Kind: StartsWith, Left: l, Right: r}, nil
	case p.tok.is("like_regex"):
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tString {
			return nil, p.unexpected()
		}
		it := &Item{Kind: LikeRegex, Left: l, Str: p.tok.str}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.is("flag") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind != tString {
				return nil, p.unexpected()
			}
			flags, err := regexFlags(p.tok.str)
			if err != nil {
				return nil, err
			}
			it.Flags = flags
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		return it, nil
	}
	return l, nil
}

// regexFlags checks like_regex's flag letters and returns them in
// canonical order.
func regexFlags(s string) (string, error) {
	seen := map[byte]bool{}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 'i', 's', 'm', 'q':
			seen[c] = true
		case 'x':
			return "", pgerr.New(pgerrcode.FeatureNotSupported, "XQuery \"x\" flag (expanded regular expressions) is not implemented")
		default:
			r := []rune(s[i:])[0]
			return "", pgerr.New(pgerrcode.SyntaxError, "invalid input syntax for type jsonpath").WithDetail("Unrecognized flag character \"%c\" in LIKE_REGEX predicate.", r)
		}
	}
	var b strings.Builder
	for _, c := range []byte("ismq") {
		if seen[c] {
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func (p *parser) addExpr() (*Item, error) {
	return p.binaryChain(map[byte]Kind{'+': Add, '-': Sub}, p.mulExpr)
}

func (p *parser) mulExpr() (*Item, error) {
	return p.binaryChain(map[byte]Kind{'*': Mul, '/': Div, '%': Mod}, p.unaryExpr)
}

// binaryChain parses operand (op operand)*, left-associative, for the
// one-character operators ops; both sides of each must be value
// expressions.
func (p *parser) binaryChain(ops map[byte]Kind, operand func() (*Item, error)) (*Item, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	// One level of nesting per operator, as in logicChain.
	depth := p.depth
	defer func() { p.depth = depth }()
	for p.tok.kind == tChar {
		k, ok := ops[p.tok.text[0]]
		if !ok {
			break
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		if !isExpr(l) {
			return nil, p.unexpected()
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		if !isExpr(r) {
			return nil, p.unexpected()
		}
		l = &Item{Kind: k, Left: l, Right: r}
	}
	return l, nil
}

// unaryExpr parses unary + and -, folding them into numeric literals as
// PostgreSQL's makeItemUnary does.
func (p *parser) unaryExpr() (*Item, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	if p.tok.isChar('+') || p.tok.isChar('-') {
		minus := p.tok.isChar('-')
		if err := p.advance(); err != nil {
			return nil, err
		}
		a, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		if !isExpr(a) {
			return nil, p.unexpected()
		}
		if a.Kind == Numeric && a.Next == nil {
			if minus {
				n := new(apd.Decimal).Neg(a.Num)
				if n.IsZero() {
					n.Negative = false
				}
				a = &Item{Kind: Numeric, Num: n}
			}
			return a, nil
		}
		k := Plus
		if minus {
			k = Minus
		}
		return &Item{Kind: k, Left: a}, nil
	}
	return p.accessorExpr()
}

func (p *parser) existsPred() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectChar('('); err != nil {
		return nil, err
	}
	e, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if !isExpr(e) {
		return nil, p.unexpected()
	}
	if err := p.expectChar(')'); err != nil {
		return nil, err
	}
	return &Item{Kind: Exists, Left: e}, nil
}

// accessorExpr parses a primary and the accessors after it.
func (p *parser) accessorExpr() (*Item, error) {
	var head *Item
	t := p.tok
	switch {
	case t.kind == tString:
		head = &Item{Kind: String, Str: t.str}
	case t.kind == tVariable:
		head = &Item{Kind: Variable, Str: t.str}
	case t.kind == tNumber:
		d, _, err := apd.NewFromString(t.num)
		if err != nil {
			return nil, p.unexpected()
		}
		head = &Item{Kind: Numeric, Num: d}
	case t.is("null"):
		head = &Item{Kind: Null}
	case t.is("true"), t.is("false"):
		head = &Item{Kind: Bool, Bool: t.is("true")}
	case t.is("last"):
		head = &Item{Kind: Last}
	case t.isChar('$'):
		head = &Item{Kind: Root}
	case t.isChar('@'):
		head = &Item{Kind: Current}
	case t.is("exists"):
		return p.existsPred()
	case t.isChar('('):
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expectChar(')'); err != nil {
			return nil, err
		}
		if !isExpr(e) && p.tok.is("is") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if !p.tok.is("unknown") {
				return nil, p.unexpected()
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			return &Item{Kind: IsUnknown, Left: e}, nil
		}
		if !p.startsAccessor() {
			return e, nil
		}
		return p.accessors(e)
	default:
		return nil, p.unexpected()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return p.accessors(head)
}

func (p *parser) startsAccessor() bool {
	return p.tok.isChar('.') || p.tok.isChar('[') || p.tok.isChar('?')
}

var methods = map[string]Kind{"type": Type, "size": Size, "abs": Abs, "floor": Floor, "ceiling": Ceiling, "double": Double, "keyvalue": KeyValue}

// accessors parses accessor_op* after head.
func (p *parser) accessors(head *Item) (*Item, error) {
	tail := head
	for tail.Next != nil {
		tail = tail.Next
	}
	// The chain is walked recursively when it is printed and run: it
	// counts as nesting, one level per accessor.
	depth := p.depth
	defer func() { p.depth = depth }()
	for p.startsAccessor() {
		if err := p.enter(); err != nil {
			return nil, err
		}
		var acc *Item
		switch {
		case p.tok.isChar('?'):
			if err := p.advance(); err != nil {
				return nil, err
			}
			if err := p.expectChar('('); err != nil {
				return nil, err
			}
			e, err := p.orExpr()
			if err != nil {
				return nil, err
			}
			if isExpr(e) {
				return nil, p.unexpected()
			}
			if err := p.expectChar(')'); err != nil {
				return nil, err
			}
			acc = &Item{Kind: Filter, Left: e}
		case p.tok.isChar('['):
			a, err := p.arrayAccessor()
			if err != nil {
				return nil, err
			}
			acc = a
		default: // '.'
			if err := p.advance(); err != nil {
				return nil, err
			}
			a, err := p.dotAccessor()
			if err != nil {
				return nil, err
			}
			acc = a
		}
		tail.Next = acc
		for tail.Next != nil {
			tail = tail.Next
		}
	}
	return head, nil
}

func (p *parser) arrayAccessor() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.isChar('*') {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectChar(']'); err != nil {
			return nil, err
		}
		return &Item{Kind: AnyArray}, nil
	}
	it := &Item{Kind: IndexArray}
	for {
		from, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if !isExpr(from) {
			return nil, p.unexpected()
		}
		sub := Subscript{From: from}
		if p.tok.is("to") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			to, err := p.orExpr()
			if err != nil {
				return nil, err
			}
			if !isExpr(to) {
				return nil, p.unexpected()
			}
			sub.To = to
		}
		it.Subs = append(it.Subs, sub)
		if p.tok.isChar(',') {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.expectChar(']'); err != nil {
			return nil, err
		}
		return it, nil
	}
}

func (p *parser) dotAccessor() (*Item, error) {
	t := p.tok
	switch {
	case t.isChar('*'):
		return &Item{Kind: AnyKey}, p.advance()
	case t.isOp("**"):
		it := &Item{Kind: Any, First: 0, Last: LastLevel}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.tok.isChar('{') {
			return it, nil
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		first, err := p.level()
		if err != nil {
			return nil, err
		}
		it.First, it.Last = first, first
		if p.tok.is("to") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if it.Last, err = p.level(); err != nil {
				return nil, err
			}
		}
		return it, p.expectChar('}')
	case t.kind == tString:
		return &Item{Kind: Key, Str: t.str}, p.advance()
	case t.kind == tIdent:
		if err := p.advance(); err != nil {
			return nil, err
		}
		if k, ok := methods[strings.ToLower(t.str)]; ok && p.tok.isChar('(') {
			if err := p.advance(); err != nil {
				return nil, err
			}
			return &Item{Kind: k}, p.expectChar(')')
		}
		if t.is("datetime") && p.tok.isChar('(') {
			if err := p.advance(); err != nil {
				return nil, err
			}
			it := &Item{Kind: Datetime}
			if p.tok.kind == tString {
				it.Str, it.HasTemplate = p.tok.str, true
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
			return it, p.expectChar(')')
		}
		return &Item{Kind: Key, Str: t.str}, nil
	}
	return nil, p.unexpected()
}

// level parses a .** level: an integer or last.
func (p *parser) level() (uint32, error) {
	t := p.tok
	if t.is("last") {
		return LastLevel, p.advance()
	}
	if t.kind != tNumber || !t.isInt {
		return 0, p.unexpected()
	}
	n, err := strconv.ParseUint(t.num, 10, 32)
	if err != nil || n >= math.MaxUint32 {
		return 0, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", t.num)
	}
	return uint32(n), p.advance()
}
