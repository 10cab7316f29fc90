package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowRun is a half-open range of row positions kept by a filter.
type rowRun struct{ lo, hi int }

// keptRuns returns the runs of rows whose IDs are in none of the deleted
// sets (nil sets are skipped), and how many rows they hold. all is true
// when every row is kept.
func keptRuns(ids []int64, deleted ...*roaring64.Bitmap) (runs []rowRun, kept int, all bool) {
	var sets []*roaring64.Bitmap
	if len(ids) > 0 {
		lo, hi := ids[0], ids[0]
		for _, id := range ids {
			lo = min(lo, id)
			hi = max(hi, id)
		}
		for _, d := range deleted {
			if d != nil && !d.IsEmpty() && rangeHasAny(d, uint64(lo), uint64(hi)) {
				sets = append(sets, d)
			}
		}
	}
	if len(sets) == 0 {
		return []rowRun{{0, len(ids)}}, len(ids), true
	}
	start := -1
	for i, id := range ids {
		del := false
		for _, d := range sets {
			if d.Contains(uint64(id)) {
				del = true
				break
			}
		}
		if del {
			if start >= 0 {
				runs = append(runs, rowRun{start, i})
				kept += i - start
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		runs = append(runs, rowRun{start, len(ids)})
		kept += len(ids) - start
	}
	return runs, kept, kept == len(ids)
}

// unmarshalBitmap decodes a roaring64 bitmap in its portable format,
// rejecting a bucket count the data cannot hold (the library would
// allocate it) and turning a panic on garbage into an error.
func unmarshalBitmap(raw []byte) (bm *roaring64.Bitmap, err error) {
	if len(raw) < 8 || binary.LittleEndian.Uint64(raw) > uint64(len(raw)-8)/8 {
		return nil, errors.New("corrupt bitmap")
	}
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("corrupt bitmap: %v", r)
		}
	}()
	bm = roaring64.New()
	if err := bm.UnmarshalBinary(raw); err != nil {
		return nil, err
	}
	return bm, nil
}

// rangeHasAny reports whether bm holds a value in [lo, hi].
func rangeHasAny(bm *roaring64.Bitmap, lo, hi uint64) bool {
	below := uint64(0)
	if lo > 0 {
		below = bm.Rank(lo - 1)
	}
	return bm.Rank(hi) > below
}

// takeRuns returns the rows of arr in runs, as one array. It returns arr
// itself (retained) when the runs cover it entirely.
func takeRuns(arr arrow.Array, runs []rowRun) (arrow.Array, error) {
	if len(runs) == 1 && runs[0].lo == 0 && runs[0].hi == arr.Len() {
		arr.Retain()
		return arr, nil
	}
	if len(runs) == 1 {
		return array.NewSlice(arr, int64(runs[0].lo), int64(runs[0].hi)), nil
	}
	parts := make([]arrow.Array, len(runs))
	for i, r := range runs {
		parts[i] = array.NewSlice(arr, int64(r.lo), int64(r.hi))
	}
	out, err := array.Concatenate(parts, memory.DefaultAllocator)
	for _, p := range parts {
		p.Release()
	}
	return out, err
}

// concatArrays joins arrays of one type (releasing nothing).
func concatArrays(parts []arrow.Array) (arrow.Array, error) {
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	return array.Concatenate(parts, memory.DefaultAllocator)
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}
