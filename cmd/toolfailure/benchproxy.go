package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/mcpproxy/proxybench"
	"github.com/omcp/toolfailure/mcpfailure"
)

// newBenchProxyCmd is `toolfailure bench proxy`: what the proxy and the Go
// middleware add to an MCP call (see package proxybench).
func newBenchProxyCmd() *cobra.Command {
	var (
		calls, rounds, callers int
		strict                 bool
		cf                     clientFlags
		report                 *reportFile
	)
	cmd := &cobra.Command{
		Use:   "proxy [flags]",
		Short: "Measure what toolfailure proxy and the Go middleware add to an MCP call",
		Long: `Drive a Go MCP server directly and through the proxy, over stdio and streamable HTTP, with
successful and failing tool calls, and print the latency the proxy adds per call (p50, p99; a direct
and a proxied call are timed in turn), the throughput through it against direct (alternating rounds
of concurrent calls), and its CPU per message, against the floors. With --key (or TOOLFAILURE_KEY) failing calls are classified by that service, and the
Classify round trip is measured alone beside them; without one they run fail-open.`,
		Example: `  toolfailure bench proxy --server http://127.0.0.1:8080 --key tfk_… --calls 200 --rounds 5`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var classifier mcpfailure.Classifier
			if client, err := cf.client(); err == nil {
				classifier = toolfailurev1connect.NewClassifierServiceClient(client)
			}
			rep, err := proxybench.Run(cmd.Context(), proxybench.Config{Classifier: classifier, Calls: calls, Rounds: rounds, Callers: callers})
			if err != nil {
				return failed(err)
			}
			rep.Print(report.out(cmd.OutOrStdout()))
			if err := report.write(cmd.Flags(), time.Now()); err != nil {
				return failed(err)
			}
			if strict && len(rep.Floors()) > 0 {
				return exitSilently(1)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.IntVar(&calls, "calls", 200, "calls of each kind per side per round")
	fs.IntVar(&rounds, "rounds", 5, "alternating rounds")
	fs.IntVar(&callers, "callers", 8, "concurrent callers of the throughput measurement")
	fs.BoolVar(&strict, "strict", false, "exit 1 when a floor is missed")
	report = addReportFlag(fs, "bench proxy")
	return cmd
}
