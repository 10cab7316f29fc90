package functions

// bit_or(x): the bitwise OR of all non-NULL smallint, integer or bigint
// inputs, in the input's type; no rows (or only NULLs) give NULL.

func init() {
	registerBitAggregate("bit_or", func(acc, x int64) int64 { return acc | x })
}
