//go:build !race

package ruleset

const raceEnabled = false
