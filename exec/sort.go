package exec

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// sortKind is how the values of a sort key are compared.
type sortKind uint8

const (
	sortDatum  sortKind = iota // types.Compare on datums
	sortInt                    // int64 order (integers, dates, times, timestamps, booleans)
	sortFloat                  // float order with NaN above every number
	sortString                 // bytewise (C collation, as types.Compare)
)

func sortKindOf(t types.T) sortKind {
	if t.Enum != nil {
		return sortDatum // by the enum's sort order (types.Compare)
	}
	switch t.Family {
	case types.Int2, types.Int4, types.Int8, types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig, types.Bool,
		types.DateFamily, types.Time, types.TimestampFamily, types.TimestampTZ:
		return sortInt
	case types.Float4, types.Float8:
		return sortFloat
	case types.Text, types.Varchar, types.Name, types.InternalChar:
		return sortString
	}
	return sortDatum
}

// sortVal is one key value of one row. A string read from an Arrow
// column (s) points into the column's buffer: keep the batch or clone it.
type sortVal struct {
	null bool
	i    int64
	f    float64
	s    string
	d    any
}

// keySpec is one ORDER BY key as the comparator sees it.
type keySpec struct {
	t          types.T
	kind       sortKind
	desc       bool
	nullsFirst bool
}

func keySpecs(keys []sql.SortKey) []keySpec {
	specs := make([]keySpec, len(keys))
	for i, k := range keys {
		t := k.Expr.Type()
		specs[i] = keySpec{t: t, kind: sortKindOf(t), desc: k.Desc, nullsFirst: k.NullsFirst}
	}
	return specs
}

// compare orders two values of the key; NULLs go first or last as
// nullsFirst says, whatever the direction.
func (k *keySpec) compare(a, b *sortVal) int {
	if a.null || b.null {
		switch {
		case a.null && b.null:
			return 0
		case a.null == k.nullsFirst:
			return -1
		default:
			return 1
		}
	}
	var c int
	switch k.kind {
	case sortInt:
		c = cmp.Compare(a.i, b.i)
	case sortFloat:
		c = types.CompareFloat(a.f, b.f)
	case sortString:
		c = strings.Compare(a.s, b.s)
	default:
		c = compareValues(a.d, b.d, k.t)
	}
	if k.desc {
		return -c
	}
	return c
}

// compareRows compares two rows' keys.
func compareRows(specs []keySpec, a, b []sortVal) int {
	for k := range specs {
		if c := specs[k].compare(&a[k], &b[k]); c != 0 {
			return c
		}
	}
	return 0
}

// sortValAt reads row i of arr as a key value.
func sortValAt(arr arrow.Array, i int, k *keySpec) sortVal {
	if arr.IsNull(i) {
		return sortVal{null: true}
	}
	switch k.kind {
	case sortInt:
		switch a := arr.(type) {
		case *array.Int64:
			return sortVal{i: a.Value(i)}
		case *array.Int32:
			return sortVal{i: int64(a.Value(i))}
		case *array.Int16:
			return sortVal{i: int64(a.Value(i))}
		case *array.Uint32:
			return sortVal{i: int64(a.Value(i))}
		case *array.Date32:
			return sortVal{i: int64(a.Value(i))}
		case *array.Time64:
			return sortVal{i: int64(a.Value(i))}
		case *array.Timestamp:
			return sortVal{i: int64(a.Value(i))}
		case *array.Boolean:
			if a.Value(i) {
				return sortVal{i: 1}
			}
			return sortVal{}
		}
	case sortFloat:
		switch a := arr.(type) {
		case *array.Float64:
			return sortVal{f: a.Value(i)}
		case *array.Float32:
			return sortVal{f: float64(a.Value(i))}
		}
	case sortString:
		if a, ok := arr.(*array.String); ok {
			return sortVal{s: a.Value(i)}
		}
	}
	return datumSortVal(valueAt(arr, i, k.t), k)
}

// datumSortVal converts a datum to a key value.
func datumSortVal(v any, k *keySpec) sortVal {
	if v == nil {
		return sortVal{null: true}
	}
	switch k.kind {
	case sortInt:
		switch x := v.(type) {
		case bool:
			if x {
				return sortVal{i: 1}
			}
			return sortVal{}
		case types.Date:
			return sortVal{i: int64(x)}
		case types.TimeOfDay:
			return sortVal{i: int64(x)}
		case types.Timestamp:
			return sortVal{i: int64(x)}
		}
		if i, ok := toInt64(v); ok {
			return sortVal{i: i}
		}
	case sortFloat:
		switch x := v.(type) {
		case float64:
			return sortVal{f: x}
		case float32:
			return sortVal{f: float64(x)}
		}
	case sortString:
		if x, ok := v.(string); ok {
			return sortVal{s: x}
		}
	}
	return sortVal{d: v}
}

// keyEvaluator computes the sort keys of batches.
type keyEvaluator struct {
	exprs []sql.Expr
	specs []keySpec
}

func newKeyEvaluator(keys []sql.SortKey) *keyEvaluator {
	exprs := make([]sql.Expr, len(keys))
	for i, k := range keys {
		exprs[i] = k.Expr
	}
	return &keyEvaluator{exprs: exprs, specs: keySpecs(keys)}
}

// rows evaluates the keys over rec and appends one []sortVal per row.
func (ke *keyEvaluator) rows(ev *evaluator, rec arrow.Record, dst [][]sortVal) ([][]sortVal, error) {
	b := batchOf(rec)
	n := b.n
	vals := make([]sortVal, n*len(ke.exprs))
	for k, e := range ke.exprs {
		v, err := ev.eval(e, b)
		if err != nil {
			return nil, err
		}
		spec := &ke.specs[k]
		if v.isConst() {
			sv := datumSortVal(v.c, spec)
			for i := 0; i < n; i++ {
				vals[i*len(ke.exprs)+k] = sv
			}
		} else {
			for i := 0; i < n; i++ {
				vals[i*len(ke.exprs)+k] = sortValAt(v.arr, i, spec)
			}
			v.release()
		}
	}
	for i := 0; i < n; i++ {
		dst = append(dst, vals[i*len(ke.exprs):(i+1)*len(ke.exprs):(i+1)*len(ke.exprs)])
	}
	return dst, nil
}

// Sort materialises its input and emits it ordered by the keys (stable:
// rows with equal keys keep their input order).
type Sort struct {
	rt      *Runtime
	ke      *keyEvaluator
	input   Operator
	schema  *arrow.Schema
	loaded  bool
	batches []arrow.Record
	order   []rowcopy.Ref
	pos     int
	out     outSlot
	// acct counts the kept batches, their keys and row order in the
	// statement's budget.
	acct memAccount
}

func newSort(rt *Runtime, keys []sql.SortKey, in Operator, schema *arrow.Schema) *Sort {
	return &Sort{rt: rt, ke: newKeyEvaluator(keys), input: in, schema: schema, acct: rt.account()}
}

// Schema implements Operator.
func (s *Sort) Schema() *arrow.Schema { return s.schema }

func (s *Sort) load(ctx context.Context) error {
	ev := newEvaluator(ctx, s.rt)
	specs := s.ke.specs
	// With only integer, float and text keys each row's keys are encoded
	// into one byte string that compares as the row does; otherwise the
	// rows' key values are kept and compared key by key.
	norm := normalizable(specs)
	var (
		keys    [][]sortVal
		normBuf []byte
		normOff = []int{0}
	)
	// Each row costs its rowcopy.Ref and an index entry while sorting, and its
	// keys: a normalised byte string and its offset, or sortVals.
	perRow := int64(unsafe.Sizeof(rowcopy.Ref{})) + 2*8
	if !norm {
		perRow += int64(len(specs)) * int64(unsafe.Sizeof(sortVal{}))
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := s.input.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		if norm {
			batchKeys, err := s.ke.rows(ev, rec, keys[:0])
			if err != nil {
				return err
			}
			for _, row := range batchKeys {
				normBuf = appendNormRow(normBuf, specs, row)
				normOff = append(normOff, len(normBuf))
			}
			keys = batchKeys
		} else if keys, err = s.ke.rows(ev, rec, keys); err != nil {
			return err
		}
		if err := s.acct.growRecord(rec, perRow); err != nil {
			return err
		}
		if norm {
			if err := s.acct.grow(int64(len(normBuf) - normOff[len(normOff)-n-1])); err != nil {
				return err
			}
		}
		bi := int32(len(s.batches))
		rec.Retain()
		s.batches = append(s.batches, rec)
		for i := 0; i < n; i++ {
			s.order = append(s.order, rowcopy.Ref{Src: bi, Row: int32(i)})
		}
	}
	idx := make([]int, len(s.order))
	for i := range idx {
		idx[i] = i
	}
	// Ties broken by input position: a stable order from an O(n log n) sort.
	if norm {
		slices.SortFunc(idx, func(a, b int) int {
			if c := bytes.Compare(normBuf[normOff[a]:normOff[a+1]], normBuf[normOff[b]:normOff[b+1]]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	} else {
		slices.SortFunc(idx, func(a, b int) int {
			if c := compareRows(specs, keys[a], keys[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	sorted := make([]rowcopy.Ref, len(idx))
	for i, j := range idx {
		sorted[i] = s.order[j]
	}
	s.order = sorted
	return nil
}

// normalizable reports whether every key can be encoded by appendNormRow.
func normalizable(specs []keySpec) bool {
	for _, k := range specs {
		if k.kind == sortDatum {
			return false
		}
	}
	return true
}

// appendNormRow appends a byte string for one row's keys whose bytewise
// order is the rows' ORDER BY order (NULL placement, direction, NaN above
// all numbers, strings bytewise).
func appendNormRow(dst []byte, specs []keySpec, row []sortVal) []byte {
	for k := range specs {
		spec, v := &specs[k], &row[k]
		if v.null {
			if spec.nullsFirst {
				dst = append(dst, 0)
			} else {
				dst = append(dst, 2)
			}
			continue
		}
		dst = append(dst, 1)
		start := len(dst)
		switch spec.kind {
		case sortInt:
			dst = binary.BigEndian.AppendUint64(dst, uint64(v.i)^(1<<63))
		case sortFloat:
			bits := types.FloatKeyBits(v.f)
			if bits&(1<<63) != 0 {
				bits = ^bits
			} else {
				bits |= 1 << 63
			}
			dst = binary.BigEndian.AppendUint64(dst, bits)
		case sortString:
			for i := 0; i < len(v.s); i++ {
				if c := v.s[i]; c == 0 {
					dst = append(dst, 0, 0xFF)
				} else {
					dst = append(dst, c)
				}
			}
			dst = append(dst, 0, 0)
		}
		if spec.desc {
			for i := start; i < len(dst); i++ {
				dst[i] = ^dst[i]
			}
		}
	}
	return dst
}

// Next implements Operator.
func (s *Sort) Next(ctx context.Context) (arrow.Record, error) {
	s.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.loaded {
		s.loaded = true
		if err := s.load(ctx); err != nil {
			return nil, err
		}
	}
	if s.pos >= len(s.order) {
		s.releaseBatches()
		return nil, io.EOF
	}
	end := min(s.pos+batchSize, len(s.order))
	rec, err := rowcopy.GatherRecords(s.rt.mem(), s.schema, s.batches, s.order[s.pos:end])
	if err != nil {
		return nil, err
	}
	s.pos = end
	return s.out.set(rec), nil
}

func (s *Sort) releaseBatches() {
	for _, b := range s.batches {
		b.Release()
	}
	s.batches = nil
}

// Close implements Operator.
func (s *Sort) Close() {
	s.out.release()
	s.releaseBatches()
	s.order = nil
	s.acct.release()
	s.input.Close()
}
