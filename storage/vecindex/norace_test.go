//go:build !race

package vecindex

// The sizes of the recall tests' datasets.
const (
	fixtureRows = 20_000
	highDimRows = 600
)
