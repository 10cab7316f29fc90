package tsearch

import (
	"strings"
)

// WebSearchToQuery is websearch_to_tsquery: words joined by AND, "or"
// between two words for OR, a leading '-' for NOT and double quotes
// around a phrase; any other punctuation is ignored, so no text is a
// syntax error.
func (c *Config) WebSearchToQuery(text string) (Query, string, error) {
	p := &queryParser{s: text, web: true, vp: valueParser{s: text, query: true},
		operand: func(w string, weight uint8, prefix bool) (*Node, error) {
			return c.morph(w, weight, prefix, OpPhrase), nil
		}}
	if err := p.makepol(0); err != nil {
		return Query{}, "", err
	}
	if len(p.nodes) == 0 {
		return Query{}, "text-search query doesn't contain lexemes: \"" + text + "\"", nil
	}
	return cleanStopwords(Query{Root: p.nodes[0]}, text)
}

// webToken is gettoken for websearch syntax.
func (p *queryParser) webToken() (qtoken, Op, int, error) {
	for {
		atEnd := p.i >= len(p.s)
		var c byte
		if !atEnd {
			c = p.s[p.i]
		}
		switch p.state {
		case waitFirstOperand, waitOperand:
			switch {
			case c == '-':
				p.i++
				p.state = waitOperand
				return tOpr, OpNot, 0, nil
			case c == '"':
				p.i++
				start := p.i
				for p.i < len(p.s) && p.s[p.i] != '"' {
					p.i++
				}
				phrase := p.s[start:p.i]
				if p.i < len(p.s) {
					p.i++
				}
				p.state = waitOperator
				n, err := p.operand(phrase, 0, false)
				if err != nil {
					return 0, 0, 0, err
				}
				p.nodes = append(p.nodes, n)
				return tVal, 0, 0, nil
			case !atEnd && isOperator(c):
				p.i++
				p.state = waitOperand
				continue
			case atEnd || !isSpaceAt(p.s, p.i):
				p.vp.i = p.i
				word, _, ok, err := p.vp.next()
				if err != nil {
					return 0, 0, 0, err
				}
				if !ok {
					if p.state != waitFirstOperand {
						p.nodes = append(p.nodes, &Node{Op: OpStop})
					}
					return tEnd, 0, 0, nil
				}
				p.i = p.vp.i
				n, err := p.operand(word, 0, false)
				if err != nil {
					return 0, 0, 0, err
				}
				p.nodes = append(p.nodes, n)
				p.state = waitOperator
				return tVal, 0, 0, nil
			}
		case waitOperator:
			switch {
			case c == '"':
				p.state = waitOperand
				return tOpr, OpAnd, 0, nil
			case p.orOperator():
				p.state = waitOperand
				return tOpr, OpOr, 0, nil
			case atEnd:
				return tEnd, 0, 0, nil
			case !isSpaceAt(p.s, p.i):
				p.state = waitOperand
				return tOpr, OpAnd, 0, nil
			}
		}
		p.i += p.vp.charLenAt(p.i)
	}
}

// orOperator reads "or" at p.i when it is a word of its own with
// something after it.
func (p *queryParser) orOperator() bool {
	s := p.s[p.i:]
	if len(s) < 2 || !strings.EqualFold(s[:2], "or") {
		return false
	}
	rest := s[2:]
	if rest == "" || rest[0] == '-' || rest[0] == '_' || isAlnumAt(rest, 0) {
		return false
	}
	for i := 0; i < len(rest); {
		_, n := runeAt(rest, i)
		i += n
		if i >= len(rest) {
			return false
		}
		if !isSpaceAt(rest, i) {
			break
		}
	}
	p.i += 2
	return true
}
