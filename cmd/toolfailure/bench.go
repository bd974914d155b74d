package main

import (
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/internal/bench"
)

// newBenchCmd is `toolfailure bench`: the side-by-side benchmark of the service against a
// zero-work Connect handler (see package bench). `toolfailure bench zero-work`, hidden, is the
// baseline process that it starts.
func newBenchCmd() *cobra.Command {
	var (
		dbURL                               *envString
		schema, serveArgs, zeroArgs         string
		duration, warmup                    time.Duration
		rounds, callers, floorCallers, seed int
		dropPartition                       int
		lookups, strict                     bool
		lookupSample                        int
		report                              *reportFile
	)
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Benchmark the service against a zero-work handler on PostgreSQL",
		Long: `Run a zero-work Connect handler and the real service on PostgreSQL side by side with the same
load and print requests/s, p50/p99, CPU per request (service and PostgreSQL), rows per commit,
RSS and the ratios. --seed adds records with COPY and measures lookups at that size;
--drop-partition measures a retention round that drops a day's partition of that many records
while Classify calls go on. Each run makes and drops a schema of its own.`,
		Example: `  toolfailure bench --rounds 3
  toolfailure bench --rounds 0 --seed 10000000
  toolfailure bench --rounds 0 --drop-partition 1000000
  toolfailure bench --zero-work-args "--commit-wait 1ms"`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The load generator stands in for callers on other machines: its own collections would
			// pause the callers and add to every latency it measures, so it collects rarely.
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(1000)
			}
			self, err := os.Executable()
			if err != nil {
				return failedf("find own executable: %w", err)
			}
			stderr := cmd.ErrOrStderr()
			var bar *progress
			if seed > 0 {
				bar = newProgress(stderr, "seeding", int64(seed))
			}
			defer bar.Done()
			ok, err := bench.Run(cmd.Context(), bench.Config{
				DatabaseURL: dbURL.Get(), Schema: schema, Binary: self, ServeArgs: strings.Fields(serveArgs),
				ZeroWorkArgs: strings.Fields(zeroArgs),
				Duration:     duration, Warmup: warmup, Rounds: rounds, Callers: callers, FloorCallers: floorCallers,
				Seed: seed, Lookups: lookups, LookupSample: lookupSample, DropPartition: dropPartition, Out: report.out(cmd.OutOrStdout()), Log: bar.writer(stderr),
				SeedProgress: func(done, total int) {
					bar.Set(int64(done))
					if done >= total {
						bar.Done()
					}
				},
			})
			if err != nil {
				return failed(err)
			}
			if err := report.write(cmd.Flags(), time.Now()); err != nil {
				return failed(err)
			}
			if !ok && strict {
				return failedf("a floor was missed")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	dbURL = envStringVar(fs, "database-url", "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		"PostgreSQL server; the run creates and drops a schema of its own")
	fs.StringVar(&schema, "schema", "", "use (and keep) this schema instead of a temporary one")
	fs.DurationVar(&duration, "duration", 5*time.Second, "length of each measurement")
	fs.DurationVar(&warmup, "warmup", time.Second, "unmeasured load before each measurement")
	fs.IntVar(&rounds, "rounds", 3, "alternating rounds of measurements; 0 only seeds and looks up")
	fs.IntVar(&callers, "callers", 32, "concurrent callers of the throughput measurement")
	fs.IntVar(&floorCallers, "floor-callers", 4, "concurrent callers of the latency measurement")
	fs.IntVar(&seed, "seed", 0, "add this many records with COPY, then measure lookups")
	fs.BoolVar(&lookups, "lookups", false, "measure lookups on the records already in --schema")
	fs.IntVar(&lookupSample, "lookup-sample", bench.DefaultLookupSample, "random records the GetFailure measurement reads")
	fs.IntVar(&dropPartition, "drop-partition", 0, "fill one day two months back with this many records and measure the retention round that drops it")
	fs.StringVar(&serveArgs, "serve-args", "", "extra flags for the service, space-separated")
	fs.StringVar(&zeroArgs, "zero-work-args", "", "extra flags for the zero-work handler, space-separated (--commit-wait 1ms)")
	fs.BoolVar(&strict, "strict", false, "exit 1 when a floor is missed")
	report = addReportFlag(fs, "bench")
	cmd.AddCommand(newZeroWorkCmd(), newBenchProxyCmd(), newBenchClassifyCmd(), newBenchIsolationCmd(), newHostileLoadCmd())
	return cmd
}

func newZeroWorkCmd() *cobra.Command {
	var (
		listen, key string
		commitWait  time.Duration
	)
	cmd := &cobra.Command{
		Use:    "zero-work --key KEY [flags]",
		Short:  "The benchmark's baseline: a Connect handler that does no work",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if key == "" {
				return usageErrorf("--key is required")
			}
			tuneGC() // the service's runtime settings, so that only the work differs
			stderr := cmd.ErrOrStderr()
			if err := bench.ServeZeroWork(cmd.Context(), listen, key, commitWait, slog.New(slog.NewTextHandler(stderr, nil))); err != nil {
				return failed(err)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&listen, "listen", "127.0.0.1:8081", "address to listen on")
	// Not an envString: the benchmark passes the key it made, and help shows no default.
	fs.StringVar(&key, "key", "", "the one API key accepted")
	fs.DurationVar(&commitWait, "commit-wait", 0, "answer each call only after a simulated group commit of this latency (no database): what waiting costs")
	return cmd
}
