package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/omcp/toolfailure/bench"
)

// runBench is `toolfailure bench`: the side-by-side benchmark of the service against a zero-work
// Connect handler (see package bench). `toolfailure bench zero-work` is the baseline process that
// it starts.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "zero-work" {
		return runZeroWork(ctx, args[1:], stderr)
	}
	// The load generator stands in for callers on other machines: its own collections would
	// pause the callers and add to every latency it measures, so it collects rarely.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1000)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	dbURL := fs.String("database-url", envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		"PostgreSQL server; the run creates and drops a schema of its own (env DATABASE_URL)")
	schema := fs.String("schema", "", "use (and keep) this schema instead of a temporary one")
	duration := fs.Duration("duration", 5*time.Second, "length of each measurement")
	warmup := fs.Duration("warmup", time.Second, "unmeasured load before each measurement")
	rounds := fs.Int("rounds", 3, "alternating rounds of measurements; 0 only seeds and looks up")
	callers := fs.Int("callers", 32, "concurrent callers of the throughput measurement")
	floorCallers := fs.Int("floor-callers", 4, "concurrent callers of the latency measurement")
	seed := fs.Int("seed", 0, "add this many records with COPY, then measure lookups")
	lookups := fs.Bool("lookups", false, "measure lookups on the records already in --schema")
	serveArgs := fs.String("serve-args", "", "extra flags for the service, space-separated")
	zeroArgs := fs.String("zero-work-args", "", "extra flags for the zero-work handler, space-separated (--commit-wait 1ms)")
	strict := fs.Bool("strict", false, "exit 1 when a floor is missed")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure bench: find own executable:", err)
		return 1
	}
	ok, err := bench.Run(ctx, bench.Config{
		DatabaseURL: *dbURL, Schema: *schema, Binary: self, ServeArgs: strings.Fields(*serveArgs),
		ZeroWorkArgs: strings.Fields(*zeroArgs),
		Duration:     *duration, Warmup: *warmup, Rounds: *rounds, Callers: *callers, FloorCallers: *floorCallers,
		Seed: *seed, Lookups: *lookups, Out: stdout, Log: stderr,
	})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure bench:", err)
		return 1
	}
	if !ok && *strict {
		return 1
	}
	return 0
}

func runZeroWork(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench zero-work", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8081", "address to listen on")
	key := fs.String("key", "", "the one API key accepted")
	commitWait := fs.Duration("commit-wait", 0, "answer each call only after a simulated group commit of this latency (no database): what waiting costs")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *key == "" {
		fmt.Fprintln(stderr, "toolfailure bench zero-work: --key is required")
		return 2
	}
	tuneGC() // the service's runtime settings, so that only the work differs
	if err := bench.ServeZeroWork(ctx, *listen, *key, *commitWait, slog.New(slog.NewTextHandler(stderr, nil))); err != nil {
		fmt.Fprintln(stderr, "toolfailure bench zero-work:", err)
		return 1
	}
	return 0
}
