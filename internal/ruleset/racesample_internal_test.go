package ruleset

// raceScale is how much of a property check runs under the race detector.
// The property checks are loops in one goroutine over many cases, which the
// race detector slows many times over with nothing to find past the first
// few: under it they check one case in raceScale (raceSample) or a
// raceScale-th of their rounds (raceRounds). scripts/test runs them again
// without the race detector, in full, and -short runs them in full.
const raceScale = 10

// raceSample reports whether a property check's case i runs.
func raceSample(i int) bool { return !raceEnabled || i%raceScale == 0 }

// raceRounds is how many of a property check's n rounds run.
func raceRounds(n int) int {
	if raceEnabled {
		return max(1, n/raceScale)
	}
	return n
}

// RaceRounds is raceRounds for the package's external tests.
func RaceRounds(n int) int { return raceRounds(n) }
