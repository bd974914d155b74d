package main_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/pgtest"
)

// TestBenchRuns runs `toolfailure bench` end to end, briefly: both targets under load, a seeded
// table and its lookups, and the service's SIGTERM. It checks that the report is complete and that
// no request failed, not the figures, which depend on the machine (numbers come from real runs of
// the benchmark, not from tests).
func TestBenchRuns(t *testing.T) {
	t.Parallel()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	dbURL := pgtest.URL(t) // the run makes and drops a schema of its own in this database
	cmd := exec.CommandContext(t.Context(), bin, "bench", "--database-url", dbURL, "--rounds", "1",
		"--duration", "500ms", "--warmup", "100ms", "--callers", "8", "--floor-callers", "2", "--seed", "3000", "--lookup-sample", "200")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	report := string(out)
	rows := regexp.MustCompile(`(?m)^1\s+(zero-work|service)\s+(\d+)\s+(\d+)\s.*\s(\S+)\s+[\d.]+\s+(\d+)$`).FindAllStringSubmatch(report, -1)
	if len(rows) != 4 {
		t.Fatalf("want 4 measurement rows (2 targets × 2 loads), got %d:\n%s", len(rows), report)
	}
	for _, r := range rows {
		if r[3] == "0" {
			t.Errorf("%s at %s callers: no requests were answered:\n%s", r[1], r[2], report)
		}
		if r[5] != "0" {
			t.Errorf("%s at %s callers: %s failed requests:\n%s", r[1], r[2], r[5], report)
		}
	}
	for _, want := range []string{
		"rows/c", // the group commit's rows per commit, a column of its own
		"service CPU per durable Classify at 8 callers",
		"PostgreSQL CPU per durable Classify at 8 callers",
		"for information: throughput service/zero-work at 8 callers",
		"service p99 at 2 callers",
		"failed requests: 0  PASS",
		"service: SIGTERM drained and exited 0",
		"bench: seeded 3000 of 3000 records",
		"GetFailure of 200 random records",
		"ListFailures first page, class+code",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}
