package bench

import (
	"strings"
	"testing"
	"time"
)

// TestSummarizeJudgesOnlyThePlainBaseline gives summarize one round that meets every floor: it
// passes against the plain zero-work handler, and the same figures are not judged, and do not
// pass, when the zero-work handler ran with other flags.
func TestSummarizeJudgesOnlyThePlainBaseline(t *testing.T) {
	m := func(target string, callers, requests int, cpu int64, p99 time.Duration) measurement {
		return measurement{round: 1, target: target, callers: callers, cpuService: cpu, rss: 60 << 20,
			result: result{requests: requests, elapsed: time.Second, p50: p99 / 2, p99: p99}}
	}
	all := []measurement{
		m("zero-work", 32, 1000, 50_000, 3*time.Millisecond),
		m("service", 32, 600, 45_000, 6*time.Millisecond),
		m("zero-work", 4, 1000, 50_000, time.Millisecond),
		m("service", 4, 500, 40_000, 2*time.Millisecond),
	}
	for _, changed := range []bool{false, true} {
		var out strings.Builder
		ok := summarize(&out, all, 32, 4, 60<<20, changed)
		report := out.String()
		if ok == changed {
			t.Errorf("baseline changed %v: summarize returned %v:\n%s", changed, ok, report)
		}
		judged := !strings.Contains(report, "not judged")
		if judged == changed {
			t.Errorf("baseline changed %v: ratios judged %v:\n%s", changed, judged, report)
		}
		if !strings.Contains(report, "service p99 at 4 callers") || !strings.Contains(report, "median 0.60") {
			t.Errorf("baseline changed %v: report lacks the p99 or the throughput ratio:\n%s", changed, report)
		}
	}
}
