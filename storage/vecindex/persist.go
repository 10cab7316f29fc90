package vecindex

// The file format, version 2, little-endian:
//
//	"CVIX" u16 version, u8 metric, u8 0
//	u32 M, u32 ef_construction, i64 seed
//	u32 rows, u32 dim, u32 indexed rows, u32 entry, i32 top layer, f32 step
//	u32 upper rows, u32 upper words
//	u32 lists (the parameter), u32 IVF lists built
//	f32 lo[dim]; i8 level[rows]; f32 term[rows]; f32 s1[rows]
//	u8 codes[rows·stride]; u32 links0[rows·(2M+1)]
//	u32 upperRows[upper rows]; u32 upperStart[upper rows]; u32 upper[upper words]
//	IVF only (lists > 0, and then links0 and the upper layers are empty):
//	f32 centroids[lists built·dim]; u32 listStart[lists built+1];
//	u32 listRows[indexed rows]
//	u32 CRC-32C of everything before it
//
// Version 1, written before IVF, lacks the two lists fields and the IVF
// arrays; Read still reads it.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
)

const (
	magic       = "CVIX"
	version     = 2
	headerSize1 = 4 + 2 + 2 + 4 + 4 + 8 + 6*4 + 2*4 // version 1's
	headerSize  = headerSize1 + 2*4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encoder writes to w through a buffer, summing the CRC of what it writes.
type encoder struct {
	w   io.Writer
	buf []byte
	n   int64
	crc uint32
	err error
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		e.crc = crc32.Update(e.crc, castagnoli, e.buf)
		var n int
		n, e.err = e.w.Write(e.buf)
		e.n += int64(n)
	}
	e.buf = e.buf[:0]
}

func (e *encoder) room(n int) {
	if len(e.buf)+n > cap(e.buf) {
		e.flush()
	}
}

func (e *encoder) u32(v uint32) {
	e.room(4)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
}

func (e *encoder) u32s(vs []uint32) {
	for _, v := range vs {
		e.u32(v)
	}
}

func (e *encoder) f32s(vs []float32) {
	for _, v := range vs {
		e.u32(math.Float32bits(v))
	}
}

func (e *encoder) bytes(b []byte) {
	for len(b) > 0 {
		e.room(1)
		n := min(len(b), cap(e.buf)-len(e.buf))
		e.buf = append(e.buf, b[:n]...)
		b = b[n:]
	}
}

// WriteTo writes the index in the format Read reads, and returns the bytes
// written.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	defer runtime.KeepAlive(x) // its arrays are outside the heap (offheap.go)
	e := &encoder{w: w, buf: make([]byte, 0, 64<<10)}
	e.bytes([]byte(magic))
	e.bytes([]byte{version, 0, byte(x.params.Metric), 0})
	e.u32(uint32(x.params.M))
	e.u32(uint32(x.params.EfConstruction))
	e.u32(uint32(x.params.Seed))
	e.u32(uint32(uint64(x.params.Seed) >> 32))
	e.u32s([]uint32{uint32(x.n), uint32(x.dim), uint32(x.count), x.entry, uint32(int32(x.top)), math.Float32bits(x.quant.step)})
	e.u32s([]uint32{uint32(len(x.upperRows)), uint32(len(x.upper))})
	e.u32s([]uint32{uint32(x.params.Lists), uint32(max(x.lists(), 0))})
	e.f32s(x.quant.lo)
	for _, l := range x.level {
		e.bytes([]byte{byte(l)})
	}
	for i := 0; i < 2; i++ { // every row's term, then every row's S1
		for r := range x.n {
			e.u32(math.Float32bits(x.terms[2*r+i]))
		}
	}
	e.bytes(x.codes)
	e.u32s(x.links0)
	e.u32s(x.upperRows)
	e.u32s(x.upperStart)
	e.u32s(x.upper)
	if x.params.Lists > 0 {
		e.f32s(x.centroids)
		e.u32s(x.listStart)
		e.u32s(x.listRows)
	}
	e.flush()
	e.u32(e.crc)
	e.flush()
	return e.n, e.err
}

// decoder reads little-endian values from b into arrays of mem; Read has
// checked its length.
type decoder struct {
	b   []byte
	mem *offHeap
}

func (d *decoder) u32() uint32 {
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) u32s(n int) []uint32 {
	vs := makeArray[uint32](d.mem, n)
	for i := range vs {
		vs[i] = binary.LittleEndian.Uint32(d.b[4*i:])
	}
	d.b = d.b[4*n:]
	return vs
}

func (d *decoder) f32s(n int) []float32 {
	vs := make([]float32, n)
	for i := range vs {
		vs[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*n:]
	return vs
}

func (d *decoder) bytes(n int) []byte {
	v := makeArray[byte](d.mem, n)
	copy(v, d.b)
	d.b = d.b[n:]
	return v
}

// errCorrupt is the error of a file that fails Read's checks.
var errCorrupt = errors.New("vecindex: corrupt index")

// Read decodes an index written by WriteTo, or by its version 1. A
// truncated or corrupt file, or one of another version, is an error; the
// index returned never reaches outside its arrays, whatever the bytes.
func Read(b []byte) (_ *Index, err error) {
	if len(b) < headerSize1+4 || string(b[:4]) != magic {
		return nil, errCorrupt
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	v := binary.LittleEndian.Uint16(b[4:])
	switch {
	case v != 1 && v != version:
		return nil, fmt.Errorf("vecindex: index version %d, want %d", v, version)
	case v == version && len(b) < headerSize+4:
		return nil, errCorrupt
	}
	d := &decoder{b: body[8:]}
	var p Params
	p.Metric = Metric(b[6])
	p.M, p.EfConstruction = int(d.u32()), int(d.u32())
	p.Seed = int64(uint64(d.u32()) | uint64(d.u32())<<32)
	if p.M == 0 || p.EfConstruction == 0 {
		return nil, errCorrupt
	}
	p, err = p.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	x := &Index{params: p}
	x.mem = newOffHeap(x)
	defer func() {
		if err != nil {
			x.mem.release() // nothing else will read the arrays
		}
	}()
	d.mem = x.mem
	x.n, x.dim, x.count = int(d.u32()), int(d.u32()), int(d.u32())
	x.entry, x.top = d.u32(), int(int32(d.u32()))
	step := math.Float32frombits(d.u32())
	nUpper, upperWords := int64(d.u32()), int64(d.u32())
	var nLists int64
	if v == version {
		x.params.Lists, nLists = int(d.u32()), int64(d.u32())
		if x.params.Lists > maxLists || nLists > int64(x.params.Lists) {
			return nil, errCorrupt
		}
	}
	if x.dim < 1 || x.dim > maxDim || !(step > 0) || math.IsInf(float64(step), 0) {
		return nil, errCorrupt
	}
	x.stride = (x.dim + 7) &^ 7
	n := int64(x.n)
	linkWords := n * int64(2*p.M+1)
	if x.params.Lists > 0 {
		linkWords = 0
	}
	want := 4*int64(x.dim) + n*(1+4+4+int64(x.stride)) + 4*linkWords + 8*nUpper + 4*upperWords
	if x.params.Lists > 0 {
		want += 4 * (nLists*int64(x.dim) + nLists + 1 + int64(x.count))
	}
	if want != int64(len(d.b)) {
		return nil, fmt.Errorf("%w: %d bytes of arrays, want %d", errCorrupt, len(d.b), want)
	}
	lo := d.f32s(x.dim)
	x.quant = newQuantizer(p.Metric, lo, lo)
	x.quant.step = step
	x.level = make([]int8, x.n)
	for i, l := range d.b[:x.n] {
		x.level[i] = int8(l)
	}
	d.b = d.b[x.n:]
	x.terms = makeArray[float32](x.mem, 2*x.n)
	for i := 0; i < 2; i++ {
		for r := range x.n {
			x.terms[2*r+i] = math.Float32frombits(d.u32())
		}
	}
	x.codes = d.bytes(x.n * x.stride)
	x.links0 = d.u32s(int(linkWords))
	x.upperRows, x.upperStart = d.u32s(int(nUpper)), d.u32s(int(nUpper))
	x.upper = d.u32s(int(upperWords))
	if x.params.Lists > 0 {
		x.centroids = d.f32s(int(nLists) * x.dim)
		x.listStart, x.listRows = d.u32s(int(nLists)+1), d.u32s(x.count)
	}
	if err := x.validate(); err != nil {
		return nil, err
	}
	x.pool.New = x.newSearcher
	return x, nil
}

// validate checks the invariants Search relies on to stay inside the
// index's arrays.
func (x *Index) validate() error {
	bad := func(what string) error { return fmt.Errorf("%w: %s", errCorrupt, what) }
	count, up, words := 0, 0, 0
	m := x.params.M
	for r, l := range x.level {
		switch {
		case l < noLevel || l > maxLevel:
			return bad("layer out of range")
		case l == noLevel:
			continue
		}
		count++
		if l > 0 {
			if up >= len(x.upperRows) || x.upperRows[up] != uint32(r) || x.upperStart[up] != uint32(words) {
				return bad("upper layer table")
			}
			up++
			words += int(l) * (m + 1)
		}
	}
	if count != x.count || up != len(x.upperRows) || words != len(x.upper) {
		return bad("row counts")
	}
	for _, c := range x.codes {
		if c > codeMax {
			return bad("code out of range")
		}
	}
	if x.params.Lists > 0 {
		return x.validateLists()
	}
	if count == 0 && x.top != -1 || count > 0 && (int64(x.entry) >= int64(x.n) || x.top < 0 || int(x.level[x.entry]) != x.top) {
		return bad("entry point")
	}
	for r, lr := range x.level {
		for l := 0; l <= int(lr); l++ {
			blk := x.block(uint32(r), l)
			if int(blk[0]) > len(blk)-1 {
				return bad("link count")
			}
			for _, nb := range blk[1 : 1+blk[0]] {
				if int64(nb) >= int64(x.n) || int(x.level[nb]) < l {
					return bad("link target")
				}
			}
		}
		if lr == noLevel && x.block(uint32(r), 0)[0] != 0 {
			return bad("links of a row left out")
		}
	}
	return nil
}

// validateLists checks an IVF index's lists: no graph, one list per
// indexed row up to the parameter, a list per row, every indexed row in
// exactly one list, and finite centroids.
func (x *Index) validateLists() error {
	bad := func(what string) error { return fmt.Errorf("%w: %s", errCorrupt, what) }
	if x.top != -1 || x.entry != 0 || len(x.upper) != 0 {
		return bad("graph of an IVF index")
	}
	k := x.lists()
	if k > x.count || x.count > 0 && k == 0 {
		return bad("list count")
	}
	for _, c := range x.centroids {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return bad("centroid")
		}
	}
	if x.listStart[0] != 0 || x.listStart[k] != uint32(x.count) {
		return bad("list bounds")
	}
	seen := make([]bool, x.n)
	for j := range k {
		lo, hi := x.listStart[j], x.listStart[j+1]
		if lo > hi || hi > uint32(x.count) {
			return bad("list bounds")
		}
		for _, r := range x.listRows[lo:hi] {
			if int64(r) >= int64(x.n) || x.level[r] != 0 || seen[r] {
				return bad("list row")
			}
			seen[r] = true
		}
	}
	return nil
}
