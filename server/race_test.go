//go:build race

package server_test

// raceEnabled: the race detector makes sync.Pool drop what it holds at
// random, so allocation counts of pooled paths are not what a build
// without it allocates.
const raceEnabled = true
