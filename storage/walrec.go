package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/cairn-db/cairn/sql/catalog"
)

// A WAL record payload (all integers little endian):
//
//	u8 version (1) | u64 lsn
//	u32 len | catalog JSON (len 0: the transaction changed no DDL)
//	u32 n | n x (u16 len | sequence key | i64 last | u8 called)
//	u32 n | n x table op:
//	    u64 table ID | u8 flags (1: truncate first, 2: segments follow,
//	        4: references follow)
//	    u32 len | deleted row IDs (roaring64 portable format; len 0: none)
//	    u32 n | n x (u32 ncols | ncols x u32 column ID | u32 len | Arrow IPC stream)
//	    [flags & 2] u32 len | JSON array of segments, as in manifest.json
//	    [flags & 4] u32 n | n x (u64 parent table ID | i64 parent row ID |
//	        u16 len | foreign key name | u16 len | parent rule signature |
//	        u32 len | encoded key | u32 len | key text)
//	[optional] u64 origin
//
// origin, written by servers on an object store (objhome.go) only, tells
// their log objects apart: two servers racing for one log object may
// otherwise put byte-identical records (the same reservation of a
// sequence, the same row under the same row ID at the same LSN), and each
// would take the other's object for its own put.
// Each IPC stream holds record batches whose columns are the table columns
// listed (named c<ID>) followed by the int64 __rowid column. Applying a
// record means: replace the catalog, set the sequences, then per table
// truncate, add the deleted row IDs, append the inserted batches, add the
// segments the transaction wrote itself (spill.go; their files are in the
// table's folder). The references are the parent rows the table's new
// rows reference (fkref.go), which a server applying the record adds to
// its parent tables' reference histories; records written before they
// existed have none.
const walVersion = 1

// walRecord is a decoded WAL record.
type walRecord struct {
	lsn     uint64
	catalog []byte
	seqs    []seqEntry
	tables  []walTableOp
	// origin identifies the server process that appended the record (0:
	// not written; see above).
	origin uint64
}

// seqEntry is the durable state of a sequence: the last value handed out
// (or, for a reservation, the last value that may have been handed out) and
// whether nextval has returned it.
type seqEntry struct {
	key    string
	last   int64
	called bool
}

// walTableOp is what one record does to one table.
type walTableOp struct {
	id       uint64
	truncate bool
	deletes  *roaring64.Bitmap
	inserts  []*tailBatch
	// segments are the files the transaction spilled (spill.go); decoded,
	// they have no path yet.
	segments []*segment
	// refs are the parent rows the table's new rows reference (fkref.go).
	refs []fkRef
}

// encodeWALRecord returns a frame: walHeaderSize bytes for the header
// (filled in by walFile.append) followed by the payload.
func encodeWALRecord(rec *walRecord) ([]byte, error) {
	size := 256 + len(rec.catalog)
	for _, op := range rec.tables {
		for _, b := range op.inserts {
			size += 512 + b.n*8
			for _, c := range b.cols {
				size += int(arraySize(c.Data()))
			}
		}
	}
	b := make([]byte, walHeaderSize, walHeaderSize+size)
	b = append(b, walVersion)
	b = binary.LittleEndian.AppendUint64(b, rec.lsn)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rec.catalog)))
	b = append(b, rec.catalog...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rec.seqs)))
	for _, s := range rec.seqs {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s.key)))
		b = append(b, s.key...)
		b = binary.LittleEndian.AppendUint64(b, uint64(s.last))
		if s.called {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(rec.tables)))
	for _, op := range rec.tables {
		b = binary.LittleEndian.AppendUint64(b, op.id)
		var flags byte
		if op.truncate {
			flags |= 1
		}
		if len(op.segments) > 0 {
			flags |= 2
		}
		if len(op.refs) > 0 {
			flags |= 4
		}
		b = append(b, flags)
		if op.deletes != nil && !op.deletes.IsEmpty() {
			del, err := op.deletes.ToBytes()
			if err != nil {
				return nil, err
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(len(del)))
			b = append(b, del...)
		} else {
			b = binary.LittleEndian.AppendUint32(b, 0)
		}
		groups := groupBatches(op.inserts)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(groups)))
		for _, g := range groups {
			ids := g[0].colIDs
			b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
			for _, id := range ids {
				b = binary.LittleEndian.AppendUint32(b, uint32(id))
			}
			at := len(b)
			b = binary.LittleEndian.AppendUint32(b, 0)
			var err error
			if b, err = appendBatchesIPC(b, g); err != nil {
				return nil, err
			}
			binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
		}
		if len(op.segments) > 0 {
			js, err := json.Marshal(manifestSegments(op.segments))
			if err != nil {
				return nil, err
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
			b = append(b, js...)
		}
		if len(op.refs) > 0 {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(op.refs)))
			for _, r := range op.refs {
				b = binary.LittleEndian.AppendUint64(b, r.parent)
				b = binary.LittleEndian.AppendUint64(b, uint64(r.row))
				b = binary.LittleEndian.AppendUint16(b, uint16(len(r.fk)))
				b = append(b, r.fk...)
				b = binary.LittleEndian.AppendUint16(b, uint16(len(r.sig)))
				b = append(b, r.sig...)
				b = binary.LittleEndian.AppendUint32(b, uint32(len(r.key)))
				b = append(b, r.key...)
				b = binary.LittleEndian.AppendUint32(b, uint32(len(r.text)))
				b = append(b, r.text...)
			}
		}
	}
	if rec.origin != 0 {
		b = binary.LittleEndian.AppendUint64(b, rec.origin)
	}
	return b, nil
}

// groupBatches splits batches into runs that share column IDs and types, so
// that each run is one IPC stream.
func groupBatches(batches []*tailBatch) [][]*tailBatch {
	var out [][]*tailBatch
	for _, tb := range batches {
		if tb.n == 0 {
			continue
		}
		if len(out) > 0 {
			last := out[len(out)-1][0]
			if sameLayout(last, tb) {
				out[len(out)-1] = append(out[len(out)-1], tb)
				continue
			}
		}
		out = append(out, []*tailBatch{tb})
	}
	return out
}

func sameLayout(a, b *tailBatch) bool {
	if !slices.Equal(a.colIDs, b.colIDs) {
		return false
	}
	for i := range a.cols {
		if !arrow.TypeEqual(a.cols[i].DataType(), b.cols[i].DataType()) {
			return false
		}
	}
	return true
}

func batchIPCSchema(tb *tailBatch) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(tb.cols)+1)
	for i, c := range tb.cols {
		fields = append(fields, arrow.Field{Name: "c" + strconv.Itoa(tb.colIDs[i]), Type: c.DataType(), Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: catalog.RowIDColumn, Type: arrow.PrimitiveTypes.Int64})
	return arrow.NewSchema(fields, nil)
}

// ipcSchema is a batch layout's IPC schema and the stream's first
// message, which describes it.
type ipcSchema struct {
	schema  *arrow.Schema
	message []byte
	// dictionaries is set when a column's type holds a dictionary: its
	// stream carries dictionary batches too (ipc.Writer writes them).
	dictionaries bool
}

// ipcSchemas caches each batch layout's ipcSchema: building the schema
// message was half the encoding of a one-row commit's record. A layout
// is a table's column IDs and types, so the cache is small; it is
// cleared should DDL ever grow it past maxIPCSchemas.
var ipcSchemas struct {
	mu    sync.Mutex
	byKey map[string]*ipcSchema
}

const maxIPCSchemas = 4096

// ipcSchemaOf returns the IPC schema of tb's layout.
func ipcSchemaOf(tb *tailBatch) *ipcSchema {
	key := make([]byte, 0, 16*len(tb.cols))
	for i, c := range tb.cols {
		key = binary.LittleEndian.AppendUint32(key, uint32(tb.colIDs[i]))
		key = append(key, c.DataType().String()...) // (a list's fingerprint leaves out its element field)
		key = append(key, 0)
	}
	ipcSchemas.mu.Lock()
	s := ipcSchemas.byKey[string(key)]
	ipcSchemas.mu.Unlock()
	if s != nil {
		return s
	}
	s = &ipcSchema{schema: batchIPCSchema(tb)}
	for _, f := range s.schema.Fields() {
		s.dictionaries = s.dictionaries || holdsDictionary(f.Type)
	}
	p := ipc.GetSchemaPayload(s.schema, memory.DefaultAllocator)
	w := &appendWriter{}
	_, err := p.WritePayload(w)
	p.Release()
	if err != nil {
		// (appendWriter does not fail.)
		panic(err)
	}
	s.message = w.b
	ipcSchemas.mu.Lock()
	if ipcSchemas.byKey == nil || len(ipcSchemas.byKey) >= maxIPCSchemas {
		ipcSchemas.byKey = map[string]*ipcSchema{}
	}
	ipcSchemas.byKey[string(key)] = s
	ipcSchemas.mu.Unlock()
	return s
}

// holdsDictionary reports whether t is or nests a dictionary type.
func holdsDictionary(t arrow.DataType) bool {
	if t.ID() == arrow.DICTIONARY {
		return true
	}
	if n, ok := t.(arrow.NestedType); ok {
		for _, f := range n.Fields() {
			if holdsDictionary(f.Type) {
				return true
			}
		}
	}
	return false
}

// appendWriter is an io.Writer appending to a byte slice.
type appendWriter struct{ b []byte }

// Write appends p.
func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// ipcEndOfStream is the Arrow IPC stream's end-of-stream marker.
var ipcEndOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// appendBatchesIPC appends an Arrow IPC stream of batches to b: the
// layout's cached schema message, a record batch message per batch, the
// end-of-stream marker, the bytes ipc.Writer writes.
func appendBatchesIPC(b []byte, batches []*tailBatch) ([]byte, error) {
	s := ipcSchemaOf(batches[0])
	if s.dictionaries {
		return appendBatchesIPCWriter(b, s.schema, batches)
	}
	buf := &appendWriter{b: append(b, s.message...)}
	for _, tb := range batches {
		rec := array.NewRecord(s.schema, append(slices.Clone(tb.cols), tb.rowIDs), int64(tb.n))
		p, err := ipc.GetRecordBatchPayload(rec, ipc.WithAllocator(memory.DefaultAllocator))
		rec.Release()
		if err != nil {
			return nil, err
		}
		_, err = p.WritePayload(buf)
		p.Release()
		if err != nil {
			return nil, err
		}
	}
	return append(buf.b, ipcEndOfStream...), nil
}

// appendBatchesIPCWriter is appendBatchesIPC through ipc.Writer, which
// writes the dictionary batches of dictionary columns.
func appendBatchesIPCWriter(b []byte, schema *arrow.Schema, batches []*tailBatch) ([]byte, error) {
	buf := &appendWriter{b: b}
	w := ipc.NewWriter(buf, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	for _, tb := range batches {
		rec := array.NewRecord(schema, append(slices.Clone(tb.cols), tb.rowIDs), int64(tb.n))
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.b, nil
}

// walDecoder reads the fields of a payload with bounds checks.
type walDecoder struct {
	b   []byte
	err error
}

var errShortRecord = errors.New("wal record shorter than its contents")

func (d *walDecoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = errShortRecord
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *walDecoder) u8() byte {
	b := d.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *walDecoder) u16() uint16 {
	b := d.take(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (d *walDecoder) u32() uint32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *walDecoder) u64() uint64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// decodeWALHeader returns the LSN of a payload without decoding the rest.
func decodeWALHeader(p []byte) (uint64, error) {
	if len(p) < 9 {
		return 0, errShortRecord
	}
	if p[0] != walVersion {
		return 0, fmt.Errorf("unknown wal record version %d", p[0])
	}
	return binary.LittleEndian.Uint64(p[1:]), nil
}

func decodeWALRecord(p []byte) (*walRecord, error) {
	d := &walDecoder{b: p}
	if v := d.u8(); d.err == nil && v != walVersion {
		return nil, fmt.Errorf("unknown wal record version %d", v)
	}
	rec := &walRecord{lsn: d.u64()}
	if n := int(d.u32()); n > 0 {
		rec.catalog = d.take(n)
	}
	nseq := int(d.u32())
	for i := 0; i < nseq && d.err == nil; i++ {
		key := string(d.take(int(d.u16())))
		last := int64(d.u64())
		called := d.u8() != 0
		rec.seqs = append(rec.seqs, seqEntry{key: key, last: last, called: called})
	}
	ntab := int(d.u32())
	for i := 0; i < ntab && d.err == nil; i++ {
		op := walTableOp{id: d.u64()}
		flags := d.u8()
		op.truncate = flags&1 != 0
		if n := int(d.u32()); n > 0 {
			raw := d.take(n)
			if d.err != nil {
				break
			}
			bm, err := unmarshalBitmap(raw)
			if err != nil {
				return nil, fmt.Errorf("deleted row IDs: %w", err)
			}
			op.deletes = bm
		}
		ngroups := int(d.u32())
		for g := 0; g < ngroups && d.err == nil; g++ {
			ncols := int(d.u32())
			if ncols > len(d.b)/4 {
				d.err = errShortRecord
				break
			}
			ids := make([]int, ncols)
			for j := range ids {
				ids[j] = int(d.u32())
			}
			stream := d.take(int(d.u32()))
			if d.err != nil {
				break
			}
			batches, err := decodeBatchesIPC(stream, ids)
			if err != nil {
				return nil, fmt.Errorf("inserted rows of table %d: %w", op.id, err)
			}
			op.inserts = append(op.inserts, batches...)
		}
		if flags&2 != 0 && d.err == nil {
			js := d.take(int(d.u32()))
			if d.err != nil {
				break
			}
			var ms []manifestSegment
			if err := json.Unmarshal(js, &ms); err != nil {
				return nil, fmt.Errorf("segments of table %d: %w", op.id, err)
			}
			for _, m := range ms {
				seg, err := m.segment("")
				if err != nil {
					return nil, fmt.Errorf("segments of table %d: %w", op.id, err)
				}
				op.segments = append(op.segments, seg)
			}
		}
		if flags&4 != 0 && d.err == nil {
			n := int(d.u32())
			if n > len(d.b)/28 {
				d.err = errShortRecord
				break
			}
			for j := 0; j < n && d.err == nil; j++ {
				r := fkRef{child: op.id, parent: d.u64(), row: int64(d.u64())}
				r.fk = string(d.take(int(d.u16())))
				r.sig = string(d.take(int(d.u16())))
				r.key = string(d.take(int(d.u32())))
				r.text = string(d.take(int(d.u32())))
				op.refs = append(op.refs, r)
			}
		}
		rec.tables = append(rec.tables, op)
	}
	if len(d.b) >= 8 {
		rec.origin = d.u64()
	}
	if d.err != nil {
		return nil, d.err
	}
	return rec, nil
}

func decodeBatchesIPC(stream []byte, ids []int) (out []*tailBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt arrow ipc stream: %v", r)
		}
	}()
	if err := checkIPCFraming(stream); err != nil {
		return nil, err
	}
	mem := streamAllocator{Allocator: memory.DefaultAllocator, max: len(stream) + 128}
	r, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if r.Schema().NumFields() != len(ids)+1 {
		return nil, fmt.Errorf("ipc stream has %d columns, want %d", r.Schema().NumFields(), len(ids)+1)
	}
	for r.Next() {
		rec := r.Record()
		n := int(rec.NumRows())
		cols := make([]arrow.Array, len(ids))
		for i := range ids {
			cols[i] = rec.Column(i)
			cols[i].Retain()
		}
		rid, ok := rec.Column(len(ids)).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("ipc stream row ID column has type %s", rec.Column(len(ids)).DataType())
		}
		rid.Retain()
		out = append(out, &tailBatch{colIDs: slices.Clone(ids), cols: cols, rowIDs: rid, n: n})
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkIPCFraming checks that every message of an Arrow IPC stream fits in
// the stream: arrow's reader allocates a message's declared metadata and
// body sizes before reading them, so a damaged length in a record that
// passed its checksum would otherwise allocate up to gigabytes. It walks
// the framing as the reader does: an optional 0xFFFFFFFF continuation, the
// int32 metadata length (0 ends the stream), the metadata (a flatbuffers
// Message whose bodyLength field sizes the body), then the body.
func checkIPCFraming(stream []byte) error {
	bad := errors.New("corrupt arrow ipc stream: a message is longer than the stream")
	for off := 0; off+4 <= len(stream); {
		n := int64(int32(binary.LittleEndian.Uint32(stream[off:])))
		off += 4
		if n == -1 { // the continuation marker: the length follows
			if off+4 > len(stream) {
				return bad
			}
			n = int64(int32(binary.LittleEndian.Uint32(stream[off:])))
			off += 4
		}
		if n == 0 {
			return nil
		}
		if n < 0 || n > int64(len(stream)-off) {
			return bad
		}
		meta := stream[off : off+int(n)]
		body, ok := flatbufMessageBodyLength(meta)
		if ok && !schemaVectorsFit(meta) {
			return errors.New("corrupt arrow ipc stream: a schema vector is longer than its message")
		}
		off += int(n)
		if !ok || body < 0 || body > int64(len(stream)-off) {
			return bad
		}
		off += int(body)
	}
	return nil
}

// flatbufMessageBodyLength reads the bodyLength field (the fourth) of the
// flatbuffers Message table at the root of meta; ok is false when meta is
// too short for the offsets it holds.
func flatbufMessageBodyLength(meta []byte) (n int64, ok bool) {
	in := func(pos, size int64) bool { return pos >= 0 && pos+size <= int64(len(meta)) }
	if !in(0, 4) {
		return 0, false
	}
	table := int64(binary.LittleEndian.Uint32(meta))
	if !in(table, 4) {
		return 0, false
	}
	vtable := table - int64(int32(binary.LittleEndian.Uint32(meta[table:])))
	if !in(vtable, 4) {
		return 0, false
	}
	vtableSize := int64(binary.LittleEndian.Uint16(meta[vtable:]))
	const field = 4 + 2*3 // the vtable slot of field 3, bodyLength
	if vtableSize < field+2 || !in(vtable, field+2) {
		return 0, true // absent: the default, 0
	}
	fieldOff := int64(binary.LittleEndian.Uint16(meta[vtable+field:]))
	if fieldOff == 0 {
		return 0, true
	}
	if !in(table+fieldOff, 8) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(meta[table+fieldOff:])), true
}

// schemaVectorsFit reports whether every vector of the Schema in meta (a
// flatbuffers Message) fits in meta: its fields, each field's children
// and custom metadata, at any depth, and that its fields are no more than
// meta could hold written once each (a damaged offset can make a child
// point back at its parent). arrow's reader makes a slice of a
// vector's declared length before reading its elements, so a damaged
// length would allocate up to tens of gigabytes. A message that is not a
// Schema passes; offsets outside meta panic, which decodeBatchesIPC
// recovers as a corrupt stream.
func schemaVectorsFit(meta []byte) bool {
	const (
		messageHeaderType = 4 + 2*1 // vtable slots: 4 bytes of header, then 2 a field
		messageHeader     = 4 + 2*2
		schemaFields      = 4 + 2*1
		schemaMetadata    = 4 + 2*2
		fieldChildren     = 4 + 2*5
		fieldMetadata     = 4 + 2*6
		headerSchema      = 1 // MessageHeader.Schema
		maxDepth          = 64
	)
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	if o := msg.Offset(messageHeaderType); o == 0 || msg.GetByte(msg.Pos+flatbuffers.UOffsetT(o)) != headerSchema {
		return true
	}
	o := msg.Offset(messageHeader)
	if o == 0 {
		return true
	}
	schema := flatbuffers.Table{Bytes: meta, Pos: msg.Indirect(msg.Pos + flatbuffers.UOffsetT(o))}
	// vector returns the start and length of t's vector in slot, after
	// checking that its offsets (4 bytes each) fit in meta.
	vector := func(t flatbuffers.Table, slot flatbuffers.VOffsetT) (flatbuffers.UOffsetT, int, bool) {
		o := flatbuffers.UOffsetT(t.Offset(slot))
		if o == 0 {
			return 0, 0, true
		}
		start, n := t.Vector(o), t.VectorLen(o)
		return start, n, n >= 0 && int64(start)+4*int64(n) <= int64(len(meta))
	}
	budget := len(meta) / 4 // fields left to visit: each takes at least 4 bytes
	var fields func(t flatbuffers.Table, slot flatbuffers.VOffsetT, depth int) bool
	fields = func(t flatbuffers.Table, slot flatbuffers.VOffsetT, depth int) bool {
		start, n, ok := vector(t, slot)
		if budget -= n; !ok || depth > maxDepth || budget < 0 {
			return false
		}
		for i := 0; i < n; i++ {
			f := flatbuffers.Table{Bytes: meta, Pos: t.Indirect(start + flatbuffers.UOffsetT(4*i))}
			if _, _, ok := vector(f, fieldMetadata); !ok || !fields(f, fieldChildren, depth+1) {
				return false
			}
		}
		return true
	}
	_, _, ok := vector(schema, schemaMetadata)
	return ok && fields(schema, schemaFields, 0)
}

// streamAllocator allocates the buffers of one Arrow IPC stream. None can
// be larger than the stream (cairn writes it uncompressed; max allows for
// the allocator's rounding up), so a damaged buffer length panics, which
// decodeBatchesIPC recovers as a corrupt stream, instead of allocating
// what the length declares.
type streamAllocator struct {
	memory.Allocator
	max int
}

func (a streamAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

func (a streamAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}

func (a streamAllocator) check(size int) {
	if size > a.max {
		panic(fmt.Sprintf("a buffer of %d bytes in a stream of %d", size, a.max))
	}
}
