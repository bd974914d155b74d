package bench

import (
	"strings"
	"testing"
	"time"
)

// TestSummarizeJudgesTheBudget gives summarize rounds that meet or miss the
// absolute CPU budget: the verdict follows the service's and PostgreSQL's
// CPU per request, never the zero-work handler, whose ratios are printed
// for information whatever flags it ran with.
func TestSummarizeJudgesTheBudget(t *testing.T) {
	m := func(target string, callers, requests int, cpu, pg int64, p99 time.Duration) measurement {
		return measurement{round: 1, target: target, callers: callers, cpuService: cpu, cpuPG: pg, rss: 60 << 20,
			result: result{requests: requests, elapsed: time.Second, p50: p99 / 2, p99: p99}}
	}
	for _, tc := range []struct {
		name            string
		svcCPU, pgCPU   int64 // µs over 600 requests
		changed, wantOK bool
	}{
		{"within the budget", 45_000, 30_000, false, true},
		{"within, zero-work with other flags", 45_000, 30_000, true, true},
		{"service over 200 µs", 130_000, 30_000, false, false},
		{"PostgreSQL over 100 µs", 45_000, 66_000, false, false},
	} {
		all := []measurement{
			m("zero-work", 32, 1000, 50_000, 0, 3*time.Millisecond),
			m("service", 32, 600, tc.svcCPU, tc.pgCPU, 6*time.Millisecond),
			m("zero-work", 4, 1000, 50_000, 0, time.Millisecond),
			m("service", 4, 500, 40_000, 0, 2*time.Millisecond),
		}
		var out strings.Builder
		ok := summarize(&out, all, 32, 4, 60<<20, tc.changed)
		report := out.String()
		if ok != tc.wantOK {
			t.Errorf("%s: summarize returned %v, want %v:\n%s", tc.name, ok, tc.wantOK, report)
		}
		for _, want := range []string{"service CPU per durable Classify", "budget <= 200 µs", "budget <= 100 µs",
			"for information: throughput service/zero-work", "service p99 at 4 callers"} {
			if !strings.Contains(report, want) {
				t.Errorf("%s: report lacks %q:\n%s", tc.name, want, report)
			}
		}
	}
}
