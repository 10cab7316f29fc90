package exec

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// Helpers shared by the tests of this package: runtimes over a checked
// allocator, VALUES plans, hand-made overloads and aggregates.

// testRuntime returns a runtime whose allocator fails the test on leaks.
func testRuntime(t *testing.T) *Runtime {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return &Runtime{Fn: &functions.Context{Mem: mem}}
}

// smallBatches makes every operator build batches of n rows during the
// test, so that small inputs cross batch boundaries.
func smallBatches(t *testing.T, n int) {
	old := batchSize
	batchSize = n
	t.Cleanup(func() { batchSize = old })
}

func col(name string, t types.T) sql.Col { return sql.Col{Name: name, T: t} }

func ref(i int, t types.T) *sql.ColumnRef {
	return &sql.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
}

func cnst(v any, t types.T) *sql.Const { return &sql.Const{Value: v, T: t} }

func i64(v int64) *sql.Const { return cnst(v, types.Int8T) }

// values is a VALUES node of constant rows.
func values(cols []sql.Col, rows ...[]any) *sql.Values {
	n := &sql.Values{Out: cols}
	for _, r := range rows {
		cells := make([]sql.Expr, len(r))
		for j, v := range r {
			cells[j] = cnst(v, cols[j].T)
		}
		n.Rows = append(n.Rows, cells)
	}
	return n
}

// intRows is a VALUES node of int8 columns named a, b, ...
func intRows(ncols int, rows ...[]any) *sql.Values {
	cols := make([]sql.Col, ncols)
	for i := range cols {
		cols[i] = col(string(rune('a'+i)), types.Int8T)
	}
	return values(cols, rows...)
}

func row(vs ...any) []any { return vs }

// collect runs a plan and returns its rows as datums.
func collect(t *testing.T, rt *Runtime, n sql.Node) [][]any {
	t.Helper()
	rows, err := tryCollect(rt, n)
	if err != nil {
		t.Fatalf("run %s: %v", n.String(), err)
	}
	return rows
}

func tryCollect(rt *Runtime, n sql.Node) ([][]any, error) {
	op, err := Build(rt, n)
	if err != nil {
		return nil, err
	}
	cols := n.Columns()
	var rows [][]any
	err = Drain(context.Background(), op, func(rec arrow.Record) error {
		if int(rec.NumCols()) != len(cols) {
			return fmt.Errorf("batch has %d columns, plan %d", rec.NumCols(), len(cols))
		}
		if !rec.Schema().Equal(op.Schema()) {
			return fmt.Errorf("batch schema %v differs from operator schema %v", rec.Schema(), op.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			r := make([]any, len(cols))
			for j := range cols {
				c := rec.Column(j)
				if !c.IsNull(i) {
					r[j] = types.ValueAt(c, i, cols[j].T)
				}
			}
			rows = append(rows, r)
		}
		return nil
	})
	return rows, err
}

func wantRows(t *testing.T, got [][]any, want ...[]any) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows:\n got %s\nwant %s", fmtRows(got), fmtRows(want))
	}
}

func fmtRows(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("(")
		for j, v := range r {
			if j > 0 {
				b.WriteString(", ")
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprintf(&b, "%v", v)
			}
		}
		b.WriteString(")")
	}
	return b.String()
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := pgerr.Code(err); got != code {
		t.Fatalf("error %q has code %s, want %s", err, got, code)
	}
}

// Overloads over int8 for the tests, one with a kernel, so both call paths
// are exercised.

func int2(f func(a, b int64) (any, error)) func(*functions.Context, []any) (any, error) {
	return func(_ *functions.Context, args []any) (any, error) { return f(args[0].(int64), args[1].(int64)) }
}

var (
	opEq = &functions.Overload{Name: "=", Args: []types.T{types.Int8T, types.Int8T}, Result: types.BoolT,
		Eval: int2(func(a, b int64) (any, error) { return a == b, nil })}
	opNe = &functions.Overload{Name: "<>", Args: []types.T{types.Int8T, types.Int8T}, Result: types.BoolT,
		Eval: int2(func(a, b int64) (any, error) { return a != b, nil })}
	opLt = &functions.Overload{Name: "<", Args: []types.T{types.Int8T, types.Int8T}, Result: types.BoolT,
		Eval: int2(func(a, b int64) (any, error) { return a < b, nil })}
	opGt = &functions.Overload{Name: ">", Args: []types.T{types.Int8T, types.Int8T}, Result: types.BoolT,
		Eval: int2(func(a, b int64) (any, error) { return a > b, nil })}
	opDiv = &functions.Overload{Name: "/", Args: []types.T{types.Int8T, types.Int8T}, Result: types.Int8T,
		Eval: int2(func(a, b int64) (any, error) {
			if b == 0 {
				return nil, pgerr.New(pgerrcode.DivisionByZero, "division by zero")
			}
			return a / b, nil
		})}
	opPlus = &functions.Overload{Name: "+", Args: []types.T{types.Int8T, types.Int8T}, Result: types.Int8T,
		Eval:   int2(func(a, b int64) (any, error) { return a + b, nil }),
		Kernel: plusKernel}
)

// plusKernel is a vectorised int8 + int8 over columns and constants.
func plusKernel(ctx *functions.Context, args []functions.Arg, n int) (arrow.Array, error) {
	b := types.NewBuilder(ctx.Mem, types.Int8T)
	defer b.Release()
	get := func(a functions.Arg, i int) any {
		if a.Array == nil {
			return a.Const
		}
		if a.Array.IsNull(i) {
			return nil
		}
		return types.ValueAt(a.Array, i, a.Type)
	}
	for i := 0; i < n; i++ {
		x, y := get(args[0], i), get(args[1], i)
		if x == nil || y == nil {
			b.AppendNull()
			continue
		}
		if err := types.AppendValue(b, x.(int64)+y.(int64), types.Int8T); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

func call(ov *functions.Overload, args ...sql.Expr) *sql.Call {
	return &sql.Call{Name: ov.Name, Overload: ov, Args: args, T: ov.Result, Infix: len(args) == 2}
}

// Aggregates for the tests.

type countState struct{ n int64 }

func (s *countState) Step(*functions.Context, []any) error   { s.n++; return nil }
func (s *countState) Result(*functions.Context) (any, error) { return s.n, nil }

type sumState struct {
	sum int64
	any bool
}

func (s *sumState) Step(_ *functions.Context, args []any) error {
	s.sum += args[0].(int64)
	s.any = true
	return nil
}

func (s *sumState) Result(*functions.Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	return s.sum, nil
}

// listState concatenates its arguments as text ("array_agg" for tests).
type listState struct{ parts []string }

func (s *listState) Step(_ *functions.Context, args []any) error {
	if args[0] == nil {
		s.parts = append(s.parts, "NULL")
	} else {
		s.parts = append(s.parts, fmt.Sprint(args[0]))
	}
	return nil
}

func (s *listState) Result(*functions.Context) (any, error) {
	if s.parts == nil {
		return nil, nil
	}
	return strings.Join(s.parts, ","), nil
}

var (
	aggCountStar = &functions.Aggregate{Name: "count", Result: types.Int8T, NullCall: true,
		New: func([]types.T) functions.AggState { return &countState{} }}
	aggCount = &functions.Aggregate{Name: "count", Args: []types.T{types.Int8T}, Result: types.Int8T,
		New: func([]types.T) functions.AggState { return &countState{} }}
	aggSum = &functions.Aggregate{Name: "sum", Args: []types.T{types.Int8T}, Result: types.Int8T,
		New: func([]types.T) functions.AggState { return &sumState{} }}
	aggList = &functions.Aggregate{Name: "list", Args: []types.T{types.Int8T}, Result: types.TextT, NullCall: true,
		New: func([]types.T) functions.AggState { return &listState{} }}
)

func TestBuildRefusesDML(t *testing.T) {
	rt := testRuntime(t)
	_, err := Build(rt, &sql.Explain{Input: intRows(1)})
	wantCode(t, err, pgerrcode.FeatureNotSupported)
}

func TestDrainStopsOnCancel(t *testing.T) {
	rt := testRuntime(t)
	op, err := Build(rt, intRows(1, row(int64(1))))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Drain(ctx, op, func(arrow.Record) error { return nil }); err != context.Canceled {
		t.Fatalf("Drain on a cancelled context: %v", err)
	}
}
