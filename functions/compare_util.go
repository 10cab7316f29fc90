package functions

// compareDatum orders two non-NULL datums of one type as PostgreSQL's
// btree operator class for that type does (comparison operators, min/max,
// greatest/least, array comparisons, array_position).

import (
	"bytes"
	"math"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

// compareDatum returns -1, 0 or 1. Floats order NaN above everything and
// equal to itself; char(n) ignores trailing spaces; arrays compare element
// by element (a NULL element above any value), then by length.
func compareDatum(a, b any, t types.T) int {
	switch t.Family {
	case types.Bool:
		return cmpBool(a.(bool), b.(bool))
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return cmp3(a.(int64), b.(int64))
	case types.Float4, types.Float8:
		return cmpFloat(a.(float64), b.(float64))
	case types.Numeric:
		return cmpDec(a.(*apd.Decimal), b.(*apd.Decimal))
	case types.Char:
		return strings.Compare(strings.TrimRight(a.(string), " "), strings.TrimRight(b.(string), " "))
	case types.Text, types.Varchar, types.Name, types.JSON:
		return strings.Compare(a.(string), b.(string))
	case types.Bytea:
		return bytes.Compare(a.([]byte), b.([]byte))
	case types.UUID:
		x, y := a.([16]byte), b.([16]byte)
		return bytes.Compare(x[:], y[:])
	case types.Date:
		return cmp3(a.(types.Date), b.(types.Date))
	case types.Time:
		return cmp3(a.(types.TimeOfDay), b.(types.TimeOfDay))
	case types.Timestamp, types.TimestampTZ:
		return cmp3(a.(types.Timestamp), b.(types.Timestamp))
	case types.Interval:
		return cmpInterval(a.(types.IntervalValue), b.(types.IntervalValue))
	case types.JSONB:
		x, err1 := parseJSON(a.(string))
		y, err2 := parseJSON(b.(string))
		if err1 != nil || err2 != nil {
			return strings.Compare(a.(string), b.(string))
		}
		return jsonbCompare(x, y)
	case types.Array, types.Vector:
		elem := types.Float4T
		if t.Family == types.Array {
			elem = *t.Elem
		}
		return cmpArray(a.(*types.Array), b.(*types.Array), elem)
	}
	return strings.Compare(types.FormatText(a, t), types.FormatText(b, t))
}

func cmp3[T int64 | int32 | types.Date | types.TimeOfDay | types.Timestamp](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpArray(a, b *types.Array, elem types.T) int {
	n := min(len(a.Elems), len(b.Elems))
	for i := 0; i < n; i++ {
		x, y := a.Elems[i], b.Elems[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := compareDatum(x, y, elem); c != 0 {
			return c
		}
	}
	if c := cmpInt(len(a.Elems), len(b.Elems)); c != 0 {
		return c
	}
	if c := cmpInt(len(a.Dims), len(b.Dims)); c != 0 {
		return c
	}
	for i := range a.Dims {
		if c := cmpInt(a.Dims[i], b.Dims[i]); c != 0 {
			return c
		}
	}
	return 0
}

// equalDatum is compareDatum(a, b, t) == 0 with NULL never equal.
func equalDatum(a, b any, t types.T) bool {
	if a == nil || b == nil {
		return false
	}
	return compareDatum(a, b, t) == 0
}
