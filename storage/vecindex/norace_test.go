//go:build !race

package vecindex

const (
	// raceEnabled: sync.Pool drops items at random under the race
	// detector, so allocation counts mean nothing there.
	raceEnabled = false
	// The recall tests' dataset sizes.
	fixtureRows = 20_000
	highDimRows = 600
)
