package storage

// A segment's raw vectors: the float32 vectors of a column that has a
// vector index, as fixed-width rows in a file beside the segment
// (<segment>.col<column ID>.vraw), written when the segment's first index on
// the column is built. A search re-ranks its candidates and FetchRows
// reads a few rows' vectors from it, so neither decodes the column nor
// keeps it in the column cache: what a vector index keeps in memory is its
// quantised codes and graph, and the vectors stay on disk, in the page
// cache when memory allows. They are read with positioned reads, not
// mapped: a mapping's pages count in the server's resident set once
// touched (and the kernel maps the neighbours of each page a re-rank
// touches, so a few thousand searches would have the whole file in it),
// where a read of a cached page costs about a microsecond. A missing or
// corrupt file only means the column is read from the segment as before.
//
// The file is a sidecar frame (sidecar.go) written as a stream: magic;
// the segment's identity; the dimension (uvarint); a bitmap of the rows
// that hold a vector (the others are NULL), (rows+7)/8 bytes; zero to three
// zero bytes, so that the vectors start at a multiple of 4 (files written
// before had none); then every row's vector, dim little-endian float32s
// (zeros for NULL); and the CRC-32C of all of it.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// vecRawExt ends the name of a segment's raw vector file.
const vecRawExt = ".vraw"

// vecRawMagic starts a raw vector file.
var vecRawMagic = []byte("CAIRNVR1")

// rawFetchShare: FetchRows reads a segment's vectors from its raw
// vectors one by one unless it wants more than 1/rawFetchShare of the
// segment's rows, which are then decoded from the segment. A raw vector
// is one positioned read (about a microsecond for 384-d from the page
// cache), a decoded row several microseconds of Parquet's list assembly,
// so only a fetch of most of a segment decodes it (and caches the
// column).
const rawFetchShare = 2

// rawVectors is a verified raw vector file of one segment's column.
type rawVectors struct {
	path    string
	dim     int
	rows    int
	present []byte // bit r < rows: row r holds a vector
	body    int64  // file offset of row 0's vector

	fileOnce sync.Once
	// file is the open file, shared by its readers (positioned reads need
	// no lock), or nil when it is not kept open (openFile). Set by the
	// first open; closed when the rawVectors is garbage, which a reader in
	// use prevents by referring to it.
	file *os.File

	warmOnce sync.Once
	// warmed is set once the file is being read into the page cache ahead
	// of use (warmFile); until then a re-rank advises the kernel of the
	// vectors it is about to read (rawReader.willNeed).
	warmed atomic.Bool
}

// vecRawPath is the raw vector file of column colID of the segment at
// segPath (seg-000042.parquet: seg-000042.col7.vraw).
func vecRawPath(segPath string, colID int) string {
	return strings.TrimSuffix(segPath, ".parquet") + "." + vecRawKey(colID) + vecRawExt
}

// vecRawKey names the raw vectors of column colID among a segment's
// sidecars; "col" keeps it apart from index keys, which are hexadecimal.
func vecRawKey(colID int) string { return "col" + strconv.Itoa(colID) }

// has reports whether row holds a vector.
func (r *rawVectors) has(row int) bool { return r.present[row>>3]&(1<<(row&7)) != 0 }

// rawRepresentable reports whether every row of cols is NULL or a
// one-dimensional vector of dim components without NULL elements: what a
// raw file can give back exactly.
func rawRepresentable(cols *segVectors, dim int) bool {
	for g := range cols.arrays {
		l, ok := cols.group(g).(*array.List)
		if !ok {
			return false
		}
		vals, ok := l.ListValues().(*array.Float32)
		if !ok {
			return false
		}
		for i := 0; i < l.Len(); i++ {
			if l.IsNull(i) {
				continue
			}
			start, end := l.ValueOffsets(i)
			if int(end-start) != dim {
				return false
			}
			if vals.NullN() > 0 {
				for j := start; j < end; j++ {
					if vals.IsNull(int(j)) {
						return false
					}
				}
			}
		}
	}
	return true
}

// writeRawVectors writes the raw vector file of column colID of seg from
// its decoded vectors (rows of dim components or NULL), or does nothing
// when they are not representable (rawRepresentable). It returns the
// file, nil when none was written.
func writeRawVectors(seg *segment, colID int, cols *segVectors, dim int) (*rawVectors, error) {
	if !rawRepresentable(cols, dim) {
		return nil, nil
	}
	rows := int(seg.rows)
	raw := &rawVectors{path: vecRawPath(seg.path, colID), dim: dim, rows: rows, present: make([]byte, (rows+7)/8)}
	for r := 0; r < rows; r++ {
		if cols.vector(r) != nil {
			raw.present[r>>3] |= 1 << (r & 7)
		}
	}
	head := binary.AppendUvarint(sidecarHead(vecRawMagic, seg), uint64(dim))
	pad := make([]byte, (4-(len(head)+len(raw.present))%4)%4)
	raw.body = int64(len(head) + len(raw.present) + len(pad))
	err := writeFileAtomicFunc(raw.path, func(w io.Writer) error {
		crc := crc32.New(sidecarCRC)
		out := io.MultiWriter(w, crc)
		for _, part := range [][]byte{head, raw.present, pad} {
			if _, err := out.Write(part); err != nil {
				return err
			}
		}
		buf := make([]byte, 4*dim)
		for r := 0; r < rows; r++ {
			clear(buf)
			for i, x := range cols.vector(r) {
				binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
			}
			if _, err := out.Write(buf); err != nil {
				return err
			}
		}
		_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
		return err
	})
	if err != nil {
		return nil, err
	}
	if seg.gone() {
		os.Remove(raw.path) // the segment was compacted away meanwhile
	}
	return raw, nil
}

// readRawVectors opens and verifies the raw vector file of column colID
// of seg, reading its header and bitmap and streaming the rest through
// the checksum. An error wrapping os.ErrNotExist when there is none.
func readRawVectors(seg *segment, colID int) (*rawVectors, error) {
	path := vecRawPath(seg.path, colID)
	if err := seg.local(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	corrupt := func(why string) error { return fmt.Errorf("corrupt raw vector file %s: %s", path, why) }
	crc := crc32.New(sidecarCRC)
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, st.Size()-4), crc), 1<<20)
	magic := make([]byte, len(vecRawMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != string(vecRawMagic) {
		return nil, corrupt("bad header")
	}
	var head [4]int64
	for i := range head {
		if head[i], err = binary.ReadVarint(br); err != nil {
			return nil, corrupt("bad header")
		}
	}
	if head != [4]int64{seg.rows, seg.minRow, seg.maxRow, seg.bytes} {
		return nil, corrupt("written for another segment")
	}
	dim, err := binary.ReadUvarint(br)
	if err != nil || dim == 0 || dim > math.MaxInt32/4 {
		return nil, corrupt("bad dimension")
	}
	rows := seg.rows
	raw := &rawVectors{path: path, dim: int(dim), rows: int(rows), present: make([]byte, (rows+7)/8)}
	if _, err := io.ReadFull(br, raw.present); err != nil {
		return nil, corrupt("truncated")
	}
	// What was read so far, then the padding that aligns the vectors.
	pos := int64(len(magic) + len(binary.AppendUvarint(nil, dim)) + len(raw.present))
	for _, v := range head {
		pos += int64(len(binary.AppendVarint(nil, v)))
	}
	raw.body = st.Size() - 4 - rows*4*int64(dim)
	pad := raw.body - pos
	if pad < 0 || pad > 3 {
		return nil, corrupt("truncated")
	}
	zeros := make([]byte, pad)
	if _, err := io.ReadFull(br, zeros); err != nil || !allZero(zeros) {
		return nil, corrupt("bad padding")
	}
	if n, err := io.Copy(io.Discard, br); err != nil || n != rows*4*int64(dim) {
		return nil, corrupt("truncated")
	}
	var sum [4]byte
	if _, err := f.ReadAt(sum[:], st.Size()-4); err != nil || binary.LittleEndian.Uint32(sum[:]) != crc.Sum32() {
		return nil, corrupt("checksum mismatch")
	}
	return raw, nil
}

// nativeLittleEndian is true where float32s are stored as the raw vector
// files store them, so that they are read straight into []float32.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// rawReader reads rows of a raw vector file; one per search or fetch.
type rawReader struct {
	raw *rawVectors
	f   *os.File
	own bool // f is the reader's own, closed by close
	vec []float32
	err error
}

// open returns a reader of the file. warm asks for it to be read into the
// page cache ahead of use (see warm).
func (r *rawVectors) open(warm bool) (*rawReader, error) {
	f, own, err := r.openFile()
	if err != nil {
		return nil, err
	}
	if warm && !own {
		r.warm()
	}
	return &rawReader{raw: r, f: f, own: own, vec: make([]float32, r.dim)}, nil
}

// rawFilesKept counts the raw vector files kept open for their readers.
var rawFilesKept atomic.Int64

// rawFilesKeptMax bounds rawFilesKept, so that a server with thousands of
// indexed segments does not hold as many file descriptors; the files of
// segments past it are opened by each reader (a microsecond or two).
const rawFilesKeptMax = 512

// openFile returns the file, open: the one kept open for all readers (the
// first open opens it, while fewer than rawFilesKeptMax are kept), else
// one of the caller's own (own), which it closes.
func (r *rawVectors) openFile() (f *os.File, own bool, err error) {
	r.fileOnce.Do(func() {
		if rawFilesKept.Add(1) > rawFilesKeptMax {
			rawFilesKept.Add(-1)
			return
		}
		f, err := os.Open(r.path)
		if err != nil {
			rawFilesKept.Add(-1)
			return // the readers open their own, and see the error
		}
		r.file = f
		runtime.AddCleanup(r, func(f *os.File) {
			f.Close()
			rawFilesKept.Add(-1)
		}, f)
	})
	if r.file != nil {
		return r.file, false, nil
	}
	f, err = os.Open(r.path)
	return f, err == nil, err
}

// warm starts reading the file into the page cache, once, when the warm
// budget has room for it (warmFile). Searches ask for it when their
// table's raw vectors fit the budget as a whole: a table that outgrows it
// (ten million vectors) is not warmed at all, since a part of it in
// memory would serve few more of its searches' re-ranks than none, each
// of which reads a few dozen vectors at random, while taking gigabytes.
func (r *rawVectors) warm() {
	r.warmOnce.Do(func() {
		size := r.body + int64(r.rows)*4*int64(r.dim)
		if release, ok := warmFile(r.file, size); ok {
			r.warmed.Store(true)
			runtime.AddCleanup(r, func(release func()) { release() }, release)
		}
	})
}

// close ends the reader; err is the first read error, if any.
func (rd *rawReader) close() error {
	if rd.own {
		rd.f.Close()
	}
	return rd.err
}

// read reads rows first.. of the file r open as f into vals, whole
// vectors: the rows' vectors lie side by side, so it is one positioned
// read, from the page cache where the file is cached.
func (r *rawVectors) read(f *os.File, vals []float32, first int) error {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 4*len(vals))
	if _, err := f.ReadAt(b, r.body+int64(first)*4*int64(r.dim)); err != nil {
		return fmt.Errorf("reading %s: %w", r.path, err)
	}
	if !nativeLittleEndian {
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return nil
}

// vector returns row's vector (nil for NULL), valid until the next call.
// A read error gives nil and is kept for close.
func (rd *rawReader) vector(row int) []float32 {
	if row < 0 || row >= rd.raw.rows || !rd.raw.has(row) || rd.err != nil {
		return nil
	}
	if err := rd.raw.read(rd.f, rd.vec, row); err != nil {
		rd.err = err
		return nil
	}
	return rd.vec
}

// rawBlockRows is how many rows rawReader.each reads at a time.
const rawBlockRows = 256

// each calls fn with every row of the file that holds a vector, in
// order, reading them a block at a time; the vector is valid during the
// call. It stops at a read error, which close reports.
func (rd *rawReader) each(fn func(row int, v []float32)) {
	dim, rows := rd.raw.dim, rd.raw.rows
	block := make([]float32, min(rows, rawBlockRows)*dim)
	for first := 0; first < rows && rd.err == nil; first += rawBlockRows {
		n := min(rawBlockRows, rows-first)
		if err := rd.raw.read(rd.f, block[:n*dim], first); err != nil {
			rd.err = err
			return
		}
		for i := range n {
			if rd.raw.has(first + i) {
				fn(first+i, block[i*dim:(i+1)*dim])
			}
		}
	}
}

// willNeed asks the kernel to start reading row's vector from disk when
// the file was not warmed, so that a re-rank's reads of a table larger
// than memory overlap instead of waiting one after another.
func (rd *rawReader) willNeed(row int) {
	if rd.raw.warmed.Load() || row < 0 || row >= rd.raw.rows || !rd.raw.has(row) {
		return
	}
	width := 4 * int64(rd.raw.dim)
	adviseWillNeed(rd.f, rd.raw.body+int64(row)*width, width)
}

// appendRows appends rows first..first+n-1 to lb, a list<float32>
// builder: their vectors, or NULL.
func (rd *rawReader) appendRows(lb *array.ListBuilder, first, n int) error {
	vb := lb.ValueBuilder().(*array.Float32Builder)
	for r := first; r < first+n; r++ {
		v := rd.vector(r)
		if rd.err != nil {
			return rd.err
		}
		if v == nil {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		vb.AppendValues(v, nil)
	}
	return nil
}

// column returns rows first..first+n-1 as an array of list type lt (float32
// elements): their vectors, or NULL. The rows' vectors lie side by side
// in the file, so they are read with one positioned read straight into
// the array's values, from the page cache where the file is cached.
func (r *rawVectors) column(lt *arrow.ListType, first, n int) (arrow.Array, error) {
	if first < 0 || n < 0 || first+n > r.rows || int64(n)*int64(r.dim) > math.MaxInt32 {
		return nil, fmt.Errorf("raw vectors of %s: rows %d..%d out of range", r.path, first, first+n)
	}
	vals := make([]float32, n*r.dim)
	if n > 0 {
		f, own, err := r.openFile()
		if err != nil {
			return nil, err
		}
		if own {
			defer f.Close()
		}
		if err := r.read(f, vals, first); err != nil {
			return nil, err
		}
	}
	// NULL rows have zeros in the file and an empty slot in the list:
	// the vectors after one move down.
	offsets := make([]int32, n+1)
	valid := make([]byte, (n+7)/8)
	w, nulls := 0, 0
	for i := 0; i < n; i++ {
		if r.has(first + i) {
			if w != i {
				copy(vals[w*r.dim:(w+1)*r.dim], vals[i*r.dim:(i+1)*r.dim])
			}
			w++
			valid[i>>3] |= 1 << (i & 7)
		} else {
			nulls++
		}
		offsets[i+1] = int32(w * r.dim)
	}
	vals = vals[:w*r.dim]
	values := array.NewData(lt.Elem(), len(vals), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(vals))}, nil, 0, 0)
	defer values.Release()
	var validity *memory.Buffer
	if nulls > 0 {
		validity = memory.NewBufferBytes(valid)
	}
	data := array.NewData(lt, n, []*memory.Buffer{validity, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))}, []arrow.ArrayData{values}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// segRawVectors returns seg's raw vectors of column colID when they are
// loaded (by the column's index being loaded or built), else nil. A
// reader may get them just before a DROP INDEX, or the drop of the
// indexed column, forgets them and deletes their file
// (removeUnusedVecIndexes), and then fail to open it (os.ErrNotExist):
// it then decodes the column from the segment, as for a segment without
// raw vectors, rather than fail the statement.
func segRawVectors(seg *segment, colID int) *rawVectors {
	x := &seg.x
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.raw[colID]
}

// installRawVectors keeps seg's raw vectors of column colID in memory
// (their header and bitmap).
func installRawVectors(seg *segment, colID int, raw *rawVectors) {
	x := &seg.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.raw == nil {
		x.raw = map[int]*rawVectors{}
	}
	x.raw[colID] = raw
}
