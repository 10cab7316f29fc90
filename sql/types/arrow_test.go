package types

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
)

func TestArrowRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range roundTripValues {
		b := NewBuilder(mem, c.t)
		if !arrow.TypeEqual(b.Type(), c.t.Arrow()) {
			t.Errorf("%s: builder type %s, want %s", c.t, b.Type(), c.t.Arrow())
		}
		for _, v := range []any{c.v, nil, c.v} {
			if err := AppendValue(b, v, c.t); err != nil {
				t.Errorf("AppendValue(%v, %s): %v", v, c.t, err)
			}
		}
		arr := b.NewArray()
		b.Release()
		if arr.Len() != 3 || !arr.IsNull(1) {
			t.Errorf("%s: column %v", c.t, arr)
		}
		for _, i := range []int{0, 2} {
			got := ValueAt(arr, i, c.t)
			if Compare(got, c.v, c.t) != 0 || FormatText(got, c.t) != c.text {
				t.Errorf("%s: ValueAt = %q, want %q", c.t, FormatText(got, c.t), c.text)
			}
		}
		if ValueAt(arr, 1, c.t) != nil {
			t.Errorf("%s: NULL row reads %v", c.t, ValueAt(arr, 1, c.t))
		}
		arr.Release()
	}
}

func TestArrowInterval(t *testing.T) {
	b := NewBuilder(nil, IntervalT)
	defer b.Release()
	iv := IntervalValue{Months: 1, Days: 2, Micros: 3}
	if err := AppendValue(b, iv, IntervalT); err != nil {
		t.Fatal(err)
	}
	if err := AppendValue(b, IntervalValue{Micros: math.MaxInt64}, IntervalT); pgerr.Code(err) != "22008" {
		t.Errorf("interval beyond Arrow's nanoseconds: %v", err)
	}
	arr := b.NewArray().(*array.MonthDayNanoInterval)
	defer arr.Release()
	if got := arr.Value(0); got != (arrow.MonthDayNanoInterval{Months: 1, Days: 2, Nanoseconds: 3000}) {
		t.Errorf("Arrow interval %+v", got)
	}
	if got := ValueAt(arr, 0, IntervalT); got != iv {
		t.Errorf("ValueAt %v", got)
	}
}

func TestArrowErrors(t *testing.T) {
	b := NewBuilder(nil, Int2T)
	defer b.Release()
	if err := AppendValue(b, int64(40000), Int2T); pgerr.Code(err) != "22003" {
		t.Errorf("smallint overflow: %v", err)
	}
	if err := AppendValue(b, "x", Int2T); err == nil {
		t.Error("string into smallint accepted")
	}
	lb := NewBuilder(nil, ArrayOf(Int4T, 1))
	defer lb.Release()
	two := &Array{Elem: Int4T, Dims: []int{1, 1}, Elems: []any{int64(1)}}
	if err := AppendValue(lb, two, ArrayOf(Int4T, 1)); err == nil {
		t.Error("2-D array into a 1-D column accepted")
	}
	vb := NewBuilder(nil, VectorOf(2))
	defer vb.Release()
	if err := AppendValue(vb, NewArray(Float4T, 1.0, nil), VectorOf(2)); err == nil {
		t.Error("NULL vector element accepted")
	}
}

// float32Column builds a list<float32> column: [1,2,3], NULL, [], [4,NULL,6].
func float32Column(mem memory.Allocator) arrow.Array {
	b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Float32Builder)
	b.Append(true)
	vb.AppendValues([]float32{1, 2, 3}, nil)
	b.AppendNull()
	b.Append(true)
	b.Append(true)
	vb.AppendValues([]float32{4, 5, 6}, []bool{true, false, true})
	return b.NewArray()
}

func TestFloat32List(t *testing.T) {
	arr := float32Column(memory.NewGoAllocator())
	defer arr.Release()
	xs := Float32List(arr, 0)
	if len(xs) != 3 || xs[2] != 3 {
		t.Fatalf("row 0 = %v", xs)
	}
	child := arr.(*array.List).ListValues().(*array.Float32).Float32Values()
	if unsafe.SliceData(xs) != unsafe.SliceData(child) {
		t.Error("Float32List copied")
	}
	if Float32List(arr, 1) != nil {
		t.Error("NULL row is not nil")
	}
	if xs := Float32List(arr, 2); xs == nil || len(xs) != 0 {
		t.Errorf("empty row = %#v", xs)
	}
	if xs := Float32List(arr, 3); len(xs) != 3 || unsafe.SliceData(xs) != &child[3] {
		t.Errorf("row 3 = %v", xs)
	}
	// A slice of the column keeps working.
	sl := array.NewSlice(arr, 3, 4)
	defer sl.Release()
	if xs := Float32List(sl, 0); len(xs) != 3 || xs[0] != 4 {
		t.Errorf("sliced row = %v", xs)
	}
}

func TestFloat32ListEncoding(t *testing.T) {
	arr := float32Column(memory.NewGoAllocator())
	defer arr.Release()
	for _, typ := range []T{Float4ArrayT, VectorOf(0)} {
		for _, i := range []int{0, 2, 3} {
			v := ValueAt(arr, i, typ)
			if typ.Family == Vector && i == 2 {
				continue // pgvector has no empty vectors
			}
			bin, binErr := AppendFloat32ListBinary([]byte("pre"), arr, i, typ)
			text, textErr := AppendFloat32ListText([]byte("pre"), arr, i, typ)
			if typ.Family == Vector && i == 3 {
				if binErr == nil || textErr == nil {
					t.Errorf("vector with a NULL element encoded")
				}
				continue
			}
			if binErr != nil || textErr != nil {
				t.Fatalf("%s row %d: %v %v", typ, i, binErr, textErr)
			}
			want, err := EncodeBinary([]byte("pre"), v, typ)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bin, want) {
				t.Errorf("%s row %d: binary %x, want %x", typ, i, bin, want)
			}
			if wantText := "pre" + FormatText(v, typ); string(text) != wantText {
				t.Errorf("%s row %d: text %q, want %q", typ, i, text, wantText)
			}
		}
	}
	if _, err := AppendFloat32ListBinary(nil, arr, 1, VectorOf(0)); err == nil {
		t.Error("NULL row encoded")
	}
}

func BenchmarkAppendFloat32ListBinary(b *testing.B) {
	lb := array.NewListBuilder(memory.NewGoAllocator(), arrow.PrimitiveTypes.Float32)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	xs := make([]float32, 4096)
	for i := range xs {
		xs[i] = float32(i) / 7
	}
	lb.Append(true)
	vb.AppendValues(xs, nil)
	arr := lb.NewArray()
	defer arr.Release()
	buf := make([]byte, 0, 1<<16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = AppendFloat32ListBinary(buf[:0], arr, 0, VectorOf(0))
	}
}

func BenchmarkAppendFloat32ListText(b *testing.B) {
	lb := array.NewListBuilder(memory.NewGoAllocator(), arrow.PrimitiveTypes.Float32)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	xs := make([]float32, 4096)
	for i := range xs {
		xs[i] = float32(i) / 7
	}
	lb.Append(true)
	vb.AppendValues(xs, nil)
	arr := lb.NewArray()
	defer arr.Release()
	buf := make([]byte, 0, 1<<16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = AppendFloat32ListText(buf[:0], arr, 0, Float4ArrayT)
	}
}

// TestCheckBatchBytes checks that a string column refuses a value
// that would take its batch past the 2 GB its 32-bit offsets address,
// instead of wrapping them (reading such a column panics).
func TestCheckBatchBytes(t *testing.T) {
	if err := CheckBatchBytes(math.MaxInt32-5, 5); err != nil {
		t.Fatalf("exactly 2 GB - 1: %v", err)
	}
	var pe *pgerr.Error
	if err := CheckBatchBytes(math.MaxInt32-5, 6); !errors.As(err, &pe) || pe.Code != "54000" {
		t.Fatalf("one byte over: %#v", err)
	}
}

// TestAppendAtPlainTypes checks that the values AppendTextAt and
// AppendBinaryAt encode straight from the Arrow arrays (integer, bigint,
// text, varchar) come out as the encoding of their datum does.
func TestAppendAtPlainTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	varchar5 := VarcharT
	varchar5.Mod = 5
	for _, c := range []struct {
		t    T
		vals []any
	}{
		{Int4T, []any{int64(0), int64(-7), int64(math.MaxInt32), int64(math.MinInt32)}},
		{Int8T, []any{int64(0), int64(42), int64(math.MaxInt64), int64(math.MinInt64)}},
		{TextT, []any{"", "task number 1", "é\tλ 中", "x\x01y"}},
		{varchar5, []any{"", "abcde"}},
	} {
		b := NewBuilder(mem, c.t)
		for _, v := range c.vals {
			if err := AppendValue(b, v, c.t); err != nil {
				t.Fatalf("AppendValue(%v, %s): %v", v, c.t, err)
			}
		}
		arr := b.NewArray()
		b.Release()
		for i, v := range c.vals {
			prefix := []byte("prefix")
			gotText, err := AppendTextAt(bytes.Clone(prefix), arr, i, c.t, nil)
			if err != nil {
				t.Fatalf("AppendTextAt(%s row %d): %v", c.t, i, err)
			}
			if want := AppendText(bytes.Clone(prefix), v, c.t, nil); !bytes.Equal(gotText, want) {
				t.Errorf("%s %v: text %q, want %q", c.t, v, gotText, want)
			}
			gotBin, err := AppendBinaryAt(bytes.Clone(prefix), arr, i, c.t)
			if err != nil {
				t.Fatalf("AppendBinaryAt(%s row %d): %v", c.t, i, err)
			}
			want, err := EncodeBinary(bytes.Clone(prefix), v, c.t)
			if err != nil || !bytes.Equal(gotBin, want) {
				t.Errorf("%s %v: binary %x, want %x (%v)", c.t, v, gotBin, want, err)
			}
		}
		arr.Release()
	}
}
