package ruleset

import (
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

// lazyBranches counts the regular expressions of s's message patterns and
// guards, and how many of them have been compiled.
func lazyBranches(s *Set) (total, compiled int) {
	count := func(l *lazyRegexp) {
		if l == nil {
			return
		}
		total++
		if l.re != nil {
			compiled++
		}
	}
	for _, c := range s.rules {
		for _, m := range append([]*messageMatcher{c.msg}, c.guardLeaves...) {
			if m == nil {
				continue
			}
			for i := range m.branches {
				count(m.branches[i].re)
				count(m.branches[i].anchored)
			}
		}
	}
	return total, compiled
}

// The packs' branches compile when the prefilter first lets them run, not
// when the packs load: one message compiles the few whose phrases it holds.
func TestBranchesCompileOnFirstUse(t *testing.T) {
	set, err := compileSet(0, BaselinePackRules(), packCostLimit)
	if err != nil {
		t.Fatal(err)
	}
	total, compiled := lazyBranches(set)
	if total < 500 || compiled != 0 {
		t.Fatalf("after loading: %d of %d branch expressions compiled; want 0 of at least 500", compiled, total)
	}
	in := classify.Input{Error: classify.RawError{Message: "The device is in use by another program; the service is temporarily unavailable."}}
	res := set.Classify(&in, time.Now())
	_, compiled = lazyBranches(set)
	if compiled == 0 || compiled > total/20 {
		t.Fatalf("after one message (decided by %q): %d of %d branch expressions compiled; want a few", res.Outcome.RuleID, compiled, total)
	}
	t.Logf("after one message: %d of %d branch expressions compiled", compiled, total)
}

// A branch compiled by one goroutine is the one every other sees.
func TestLazyRegexpConcurrentFirstUse(t *testing.T) {
	l, err := newLazyRegexp(`(?i)in use by another (program|app)`)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	for range 8 {
		go func() { done <- l.MatchString("Port in use by another program") }()
	}
	for range 8 {
		if !<-done {
			t.Fatal("a concurrent first use did not match")
		}
	}
	if _, err := newLazyRegexp(`(unclosed`); err == nil {
		t.Fatal("an expression that does not parse was accepted")
	}
}
