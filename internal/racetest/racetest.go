// Package racetest tells a test whether it runs under the race detector, and sizes its property
// checks for it.
//
// The race detector slows a loop in one goroutine many times over, and a property check (many
// random or generated cases, checked one after another) has nothing for it to find past its first
// cases. Under it a check runs one case in Scale (Sample) or a Scale-th of its rounds (Rounds);
// scripts/test runs the same checks again without the race detector, in full, and -short runs
// them in full. It also empties sync.Pool at random, so a test of allocation counts asks Enabled
// and skips.
package racetest

// Scale is how much less of a property check runs under the race detector.
const Scale = 10

// Sample reports whether a property check's case i runs.
func Sample(i int) bool { return !Enabled || i%Scale == 0 }

// Rounds is how many of a property check's n rounds run, at least one.
func Rounds(n int) int {
	if Enabled {
		return max(1, n/Scale)
	}
	return n
}
