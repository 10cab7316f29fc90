// Package keyindex is the key index of an immutable run of rows (a
// segment, a committed tail batch): the rows' encoded keys, sorted, each
// with the positions of the rows that hold it. It answers "which rows'
// key starts with these bytes" with a binary search, which is an
// equality lookup on an index's leading columns when every column's
// encoding delimits itself (the storage package's key encoding does), and
// "which rows' key lies between these bytes", a range of the first
// column where its encoding orders as its values do.
package keyindex

import (
	"bytes"
	"slices"
)

// Index is the key index of a run of rows. It is immutable and safe for
// concurrent use.
type Index struct {
	rows int
	// keys holds the distinct keys, ascending, end to end; key i is
	// keys[keyEnd[i-1]:keyEnd[i]] (from 0 for the first).
	keys   []byte
	keyEnd []int
	// postEnd[i] ends key i's positions in pos, which ascend per key.
	postEnd []uint32
	pos     []uint32
}

// Rows is the number of rows the index was built over.
func (ix *Index) Rows() int { return ix.rows }

// Keys is the number of distinct keys.
func (ix *Index) Keys() int { return len(ix.keyEnd) }

// Bytes is the index's memory, roughly.
func (ix *Index) Bytes() int64 {
	return int64(len(ix.keys) + 8*len(ix.keyEnd) + 4*(len(ix.postEnd)+len(ix.pos)))
}

func (ix *Index) key(i int) []byte {
	start := 0
	if i > 0 {
		start = ix.keyEnd[i-1]
	}
	return ix.keys[start:ix.keyEnd[i]]
}

func (ix *Index) postings(i int) []uint32 {
	start := uint32(0)
	if i > 0 {
		start = ix.postEnd[i-1]
	}
	return ix.pos[start:ix.postEnd[i]]
}

// Prefixed calls f with the positions of the rows whose key starts with
// prefix: key by key in key order, each key's positions ascending.
func (ix *Index) Prefixed(prefix []byte, f func(positions []uint32)) {
	for i := searchKeys(ix, prefix); i < len(ix.keyEnd); i++ {
		if !bytes.HasPrefix(ix.key(i), prefix) {
			return
		}
		f(ix.postings(i))
	}
}

// Range calls f with the positions of the rows whose key k lies in
// [start, stop) (stop nil: no end), key by key in key order.
func (ix *Index) Range(start, stop []byte, f func(positions []uint32)) {
	for i := searchKeys(ix, start); i < len(ix.keyEnd); i++ {
		if stop != nil && bytes.Compare(ix.key(i), stop) >= 0 {
			return
		}
		f(ix.postings(i))
	}
}

// searchKeys returns the first key not less than prefix.
func searchKeys(ix *Index, prefix []byte) int {
	lo, hi := 0, len(ix.keyEnd)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(ix.key(mid), prefix) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Builder collects the keys of rows, in position order, for an Index.
type Builder struct {
	rows int
	buf  []byte
	ends []int  // ends[i] ends row i's key in buf; rows without a key take none
	has  []bool // has[i]: row i has a key
}

// Add adds the next row with key (copied).
func (b *Builder) Add(key []byte) {
	b.buf = append(b.buf, key...)
	b.ends = append(b.ends, len(b.buf))
	b.has = append(b.has, true)
	b.rows++
}

// Skip adds the next row without a key: no lookup finds it.
func (b *Builder) Skip() {
	b.ends = append(b.ends, len(b.buf))
	b.has = append(b.has, false)
	b.rows++
}

// Build returns the index of the rows added.
func (b *Builder) Build() *Index {
	rowKey := func(r uint32) []byte {
		start := 0
		if r > 0 {
			start = b.ends[r-1]
		}
		return b.buf[start:b.ends[r]]
	}
	order := make([]uint32, 0, b.rows)
	for r, ok := range b.has {
		if ok {
			order = append(order, uint32(r))
		}
	}
	// Stable: positions stay ascending within a key.
	slices.SortStableFunc(order, func(x, y uint32) int { return bytes.Compare(rowKey(x), rowKey(y)) })
	ix := &Index{rows: b.rows, pos: order}
	for i, r := range order {
		k := rowKey(r)
		if i == 0 || !bytes.Equal(k, rowKey(order[i-1])) {
			if i > 0 {
				ix.postEnd = append(ix.postEnd, uint32(i))
			}
			ix.keys = append(ix.keys, k...)
			ix.keyEnd = append(ix.keyEnd, len(ix.keys))
		}
	}
	if len(order) > 0 {
		ix.postEnd = append(ix.postEnd, uint32(len(order)))
	}
	return ix
}
