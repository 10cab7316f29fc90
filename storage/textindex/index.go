package textindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/cairn-db/cairn/sql/textsearch"
)

// Index is the inverted index of one text column over a fixed set of rows
// (numbered 0..Rows()-1): each row's length in tokens (or NULL), and per
// term the rows that hold it, ascending, with how often. It is immutable
// and safe for concurrent use. Its arrays hold no pointers, so a large
// index costs the garbage collector nothing to scan.
type Index struct {
	docs, tokens int64
	// lens[i] is row i's length in tokens plus one; 0 means NULL.
	lens []uint32
	// Terms sorted: term i is termData[termEnd[i-1]:termEnd[i]].
	termData []byte
	termEnd  []uint32
	// Postings of term i: postRow/postTF[postStart[i]:postStart[i+1]].
	postStart []uint32
	postRow   []uint32
	postTF    []uint32

	fwdOnce  sync.Once
	fwdStart []uint32 // row i's terms: fwdTerm[fwdStart[i]:fwdStart[i+1]]
	fwdTerm  []uint32
}

// Rows is the number of rows the index covers (documents and NULLs).
func (x *Index) Rows() int { return len(x.lens) }

// Docs is the number of non-NULL rows.
func (x *Index) Docs() int64 { return x.docs }

// Tokens is the total length of the documents in tokens.
func (x *Index) Tokens() int64 { return x.tokens }

// NumTerms is the number of distinct terms.
func (x *Index) NumTerms() int { return len(x.termEnd) }

// Len returns row's length in tokens; null reports a NULL row.
func (x *Index) Len(row int) (n int, null bool) {
	l := x.lens[row]
	return int(l) - 1, l == 0
}

// Term returns term t's text.
func (x *Index) Term(t int) string {
	lo := uint32(0)
	if t > 0 {
		lo = x.termEnd[t-1]
	}
	return string(x.termData[lo:x.termEnd[t]])
}

func (x *Index) termBytes(t int) []byte {
	lo := uint32(0)
	if t > 0 {
		lo = x.termEnd[t-1]
	}
	return x.termData[lo:x.termEnd[t]]
}

// Lookup returns the ID of term, or false when no row holds it.
func (x *Index) Lookup(term string) (int, bool) {
	i := sort.Search(len(x.termEnd), func(i int) bool { return string(x.termBytes(i)) >= term })
	if i < len(x.termEnd) && string(x.termBytes(i)) == term {
		return i, true
	}
	return 0, false
}

// DocFreq is the number of rows holding term t.
func (x *Index) DocFreq(t int) int { return int(x.postStart[t+1] - x.postStart[t]) }

// Postings returns the rows holding term t (ascending) and the term's
// frequency in each. The slices are shared: do not modify them.
func (x *Index) Postings(t int) (rows, tfs []uint32) {
	lo, hi := x.postStart[t], x.postStart[t+1]
	return x.postRow[lo:hi:hi], x.postTF[lo:hi:hi]
}

// RowTerms returns the IDs of the distinct terms of row, ascending. The
// forward index it reads is built on first use (4 bytes per posting).
func (x *Index) RowTerms(row int) []uint32 {
	x.fwdOnce.Do(x.buildForward)
	lo, hi := x.fwdStart[row], x.fwdStart[row+1]
	return x.fwdTerm[lo:hi:hi]
}

func (x *Index) buildForward() {
	start := make([]uint32, len(x.lens)+1)
	for _, r := range x.postRow {
		start[r+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	fill := make([]uint32, len(x.lens))
	terms := make([]uint32, len(x.postRow))
	for t := 0; t < len(x.termEnd); t++ {
		for _, r := range x.postRow[x.postStart[t]:x.postStart[t+1]] {
			terms[start[r]+fill[r]] = uint32(t)
			fill[r]++
		}
	}
	x.fwdStart, x.fwdTerm = start, terms
}

// HasTerm reports whether row holds term t.
func (x *Index) HasTerm(row, t int) bool {
	rows, _ := x.Postings(t)
	i := sort.Search(len(rows), func(i int) bool { return rows[i] >= uint32(row) })
	return i < len(rows) && rows[i] == uint32(row)
}

// TF returns how often row holds term t (0 when it does not).
func (x *Index) TF(row, t int) int {
	rows, tfs := x.Postings(t)
	i := sort.Search(len(rows), func(i int) bool { return rows[i] >= uint32(row) })
	if i < len(rows) && rows[i] == uint32(row) {
		return int(tfs[i])
	}
	return 0
}

// Bytes estimates the memory the index holds (the forward index once
// built included).
func (x *Index) Bytes() int64 {
	return int64(4*len(x.lens) + len(x.termData) + 4*len(x.termEnd) + 4*len(x.postStart) +
		8*len(x.postRow) + 4*len(x.fwdStart) + 4*len(x.fwdTerm))
}

// Builder builds an Index row by row. It is not safe for concurrent use.
type Builder struct {
	ids    map[string]uint32
	terms  []string
	posts  [][]uint32 // per term: row, tf pairs
	lens   []uint32
	docs   int64
	tokens int64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{ids: map[string]uint32{}} }

// Add appends a row holding text.
func (b *Builder) Add(text string) {
	row := uint32(len(b.lens))
	n := uint32(0)
	textsearch.ForEachToken(text, func(tok string) {
		n++
		id, ok := b.ids[tok]
		if !ok {
			id = uint32(len(b.terms))
			tok = strings.Clone(tok)
			b.ids[tok] = id
			b.terms = append(b.terms, tok)
			b.posts = append(b.posts, nil)
		}
		p := b.posts[id]
		if k := len(p); k > 0 && p[k-2] == row {
			p[k-1]++
			return
		}
		b.posts[id] = append(p, row, 1)
	})
	if n == math.MaxUint32 {
		n-- // a 4-billion-token document: cap its length
	}
	b.lens = append(b.lens, n+1)
	b.docs++
	b.tokens += int64(n)
}

// AddNull appends a NULL row (not a document).
func (b *Builder) AddNull() { b.lens = append(b.lens, 0) }

// AddNulls appends n NULL rows.
func (b *Builder) AddNulls(n int) {
	for i := 0; i < n; i++ {
		b.lens = append(b.lens, 0)
	}
}

// Rows is the number of rows added so far.
func (b *Builder) Rows() int { return len(b.lens) }

// Build returns the index of the rows added; the Builder must not be used
// afterwards.
func (b *Builder) Build() *Index {
	order := make([]uint32, len(b.terms))
	for i := range order {
		order[i] = uint32(i)
	}
	sort.Slice(order, func(i, j int) bool { return b.terms[order[i]] < b.terms[order[j]] })
	x := &Index{docs: b.docs, tokens: b.tokens, lens: b.lens,
		termEnd: make([]uint32, len(order)), postStart: make([]uint32, len(order)+1)}
	var nposts, nbytes int
	for _, p := range b.posts {
		nposts += len(p) / 2
	}
	for _, t := range b.terms {
		nbytes += len(t)
	}
	x.termData = make([]byte, 0, nbytes)
	x.postRow = make([]uint32, 0, nposts)
	x.postTF = make([]uint32, 0, nposts)
	for i, id := range order {
		x.termData = append(x.termData, b.terms[id]...)
		x.termEnd[i] = uint32(len(x.termData))
		p := b.posts[id]
		for k := 0; k < len(p); k += 2 {
			x.postRow = append(x.postRow, p[k])
			x.postTF = append(x.postTF, p[k+1])
		}
		x.postStart[i+1] = uint32(len(x.postRow))
	}
	*b = Builder{}
	return x
}

// Encoding (all integers unsigned varints): rows, docs, tokens; each
// row's length plus one (0 = NULL); the number of terms; per term its
// length, bytes, posting count and postings as (row delta, tf) pairs.

// AppendBinary appends the encoding of x to dst.
func (x *Index) AppendBinary(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(x.lens)))
	dst = binary.AppendUvarint(dst, uint64(x.docs))
	dst = binary.AppendUvarint(dst, uint64(x.tokens))
	for _, l := range x.lens {
		dst = binary.AppendUvarint(dst, uint64(l))
	}
	dst = binary.AppendUvarint(dst, uint64(len(x.termEnd)))
	for t := range x.termEnd {
		tb := x.termBytes(t)
		dst = binary.AppendUvarint(dst, uint64(len(tb)))
		dst = append(dst, tb...)
		rows, tfs := x.Postings(t)
		dst = binary.AppendUvarint(dst, uint64(len(rows)))
		prev := uint32(0)
		for k, r := range rows {
			dst = binary.AppendUvarint(dst, uint64(r-prev))
			dst = binary.AppendUvarint(dst, uint64(tfs[k]))
			prev = r
		}
	}
	return dst
}

var errCorrupt = errors.New("corrupt text index")

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items taking at least minBytes each, rejecting
// one the remaining input cannot hold.
func (d *decoder) count(minBytes int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.b)/minBytes) {
		d.err = errCorrupt
		return 0
	}
	return int(v)
}

// Decode decodes an Index encoded by AppendBinary at the start of b and
// returns it with the rest of b. Malformed input is an error, never a
// panic or a huge allocation.
func Decode(b []byte) (*Index, []byte, error) {
	d := &decoder{b: b}
	rows := d.count(1)
	x := &Index{docs: int64(d.uvarint()), tokens: int64(d.uvarint()), lens: make([]uint32, rows)}
	var docs, tokens int64
	for i := range x.lens {
		l := d.uvarint()
		if l > math.MaxUint32 {
			return nil, nil, errCorrupt
		}
		x.lens[i] = uint32(l)
		if l > 0 {
			docs++
			tokens += int64(l - 1)
		}
	}
	if d.err != nil || docs != x.docs || tokens != x.tokens {
		return nil, nil, errCorrupt
	}
	nterms := d.count(2)
	x.termEnd = make([]uint32, nterms)
	x.postStart = make([]uint32, nterms+1)
	var prevTerm []byte
	for t := 0; t < nterms && d.err == nil; t++ {
		n := d.count(1)
		if d.err != nil || n == 0 {
			return nil, nil, errCorrupt
		}
		tb := d.b[:n]
		d.b = d.b[n:]
		if t > 0 && string(prevTerm) >= string(tb) {
			return nil, nil, fmt.Errorf("%w: terms out of order", errCorrupt)
		}
		prevTerm = tb
		x.termData = append(x.termData, tb...)
		x.termEnd[t] = uint32(len(x.termData))
		np := d.count(2)
		prev := uint64(0)
		for k := 0; k < np && d.err == nil; k++ {
			delta, tf := d.uvarint(), d.uvarint()
			r := prev + delta
			if k > 0 && delta == 0 || r >= uint64(rows) || tf == 0 || tf > math.MaxUint32 ||
				x.lens[r] == 0 || tf > uint64(x.lens[r]-1) {
				return nil, nil, errCorrupt
			}
			x.postRow = append(x.postRow, uint32(r))
			x.postTF = append(x.postTF, uint32(tf))
			prev = r
		}
		x.postStart[t+1] = uint32(len(x.postRow))
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	return x, d.b, d.err
}
