// Command toolfailure is the one binary of the project: the service
// (serve, migrate, keys), the support-engineer and rule-author tools that
// talk to a running service (lookup, failures), and the offline checker of
// the toolFailure proposal (conform).
//
// Run "toolfailure help" for the list of subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand. run returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "run the service", runServe},
		{"migrate", "apply database migrations and exit", runMigrate},
		{"keys", "manage API keys (keys create --tenant NAME --scopes report,lookup,rules)", runKeys},
		{"lookup", "show one failure by correlation ID (talks to a running service)", runLookup},
		{"failures", "list failures (failures list [filters]; talks to a running service)", runFailures},
		{"rules", "rule sets: rules apply -f FILE, rules export, rules test -f FILE --case CASE (offline)", runRules},
		{"retention", "per-tenant retention of failure records (retention set --tenant NAME --days N | show | purge)", runRetention},
		{"bench", "benchmark the service against a zero-work handler on PostgreSQL (bench [--seed N])", runBench},
		{"conform", "check CallToolResult files against the toolFailure proposal and the MCP schema", runConform},
		{"proxy", "front an MCP server (-- COMMAND ARG… or --upstream URL) and add toolFailure to its failed tool results", runProxy},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "toolfailure: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: toolfailure <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "toolfailure <command> -h" for a command's flags.`)
}

// parseFlags parses a subcommand's flags, reporting errors the way every
// subcommand does: -h exits 0, a bad flag exits 2.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (ok bool, code int) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, 0
		}
		return false, 2
	}
	return true, 0
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
