package vecindex

// The arithmetic of the index, kept apart from the graph loops: scalar
// quantisation, the SWAR code dot product (on amd64 with AVX2, the
// assembly one of codes_amd64.s instead), and the exact float distances of
// the re-rank.
//
// A row x is coded as u[d] = round((x[d] - lo[d]) / s) in 0..codeMax. A
// query q is coded against the same offsets with a base c and a step sq of
// its own, y[d] = q[d] - lo[d] ≈ c + sq·uq[d], so a query outside the rows'
// range is never clipped. With S1 = Σ u, N = Σ u², S2 = Σ lo[d]·u[d] per
// row and U = Σ uq[d]·u[d]:
//
//	L2:   Σ (q-x)²  ≈ Σ y²  + s²·N          - 2s·c·S1 - 2s·sq·U
//	-dot: -Σ q·x    ≈ -(Σ lo² + Σ y·lo) - s·S2 - s·c·S1 - s·sq·U
//
// so every distance is base + term[row] + beta·S1[row] + mul·U, with base,
// beta and mul fixed per query and term and S1 stored per row.

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// codeMax is the largest code. Codes have 7 bits so that four products of
// two codes sum below 2^16 and fit one 16-bit lane of dotCodes.
const codeMax = 127

// quantizer maps float vectors to codes: per-dimension offsets and one step.
type quantizer struct {
	metric Metric
	lo     []float32
	step   float32
	sumLo2 float64 // Σ lo[d]²
}

// newQuantizer returns the quantizer for values in [lo[d], hi[d]]; it keeps
// lo.
func newQuantizer(m Metric, lo, hi []float32) quantizer {
	var width, sumLo2 float64
	for d := range lo {
		width = max(width, float64(hi[d])-float64(lo[d]))
		sumLo2 += float64(lo[d]) * float64(lo[d])
	}
	step := float32(width / codeMax)
	if step == 0 || math.IsInf(float64(step), 0) {
		step = 1
	}
	return quantizer{metric: m, lo: lo, step: step, sumLo2: sumLo2}
}

// encode writes v's codes to dst (its tail past len(v) stays zero) and
// returns the row's two stored terms, term (s²·N for L2, -s·S2 for the dot
// metrics) and S1, and s²·N, the squared distance of its codes from lo.
func (z *quantizer) encode(v []float32, dst []byte) (term, s1, sqNorm float32) {
	inv := 1 / float64(z.step)
	var sum, sq, slo float64
	for d, x := range v {
		u := math.Round((float64(x) - float64(z.lo[d])) * inv)
		u = min(max(u, 0), codeMax)
		dst[d] = byte(u)
		sum += u
		sq += u * u
		slo += float64(z.lo[d]) * u
	}
	s := float64(z.step)
	if z.metric == L2 {
		return float32(s * s * sq), float32(sum), float32(s * s * sq)
	}
	return float32(-s * slo), float32(sum), float32(s * s * sq)
}

// probe is a query prepared for the code dot product: its codes (and,
// without the assembly, those packed for dotCodes), and the terms of its
// distance formula.
type probe struct {
	codes           []byte
	words           []uint64
	base, beta, mul float64
}

// setCodes makes codes p's codes.
func (p *probe) setCodes(codes []byte) {
	p.codes = codes
	if !hasCodeAsm {
		packWords(codes, p.words)
	}
}

// prepare codes the float query q (normalised already under Cosine) into p,
// using codes as scratch of the index's code stride.
func (z *quantizer) prepare(q []float32, codes []byte, p *probe) {
	c, top := math.Inf(1), math.Inf(-1)
	for d, x := range q {
		y := float64(x) - float64(z.lo[d])
		c, top = min(c, y), max(top, y)
	}
	sq := (top - c) / codeMax
	if sq == 0 {
		sq = 1
	}
	clear(codes)
	var yy, ylo float64
	for d, x := range q {
		y := float64(x) - float64(z.lo[d])
		yy += y * y
		ylo += y * float64(z.lo[d])
		codes[d] = byte(min(max(math.Round((y-c)/sq), 0), codeMax))
	}
	p.setCodes(codes)
	s := float64(z.step)
	switch z.metric {
	case L2:
		p.base, p.beta, p.mul = yy, -2*s*c, -2*s*sq
	default:
		p.base, p.beta, p.mul = -(z.sumLo2 + ylo), -s*c, -s*sq
		if z.metric == Cosine {
			p.base++
		}
	}
}

// prepareRow makes p the probe of a coded row for Build, which compares
// rows by the squared Euclidean distance of their codes plus that of one
// extra coordinate t each (zero but under InnerProduct, see Build): given
// the row's build terms sq = s²·N + t² and t, the distance to a row with
// build terms sq', t' is sq + sq' - 2t·t' - 2s²·U.
func (z *quantizer) prepareRow(codes []byte, sq, t float32, p *probe) {
	p.setCodes(codes)
	s := float64(z.step)
	p.base, p.beta, p.mul = float64(sq), -2*float64(t), -2*s*s
}

// dist is the approximate distance from p to a row with the given codes
// and stored terms.
func (p *probe) dist(codes []byte, term, s1 float32) float32 {
	var u uint64
	if hasCodeAsm {
		u = dotCodesAsm(p.codes, codes)
	} else {
		u = dotCodes(p.words, codes)
	}
	return float32(p.base + float64(term) + p.beta*float64(s1) + p.mul*float64(u))
}

// distRows appends to out[:0] the distance from p to each row ids[i] of
// codes (stride bytes a row) with its stored terms at terms[2r] and
// terms[2r+1], as dist would, using dots as scratch: with the assembly,
// the dot products of the whole list in one call.
func (p *probe) distRows(codes []byte, stride int, terms []float32, ids, dots []uint32, out []float32) []float32 {
	out = out[:0]
	if len(ids) == 0 {
		return out
	}
	if !hasCodeAsm {
		for _, r := range ids {
			o := int(r) * stride
			out = append(out, p.dist(codes[o:o+stride:o+stride], terms[2*r], terms[2*r+1]))
		}
		return out
	}
	_ = codes[(int(slices.Max(ids))+1)*stride-1] // every row in range
	dots = dots[:len(ids)]
	dotRows(&p.codes[0], &codes[0], uintptr(stride), &ids[0], len(ids), &dots[0])
	for i, r := range ids {
		out = append(out, float32(p.base+float64(terms[2*r])+p.beta*float64(terms[2*r+1])+p.mul*float64(dots[i])))
	}
	return out
}

// packWords packs codes (a multiple of 8 long) for dotCodes: per 8 codes
// two words, the even-indexed codes then the odd-indexed ones, each in
// four 16-bit lanes in reverse order.
func packWords(codes []byte, words []uint64) {
	words = words[:len(codes)/4]
	for i := 0; i+8 <= len(codes); i += 8 {
		c := codes[i : i+8 : i+8]
		words[i/4] = uint64(c[6]) | uint64(c[4])<<16 | uint64(c[2])<<32 | uint64(c[0])<<48
		words[i/4+1] = uint64(c[7]) | uint64(c[5])<<16 | uint64(c[3])<<32 | uint64(c[1])<<48
	}
}

// dotCodes is Σ q[d]·x[d] over 7-bit codes, q packed by packWords. It
// spreads four of x's codes into 16-bit lanes and multiplies them by q's
// reversed lanes in one 64-bit multiply: the top lane of the product is the
// sum of the four products (below 2^16, and no lower lane carries into it).
func dotCodes(q []uint64, x []byte) uint64 {
	const spread = 0x00FF00FF00FF00FF
	var s0, s1, s2, s3 uint64
	for len(x) >= 16 && len(q) >= 4 {
		w := binary.LittleEndian.Uint64(x)
		v := binary.LittleEndian.Uint64(x[8:])
		s0 += ((w & spread) * q[0]) >> 48
		s1 += ((w >> 8 & spread) * q[1]) >> 48
		s2 += ((v & spread) * q[2]) >> 48
		s3 += ((v >> 8 & spread) * q[3]) >> 48
		x, q = x[16:], q[4:]
	}
	if len(x) >= 8 && len(q) >= 2 {
		w := binary.LittleEndian.Uint64(x)
		s0 += ((w & spread) * q[0]) >> 48
		s1 += ((w >> 8 & spread) * q[1]) >> 48
	}
	return (s0 + s1) + (s2 + s3)
}

// exactDist is the metric's distance from q to v, with q normalised
// already under Cosine; ok is false when v has no direction (Cosine) or the
// result is not a number, or v is not a vector of q's dimension.
func exactDist(m Metric, q, v []float32) (d float32, ok bool) {
	if len(v) != len(q) {
		return 0, false
	}
	var r float64
	switch m {
	case L2:
		r = vecmath.SqDist(q, v)
	case InnerProduct:
		r = -vecmath.Dot(q, v)
	default:
		qv, vv := vecmath.DotNorm(v, q, nil)
		if vv == 0 {
			return 0, false
		}
		r = 1 - qv/math.Sqrt(vv)
	}
	return float32(r), !math.IsNaN(r)
}

// normalize writes v/|v| to dst; ok is false for a zero or non-finite v.
func normalize(v, dst []float32) (ok bool) {
	n := math.Sqrt(vecmath.SqNorm(v))
	if n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return false
	}
	for i, x := range v {
		dst[i] = float32(float64(x) / n)
	}
	return true
}
