package wire

// http_arrow.go converts the JSON values of an ingest (or of a batch of
// one INSERT) straight into Arrow records of the target columns, for
// COPY FROM's insert (session.CopyRecords): no per-value boxing and no
// SQL text for the values of the bulk of a load (text, integers, jsonb,
// embeddings); every other value goes through paramValue, the parameter
// conversion the INSERTs it replaces used, so values and errors stay
// theirs.

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// arrowValueType reports whether values of type t convert into records
// exactly as paramValue's datums bind to a parameter of an INSERT: no
// domain to check, no type modifier to apply (varchar(n), numeric(p,s),
// vector(n) are cast on assignment), no name to look up in the catalog
// (the reg* types), no enum whose labels to check, and an element type
// that is one of these.
func arrowValueType(t types.T) bool {
	if t.Domain != "" || t.Mod != -1 || t.Enum != nil {
		return false
	}
	switch t.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.JSON, types.JSONB, types.UUID, types.Bytea,
		types.DateFamily, types.TimestampFamily, types.TimestampTZ:
		return true
	case types.ArrayFamily:
		return t.Elem != nil && t.Elem.Family != types.ArrayFamily && arrowValueType(*t.Elem)
	}
	return false
}

// releaseRecords frees the records of recs that are not nil.
func releaseRecords(recs []arrow.Record) {
	for _, rec := range recs {
		if rec != nil {
			rec.Release()
		}
	}
}

// arrowChunkRows bounds the rows of one record (and of a chunk that
// parallelRows hands out); a load is cut into at least two chunks per
// processor so that they convert in parallel.
const (
	arrowChunkRows    = 2048
	arrowChunkMinRows = 256
)

// rowChunks cuts nrows rows into n chunks of per rows (the last maybe
// fewer).
func rowChunks(nrows int) (per, n int) {
	workers := runtime.GOMAXPROCS(0)
	per = min(arrowChunkRows, max(arrowChunkMinRows, (nrows+2*workers-1)/(2*workers)))
	return per, (nrows + per - 1) / per
}

// parallelRows calls fn for each chunk of rowChunks(nrows), chunk i being
// rows [from, to), on up to one goroutine per processor, and returns once
// all calls have. A panic in fn fails the request (an internal error),
// not the server.
func parallelRows(nrows int, fn func(i, from, to int)) error {
	per, n := rowChunks(nrows)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var failed atomic.Pointer[pgerr.Error]
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					failed.CompareAndSwap(nil, pgerr.New(pgerrcode.InternalError, "converting the request's values: %v", r))
				}
			}()
			for i := range next {
				fn(i, i*per, min(nrows, (i+1)*per))
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return err
	}
	return nil
}

// toArrow converts cols, the values of columns of types ts (one value per
// row each), into records, a chunk of rows each (rowChunks), converted in
// parallel. The first bad value in row order (each row's columns in
// order) is the error, named by column and row as the INSERTs named it.
func toArrow(cols []ingestColumn, ts []types.T, opts *types.TextOptions) ([]arrow.Record, error) {
	nrows := len(cols[0].values)
	_, n := rowChunks(nrows)
	recs := make([]arrow.Record, n)
	errs := make([]error, n)
	if err := parallelRows(nrows, func(i, from, to int) {
		recs[i], errs[i] = newArrowConverter(cols, ts, opts).chunk(cols, from, to)
	}); err != nil {
		releaseRecords(recs)
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			releaseRecords(recs)
			return nil, err
		}
	}
	return recs, nil
}

// arrowConverter converts JSON values into Arrow builders; each goroutine
// converting has its own.
type arrowConverter struct {
	ts     []types.T
	opts   *types.TextOptions
	schema *arrow.Schema
	conv   []func(b array.Builder, raw []byte) error
	// embedding[j] is whether column j is a real[] whose JSON arrays of
	// numbers types.ParseJSONFloat4s reads: its values validValues
	// parsed are taken as they are.
	embedding []bool
	floats    []float32
	text      []byte // an unescaped string
	jsonb     []byte // a jsonb value's printed form
	norm      types.JSONBNormalizer
	// left is the number of rows of the chunk from the current one on.
	left int
}

func newArrowConverter(cols []ingestColumn, ts []types.T, opts *types.TextOptions) *arrowConverter {
	v := &arrowConverter{ts: ts, opts: opts}
	fields := make([]arrow.Field, len(ts))
	for i, t := range ts {
		fields[i] = arrow.Field{Name: cols[i].name, Type: t.Arrow(), Nullable: true}
		v.conv = append(v.conv, v.converter(t))
		v.embedding = append(v.embedding, embeddingType(t))
	}
	v.schema = arrow.NewSchema(fields, nil)
	return v
}

// chunk converts rows [from, to) of cols into a record.
func (v *arrowConverter) chunk(cols []ingestColumn, from, to int) (arrow.Record, error) {
	builders := make([]array.Builder, len(cols))
	for j, t := range v.ts {
		builders[j] = types.NewBuilder(memory.DefaultAllocator, t)
		builders[j].Reserve(to - from)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for row := from; row < to; row++ {
		v.left = to - row
		for j, c := range cols {
			raw := c.values[row]
			if len(raw) == 0 || raw[0] == 'n' {
				builders[j].AppendNull()
				continue
			}
			if v.embedding[j] && c.embeddings != nil && c.embeddings[row] != nil {
				v.appendFloats(builders[j], c.embeddings[row]) // parsed by validValues
				continue
			}
			if err := v.conv[j](builders[j], raw); err != nil {
				return nil, errorAt(err, "column %q at index %d", c.name, row)
			}
		}
	}
	arrs := make([]arrow.Array, len(builders))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	rec := array.NewRecord(v.schema, arrs, int64(to-from))
	for _, a := range arrs {
		a.Release()
	}
	return rec, nil
}

// converter returns the conversion of a column of type t's non-null JSON
// values (validated JSON without surrounding space): paramValue's datum,
// or a direct one for the types of a bulk load, which leaves every value
// it does not take to paramValue.
func (v *arrowConverter) converter(t types.T) func(b array.Builder, raw []byte) error {
	general := func(b array.Builder, raw []byte) error {
		val, err := paramValue(raw, t, v.opts)
		if err != nil {
			return err
		}
		switch val := val.(type) {
		case nil:
			b.AppendNull()
			return nil
		case []float32: // an embedding (paramValue)
			v.appendFloats(b, val)
			return nil
		}
		return types.AppendValue(b, val, t)
	}
	switch t.Family {
	case types.Text:
		return func(b array.Builder, raw []byte) error {
			s, ok := v.unquote(raw)
			if !ok {
				return general(b, raw)
			}
			b.(*array.StringBuilder).BinaryBuilder.Append(s)
			return nil
		}
	case types.Int8, types.Int4, types.Int2:
		bits := map[types.Family]int{types.Int8: 64, types.Int4: 32, types.Int2: 16}[t.Family]
		return func(b array.Builder, raw []byte) error {
			if !isJSONNumber(raw) {
				return general(b, raw)
			}
			n, err := strconv.ParseInt(string(raw), 10, bits)
			if err != nil {
				return general(b, raw)
			}
			switch b := b.(type) {
			case *array.Int64Builder:
				b.Append(n)
			case *array.Int32Builder:
				b.Append(int32(n))
			case *array.Int16Builder:
				b.Append(int16(n))
			default:
				return general(b, raw)
			}
			return nil
		}
	case types.Bool:
		return func(b array.Builder, raw []byte) error {
			switch raw[0] {
			case 't':
				b.(*array.BooleanBuilder).Append(true)
			case 'f':
				b.(*array.BooleanBuilder).Append(false)
			default:
				return general(b, raw)
			}
			return nil
		}
	case types.JSONB:
		return func(b array.Builder, raw []byte) error {
			if raw[0] != '{' && raw[0] != '[' {
				return general(b, raw)
			}
			out, ok := v.norm.Append(v.jsonb[:0], raw)
			if !ok {
				return general(b, raw)
			}
			v.jsonb = out
			b.(*array.StringBuilder).BinaryBuilder.Append(out)
			return nil
		}
	case types.ArrayFamily:
		if !embeddingType(t) {
			break
		}
		return func(b array.Builder, raw []byte) error {
			var ok bool
			if v.floats, ok = types.ParseJSONFloat4s(v.floats[:0], raw); !ok {
				return general(b, raw)
			}
			v.appendFloats(b, v.floats)
			return nil
		}
	}
	return general
}

// embeddingType reports whether t, a type arrowValueType takes, is a
// one-dimensional real[], whose values are read by
// types.ParseJSONFloat4s.
func embeddingType(t types.T) bool {
	return t.Family == types.ArrayFamily && t.Elem.Family == types.Float4 && t.Dims <= 1
}

// appendFloats appends the embedding xs to a real[] column's builder.
func (v *arrowConverter) appendFloats(b array.Builder, xs []float32) {
	lb := b.(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	if vb.Cap()-vb.Len() < len(xs) {
		// Room for the rest of the chunk's rows at this length, so that
		// the values are not copied as the builder grows.
		vb.Reserve(len(xs) * v.left)
	}
	vb.AppendValues(xs, nil)
}

// unquote returns the text of the JSON string raw when it has no escape
// but the short ones (\" \\ \/ \b \f \n \r \t): a slice of raw when it has
// none, or v.text. ok is false for anything else (not a string, a \u
// escape), which paramValue reads as encoding/json does.
func (v *arrowConverter) unquote(raw []byte) (s []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	s = raw[1 : len(raw)-1]
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		return s, true
	}
	out := append(v.text[:0], s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++ // valid JSON: an escape is never the string's last byte
		switch s[i] {
		case '"', '\\', '/':
			c = s[i]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default:
			return nil, false
		}
		out = append(out, c)
	}
	v.text = out
	return out, true
}
