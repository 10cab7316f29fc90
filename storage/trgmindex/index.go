package trgmindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
)

// Index is the trigram index of the rows of one column of a segment: for
// each trigram (ascending), the positions of the rows holding it. NULL
// rows hold none. It is immutable and safe for concurrent use.
type Index struct {
	rows  uint32
	keys  []Key
	posts []*roaring.Bitmap
}

// Rows is the number of rows (positions) the index covers.
func (ix *Index) Rows() int { return int(ix.rows) }

// Trigrams is the number of distinct trigrams.
func (ix *Index) Trigrams() int { return len(ix.keys) }

// Candidates returns the positions of the rows holding every one of keys
// (at least one key; the result is the caller's to modify).
func (ix *Index) Candidates(keys []Key) *roaring.Bitmap {
	lists := make([]*roaring.Bitmap, 0, len(keys))
	for _, k := range keys {
		i, ok := slices.BinarySearch(ix.keys, k)
		if !ok {
			return roaring.New()
		}
		lists = append(lists, ix.posts[i])
	}
	if len(lists) == 1 {
		return lists[0].Clone()
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i].GetCardinality() < lists[j].GetCardinality() })
	out := roaring.And(lists[0], lists[1])
	for _, l := range lists[2:] {
		if out.IsEmpty() {
			break
		}
		out.And(l)
	}
	return out
}

// Builder collects rows, in position order, for an Index.
type Builder struct {
	rows  uint32
	posts map[Key][]uint32
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{posts: map[Key][]uint32{}} }

// Add indexes the next row's text.
func (b *Builder) Add(text string) {
	pos := b.rows
	b.rows++
	TextKeys(text, func(k Key) {
		l := b.posts[k]
		if n := len(l); n == 0 || l[n-1] != pos {
			b.posts[k] = append(l, pos)
		}
	})
}

// AddNull indexes the next row as NULL (no trigrams).
func (b *Builder) AddNull() { b.rows++ }

// Build returns the index of the rows added.
func (b *Builder) Build() *Index {
	ix := &Index{rows: b.rows, keys: make([]Key, 0, len(b.posts))}
	for k := range b.posts {
		ix.keys = append(ix.keys, k)
	}
	slices.Sort(ix.keys)
	ix.posts = make([]*roaring.Bitmap, len(ix.keys))
	for i, k := range ix.keys {
		bm := roaring.New()
		bm.AddMany(b.posts[k])
		bm.RunOptimize()
		ix.posts[i] = bm
	}
	return ix
}

// The encoding: uvarint rows, uvarint number of trigrams, then per
// trigram, ascending, the uvarint difference from the previous key (the
// first from 0), the uvarint length of its posting bitmap and the
// bitmap in roaring's portable format.

// Append appends ix's encoding to buf.
func (ix *Index) Append(buf []byte) ([]byte, error) {
	buf = binary.AppendUvarint(buf, uint64(ix.rows))
	buf = binary.AppendUvarint(buf, uint64(len(ix.keys)))
	var prev Key
	for i, k := range ix.keys {
		b, err := ix.posts[i].ToBytes()
		if err != nil {
			return nil, err
		}
		buf = binary.AppendUvarint(buf, uint64(k-prev))
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		buf = append(buf, b...)
		prev = k
	}
	return buf, nil
}

// errCorrupt is the error of Read for an encoding it cannot take.
var errCorrupt = errors.New("corrupt trigram index")

// Read decodes an index Append encoded. It fails, never panics, on any
// other input, and checks that every posting lies within the rows, so
// that an index it returns cannot make a caller index out of range.
func Read(b []byte) (ix *Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			ix, err = nil, fmt.Errorf("%w: %v", errCorrupt, r)
		}
	}()
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errCorrupt
		}
		b = b[n:]
		return v, nil
	}
	rows, err := next()
	if err != nil || rows > 1<<32-1 {
		return nil, errCorrupt
	}
	count, err := next()
	if err != nil || count > uint64(len(b)) { // every trigram takes bytes
		return nil, errCorrupt
	}
	ix = &Index{rows: uint32(rows), keys: make([]Key, 0, count), posts: make([]*roaring.Bitmap, 0, count)}
	var prev Key
	for i := uint64(0); i < count; i++ {
		d, err := next()
		if err != nil || i > 0 && d == 0 || uint64(prev)+d < uint64(prev) || uint64(prev)+d >= 1<<63 {
			return nil, errCorrupt
		}
		size, err := next()
		if err != nil || size > uint64(len(b)) {
			return nil, errCorrupt
		}
		bm := roaring.New()
		if err := bm.UnmarshalBinary(b[:size]); err != nil {
			return nil, fmt.Errorf("%w: %v", errCorrupt, err)
		}
		if !bm.IsEmpty() && uint64(bm.Maximum()) >= rows {
			return nil, fmt.Errorf("%w: a row beyond the index", errCorrupt)
		}
		b = b[size:]
		prev += Key(d)
		ix.keys = append(ix.keys, prev)
		ix.posts = append(ix.posts, bm)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", errCorrupt)
	}
	return ix, nil
}
