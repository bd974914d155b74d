package proxybench_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/mcpproxy/proxybench"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

var (
	calls  = flag.Int("calls", 20, "calls of each kind per side per round (200 for the published figures)")
	rounds = flag.Int("rounds", 2, "alternating rounds (5 for the published figures)")
)

// TestRun runs the benchmark against a live service and checks that it
// measured every transport and outcome and produced a report. The floors
// are printed, not enforced: a shared test machine is no place to hold
// microsecond floors.
//
//	go test ./internal/mcpproxy/proxybench -run TestRun -v -args -calls 200 -rounds 5
func TestRun(t *testing.T) {
	svc := servicetest.Start(t, servicetest.Embedded(t))
	rep, err := proxybench.Run(t.Context(), proxybench.Config{
		Classifier: mcpfailure.NewClassifierClient(nil, svc.URL, svc.ReportKey),
		Calls:      *calls, Rounds: *rounds,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 4 {
		t.Fatalf("%d rows, want stdio and http × success and failure", len(rep.Rows))
	}
	for _, row := range rep.Rows {
		if row.DirectP50 <= 0 || row.ProxyP50 <= 0 || row.DirectPerSec <= 0 || row.ProxyPerSec <= 0 {
			t.Errorf("%s %s: nothing measured: %+v", row.Transport, row.Outcome, row)
		}
	}
	if len(rep.References) != 3 {
		t.Fatalf("%d reference rows, want stdio io.Copy, http io.Copy and http httputil.ReverseProxy", len(rep.References))
	}
	for _, row := range rep.References {
		if row.Outcome != "success" || row.ProxyP50 <= 0 || row.ProxyPerSec <= 0 {
			t.Errorf("%s %s: nothing measured: %+v", row.Transport, row.Via, row)
		}
	}
	if rep.ClassifyP50 <= 0 {
		t.Error("no Classify round trip measured")
	}
	var b strings.Builder
	rep.Print(&b)
	t.Log("\n" + b.String())
}
