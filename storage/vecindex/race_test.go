//go:build race

package vecindex

// The tests' dataset sizes are smaller under the race detector, which
// slows a build about tenfold.
const (
	fixtureRows = 3_000
	highDimRows = 200
)
