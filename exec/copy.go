package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

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

// CopyIn is the state of one COPY FROM: the parser over the data and the
// batches read so far. A statement that meets a concurrent update runs
// again; the data cannot be read twice, so a new attempt (another Run)
// replays the batches before reading on. Release frees the batches.
type CopyIn struct {
	c       *sql.Copy
	p       *copyParser
	schema  *arrow.Schema
	batches []arrow.Record
	eof     bool
}

// copyBatchBytes bounds the field bytes of one batch of COPY FROM rows
// (besides batchSize rows), so wide rows make smaller batches.
const copyBatchBytes = 16 << 20

// NewCopyIn prepares COPY c FROM STDIN over src: the payloads of the
// client's CopyData messages, io.EOF at CopyDone; any other error (the
// client's CopyFail) aborts the COPY. src is first read by Run.
func NewCopyIn(c *sql.Copy, src io.Reader) *CopyIn {
	return &CopyIn{c: c, p: newCopyParser(src, &c.Options, columnNames(c.Columns)), schema: schemaOf(c.Columns)}
}

// Run is one attempt at inserting the data in rt.Tx, through INSERT's
// path (column defaults, every constraint); it returns the rows inserted.
func (in *CopyIn) Run(ctx context.Context, rt *Runtime) (int64, error) {
	op, err := in.input(rt, in.c.Insert.Input)
	if err != nil {
		return 0, err
	}
	out := newMaterialized(nil)
	defer out.Close()
	n, err := insertRows(ctx, rt, in.c.Insert, op, out)
	if err != nil {
		return 0, err
	}
	if err := in.p.drain(); err != nil {
		return 0, in.withContext(err)
	}
	return n, nil
}

// input builds the operators of the insert's input plan n (a Project,
// maybe under a Filter for WHERE, over the CopySource), the source being
// the rows of the data.
func (in *CopyIn) input(rt *Runtime, n sql.Node) (Operator, error) {
	switch n := n.(type) {
	case *sql.CopySource:
		return &copySource{in: in, rt: rt}, nil
	case *sql.Project:
		op, err := in.input(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newProject(rt, n, op), nil
	case *sql.Filter:
		op, err := in.input(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newFilter(rt, n, op), nil
	}
	return nil, internalErr("COPY FROM input %s", n.String())
}

// read parses the next batch of rows, each field converted by its column
// type's input function as a string literal in INSERT is, or in binary
// format by its receive function (type modifiers applied, so an over-long
// varchar(n) value is an error).
func (in *CopyIn) read(ctx context.Context, rt *Runtime) (arrow.Record, error) {
	if in.eof {
		return nil, io.EOF
	}
	cols := in.c.Columns
	builders := make([]array.Builder, len(cols))
	for j, c := range cols {
		builders[j] = newBuilder(rt.mem(), c.T)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	isBinary := in.c.Options.Format == sql.CopyBinary
	rows, size := 0, 0
	for rows < batchSize && size < copyBatchBytes {
		if rows%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		fields, err := in.p.next()
		if err == io.EOF {
			in.eof = true
			break
		}
		if err != nil {
			return nil, in.withContext(err)
		}
		for j := range cols {
			if j == len(fields) {
				return nil, in.withContext(in.p.missing(j))
			}
			f := fields[j]
			var v any
			switch {
			case f.null:
			case isBinary:
				v, err = receiveBinary(f.raw, cols[j].T)
				size += len(f.raw)
			default:
				v, err = castValue(rt.Fn, f.val, types.UnknownT, cols[j].T, false)
				size += len(f.val)
			}
			if err != nil {
				return nil, withWhere(err, in.p.fieldWhere(in.c.Table.Name, cols[j].Name, f))
			}
			if err := appendValue(builders[j], v, cols[j].T); err != nil {
				return nil, err
			}
		}
		rows++
	}
	if rows == 0 {
		return nil, io.EOF
	}
	arrs := make([]arrow.Array, len(cols))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	rec := array.NewRecord(in.schema, arrs, int64(rows))
	releaseAll(arrs)
	return rec, nil
}

// withContext gives an error met reading the data the CONTEXT of the
// current line.
func (in *CopyIn) withContext(err error) error {
	return withWhere(err, in.p.where(in.c.Table.Name))
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

func (in *CopyIn) Release() {
	for _, r := range in.batches {
		r.Release()
	}
	in.batches = nil
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
		return s.in.batches[s.next-1], nil
	}
	rec, err := s.in.read(ctx, s.rt)
	if err != nil {
		return nil, err
	}
	s.in.batches = append(s.in.batches, rec)
	s.next++
	return rec, nil
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
