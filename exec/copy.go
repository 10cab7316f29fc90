package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func columnNames(cols []sql.Col) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// CopyIn is the state of one COPY FROM: the pipeline parsing the data and
// the first batches read. A statement that meets a concurrent update runs
// again; the data cannot be read twice, so a new attempt (another Run)
// replays the batches before reading on. Only the first copyReplayBytes
// of batches are kept for that, so that a load of any size streams
// through bounded memory: a COPY that read more cannot run again
// (Replayable), and its conflict is the client's to retry. Release stops
// the pipeline and frees the batches.
//
// The data is parsed in parallel: one goroutine reads it and cuts it into
// chunks of whole rows (a line, or a tuple in binary format), which
// workers split into fields and convert into Arrow records, column by
// column, while the statement's goroutine inserts the records of earlier
// chunks. The records come out in the order of the data, so the first
// bad row is the one reported.
type CopyIn struct {
	// c is the binding Run inserts through (Rebind replaces it); parse
	// the one the pipeline's goroutines read the data by, the first:
	// every rebinding takes the same input columns.
	c       *sql.Copy
	parse   *sql.Copy
	p       *copyParser
	data    *blockReader
	schema  *arrow.Schema
	batches []arrow.Record
	eof     bool
	// kept is the size of batches; dropped is set once the batches passed
	// copyReplayBytes and were let go; last is the batch handed out last
	// when it is not kept (released at the next read).
	kept    int64
	dropped bool
	last    arrow.Record
	runs    int
	// batchLines are the line numbers of the rows of each batch kept;
	// shown those of the batch handed to the insert last, and shownChunk
	// its chunk when it came from the data (its rows as read), for the
	// CONTEXT of a constraint error (rowContext).
	batchLines [][]int64
	shown      []int64
	shownChunk *copyChunk
	// The pipeline, started by the first read: chunks in the order of the
	// data (each parsed once its done is closed), stop to end it, wg for
	// its workers; conv converts chunks on the statement's goroutine when
	// the columns' input functions may not run on others.
	order chan *copyChunk
	stop  chan struct{}
	wg    sync.WaitGroup
	conv  *copyConverter
	// cur is the chunk read waits for; free holds the buffers of chunks
	// converted, for new ones.
	cur  *copyChunk
	free chan []byte
	// Progress, when set before Run, counts the copy's rows as it goes;
	// unseen are the rows read that the insert has not yet been handed
	// (or seen dropped), added to Progress.Read with those it gets.
	Progress *CopyProgress
	unseen   int64
}

// CopyProgress are a COPY FROM's counters, which
// pg_stat_progress_copy shows while it runs: the rows read from the data
// and those of them that passed its WHERE clause (which the insert then
// writes). Safe to read from any goroutine.
type CopyProgress struct {
	Read, Passed atomic.Int64
}

// copyCount passes the records of a COPY FROM's input plan to the
// insert, counting them and the rows read for them in in.Progress at
// once, so that a reader never sees rows read but not yet filtered as
// excluded.
type copyCount struct {
	Operator
	in *CopyIn
}

// Next implements Operator.
func (c *copyCount) Next(ctx context.Context) (arrow.Record, error) {
	rec, err := c.Operator.Next(ctx)
	p := c.in.Progress
	if err == nil {
		p.Passed.Add(rec.NumRows())
	}
	p.Read.Add(c.in.unseen)
	c.in.unseen = 0
	return rec, err
}

// copyChunk is a run of rows of COPY FROM data: the rows' bytes (see
// copyParser.raw) end to end, where each ends and the line it starts at,
// and once done is closed their record or the error that parsing them
// met; or, alone, the error the reader met after the rows before.
type copyChunk struct {
	data  []byte
	ends  []int
	lines []int64
	err   error
	rec   arrow.Record
	perr  error
	done  chan struct{}
}

// copyReplayBytes bounds the batches a COPY FROM keeps to run again.
const copyReplayBytes = 64 << 20

// copyChunkRows and copyChunkBytes bound a chunk: the rows of one record.
const (
	copyChunkRows  = 2048
	copyChunkBytes = 8 << 20
)

// NewCopyIn prepares COPY c FROM STDIN over src: the payloads of the
// client's CopyData messages, io.EOF at CopyDone; any other error (the
// client's CopyFail) aborts the COPY. src is first read by Run, on a
// goroutine of the COPY's; no Read starts once Release returned, but one
// already waiting for the client may still be under way (its owner waits
// for it before reading src's source itself).
func NewCopyIn(c *sql.Copy, src io.Reader) *CopyIn {
	in := &CopyIn{c: c, parse: c, schema: schemaOf(c.Columns), stop: make(chan struct{})}
	in.data = &blockReader{src: src, stop: in.stop, blocks: make(chan []byte, copyBlocks), free: make(chan []byte, copyBlocks+2)}
	in.p = newCopyParser(in.data, &c.Options, columnNames(c.Columns))
	return in
}

// copyBlocks and copyBlockSize bound the data read ahead of the parser.
const (
	copyBlocks    = 16
	copyBlockSize = 64 << 10
)

// copyFlushWait is how long the reader waits for more data before it
// hands over the rows it has: a client may wait for the answer to what
// it sent (the error of a bad row) before it sends more.
const copyFlushWait = 2 * time.Millisecond

// blockReader is the data as the parser reads it: blocks that a goroutine
// of its own reads from src (fetch), so that the parser can tell data
// that is there from data still to come (ready), and so that a read
// waiting for the client does not hold up the end of the COPY.
type blockReader struct {
	src    io.Reader
	stop   <-chan struct{}
	blocks chan []byte // closed after the last, err then set
	free   chan []byte
	err    error
	cur    []byte
	buf    []byte // cur's whole block, to recycle
	ahead  []byte // a block received by ready
	closed bool
	timer  *time.Timer
}

// errCopyStopped is what the data reads as once the COPY ended.
var errCopyStopped = errors.New("COPY FROM ended")

// fetch reads src into blocks until its end, an error or stop.
func (r *blockReader) fetch() {
	defer close(r.blocks)
	for {
		var b []byte
		select {
		case b = <-r.free:
		default:
			b = make([]byte, copyBlockSize)
		}
		select {
		case <-r.stop:
			r.err = errCopyStopped
			return
		default:
		}
		n, err := r.src.Read(b[:cap(b)])
		if n > 0 {
			select {
			case r.blocks <- b[:n]:
			case <-r.stop:
				r.err = errCopyStopped
				return
			}
		}
		if err != nil {
			r.err = err
			return
		}
	}
}

// Read implements io.Reader.
func (r *blockReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.buf != nil {
			select {
			case r.free <- r.buf:
			default:
			}
			r.buf = nil
		}
		switch {
		case r.ahead != nil:
			r.cur, r.buf, r.ahead = r.ahead, r.ahead, nil
		case r.closed:
			return 0, r.err
		default:
			b, ok := <-r.blocks
			if !ok {
				r.closed = true
				continue
			}
			r.cur, r.buf = b, b
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// ready reports whether a Read would return at once, waiting up to wait
// for data to come.
func (r *blockReader) ready(wait time.Duration) bool {
	if len(r.cur) > 0 || r.ahead != nil || r.closed {
		return true
	}
	if r.timer == nil {
		r.timer = time.NewTimer(wait)
	} else {
		r.timer.Reset(wait)
	}
	defer r.timer.Stop()
	select {
	case b, ok := <-r.blocks:
		if !ok {
			r.closed = true
		}
		r.ahead = b
		return true
	case <-r.timer.C:
		return false
	}
}

// Replayable reports whether Run may run again: the COPY kept every
// batch it read so far.
func (in *CopyIn) Replayable() bool { return !in.dropped }

// Rebind makes the next Run insert through c, the same COPY bound again
// against a newer catalog (a DDL committed since the first binding, such
// as ALTER TABLE ADD COLUMN ... DEFAULT), and reports true, if c takes
// the same input columns; false leaves the COPY as it was.
func (in *CopyIn) Rebind(c *sql.Copy) bool {
	if !in.schema.Equal(schemaOf(c.Columns)) {
		return false
	}
	in.c = c
	return true
}

// Run is one attempt at inserting the data in rt.Tx, through INSERT's
// path (column defaults, every constraint); it returns the rows inserted.
func (in *CopyIn) Run(ctx context.Context, rt *Runtime) (int64, error) {
	if in.runs++; in.runs > 1 && in.dropped {
		return 0, internalErr("COPY FROM run again after its data was let go")
	}
	op, err := copyInput(rt, in.c.Insert.Input, &copySource{in: in, rt: rt})
	if err != nil {
		return 0, err
	}
	if in.Progress != nil {
		in.Progress.Passed.Store(0) // a statement run again counts anew
		op = &copyCount{Operator: op, in: in}
	}
	out := newMaterialized(nil)
	defer out.Close()
	n, err := insertRows(ctx, rt, in.c.Insert, op, out)
	if err != nil {
		return 0, in.rowContext(rt, err)
	}
	return n, nil
}

// copyInput builds the operators of a COPY FROM insert's input plan n (a
// Project, maybe under a Filter for WHERE, over the CopySource), source
// standing for the CopySource: the rows of the data, or records a caller
// built (RecordsIn).
func copyInput(rt *Runtime, n sql.Node, source Operator) (Operator, error) {
	switch n := n.(type) {
	case *sql.CopySource:
		return source, nil
	case *sql.Project:
		op, err := copyInput(rt, n.Input, source)
		if err != nil {
			return nil, err
		}
		return newProject(rt, n, op), nil
	case *sql.Filter:
		op, err := copyInput(rt, n.Input, source)
		if err != nil {
			return nil, err
		}
		return newFilter(rt, n, op), nil
	}
	return nil, internalErr("COPY FROM input %s", n.String())
}

// read returns the next chunk of rows with its record, each field
// converted by its column type's input function as a string literal in
// INSERT is, or in binary format by its receive function (type modifiers
// applied, so an over-long varchar(n) value is an error). The chunk keeps
// its data (its rows as read) until show lets it go.
func (in *CopyIn) read(ctx context.Context, rt *Runtime) (*copyChunk, error) {
	if in.eof {
		return nil, io.EOF
	}
	if in.order == nil {
		in.start(rt)
	}
	var c *copyChunk
	select {
	case c = <-in.order:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c == nil {
		in.eof = true
		return nil, io.EOF
	}
	if c.err != nil {
		return nil, c.err
	}
	if in.conv != nil {
		c.rec, c.perr = in.conv.chunk(c)
	} else {
		in.cur = c // Release frees its record
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		in.cur = nil
	}
	if c.perr != nil {
		in.recycle(c)
		return nil, c.perr
	}
	in.unseen += c.rec.NumRows()
	return c, nil
}

// start starts the pipeline: the reader and, when every column's input
// function may run on any goroutine, a worker per processor.
func (in *CopyIn) start(rt *Runtime) {
	workers := runtime.GOMAXPROCS(0)
	parallel := true
	for _, c := range in.parse.Columns {
		parallel = parallel && parallelInput(c.T)
	}
	in.order = make(chan *copyChunk, 2*workers)
	in.free = make(chan []byte, 2*workers)
	var work chan *copyChunk
	if parallel {
		work = make(chan *copyChunk, 2*workers)
		for range workers {
			in.wg.Add(1)
			go in.work(rt, work)
		}
	} else {
		in.conv = newCopyConverter(rt, in.parse)
	}
	go in.data.fetch()
	go in.readChunks(work)
}

// readChunks reads the data into chunks and queues them, in order, on
// in.order and (when there are workers) on work; it closes both at the
// end of the data, after an error or when stopped.
func (in *CopyIn) readChunks(work chan<- *copyChunk) {
	defer close(in.order)
	if work != nil {
		defer close(work)
	}
	p, rel := in.p, in.parse.Table.Name
	for more := true; more; {
		c := &copyChunk{done: make(chan struct{})}
		select {
		case p.raw = <-in.free:
		default:
			p.raw = make([]byte, 0, copyChunkBytes+copyChunkBytes/4)
		}
		err := CatchPanic(func() error {
			for len(c.ends) < copyChunkRows && len(p.raw) < copyChunkBytes {
				if len(c.ends) > 0 && p.r.Buffered() == 0 && !in.data.ready(copyFlushWait) {
					break // hand over the rows read so far
				}
				ok, err := p.readRow()
				if err != nil {
					return withWhere(err, p.where(rel))
				}
				if !ok {
					// PostgreSQL ignores what follows the end-of-data
					// marker.
					more = false
					return p.drain()
				}
				c.ends = append(c.ends, len(p.raw))
				c.lines = append(c.lines, p.line)
			}
			return nil
		})
		c.data = p.raw
		if len(c.ends) > 0 && !in.send(c, work) {
			return
		}
		if err != nil {
			in.send(&copyChunk{err: err}, nil)
			return
		}
	}
}

// recycle keeps the buffer of chunk c, done with, for a later chunk.
func (in *CopyIn) recycle(c *copyChunk) {
	select {
	case in.free <- c.data[:0]:
	default:
	}
	c.data = nil
}

// send queues chunk c on in.order and, when it is not nil, work; it
// reports false when the pipeline was stopped.
func (in *CopyIn) send(c *copyChunk, work chan<- *copyChunk) bool {
	select {
	case in.order <- c:
	case <-in.stop:
		return false
	}
	if work == nil {
		return true
	}
	select {
	case work <- c:
		return true
	case <-in.stop:
		return false
	}
}

// work parses the chunks of work until it is closed.
func (in *CopyIn) work(rt *Runtime, work <-chan *copyChunk) {
	defer in.wg.Done()
	conv := newCopyConverter(rt, in.parse)
	for {
		var c *copyChunk
		select {
		case c = <-work:
		case <-in.stop:
			return
		}
		if c == nil {
			return
		}
		c.perr = CatchPanic(func() error {
			var err error
			c.rec, err = conv.chunk(c)
			return err
		})
		close(c.done)
	}
}

// withWhere sets the CONTEXT of a PostgreSQL error that has none; other
// errors (a lost connection, a cancelled context) pass unchanged.
func withWhere(err error, where string) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Where == "" {
		pe.Where = where
	}
	return err
}

// Release stops the pipeline, waiting for its workers but not for its
// reader, which may wait for the client (see NewCopyIn), and frees the
// batches and the records parsed ahead.
func (in *CopyIn) Release() {
	close(in.stop)
	if in.order != nil {
		in.wg.Wait()
		if in.cur != nil && in.cur.rec != nil {
			in.cur.rec.Release()
		}
		for drained := false; !drained; {
			select {
			case c, ok := <-in.order:
				if ok && c.rec != nil {
					c.rec.Release()
				}
				drained = !ok
			default:
				drained = true
			}
		}
	}
	in.dropBatches()
	if in.last != nil {
		in.last.Release()
		in.last = nil
	}
}

// show records that the rows of lines, read in chunk c (nil for a batch
// kept from an earlier attempt, whose rows as read are gone), are the
// ones the insert gets next, and lets the chunk shown before go.
func (in *CopyIn) show(c *copyChunk, lines []int64) {
	if in.shownChunk != nil {
		in.recycle(in.shownChunk)
	}
	in.shown, in.shownChunk = lines, c
}

// rowContext sets the CONTEXT of err, raised by the insert of the rows
// shown last, to the line of the row it marks as failed
// (pgerr.Error.FailedRow), as PostgreSQL's: the line and the row as read
// for a NOT NULL or CHECK violation, the line alone for a duplicate key.
// Only when the insert checks the rows as they were read: no WHERE
// clause dropped any, no BEFORE ROW trigger could have, and the error is
// about the COPY's table (not one a function it calls wrote).
func (in *CopyIn) rowContext(rt *Runtime, err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.FailedRow <= 0 || pe.FailedRow > len(in.shown) || pe.Where != "" {
		return err
	}
	def := in.c.Insert.Table
	if pe.Table != def.Name || pe.Schema != def.Schema || filtered(in.c.Insert.Input) || rt.hasRowTriggers(def, true, "INSERT") {
		return err
	}
	i := pe.FailedRow - 1
	rel, line := in.c.Table.Name, in.shown[i]
	if pe.Code == pgerrcode.UniqueViolation || in.shownChunk == nil {
		pe.Where = fmt.Sprintf("COPY %s, line %d", rel, line)
		return err
	}
	c := in.shownChunk
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	pe.Where = rowWhere(rel, &in.c.Options, line, c.data[start:c.ends[i]])
	return err
}

// filtered reports whether COPY FROM's input plan n drops rows (a WHERE
// clause).
func filtered(n sql.Node) bool {
	switch n := n.(type) {
	case *sql.Filter:
		return true
	case *sql.Project:
		return filtered(n.Input)
	}
	return false
}

// dropBatches releases the batches kept.
func (in *CopyIn) dropBatches() {
	for _, r := range in.batches {
		r.Release()
	}
	in.batches, in.batchLines = nil, nil
}

// keep keeps rec, just read, for another attempt while the batches stay
// within copyReplayBytes; otherwise it lets every batch go, rec once the
// insert is done with it (at the next read).
func (in *CopyIn) keep(rec arrow.Record, lines []int64) {
	if in.last != nil {
		in.last.Release()
		in.last = nil
	}
	if !in.dropped {
		for _, c := range rec.Columns() {
			in.kept += arraySize(c)
		}
		if in.kept <= copyReplayBytes {
			in.batches = append(in.batches, rec)
			in.batchLines = append(in.batchLines, lines)
			return
		}
		in.dropped = true
		in.dropBatches()
	}
	in.last = rec
}

// copySource is the operator of the CopySource: the batches an earlier
// attempt read, then new ones. The batches belong to the copyIn.
type copySource struct {
	in   *CopyIn
	rt   *Runtime
	next int
}

// Schema implements Operator.
func (s *copySource) Schema() *arrow.Schema { return s.in.schema }

// Next implements Operator.
func (s *copySource) Next(ctx context.Context) (arrow.Record, error) {
	if s.next < len(s.in.batches) {
		s.next++
		s.in.show(nil, s.in.batchLines[s.next-1])
		return s.in.batches[s.next-1], nil
	}
	c, err := s.in.read(ctx, s.rt)
	if err != nil {
		return nil, err
	}
	s.in.keep(c.rec, c.lines)
	s.in.show(c, c.lines)
	s.next = len(s.in.batches)
	return c.rec, nil
}

// Close implements Operator.
func (s *copySource) Close() {}

// CopyTo runs COPY c TO STDOUT in rt.Tx: emit is called with the data of
// each row, valid only during the call: a line with its newline in text
// and CSV (the header line first, with HEADER), a tuple in binary format
// (the format's header with the first, its trailer last, alone). Values
// print as text says. It returns the rows sent.
func CopyTo(ctx context.Context, rt *Runtime, c *sql.Copy, text *types.TextOptions, emit func(line []byte) error) (int64, error) {
	var n int64
	op, err := Build(rt, c.Query)
	if err != nil {
		return n, err
	}
	w := &copyWriter{opts: &c.Options, single: len(c.Columns) == 1, text: text}
	for _, col := range c.Columns {
		w.types = append(w.types, col.T)
	}
	// The positions of the visible columns among the plan's.
	var visible []int
	for i, col := range c.Query.Columns() {
		if !col.Hidden {
			visible = append(visible, i)
		}
	}
	var line []byte
	switch {
	case c.Options.Format == sql.CopyBinary:
		// The header goes out with the first tuple (or the trailer).
		line = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32([]byte(binarySignature), 0), 0)
	case c.Options.Header:
		if err := emit(w.appendHeader(nil, columnNames(c.Columns))); err != nil {
			op.Close()
			return n, err
		}
	}
	arrs := make([]arrow.Array, len(visible))
	err = Drain(ctx, op, func(rec arrow.Record) error {
		for j, pos := range visible {
			arrs[j] = rec.Column(pos)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var err error
			if line, err = w.appendRow(line, arrs, r); err != nil {
				return err
			}
			if err := emit(line); err != nil {
				return err
			}
			line = line[:0]
			n++
		}
		return nil
	})
	if err != nil || c.Options.Format != sql.CopyBinary {
		return n, err
	}
	return n, emit(binary.BigEndian.AppendUint16(line, math.MaxUint16)) // the trailer, -1
}
