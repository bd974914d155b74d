package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The service's own garbage-collector settings are the ones
// docs/reference.md gives, and an operator's GOGC or GOMEMLIMIT wins.
func TestTuneGC(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("GOGC unset: GC percent %d, want 200", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != 256<<20 {
		t.Errorf("GOMEMLIMIT unset: memory limit %d, want %d", got, 256<<20)
	}

	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: tuneGC changed the GC percent to %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: tuneGC changed the memory limit to %d", got)
	}
}
