package tsearch

import (
	"math"
	"slices"
	"strings"
)

// DefaultWeights are the weights of D, C, B and A that ts_rank and
// ts_rank_cd use when none are given.
var DefaultWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// The normalization flags of ts_rank and ts_rank_cd.
const (
	NormLogLength  = 0x01
	NormLength     = 0x02
	NormExtDist    = 0x04
	NormUniq       = 0x08
	NormLogUniq    = 0x10
	NormRDivRPlus1 = 0x20
)

// operands lists the query's operands sorted by word, each word once
// (PostgreSQL's SortAndUniqItems).
func (q Query) operands() []*Node {
	var out []*Node
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if n.Op == OpVal {
			out = append(out, n)
		}
		walk(n.L)
		walk(n.R)
	}
	walk(q.Root)
	slices.SortStableFunc(out, func(a, b *Node) int { return strings.Compare(a.Word, b.Word) })
	return slices.CompactFunc(out, func(a, b *Node) bool { return a.Word == b.Word })
}

// wordDistance is the weight of two words d positions apart.
func wordDistance(d int) float32 {
	if d > 100 {
		return 1e-30
	}
	return float32(1.0 / (1.005 + 0.05*math.Exp(float64(float32(d))/1.5-2)))
}

// countLength is the number of positions of v, a lexeme without
// positions counting one.
func (v Vector) countLength() int {
	n := 0
	for _, l := range v {
		n += max(len(l.Pos), 1)
	}
	return n
}

// Rank is ts_rank: PostgreSQL's calc_rank, in its float4 arithmetic.
func Rank(w [4]float32, v Vector, q Query, method int) float32 {
	if len(v) == 0 || q.Root == nil {
		return 0
	}
	var res float32
	if q.Root.Op == OpAnd || q.Root.Op == OpPhrase {
		res = rankAnd(w, v, q)
	} else {
		res = rankOr(w, v, q)
	}
	if res < 0 {
		res = 1e-20
	}
	if method&NormLogLength != 0 {
		res = float32(float64(res) / (math.Log(float64(v.countLength()+1)) / math.Log(2.0)))
	}
	if method&NormLength != 0 {
		if n := v.countLength(); n > 0 {
			res /= float32(n)
		}
	}
	if method&NormUniq != 0 {
		res /= float32(len(v))
	}
	if method&NormLogUniq != 0 {
		res = float32(float64(res) / (math.Log(float64(len(v)+1)) / math.Log(2.0)))
	}
	if method&NormRDivRPlus1 != 0 {
		res /= res + 1
	}
	return res
}

func rankAnd(w [4]float32, v Vector, q Query) float32 {
	items := q.operands()
	if len(items) < 2 {
		return rankOr(w, v, q)
	}
	posnull := []Pos{MakePos(MaxPos, 0)}
	pos := make([][]Pos, len(items))
	isNull := make([]bool, len(items))
	res := float32(-1)
	for i, it := range items {
		for _, l := range v.matching(it) {
			if len(l.Pos) > 0 {
				pos[i], isNull[i] = l.Pos, false
			} else {
				pos[i], isNull[i] = posnull, true
			}
			for k := 0; k < i; k++ {
				if pos[k] == nil {
					continue
				}
				for _, pl := range pos[i] {
					for _, pk := range pos[k] {
						dist := pl.Pos() - pk.Pos()
						if dist < 0 {
							dist = -dist
						}
						if dist != 0 || isNull[i] || isNull[k] {
							if dist == 0 {
								dist = MaxPos + 1
							}
							curw := float32(math.Sqrt(float64(w[pl.Weight()] * w[pk.Weight()] * wordDistance(dist))))
							if res < 0 {
								res = curw
							} else {
								res = float32(1.0 - (1.0-float64(res))*(1.0-float64(curw)))
							}
						}
					}
				}
			}
		}
	}
	return res
}

func rankOr(w [4]float32, v Vector, q Query) float32 {
	items := q.operands()
	posnull := []Pos{MakePos(0, 0)}
	var res float32
	for _, it := range items {
		for _, l := range v.matching(it) {
			post := l.Pos
			if len(post) == 0 {
				post = posnull
			}
			var resj float32
			wjm := float32(-1)
			jm := 0
			for j, p := range post {
				resj = resj + w[p.Weight()]/float32((j+1)*(j+1))
				if w[p.Weight()] > wjm {
					wjm, jm = w[p.Weight()], j
				}
			}
			inner := wjm + resj - wjm/float32((jm+1)*(jm+1))
			res = float32(float64(res) + float64(inner)/1.64493406685)
		}
	}
	if len(items) > 0 {
		res /= float32(len(items))
	}
	return res
}

// docEntry is a position of the document where query operands match.
type docEntry struct {
	pos    Pos
	lexeme int // index of the lexeme in the tsvector
	items  []*Node
}

// RankCD is ts_rank_cd: the cover density ranking of PostgreSQL's
// calc_rank_cd.
func RankCD(w [4]float32, v Vector, q Query, method int) float32 {
	var invws [4]float64
	for i := range invws {
		invws[i] = 1.0 / float64(w[i])
	}
	doc := docRep(v, q)
	if len(doc) == 0 {
		return 0
	}
	var wdoc, sumDist, prevExtPos float64
	nExtent := 0
	start := 0
	for {
		begin, end, p, qq, next, ok := cover(doc, q, start)
		if !ok {
			break
		}
		start = next
		invSum := 0.0
		for i := begin; i <= end; i++ {
			invSum += invws[doc[i].pos.Weight()]
		}
		cpos := float64(end-begin+1) / invSum
		nNoise := (qq - p) - (end - begin)
		if nNoise < 0 {
			nNoise = (end - begin) / 2
		}
		wdoc += cpos / float64(1+nNoise)
		cur := float64(qq+p) / 2.0
		if nExtent > 0 && cur > prevExtPos {
			sumDist += 1.0 / (cur - prevExtPos)
		}
		prevExtPos = cur
		nExtent++
	}
	if method&NormLogLength != 0 {
		wdoc /= math.Log(float64(v.countLength() + 1))
	}
	if method&NormLength != 0 {
		if n := v.countLength(); n > 0 {
			wdoc /= float64(n)
		}
	}
	if method&NormExtDist != 0 && nExtent > 0 && sumDist > 0 {
		wdoc /= float64(nExtent) / sumDist
	}
	if method&NormUniq != 0 {
		wdoc /= float64(len(v))
	}
	if method&NormLogUniq != 0 {
		wdoc /= math.Log(float64(len(v)+1)) / math.Log(2.0)
	}
	if method&NormRDivRPlus1 != 0 {
		wdoc /= wdoc + 1
	}
	return float32(wdoc)
}

// docRep lists the positions where query operands match, in position
// order, one entry per lexeme and position (PostgreSQL's get_docrep);
// lexemes without positions do not take part.
func docRep(v Vector, q Query) []docEntry {
	var doc []docEntry
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if n.Op == OpVal {
			for _, l := range v.matching(n) {
				li := v.Find(l.Word)
				for _, p := range l.Pos {
					if n.Weight == 0 || n.Weight&(1<<p.Weight()) != 0 {
						doc = append(doc, docEntry{pos: p, lexeme: li, items: []*Node{n}})
					}
				}
			}
		}
		walk(n.R)
		walk(n.L)
	}
	walk(q.Root)
	slices.SortStableFunc(doc, func(a, b docEntry) int {
		if a.pos.Pos() != b.pos.Pos() {
			return a.pos.Pos() - b.pos.Pos()
		}
		return a.lexeme - b.lexeme
	})
	out := doc[:0]
	for _, d := range doc {
		if len(out) > 0 && out[len(out)-1].pos == d.pos && out[len(out)-1].lexeme == d.lexeme {
			out[len(out)-1].items = append(out[len(out)-1].items, d.items...)
			continue
		}
		out = append(out, d)
	}
	return out
}

// windowOperand looks operands up in the entries doc[from:to+1].
func windowOperand(doc []docEntry, from, to int) operandPositions {
	return func(n *Node) ([]int, bool, bool) {
		var pos []int
		for i := from; i <= to; i++ {
			if slices.Contains(doc[i].items, n) {
				pos = append(pos, doc[i].pos.Pos())
			}
		}
		return pos, len(pos) > 0, false
	}
}

// cover finds the next cover from doc[start]: the shortest run of
// entries that satisfies the query, found by extending to the first
// entry where it holds (end) and then back from there (begin); p and q
// are the positions of begin and end, next where the search goes on.
func cover(doc []docEntry, q Query, start int) (begin, end, p, qq, next int, ok bool) {
	for ; start < len(doc); start++ {
		end = -1
		for i := start; i < len(doc); i++ {
			if evalBool(q.Root, windowOperand(doc, start, i)) {
				end = i
				break
			}
		}
		if end < 0 {
			return 0, 0, 0, 0, 0, false
		}
		begin = -1
		for i := end; i >= start; i-- {
			if evalBool(q.Root, windowOperand(doc, i, end)) {
				begin = i
				break
			}
		}
		if begin >= 0 && doc[begin].pos.Pos() <= doc[end].pos.Pos() {
			return begin, end, doc[begin].pos.Pos(), doc[end].pos.Pos(), begin + 1, true
		}
	}
	return 0, 0, 0, 0, 0, false
}
