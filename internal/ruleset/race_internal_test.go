//go:build race

package ruleset

const raceEnabled = true
