package tsearch

// Concat is tsvector || tsvector: the right operand's positions move past
// the left operand's greatest position.
func Concat(a, b Vector) Vector {
	maxPos := 0
	for _, l := range a {
		for _, p := range l.Pos {
			maxPos = max(maxPos, p.Pos())
		}
	}
	out := make(Vector, 0, len(a)+len(b))
	for _, l := range a {
		out = append(out, Lexeme{Word: l.Word, Pos: append([]Pos{}, l.Pos...)})
	}
	for _, l := range b {
		ps := make([]Pos, len(l.Pos))
		for i, p := range l.Pos {
			ps[i] = MakePos(p.Pos()+maxPos, p.Weight())
		}
		out = append(out, Lexeme{Word: l.Word, Pos: ps})
	}
	return normalizeLexemes(out)
}

// SetWeight is setweight: every position of v, or of the lexemes named
// in only when only is not nil, gets weight w (3 = A ... 0 = D).
func SetWeight(v Vector, w uint8, only map[string]bool) Vector {
	out := make(Vector, len(v))
	for i, l := range v {
		ps := append([]Pos{}, l.Pos...)
		if only == nil || only[l.Word] {
			for j, p := range ps {
				ps[j] = MakePos(p.Pos(), w)
			}
		}
		out[i] = Lexeme{Word: l.Word, Pos: ps}
	}
	return out
}

// Strip is strip: v without positions.
func Strip(v Vector) Vector {
	out := make(Vector, len(v))
	for i, l := range v {
		out[i] = Lexeme{Word: l.Word}
	}
	return out
}

// FromWords is array_to_tsvector: the words as lexemes without
// positions.
func FromWords(words []string) (Vector, error) {
	v := make(Vector, len(words))
	for i, w := range words {
		if err := checkWord(w); err != nil {
			return nil, err
		}
		v[i] = Lexeme{Word: w}
	}
	return normalizeLexemes(v), nil
}

// Combine joins two queries with a binary operator (tsquery && ||, and
// <-> or tsquery_phrase with dist); an empty operand yields the other.
func Combine(a, b Query, op Op, dist int) Query {
	switch {
	case a.Root == nil:
		return b
	case b.Root == nil:
		return a
	}
	return Query{Root: &Node{Op: op, Dist: dist, L: a.Root, R: b.Root}}
}

// Negate is !! tsquery.
func Negate(a Query) Query {
	if a.Root == nil {
		return a
	}
	return Query{Root: &Node{Op: OpNot, R: a.Root}}
}

// QueryTree is querytree: the part of the query an index can search,
// negations removed; "T" when nothing is left.
func QueryTree(q Query) string {
	if q.Root == nil {
		return ""
	}
	n := dropNot(q.Root)
	if n == nil {
		return "T"
	}
	return Query{Root: n}.String()
}

func dropNot(n *Node) *Node {
	switch n.Op {
	case OpVal:
		return n
	case OpNot:
		return nil
	case OpOr:
		l, r := dropNot(n.L), dropNot(n.R)
		if l == nil || r == nil {
			return nil
		}
		return &Node{Op: n.Op, Dist: n.Dist, L: l, R: r}
	}
	l, r := dropNot(n.L), dropNot(n.R)
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	return &Node{Op: n.Op, Dist: n.Dist, L: l, R: r}
}
