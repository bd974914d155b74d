// Command toolfailure is the one binary of the project: the service
// (serve, migrate, keys), the support-engineer and rule-author tools that
// talk to a running service (lookup, failures, rules), the operator's
// commands on the database (retention), the benchmark (bench), the proxy
// for MCP servers (proxy) and the offline checker of the toolFailure
// proposal (conform).
//
// Run "toolfailure --help" for the list of subcommands. Every subcommand
// accepts its flags before or after its arguments, prints its help with
// -h or --help, and exits 0 when it succeeds, 1 when it fails and 2 when
// it was called wrongly, with a one-line reason on stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// deps are the parts of the commands that tests replace: how a store is
// opened.
type deps struct {
	openBackend func(ctx context.Context, databaseURL string, opts ...postgres.Option) (b store.Store, where string, embedded bool, err error)
}

func defaultDeps() deps { return deps{openBackend: openBackend} }

// run executes one command line and returns the process's exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, defaultDeps(), args, stdout, stderr)
}

func runWith(ctx context.Context, d deps, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(d)
	root.SetArgs(goStyleLongFlags(root, args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetIn(os.Stdin)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), oneLine(ee.err.Error()))
		}
		return ee.code
	}
	// Everything that cobra or pflag refuse is a usage error: an unknown
	// command or flag, a missing flag value, a wrong number of arguments.
	fmt.Fprintf(stderr, "%s: %s (see %q)\n", cmd.CommandPath(), oneLine(err.Error()), cmd.CommandPath()+" --help")
	return 2
}

// annotationArgsAreACommand marks a command whose flags end at its first
// argument, which begins a command line of its own (proxy).
const annotationArgsAreACommand = "toolfailure/args-are-a-command"

// goStyleLongFlags rewrites -name and -name=value, the standard flag
// package's spelling of long flags that the commands accepted before they
// moved to cobra, to --name, so that old scripts keep working. Only names
// of the command's own long flags are rewritten, never a shorthand with
// its value attached (-ocurrent.yaml), nothing after "--", and for a
// command that stops at its first argument (proxy) nothing from there on:
// those are the upstream command's flags.
func goStyleLongFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return args
	}
	cmd.InitDefaultHelpFlag()
	lookup := func(name string) *pflag.Flag {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f
		}
		return cmd.InheritedFlags().Lookup(name)
	}
	_, interspersed := cmd.Annotations[annotationArgsAreACommand]
	interspersed = !interspersed
	out := append([]string(nil), args...)
	path := strings.Fields(cmd.CommandPath())[1:] // the subcommand names, in order
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return out
		case len(path) > 0 && a == path[0]:
			path = path[1:]
			continue
		case !strings.HasPrefix(a, "-") || a == "-":
			if !interspersed {
				return out
			}
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := lookup(name)
		if !strings.HasPrefix(a, "--") && len(name) > 1 && f != nil && cmd.Flags().ShorthandLookup(name[:1]) == nil {
			out[i] = "-" + a
		}
		// A flag's value is not an argument, even when it looks like one.
		if f != nil && !hasValue && f.NoOptDefVal == "" && (strings.HasPrefix(out[i], "--") || len(name) == 1) {
			i++
		}
	}
	return out
}

// oneLine keeps a reason to the one line that the exit-status convention
// promises; cobra's suggestions ("Did you mean this?") come after a blank
// line and are folded in.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// exitError carries the exit status of a command that failed; err is the
// one-line reason, or nil when the command has printed its own (a rules
// file's problems, one per line).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a command called wrongly: exit status 2.
func usageErrorf(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// failed is a command that could not do its work: exit status 1.
func failed(err error) error { return &exitError{code: 1, err: err} }

func failedf(format string, a ...any) error { return failed(fmt.Errorf(format, a...)) }

// exitSilently ends with code after the command reported the problem itself.
func exitSilently(code int) error { return &exitError{code: code} }

func newRootCmd(d deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "toolfailure",
		Short: "Structured classification of failed MCP tool calls, with correlation IDs support can look up",
		Long: `toolfailure gives failed MCP tool calls a structured classification (class, code, retry
timing, agent guidance) and a correlation ID that support can look up.

The service: serve, migrate, keys. Talking to a running service (--server and --key, or
TOOLFAILURE_SERVER and TOOLFAILURE_KEY): lookup, failures, groups, rules, corpus, proxy. On the database
directly: keys, retention. Offline: rules test, bench classify, conform.`,
		Example: `  toolfailure serve
  toolfailure lookup tf_01JZ8X4M7Q2R5T9V3W6Y8A1B2CQ --server http://127.0.0.1:8080
  toolfailure failures list --class reliability --since 1h
  toolfailure completion bash > /etc/bash_completion.d/toolfailure`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("toolfailure {{.Version}}\n")
	// Single-letter long forms (--f, --o, --v) were accepted by the
	// standard flag package; they keep working.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "f":
			name = "file"
		case "o":
			name = "out"
		case "v":
			name = "verbose"
		}
		return pflag.NormalizedName(name)
	})
	root.AddGroup(
		&cobra.Group{ID: "service", Title: "The service:"},
		&cobra.Group{ID: "client", Title: "Talking to a running service:"},
		&cobra.Group{ID: "offline", Title: "Offline and operations:"},
	)
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add("service", newServeCmd(d), newMigrateCmd(d), newKeysCmd(d))
	add("client", newLookupCmd(), newFailuresCmd(), newGroupsCmd(), newRulesCmd(), newCorpusCmd(), newProxyCmd())
	add("offline", newRetentionCmd(d), newBenchCmd(), newConformCmd())
	root.SetHelpCommand(&cobra.Command{
		Use:     "help [command]",
		Short:   "Help about any command",
		Example: "  toolfailure help rules apply",
		// An unknown topic is a usage error, not the root's help and success.
		RunE: func(cmd *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("unknown help topic %q", strings.Join(args, " "))
			}
			return c.Help()
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			c, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	})
	root.SetHelpCommandGroupID("offline")
	root.SetCompletionCommandGroupID("offline")
	return root
}

// groupCmd is a command that only holds subcommands: called alone or with
// an unknown subcommand it is a usage error, not a help page and success.
func groupCmd(use, short, example string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			if len(args) > 0 {
				return usageErrorf("unknown subcommand %q: use %s", args[0], strings.Join(names, ", "))
			}
			return usageErrorf("name a subcommand: %s", strings.Join(names, ", "))
		},
	}
	c.AddCommand(subs...)
	return c
}

// version is the module version the binary was built from, with the VCS
// revision when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// envString is a string flag whose default comes from an environment
// variable, read when the command runs rather than when the flag is
// defined, so that help shows "(from $NAME)" and never the value: the
// variable may hold a key or a database password.
type envString struct {
	value string // the flag's value, or the fallback until it is set
	set   bool
	env   string
}

// envStringVar defines an envString flag. fallback, the default when
// neither the flag nor the variable is set, must not be a secret: help
// shows it.
func envStringVar(fs *pflag.FlagSet, name, env, fallback, usage string) *envString {
	e := &envString{value: fallback, env: env}
	fs.Var(e, name, usage+" (from $"+env+")")
	return e
}

func (e *envString) String() string     { return e.value }
func (e *envString) Type() string       { return "string" }
func (e *envString) Set(v string) error { e.value, e.set = v, true; return nil }

// Get is the flag's value, else the variable's, else the fallback.
func (e *envString) Get() string {
	if !e.set {
		if v := os.Getenv(e.env); v != "" {
			return v
		}
	}
	return e.value
}

// outputFlags are --output text|json and its old spelling --json.
type outputFlags struct {
	format string
	json   bool
}

func addOutputFlags(fs *pflag.FlagSet) *outputFlags {
	o := &outputFlags{}
	fs.StringVar(&o.format, "output", "text", "output format: text or json")
	fs.BoolVar(&o.json, "json", false, "same as --output json (deprecated)")
	_ = fs.MarkHidden("json")
	return o
}

// completeWords completes a flag's value from a fixed list.
func completeWords(cmd *cobra.Command, flag string, words ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
}

// JSON reports whether JSON was asked for, or a usage error.
func (o *outputFlags) JSON(cmd *cobra.Command) (bool, error) {
	switch o.format {
	case "text", "json":
	default:
		return false, usageErrorf("--output %q: use text or json", o.format)
	}
	if o.json {
		if cmd.Flags().Changed("output") && o.format != "json" {
			return false, usageErrorf("--json contradicts --output %s", o.format)
		}
		return true, nil
	}
	return o.format == "json", nil
}
