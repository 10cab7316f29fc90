package tsearch

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// Op is a tsquery node's kind: an operand or one of the operators, with
// PostgreSQL's numbering (the binary form's operator codes).
type Op uint8

// The node kinds. OpStop is a stop word's placeholder, which exists only
// while a query is built from text and is cleaned away before use.
const (
	OpVal    Op = 0
	OpNot    Op = 1
	OpAnd    Op = 2
	OpOr     Op = 3
	OpPhrase Op = 4
	OpStop   Op = 5
)

// priority is an operator's binding strength (PostgreSQL's
// tsearch_op_priority).
func (o Op) priority() int {
	switch o {
	case OpNot:
		return 4
	case OpPhrase:
		return 3
	case OpAnd:
		return 2
	case OpOr:
		return 1
	}
	return 0
}

// Node is a tsquery tree node. An operand has Word, Weight (a mask: A is
// 8, B 4, C 2, D 1; zero means any) and Prefix; NOT has its operand in
// R; the binary operators have L and R, and a phrase its Dist.
type Node struct {
	Op     Op
	Word   string
	Weight uint8
	Prefix bool
	Dist   int
	L, R   *Node
}

// Query is a tsquery; a nil Root is the empty query.
type Query struct{ Root *Node }

// MaxDist is the largest distance of a phrase operator.
const MaxDist = 1 << 14

// NormalizeQuery returns the canonical text of the tsquery written s.
func NormalizeQuery(s string) (string, error) {
	q, err := ParseQuery(s)
	if err != nil {
		return "", err
	}
	return q.String(), nil
}

// ParseQuery reads tsquery text as tsqueryin does: operands as in a
// tsvector, with :* and weight letters, and the operators ! & | <-> <N>
// and parentheses.
func ParseQuery(s string) (Query, error) {
	return parseQuery(s, func(word string, weight uint8, prefix bool) (*Node, error) {
		return &Node{Op: OpVal, Word: word, Weight: weight, Prefix: prefix}, nil
	})
}

// operandFunc turns an operand of query text into a tree (several nodes
// when a configuration splits it, a stop node for a stop word).
type operandFunc func(word string, weight uint8, prefix bool) (*Node, error)

// queryParser is the tokenizer and operator-precedence parser of tsquery
// text (PostgreSQL's gettoken_query_standard and makepol).
type queryParser struct {
	s       string
	i       int
	state   int
	depth   int
	operand operandFunc
	vp      valueParser
	nodes   []*Node
	web     bool // websearch_to_tsquery's syntax
}

// The tokenizer's states.
const (
	waitFirstOperand = iota
	waitOperand
	waitOperator
)

type qtoken int

const (
	tEnd qtoken = iota
	tVal
	tOpr
	tOpen
	tClose
)

func (p *queryParser) syntaxError() error {
	return pgerr.New(pgerrcode.SyntaxError, "syntax error in tsquery: \"%s\"", p.s)
}

// parseQuery parses s, turning each operand into nodes with operand.
func parseQuery(s string, operand operandFunc) (Query, error) {
	p := &queryParser{s: s, operand: operand, vp: valueParser{s: s, query: true}}
	if err := p.makepol(0); err != nil {
		return Query{}, err
	}
	if len(p.nodes) == 0 {
		return Query{}, nil
	}
	if err := checkTreeDepth(p.nodes[0]); err != nil {
		return Query{}, err
	}
	return Query{Root: p.nodes[0]}, nil
}

// maxTreeDepth bounds how deep a query's tree may be. A chain of
// operators ('a & b & c ...', '!!!...a', a long text given to
// plainto_tsquery) builds a tree as deep as it is long, and printing,
// matching and ranking recurse over it: a few million levels overflow the
// goroutine's stack, which ends the process. PostgreSQL answers 54001
// (stack depth limit exceeded) for such a chain somewhere between 10,000
// and 100,000 operands.
const maxTreeDepth = 50000

// checkTreeDepth is 54001 for a tree deeper than maxTreeDepth. It walks
// the tree without recursion.
func checkTreeDepth(root *Node) error {
	type item struct {
		n     *Node
		depth int
	}
	stack := []item{{root, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.n == nil {
			continue
		}
		if it.depth > maxTreeDepth {
			return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
		}
		stack = append(stack, item{it.n.L, it.depth + 1}, item{it.n.R, it.depth + 1})
	}
	return nil
}

// maxDepth bounds the nesting of parentheses (PostgreSQL's
// check_stack_depth would stop a deeper one).
const maxDepth = 10000

// makepol parses up to the closing parenthesis or the end.
func (p *queryParser) makepol(depth int) error {
	if depth > maxDepth {
		return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
	}
	type opr struct {
		op   Op
		dist int
	}
	var ops []opr
	clean := func(op Op) {
		for len(ops) > 0 {
			top := ops[len(ops)-1]
			if op != OpNot && op.priority() > top.op.priority() || op == OpNot && op.priority() >= top.op.priority() {
				break
			}
			ops = ops[:len(ops)-1]
			p.pushOperator(top.op, top.dist)
		}
	}
	for {
		tok, op, dist, err := p.gettoken()
		if err != nil {
			return err
		}
		switch tok {
		case tEnd:
			clean(OpOr)
			return nil
		case tVal:
		case tOpr:
			clean(op)
			ops = append(ops, opr{op, dist})
		case tOpen:
			if err := p.makepol(depth + 1); err != nil {
				return err
			}
		case tClose:
			clean(OpOr)
			return nil
		}
	}
}

// pushOperator replaces the top operands with the operator's node.
func (p *queryParser) pushOperator(op Op, dist int) {
	n := &Node{Op: op, Dist: dist}
	if op == OpNot {
		n.R = p.nodes[len(p.nodes)-1]
		p.nodes[len(p.nodes)-1] = n
		return
	}
	n.L, n.R = p.nodes[len(p.nodes)-2], p.nodes[len(p.nodes)-1]
	p.nodes = p.nodes[:len(p.nodes)-1]
	p.nodes[len(p.nodes)-1] = n
}

// gettoken returns the next token; an operand's nodes are pushed.
func (p *queryParser) gettoken() (qtoken, Op, int, error) {
	if p.web {
		return p.webToken()
	}
	for {
		atEnd := p.i >= len(p.s)
		var c byte
		if !atEnd {
			c = p.s[p.i]
		}
		switch p.state {
		case waitFirstOperand, waitOperand:
			switch {
			case c == '!':
				p.i++
				p.state = waitOperand
				return tOpr, OpNot, 0, nil
			case c == '(':
				p.i++
				p.state = waitOperand
				p.depth++
				return tOpen, 0, 0, nil
			case c == ':':
				return 0, 0, 0, p.syntaxError()
			case atEnd || !isSpaceAt(p.s, p.i):
				p.vp.i = p.i
				word, _, ok, err := p.vp.next()
				if err != nil {
					return 0, 0, 0, err
				}
				if !ok {
					if p.state == waitFirstOperand {
						return tEnd, 0, 0, nil
					}
					return 0, 0, 0, pgerr.New(pgerrcode.SyntaxError, "no operand in tsquery: \"%s\"", p.s)
				}
				p.i = p.vp.i
				weight, prefix := p.modifiers()
				if len(word) > MaxWordLen {
					return 0, 0, 0, pgerr.New(pgerrcode.ProgramLimitExceeded, "word is too long in tsquery: \"%s\"", p.s)
				}
				n, err := p.operand(word, weight, prefix)
				if err != nil {
					return 0, 0, 0, err
				}
				p.nodes = append(p.nodes, n)
				p.state = waitOperator
				return tVal, 0, 0, nil
			}
		case waitOperator:
			switch {
			case c == '&':
				p.i++
				p.state = waitOperand
				return tOpr, OpAnd, 0, nil
			case c == '|':
				p.i++
				p.state = waitOperand
				return tOpr, OpOr, 0, nil
			case c == '<':
				dist, ok, err := p.phraseOperator()
				if err != nil {
					return 0, 0, 0, err
				}
				if !ok {
					return 0, 0, 0, p.syntaxError()
				}
				p.state = waitOperand
				return tOpr, OpPhrase, dist, nil
			case c == ')':
				p.i++
				p.depth--
				if p.depth < 0 {
					return 0, 0, 0, p.syntaxError()
				}
				return tClose, 0, 0, nil
			case atEnd:
				if p.depth != 0 {
					return 0, 0, 0, p.syntaxError()
				}
				return tEnd, 0, 0, nil
			case !isSpaceAt(p.s, p.i):
				return 0, 0, 0, p.syntaxError()
			}
		}
		p.i += p.vp.charLenAt(p.i)
	}
}

// phraseOperator reads <-> or <N> at p.i, with no spaces inside; ok is
// false when the text there is neither. Like PostgreSQL it wants a
// character after the operator (at the very end it is a syntax error).
func (p *queryParser) phraseOperator() (int, bool, error) {
	s := p.s[p.i+1:]
	dist := 1
	switch {
	case strings.HasPrefix(s, "-"):
		s = s[1:]
	case len(s) > 0 && s[0] >= '0' && s[0] <= '9':
		k := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		n, err := strconv.ParseInt(s[:k], 10, 64)
		if err != nil || n > MaxDist {
			return 0, false, pgerr.New(pgerrcode.InvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", MaxDist)
		}
		dist, s = int(n), s[k:]
	default:
		return 0, false, nil
	}
	if len(s) < 2 || s[0] != '>' {
		return 0, false, nil
	}
	p.i = len(p.s) - len(s) + 1
	return dist, true, nil
}

// modifiers reads an operand's :* and weight letters.
func (p *queryParser) modifiers() (weight uint8, prefix bool) {
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		return 0, false
	}
	p.i++
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case 'a', 'A':
			weight |= 1 << 3
		case 'b', 'B':
			weight |= 1 << 2
		case 'c', 'C':
			weight |= 1 << 1
		case 'd', 'D':
			weight |= 1
		case '*':
			prefix = true
		default:
			return weight, prefix
		}
	}
	return weight, prefix
}

// String is the query's text as tsqueryout prints it.
func (q Query) String() string {
	if q.Root == nil {
		return ""
	}
	var b strings.Builder
	q.Root.infix(&b, -1, false)
	return b.String()
}

// infix prints n; parent is the enclosing operator's priority and
// rightPhrase whether n is a phrase operator's right operand.
func (n *Node) infix(b *strings.Builder, parent int, rightPhrase bool) {
	switch n.Op {
	case OpVal:
		writeQuoted(b, n.Word)
		if n.Weight != 0 || n.Prefix {
			b.WriteByte(':')
			if n.Prefix {
				b.WriteByte('*')
			}
			for i, c := range "ABCD" {
				if n.Weight&(8>>i) != 0 {
					b.WriteRune(c)
				}
			}
		}
	case OpNot:
		pr := n.Op.priority()
		if pr < parent {
			b.WriteString("( ")
		}
		b.WriteByte('!')
		n.R.infix(b, pr, false)
		if pr < parent {
			b.WriteString(" )")
		}
	default:
		pr := n.Op.priority()
		paren := pr < parent || n.Op == OpPhrase && rightPhrase
		if paren {
			b.WriteString("( ")
		}
		n.L.infix(b, pr, false)
		switch n.Op {
		case OpOr:
			b.WriteString(" | ")
		case OpAnd:
			b.WriteString(" & ")
		case OpPhrase:
			if n.Dist != 1 {
				b.WriteString(" <" + strconv.Itoa(n.Dist) + "> ")
			} else {
				b.WriteString(" <-> ")
			}
		}
		n.R.infix(b, pr, n.Op == OpPhrase)
		if paren {
			b.WriteString(" )")
		}
	}
}

// Size is the number of nodes (numnode).
func (q Query) Size() int {
	var count func(*Node) int
	count = func(n *Node) int {
		if n == nil {
			return 0
		}
		return 1 + count(n.L) + count(n.R)
	}
	return count(q.Root)
}

// AppendBinary appends tsquerysend's form: the node count (int4), then
// the nodes in PostgreSQL's order (an operator, its right operand, its
// left operand): an operand as type 1, weight, prefix flag and the
// NUL-terminated word; an operator as type 2, its code and, for a
// phrase, the distance (int2).
func (q Query) AppendBinary(buf []byte) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(q.Size()))
	var walk func(*Node)
	walk = func(n *Node) {
		if n.Op == OpVal {
			buf = append(buf, 1, n.Weight)
			if n.Prefix {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
			buf = append(append(buf, n.Word...), 0)
			return
		}
		buf = append(buf, 2, byte(n.Op))
		if n.Op == OpPhrase {
			buf = binary.BigEndian.AppendUint16(buf, uint16(n.Dist))
		}
		walk(n.R)
		if n.Op != OpNot {
			walk(n.L)
		}
	}
	if q.Root != nil {
		walk(q.Root)
	}
	return buf
}

// DecodeQuery reads tsqueryrecv's form.
func DecodeQuery(src []byte) (Query, error) {
	r := reader{b: src}
	n, err := r.u32()
	if err != nil {
		return Query{}, err
	}
	if n > 1<<26 {
		return Query{}, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "too many query items")
	}
	left := int(n)
	var read func(depth int) (*Node, error)
	read = func(depth int) (*Node, error) {
		if left == 0 {
			return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "malformed tsquery: operand not found")
		}
		if depth > maxDepth {
			return nil, pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
		}
		left--
		typ, err := r.u8()
		if err != nil {
			return nil, err
		}
		switch typ {
		case 1:
			w, err := r.u8()
			if err != nil {
				return nil, err
			}
			pre, err := r.u8()
			if err != nil {
				return nil, err
			}
			word, err := r.cstring()
			if err != nil {
				return nil, err
			}
			if w > 0xF {
				return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "invalid tsquery: invalid weight bitmap")
			}
			if len(word) > MaxWordLen {
				return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "invalid tsquery: operand too long")
			}
			return &Node{Op: OpVal, Weight: w, Prefix: pre != 0, Word: word}, nil
		case 2:
			op, err := r.u8()
			if err != nil {
				return nil, err
			}
			nd := &Node{Op: Op(op)}
			switch nd.Op {
			case OpNot, OpAnd, OpOr:
			case OpPhrase:
				d, err := r.u16()
				if err != nil {
					return nil, err
				}
				nd.Dist = int(d)
			default:
				return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "unrecognized operator type: %d", op)
			}
			if nd.R, err = read(depth + 1); err != nil {
				return nil, err
			}
			if nd.Op != OpNot {
				if nd.L, err = read(depth + 1); err != nil {
					return nil, err
				}
			}
			return nd, nil
		}
		return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "unrecognized tsquery node type: %d", typ)
	}
	if n == 0 {
		return Query{}, nil
	}
	root, err := read(0)
	if err != nil {
		return Query{}, err
	}
	if left != 0 || len(r.b) != 0 {
		return Query{}, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "malformed tsquery: extra nodes")
	}
	return Query{Root: root}, nil
}
