package storage

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestOwnedColumn checks that a transaction copies a row sliced out of a
// large column (as an UPDATE passes a fetched row's columns through)
// instead of keeping the whole column alive, and that the copy holds the
// same values; small arrays are kept as they are.
func TestOwnedColumn(t *testing.T) {
	const rows = 100_000
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float32)
	fb := lb.ValueBuilder().(*array.Float32Builder)
	for i := range rows {
		ib.Append(int64(i))
		sb.Append("task number " + string(rune('a'+i%26)))
		lb.Append(true)
		for d := range 8 {
			fb.Append(float32(i*8 + d))
		}
	}
	for _, whole := range []arrow.Array{ib.NewArray(), sb.NewArray(), lb.NewArray()} {
		row := array.NewSlice(whole, 4321, 4322)
		owned := ownedColumn(row)
		if got, limit := arraySize(owned.Data()), int64(1024); got > limit {
			t.Errorf("%s: the kept row holds %d bytes (whole column %d), want at most %d", whole.DataType(), got, arraySize(whole.Data()), limit)
		}
		if !array.Equal(owned, row) {
			t.Errorf("%s: copy %v differs from the row %v", whole.DataType(), owned, row)
		}
		if need := slicedSize(row.Data()); need > 256 {
			t.Errorf("%s: slicedSize of one row = %d", whole.DataType(), need)
		}
		head := array.NewSlice(whole, 0, 10)
		small, err := array.Concatenate([]arrow.Array{head}, mem)
		if err != nil {
			t.Fatal(err)
		}
		kept := ownedColumn(small)
		if kept.Data() != small.Data() {
			t.Errorf("%s: a small array was copied", whole.DataType())
		}
		kept.Release()
		owned.Release()
		row.Release()
		head.Release()
		small.Release()
		whole.Release()
	}
}
