package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/internal/bench"
)

// newBenchIsolationCmd is `toolfailure bench isolation`: the noisy-neighbour scenario of issue 31's
// floors, tenant B's Classify p99 with tenant A quiet and under tenant A's hostile load.
func newBenchIsolationCmd() *cobra.Command {
	var (
		dbURL                         *envString
		serveArgs, kindList           string
		duration, warmup              time.Duration
		rounds, quiet, hostileCallers int
		report                        *reportFile
	)
	cmd := &cobra.Command{
		Use:   "isolation [flags]",
		Short: "Measure one tenant's Classify latency while another tenant sends hostile load",
		Long: `Start the service on PostgreSQL (a schema of its own, dropped afterwards) with two tenants. Tenant A
gets the heaviest rule set the save-time rule budget accepts (rules that split the whole message)
and, in the noisy measurements, sends hostile load from --hostile-callers callers: oversized and
deeply nested bodies, malformed JSON, forged page tokens (including tenant B's), Classify calls
whose rules cost the most a request may, callers that hang up at once or set a deadline of 0-5 ms.
Tenant B sends ordinary Classify calls from --quiet-callers callers throughout.

It prints tenant B's p50 and p99 in each measurement (quiet and noisy alternate, in flipped order
every round, each after a warm-up), the median p99 of each, and their ratio against the floor
"p99 within 3x"; it also counts server errors (HTTP 5xx, internal, unknown, unavailable) and
listings of another tenant's records given to tenant A, and tenant B's failed calls. It exits 1
when a floor is missed. Run it on a quiet machine: the ratio is of latencies.`,
		Example: `  toolfailure bench isolation
  toolfailure bench isolation --rounds 5 --duration 10s --hostile-callers 16`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(1000) // as in bench: the load generator's pauses would count as latency
			}
			kinds, err := bench.ParseHostileKinds(kindList)
			if err != nil {
				return usageErrorf("--hostile-kinds: %v", err)
			}
			self, err := os.Executable()
			if err != nil {
				return failedf("find own executable: %w", err)
			}
			ok, err := bench.RunIsolation(cmd.Context(), bench.IsolationConfig{
				DatabaseURL: dbURL.Get(), Binary: self, ServeArgs: strings.Fields(serveArgs),
				Duration: duration, Warmup: warmup, Rounds: rounds, QuietCallers: quiet, HostileCallers: hostileCallers, Kinds: kinds,
				Out: report.out(cmd.OutOrStdout()), Log: cmd.ErrOrStderr(),
			})
			if err != nil {
				return failed(err)
			}
			if err := report.write(cmd.Flags(), time.Now()); err != nil {
				return failed(err)
			}
			if !ok {
				return failedf("a floor was missed")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	dbURL = envStringVar(fs, "database-url", "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		"PostgreSQL server; the run creates and drops a schema of its own")
	fs.DurationVar(&duration, "duration", 5*time.Second, "length of each measurement")
	fs.DurationVar(&warmup, "warmup", time.Second, "unmeasured load before each measurement")
	fs.IntVar(&rounds, "rounds", 3, "rounds of one quiet and one noisy measurement")
	fs.IntVar(&quiet, "quiet-callers", 4, "tenant B's concurrent Classify callers")
	fs.IntVar(&hostileCallers, "hostile-callers", 8, "tenant A's concurrent hostile callers")
	fs.StringVar(&kindList, "hostile-kinds", "", "only these kinds of hostile request, comma-separated (oversized-details, deep-nesting, malformed-json, forged-page-token, cancelled-caller, caller-deadline, heavy-classify); default all")
	fs.StringVar(&serveArgs, "serve-args", "", "extra flags for the service, space-separated")
	report = addReportFlag(fs, "bench isolation")
	return cmd
}

// newHostileLoadCmd is the process that bench isolation starts for tenant A's hostile load
// (bench.HostileLoad): it sends until SIGTERM, then prints its counts as JSON on stdout.
func newHostileLoadCmd() *cobra.Command {
	var (
		server, foreign, kindList string
		callers                   int
	)
	cmd := &cobra.Command{
		Use:    "hostile --server URL [flags]",
		Short:  "Tenant A's hostile load of bench isolation, in a process of its own",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key := os.Getenv("TOOLFAILURE_KEY")
			if server == "" || key == "" {
				return usageErrorf("--server and TOOLFAILURE_KEY are required")
			}
			if callers < 1 {
				return usageErrorf("--hostile-callers %d: want 1 or more", callers)
			}
			kinds, err := bench.ParseHostileKinds(kindList)
			if err != nil {
				return usageErrorf("--hostile-kinds: %v", err)
			}
			if len(kinds) == 0 {
				kinds = bench.HostileKinds
			}
			h := &bench.Hostile{Base: server, Key: key, ForeignToken: foreign}
			// main has set up SIGTERM's handler: the parent may stop us now.
			fmt.Fprintln(cmd.ErrOrStderr(), bench.HostileReady)
			counts := bench.HostileLoad(cmd.Context(), h, kinds, callers)
			return json.NewEncoder(cmd.OutOrStdout()).Encode(counts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&server, "server", "", "the service's base URL")
	fs.StringVar(&foreign, "foreign-token", "", "another tenant's page token, replayed as a forgery")
	fs.StringVar(&kindList, "hostile-kinds", "", "kinds of hostile request, comma-separated; default all")
	fs.IntVar(&callers, "hostile-callers", 8, "concurrent hostile callers")
	return cmd
}
