package functions

// compareDatum orders two non-NULL datums of one type as PostgreSQL's
// btree operator class for that type does (comparison operators, min/max,
// greatest/least, array comparisons, array_position).

import "github.com/cairn-db/cairn/sql/types"

// compareDatum returns -1, 0 or 1 (types.Compare: floats order NaN
// above everything and equal to itself, char(n) ignores trailing spaces,
// arrays compare element by element with a NULL element above any value).
func compareDatum(a, b any, t types.T) int { return types.Compare(a, b, t) }

// cmpArray compares arrays as types.Compare does.
func cmpArray(a, b *types.Array, elem types.T) int {
	return types.Compare(a, b, types.ArrayOf(elem, max(len(a.Dims), 1)))
}

// equalDatum is compareDatum(a, b, t) == 0 with NULL never equal.
func equalDatum(a, b any, t types.T) bool {
	if a == nil || b == nil {
		return false
	}
	return compareDatum(a, b, t) == 0
}
