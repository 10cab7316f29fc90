package exec

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// recordsOp replays prepared batches (benchmark input without the cost of
// building it).
type recordsOp struct {
	schema *arrow.Schema
	recs   []arrow.Record
	pos    int
}

func (r *recordsOp) Schema() *arrow.Schema { return r.schema }

func (r *recordsOp) Next(context.Context) (arrow.Record, error) {
	if r.pos >= len(r.recs) {
		return nil, io.EOF
	}
	r.pos++
	return r.recs[r.pos-1], nil
}

func (r *recordsOp) Close() {}

// benchCols are the columns of benchRecords: id int8, grp int8 (id mod
// 1000), score float4 and name text (one of 100).
var benchCols = []sql.Col{col("id", types.Int8T), col("grp", types.Int8T), col("score", types.Float4T), col("name", types.TextT)}

func benchRecords(n int) []arrow.Record {
	mem := memory.DefaultAllocator
	schema := schemaOf(benchCols)
	var recs []arrow.Record
	for start := 0; start < n; start += 8192 {
		end := min(start+8192, n)
		ids := array.NewInt64Builder(mem)
		grps := array.NewInt64Builder(mem)
		scores := array.NewFloat32Builder(mem)
		names := array.NewStringBuilder(mem)
		for i := start; i < end; i++ {
			ids.Append(int64(i))
			grps.Append(int64(i % 1000))
			scores.Append(float32((i*7919)%100003) / 100003)
			names.Append(fmt.Sprintf("name%02d", i%100))
		}
		cols := []arrow.Array{ids.NewArray(), grps.NewArray(), scores.NewArray(), names.NewArray()}
		recs = append(recs, array.NewRecord(schema, cols, int64(end-start)))
	}
	return recs
}

// resolved returns the registered overload of op for args.
func resolved(b *testing.B, name string, args ...types.T) *functions.Overload {
	ov, _, err := functions.Resolve(name, args)
	if err != nil {
		b.Fatal(err)
	}
	return ov
}

// drainCount runs op to the end and returns the rows it produced.
func drainCount(b *testing.B, op Operator) int {
	n := 0
	if err := Drain(context.Background(), op, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		b.Fatal(err)
	}
	return n
}

const benchRows = 1 << 20

func BenchmarkFilterProject(b *testing.B) {
	recs := benchRecords(benchRows)
	rt := &Runtime{}
	gt := resolved(b, ">", types.Float4T, types.Float4T)
	plus := resolved(b, "+", types.Int8T, types.Int8T)
	cond := &sql.Call{Name: ">", Overload: gt, Args: []sql.Expr{ref(2, types.Float4T), cnst(0.5, types.Float4T)}, T: types.BoolT, Infix: true}
	exprs := []sql.Expr{ref(0, types.Int8T), &sql.Call{Name: "+", Overload: plus, Args: []sql.Expr{ref(1, types.Int8T), i64(1)}, T: types.Int8T, Infix: true}, ref(3, types.TextT)}
	out := []sql.Col{benchCols[0], benchCols[1], benchCols[3]}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := &recordsOp{schema: schemaOf(benchCols), recs: recs}
		f := newFilter(rt, &sql.Filter{Cond: cond}, src)
		p := newProject(rt, &sql.Project{Exprs: exprs, Out: out}, f)
		drainCount(b, p)
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkTopK(b *testing.B) {
	recs := benchRecords(benchRows)
	rt := &Runtime{}
	keys := []sql.SortKey{{Expr: ref(2, types.Float4T), Desc: true, NullsFirst: true}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := &recordsOp{schema: schemaOf(benchCols), recs: recs}
		op := newTopK(rt, &sql.TopK{Input: values(benchCols), Keys: keys, Count: i64(10)}, src)
		if n := drainCount(b, op); n != 10 {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkSort(b *testing.B) {
	recs := benchRecords(benchRows / 4)
	rt := &Runtime{Mem: NewMemoryBudget(1 << 40)} // accounted, as the server runs them
	keys := []sql.SortKey{{Expr: ref(3, types.TextT)}, {Expr: ref(2, types.Float4T), Desc: true, NullsFirst: true}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := &recordsOp{schema: schemaOf(benchCols), recs: recs}
		drainCount(b, newSort(rt, keys, src, schemaOf(benchCols)))
	}
	b.ReportMetric(float64(benchRows/4)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkHashAggregate(b *testing.B) {
	recs := benchRecords(benchRows)
	rt := &Runtime{Mem: NewMemoryBudget(1 << 40)} // accounted, as the server runs them
	n := aggNode(values(benchCols), []sql.Expr{ref(1, types.Int8T)},
		sql.AggCall{Agg: aggCountStar, Name: "count", T: types.Int8T},
		sql.AggCall{Agg: aggSum, Name: "sum", Args: []sql.Expr{ref(0, types.Int8T)}, T: types.Int8T})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src := &recordsOp{schema: schemaOf(benchCols), recs: recs}
		if got := drainCount(b, newAggregate(rt, n, src)); got != 1000 {
			b.Fatalf("%d groups", got)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkHashJoin(b *testing.B) {
	left := benchRecords(benchRows)
	right := benchRecords(1000)                   // grp matches exactly one id
	rt := &Runtime{Mem: NewMemoryBudget(1 << 40)} // accounted, as the server runs them
	lv, rv := values(benchCols), values(benchCols)
	n := &sql.Join{Kind: sql.InnerJoin, Left: lv, Right: rv,
		EquiLeft: []sql.Expr{ref(1, types.Int8T)}, EquiRight: []sql.Expr{ref(0, types.Int8T)},
		Out: append(append([]sql.Col(nil), benchCols...), benchCols...)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := &recordsOp{schema: schemaOf(benchCols), recs: left}
		r := &recordsOp{schema: schemaOf(benchCols), recs: right}
		if got := drainCount(b, newJoin(rt, n, l, r)); got != benchRows {
			b.Fatalf("%d rows", got)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
