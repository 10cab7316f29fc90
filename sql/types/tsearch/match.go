package tsearch

import (
	"slices"
	"strings"
)

// operandPositions finds what an operand matches: its positions (end
// positions of a width-0 match) and whether it matched at all; noPos is
// true when a matching lexeme has no positions (a stripped tsvector).
type operandPositions func(n *Node) (pos []int, found, noPos bool)

// vectorOperand looks operands up in v: the lexeme itself, or with :*
// every lexeme it begins; a weight mask keeps only positions of those
// weights.
func vectorOperand(v Vector) operandPositions {
	return func(n *Node) ([]int, bool, bool) {
		var pos []int
		found, noPos := false, false
		for _, l := range v.matching(n) {
			if len(l.Pos) == 0 {
				found, noPos = true, true
				continue
			}
			for _, p := range l.Pos {
				if n.Weight == 0 || n.Weight&(1<<p.Weight()) != 0 {
					pos = append(pos, p.Pos())
					found = true
				}
			}
		}
		return pos, found, noPos
	}
}

// matching is the lexemes of v an operand names.
func (v Vector) matching(n *Node) []Lexeme {
	if !n.Prefix {
		if i := v.Find(n.Word); i >= 0 {
			return v[i : i+1]
		}
		return nil
	}
	i, _ := slices.BinarySearchFunc(v, n.Word, func(l Lexeme, w string) int { return strings.Compare(l.Word, w) })
	j := i
	for j < len(v) && strings.HasPrefix(v[j].Word, n.Word) {
		j++
	}
	return v[i:j]
}

// Match is tsvector @@ tsquery. An empty query matches nothing.
func Match(v Vector, q Query) bool {
	if q.Root == nil {
		return false
	}
	return evalBool(q.Root, vectorOperand(v))
}

// evalBool evaluates a query node as a condition.
func evalBool(n *Node, op operandPositions) bool {
	switch n.Op {
	case OpVal:
		_, found, _ := op(n)
		return found
	case OpNot:
		return !evalBool(n.R, op)
	case OpAnd:
		return evalBool(n.L, op) && evalBool(n.R, op)
	case OpOr:
		return evalBool(n.L, op) || evalBool(n.R, op)
	case OpPhrase:
		m := evalPhrase(n, op)
		return !m.maybe && (len(m.pos) > 0 || m.negate)
	}
	return false
}

// phraseMatch is where a subexpression of a phrase matches: the end
// positions of its matches (sorted, unique), or, when negate is set,
// every position but those; width is how many positions a match spans
// beyond its first. maybe is set when positions were missing (a
// stripped tsvector), which fails the phrase.
type phraseMatch struct {
	pos    []int
	width  int
	negate bool
	maybe  bool
}

// evalPhrase evaluates n in phrase mode (PostgreSQL's
// TS_phrase_execute).
func evalPhrase(n *Node, op operandPositions) phraseMatch {
	switch n.Op {
	case OpVal:
		pos, _, noPos := op(n)
		slices.Sort(pos)
		return phraseMatch{pos: slices.Compact(pos), maybe: noPos && len(pos) == 0}
	case OpNot:
		m := evalPhrase(n.R, op)
		m.negate = !m.negate
		return m
	}
	l, r := evalPhrase(n.L, op), evalPhrase(n.R, op)
	out := phraseMatch{maybe: l.maybe || r.maybe}
	var loff, roff int
	if n.Op == OpPhrase {
		loff = n.Dist + r.width
		out.width = l.width + n.Dist + r.width
	} else {
		out.width = max(l.width, r.width)
		loff, roff = out.width-l.width, out.width-r.width
	}
	ls, rs := shift(l.pos, loff), shift(r.pos, roff)
	switch n.Op {
	case OpPhrase, OpAnd:
		switch {
		case !l.negate && !r.negate:
			out.pos = intersect(ls, rs)
		case l.negate && !r.negate:
			out.pos = minus(rs, ls)
		case !l.negate && r.negate:
			out.pos = minus(ls, rs)
		default:
			out.pos, out.negate = union(ls, rs), true
		}
	case OpOr:
		switch {
		case !l.negate && !r.negate:
			out.pos = union(ls, rs)
		case l.negate && !r.negate:
			out.pos, out.negate = minus(ls, rs), true
		case !l.negate && r.negate:
			out.pos, out.negate = minus(rs, ls), true
		default:
			out.pos, out.negate = intersect(ls, rs), true
		}
	}
	return out
}

func shift(ps []int, d int) []int {
	if d == 0 {
		return ps
	}
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p + d
	}
	return out
}

func intersect(a, b []int) []int {
	var out []int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []int) []int {
	out := append(append([]int{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}
