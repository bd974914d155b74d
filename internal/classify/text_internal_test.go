package classify

import (
	"testing"
	"time"
)

// TestOverloadReadingLeavesOutWiring checks the overload phrases' unless
// list: an open circuit breaker or an overloaded service is a wait, but a
// thermocouple's open circuit or a part to check is "not overloaded" is
// a wire or a load for a person to fix, which the phrase reading must not
// take for a wait (docs/classification.md, "How well it generalises").
func TestOverloadReadingLeavesOutWiring(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want bool
	}{
		{"Circuit open: the payments backend is failing fast.", true},
		{"The service is overloaded, try again shortly.", true},
		{"TC2 OPEN - thermocouple circuit open.", false},
		{"Motor stalled. Check the spit is seated and not overloaded.", false},
	} {
		s := newSignals(&Input{Error: RawError{Message: c.msg}}, time.Time{})
		if got := s.textHas(tOverloaded); got != c.want {
			t.Errorf("%q: overload reading %v, want %v", c.msg, got, c.want)
		}
	}
}
