package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sort"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// srfBatchRows is how many rows a set-returning function emits per batch.
const srfBatchRows = 8192

// srfOp runs a set-returning function in FROM: its arguments are evaluated
// once, then rows are generated lazily in batches.
type srfOp struct {
	rt     *Runtime
	node   *sql.SRF
	schema *arrow.Schema
	next   func() ([]any, bool, error) // one output row; false at the end
	cur    arrow.Record
}

func buildSRF(rt *Runtime, n *sql.SRF) (Operator, error) {
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		v, err := EvalScalar(context.Background(), rt, a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	op := &srfOp{rt: rt, node: n, schema: schemaOf(n.Out)}
	gen, err := srfGenerator(rt, n, args)
	if err != nil {
		return nil, err
	}
	op.next = gen
	if n.Ordinality {
		k := int64(0)
		op.next = func() ([]any, bool, error) {
			row, ok, err := gen()
			if !ok || err != nil {
				return nil, ok, err
			}
			k++
			return append(append([]any(nil), row...), k), true, nil
		}
	}
	return op, nil
}

// srfGenerator returns the row generator of a set-returning function; a
// NULL argument gives no rows, as the functions are strict.
func srfGenerator(rt *Runtime, n *sql.SRF, args []any) (func() ([]any, bool, error), error) {
	for _, a := range args {
		if a == nil {
			return func() ([]any, bool, error) { return nil, false, nil }, nil
		}
	}
	switch n.Name {
	case "generate_series":
		return seriesGenerator(rt, n, args)
	case "pg_get_keywords":
		i := 0
		return func() ([]any, bool, error) {
			if i >= len(ident.Keywords) {
				return nil, false, nil
			}
			k := ident.Keywords[i]
			i++
			bare := "requires AS"
			if k.BareLabel {
				bare = "can be bare label"
			}
			return []any{k.Word, k.Category, k.BareLabel, ident.KeywordCategory(k.Category), bare}, true, nil
		}, nil
	case "generate_subscripts":
		// Subscripts start at 1 in cairn's arrays.
		arr, dim := args[0].(*types.Array), args[1].(int64)
		n := int64(0)
		if dim >= 1 && int(dim) <= len(arr.Dims) {
			n = int64(arr.Dims[dim-1])
		}
		i := int64(0)
		return func() ([]any, bool, error) {
			if i >= n {
				return nil, false, nil
			}
			i++
			return []any{i}, true, nil
		}, nil
	case "pg_partition_ancestors":
		done := false
		return func() ([]any, bool, error) {
			if done {
				return nil, false, nil
			}
			done = true
			return []any{args[0]}, true, nil
		}, nil
	case "regexp_matches":
		ms, err := functions.RegexpMatches(args[0].(string), args[1].(string), flagsArg(args))
		return rowsOf(ms), err
	case "regexp_split_to_table":
		parts, err := functions.RegexpSplit(n.Name, args[0].(string), args[1].(string), flagsArg(args))
		return rowsOf(parts), err
	case "unnest", "_pg_expandarray", "string_to_table":
		// _pg_expandarray gives each element with its position;
		// string_to_table's argument is string_to_array's result.
		arr, withPos := args[0].(*types.Array), n.Name == "_pg_expandarray"
		i := 0
		return func() ([]any, bool, error) {
			if i >= len(arr.Elems) {
				return nil, false, nil
			}
			i++
			if withPos {
				return []any{arr.Elems[i-1], int64(i)}, true, nil
			}
			return []any{arr.Elems[i-1]}, true, nil
		}, nil
	case "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text":
		var elems []json.RawMessage
		if err := json.Unmarshal([]byte(args[0].(string)), &elems); err != nil {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot extract elements from a scalar")
		}
		asText := n.Out[0].T.Family == types.Text
		i := 0
		return func() ([]any, bool, error) {
			if i >= len(elems) {
				return nil, false, nil
			}
			i++
			v, err := jsonValue(elems[i-1], asText, n.Out[0].T)
			return []any{v}, true, err
		}, nil
	case "jsonb_each", "jsonb_each_text", "json_each", "json_each_text", "jsonb_object_keys", "json_object_keys":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args[0].(string)), &obj); err != nil {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a non-object", n.Name)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		// jsonb orders keys by length, then bytes.
		sort.Slice(keys, func(a, b int) bool {
			if len(keys[a]) != len(keys[b]) {
				return len(keys[a]) < len(keys[b])
			}
			return keys[a] < keys[b]
		})
		i := 0
		return func() ([]any, bool, error) {
			if i >= len(keys) {
				return nil, false, nil
			}
			k := keys[i]
			i++
			if len(n.Out) == 1 {
				return []any{k}, true, nil
			}
			v, err := jsonValue(obj[k], n.Out[1].T.Family == types.Text, n.Out[1].T)
			return []any{k, v}, true, err
		}, nil
	}
	return nil, pgerr.NotSupported("function %s in FROM", n.Name)
}

// flagsArg is the optional third argument of the regular expression
// functions: their option letters, none when absent.
func flagsArg(args []any) string {
	if len(args) > 2 {
		return args[2].(string)
	}
	return ""
}

// rowsOf generates one single-column row per value.
func rowsOf[T any](vals []T) func() ([]any, bool, error) {
	i := 0
	return func() ([]any, bool, error) {
		if i >= len(vals) {
			return nil, false, nil
		}
		i++
		return []any{vals[i-1]}, true, nil
	}
}

// jsonValue converts one JSON element into a datum of type t: JSON text
// (normalised for jsonb), or for the *_text functions the element's text
// (strings unquoted, null as SQL NULL).
func jsonValue(raw json.RawMessage, asText bool, t types.T) (any, error) {
	raw = bytes.TrimSpace(raw)
	if asText {
		if string(raw) == "null" {
			return nil, nil
		}
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	if t.Family == types.JSONB {
		return types.NormalizeJSONB(string(raw))
	}
	return string(raw), nil
}

// seriesGenerator implements generate_series over integers, numerics and
// timestamps.
func seriesGenerator(rt *Runtime, n *sql.SRF, args []any) (func() ([]any, bool, error), error) {
	t := n.Out[0].T
	switch t.Family {
	case types.Int4, types.Int8:
		start, stop := args[0].(int64), args[1].(int64)
		step := int64(1)
		if len(args) == 3 {
			step = args[2].(int64)
		}
		if step == 0 {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "step size cannot equal zero")
		}
		cur, done := start, false
		return func() ([]any, bool, error) {
			if done || step > 0 && cur > stop || step < 0 && cur < stop {
				return nil, false, nil
			}
			v := cur
			cur += step
			// Stepping past the type's range ends the series.
			done = (step > 0) != (cur > v)
			return []any{v}, true, nil
		}, nil
	case types.Numeric:
		start, stop := args[0].(*apd.Decimal), args[1].(*apd.Decimal)
		step := apd.New(1, 0)
		if len(args) == 3 {
			step = args[2].(*apd.Decimal)
		}
		if step.IsZero() {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "step size cannot equal zero")
		}
		cur := new(apd.Decimal).Set(start)
		return func() ([]any, bool, error) {
			c := cur.Cmp(stop)
			if step.Sign() > 0 && c > 0 || step.Sign() < 0 && c < 0 {
				return nil, false, nil
			}
			v := new(apd.Decimal).Set(cur)
			if _, err := apd.BaseContext.Add(cur, cur, step); err != nil {
				return nil, false, err
			}
			return []any{v}, true, nil
		}, nil
	case types.TimestampFamily, types.TimestampTZ:
		if len(args) != 3 {
			return nil, pgerr.New(pgerrcode.UndefinedFunction, "function generate_series(%s, %s) does not exist", t, t)
		}
		cur := args[0]
		stop := args[1]
		step := args[2]
		iv := step.(types.IntervalValue)
		if iv.Months == 0 && iv.Days == 0 && iv.Micros == 0 {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "step size cannot equal zero")
		}
		add := functions.Overloads("+")
		var plus *functions.Overload
		for _, o := range add {
			if len(o.Args) == 2 && o.Args[0].Family == t.Family && o.Args[1].Family == types.Interval {
				plus = o
			}
		}
		if plus == nil {
			return nil, pgerr.NotSupported("generate_series over %s", t)
		}
		forward := iv.Months > 0 || iv.Days > 0 || iv.Micros > 0
		return func() ([]any, bool, error) {
			c := types.Compare(cur, stop, t)
			if forward && c > 0 || !forward && c < 0 {
				return nil, false, nil
			}
			v := cur
			next, err := plus.Eval(rt.fnCtx(), []any{cur, step})
			if err != nil {
				return nil, false, err
			}
			cur = next
			return []any{v}, true, nil
		}, nil
	}
	return nil, pgerr.NotSupported("generate_series over %s", t)
}

func (o *srfOp) Schema() *arrow.Schema { return o.schema }

func (o *srfOp) Next(ctx context.Context) (arrow.Record, error) {
	if o.cur != nil {
		o.cur.Release()
		o.cur = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	builders := make([]array.Builder, len(o.node.Out))
	for i, c := range o.node.Out {
		builders[i] = array.NewBuilder(o.rt.mem(), c.T.Arrow())
		defer builders[i].Release()
	}
	n := 0
	for n < srfBatchRows {
		row, ok, err := o.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		for i, v := range row {
			if err := types.AppendValue(builders[i], v, o.node.Out[i].T); err != nil {
				return nil, err
			}
		}
		n++
	}
	if n == 0 {
		return nil, io.EOF
	}
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	o.cur = array.NewRecord(o.schema, cols, int64(n))
	releaseAll(cols)
	return o.cur, nil
}

func (o *srfOp) Close() {
	if o.cur != nil {
		o.cur.Release()
		o.cur = nil
	}
}
