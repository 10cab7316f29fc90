//go:build race

package vecindex

const (
	// raceEnabled: sync.Pool drops items at random under the race
	// detector, so allocation counts mean nothing there.
	raceEnabled = true
	// The recall tests' dataset sizes are smaller under the race
	// detector, which slows a build about tenfold.
	fixtureRows = 3_000
	highDimRows = 200
)
