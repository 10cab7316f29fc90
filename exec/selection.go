package exec

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// trueRows returns the indexes of the rows of a filter's mask that are
// true (not false, not NULL), in order. It reads the mask a byte of
// values and validity at a time, so a selective filter over a large batch
// costs a pass over its bitmaps plus one append per surviving row.
func trueRows[I int | int32](mask *array.Boolean) []I {
	n := mask.Len()
	off := mask.Data().Offset()
	if off%8 != 0 {
		var rows []I
		for i := 0; i < n; i++ {
			if mask.IsValid(i) && mask.Value(i) {
				rows = append(rows, I(i))
			}
		}
		return rows
	}
	nbytes := (n + 7) / 8
	vals := mask.Data().Buffers()[1].Bytes()[off/8 : off/8+nbytes]
	var valid []byte
	if mask.NullN() > 0 {
		valid = mask.NullBitmapBytes()[off/8 : off/8+nbytes]
	}
	byteAt := func(k int) byte {
		b := vals[k]
		if valid != nil {
			b &= valid[k]
		}
		if k == nbytes-1 && n%8 != 0 {
			b &= 1<<(n%8) - 1
		}
		return b
	}
	count := 0
	for k := range vals {
		count += bits.OnesCount8(byteAt(k))
	}
	rows := make([]I, 0, count)
	for k := range vals {
		for b := byteAt(k); b != 0; b &= b - 1 {
			rows = append(rows, I(k*8+bits.TrailingZeros8(b)))
		}
	}
	return rows
}
