package functions

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// kernels_gen.go is the generator's current output: the template in
// internal/kernelgen is the loops' one source (run `go generate
// ./functions` after changing it).
func TestKernelsGenUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool, which runs the generator: %v", err)
	}
	out := filepath.Join(t.TempDir(), "kernels_gen.go")
	if msg, err := exec.Command(goTool, "run", "./internal/kernelgen", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("kernelgen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("kernels_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("kernels_gen.go is not what internal/kernelgen writes: run go generate ./functions")
	}
}

// The generated loops in every shape (column-column, column-constant,
// constant-column) agree with Eval row by row, on sliced columns (bit
// offsets 3 and 5) with NULLs, over 29 rows: three unrolled blocks of
// eight and a tail. Divisors are zero only under NULLs, and the constant
// -1 takes division's y == -1 path.
func TestBinaryKernelShapes(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	const n = 29
	cmps := []string{"=", "<>", "<", "<=", ">", ">="}
	intOps := append([]string{"+", "-", "*", "/", "%"}, cmps...)
	floatOps := append([]string{"+", "-", "*", "/"}, cmps...)
	ints := func(i int) any { return int64(i%7 - 3) }
	divisors := func(i int) any {
		if v := int64(i%5 - 2); v != 0 {
			return v
		}
		return int64(3)
	}
	floats := func(i int) any { return float64(i%7)/2 - 1.5 }
	fdivisors := func(i int) any { return float64(divisors(i).(int64)) / 2 }
	words := []string{"", "a", "ab", "b", "ba"}
	for _, c := range []struct {
		t     types.T
		ops   []string
		a, b  func(i int) any // the columns' row i
		konst any
	}{
		{types.Int2T, intOps, ints, divisors, int64(-1)},
		{types.Int4T, intOps, ints, divisors, int64(-1)},
		{types.Int8T, intOps, ints, divisors, int64(-1)},
		{types.Float4T, floatOps, floats, fdivisors, -0.5},
		{types.Float8T, floatOps, floats, fdivisors, 1.5},
		{types.TextT, cmps, func(i int) any { return words[i%5] }, func(i int) any { return words[i%3] }, "ab"},
		{types.BoolT, cmps, func(i int) any { return i%2 == 0 }, func(i int) any { return i%3 == 0 }, true},
	} {
		// column is rows off..off+n of values v, NULL where i%4 == null.
		column := func(off, null int, v func(int) any) arrow.Array {
			b := types.NewBuilder(m, c.t)
			defer b.Release()
			for i := 0; i < off+n+3; i++ {
				if i%4 == null {
					b.AppendNull()
				} else if err := types.AppendValue(b, v(i), c.t); err != nil {
					t.Fatal(err)
				}
			}
			whole := b.NewArray()
			defer whole.Release()
			return array.NewSlice(whole, int64(off), int64(off+n))
		}
		a, b := column(3, 1, c.a), column(5, 3, c.b)
		colA, colB := Arg{Array: a, Type: c.t}, Arg{Array: b, Type: c.t}
		konst := Arg{Const: c.konst, Type: c.t}
		for _, op := range c.ops {
			ov, _, err := Resolve(op, []types.T{c.t, c.t})
			if err != nil || ov.Kernel == nil {
				t.Fatalf("%s %s %s: no kernel (%v)", c.t, op, c.t, err)
			}
			res := ResultType(ov, []types.T{c.t, c.t})
			for shape, args := range map[string][]Arg{
				"column-column": {colA, colB}, "column-constant": {colA, konst}, "constant-column": {konst, colB},
			} {
				name := c.t.String() + " " + op + " " + shape
				at := func(x Arg, i int) any {
					if x.Array == nil {
						return x.Const
					}
					return types.ValueAt(x.Array, i, c.t)
				}
				// want is Eval's answer per row (nil for NULL) or the
				// error of the first non-NULL row that has one.
				want := make([]any, n)
				var wantErr error
				for i := 0; i < n && wantErr == nil; i++ {
					x, y := at(args[0], i), at(args[1], i)
					if x != nil && y != nil {
						want[i], wantErr = ov.Eval(ctx, []any{x, y})
					}
				}
				out, err := ov.Kernel(ctx, args, n)
				if wantErr != nil || err != nil {
					if err == nil || wantErr == nil || errText(err) != errText(wantErr) {
						t.Errorf("%s: error %v, Eval gave %v", name, err, wantErr)
					}
					if out != nil {
						out.Release()
					}
					continue
				}
				for i := 0; i < n; i++ {
					var got any
					if !out.IsNull(i) {
						got = types.ValueAt(out, i, res)
					}
					if got != want[i] {
						t.Errorf("%s row %d (%v, %v): %v, want %v", name, i, at(args[0], i), at(args[1], i), got, want[i])
					}
				}
				out.Release()
			}
		}
		a.Release()
		b.Release()
	}
}
