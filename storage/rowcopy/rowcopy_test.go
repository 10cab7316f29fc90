package rowcopy

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTakeBinary checks the text and bytea take against the values it
// copies: a sliced array (its offsets do not start at zero), NULLs, empty
// values and rows taken twice and out of order.
func TestTakeBinary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary} {
		b := array.NewBuilder(mem, dt)
		vals := []string{"skipped", "a", "", "héllo", "", "xyz"}
		for i, v := range vals {
			if i == 4 {
				b.AppendNull()
				continue
			}
			switch b := b.(type) {
			case *array.StringBuilder:
				b.Append(v)
			case *array.BinaryBuilder:
				b.Append([]byte(v))
			}
		}
		full := b.NewArray()
		b.Release()
		sliced := array.NewSlice(full, 1, int64(len(vals)))
		rows := []int{4, 0, 0, 2, 3, 1}
		got, err := Take(mem, sliced, rows)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != len(rows) || got.NullN() != 1 {
			t.Fatalf("%s: %d rows, %d NULL", dt, got.Len(), got.NullN())
		}
		for j, r := range rows {
			if sliced.IsNull(r) != got.IsNull(j) || sliced.ValueStr(r) != got.ValueStr(j) {
				t.Errorf("%s: row %d = %q (null %v), want %q", dt, j, got.ValueStr(j), got.IsNull(j), sliced.ValueStr(r))
			}
		}
		withNull, err := Take(mem, sliced, []int{3, 2})
		if err != nil {
			t.Fatal(err)
		}
		if !withNull.IsNull(0) || withNull.IsNull(1) || withNull.NullN() != 1 || withNull.ValueStr(1) != sliced.ValueStr(2) {
			t.Errorf("%s: take of a NULL and %q gave %v", dt, sliced.ValueStr(2), withNull)
		}
		for _, a := range []arrow.Array{got, withNull, sliced, full} {
			a.Release()
		}
	}
}

// TestGatherFromManySources gathers rows of several sources of text,
// integers and float lists (as storage's fetch gathers a key index's hits
// from many row groups), with NULL references, against the values.
func TestGatherFromManySources(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.ListOf(arrow.PrimitiveTypes.Float32)} {
		var srcs []arrow.Array
		for s := 0; s < 3; s++ {
			b := array.NewBuilder(mem, dt)
			for r := 0; r < 4; r++ {
				v := s*10 + r
				switch b := b.(type) {
				case *array.StringBuilder:
					b.Append(string(rune('a'+v%26)) + "-value")
				case *array.Int32Builder:
					b.Append(int32(v))
				case *array.ListBuilder:
					b.Append(true)
					b.ValueBuilder().(*array.Float32Builder).AppendValues([]float32{float32(v), 0.5}, nil)
				}
			}
			srcs = append(srcs, b.NewArray())
			b.Release()
		}
		refs := []Ref{{2, 3}, {0, 0}, {-1, 0}, {1, 2}, {2, 3}, {0, 1}}
		got, err := Gather(mem, dt, srcs, refs)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range refs {
			if r.Src < 0 {
				if !got.IsNull(j) {
					t.Errorf("%s: row %d not NULL", dt, j)
				}
				continue
			}
			if want := srcs[r.Src].ValueStr(int(r.Row)); got.ValueStr(j) != want {
				t.Errorf("%s: row %d = %q, want %q", dt, j, got.ValueStr(j), want)
			}
		}
		got.Release()
		for _, s := range srcs {
			s.Release()
		}
	}
}
