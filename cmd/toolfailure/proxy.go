package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/mcpfailure"
)

// proxyFlags are proxy's flags.
type proxyFlags struct {
	cf          clientFlags
	upstream    string
	listen      string
	label       string
	budget      time.Duration
	maxMessage  int
	maxSessions int
	idle        time.Duration
	maxTasks    int
	taskExpiry  time.Duration
	listenToken *envString
	metaKey     *envString
	verbose     bool
	log         logFlags
}

func newProxyCmd() *cobra.Command {
	var f proxyFlags
	cmd := &cobra.Command{
		Use:   "proxy [flags] [--] COMMAND [ARG…] | proxy [flags] --upstream URL",
		Short: "Front an MCP server and add toolFailure to its failed tool results",
		Long: `Fronts an MCP server and adds the toolFailure key to its failed tool results,
classified and recorded by the toolfailure service. Everything else passes
through unchanged. The server is started as a child process over stdio
(-- COMMAND ARG…, or COMMAND ARG… without --) or reached over streamable HTTP
(--upstream URL); the proxy serves it on its own stdin and stdout, or over
streamable HTTP with --listen. Flags end at the command: what follows it is
the command's own.

Without a key (--key or TOOLFAILURE_KEY) the proxy still starts and relays
everything unchanged, and says why on stderr; with one, it checks the service
at start-up and reports any problem there.

Over stdio, stdout carries MCP messages only; logs go to stderr. The proxy
exits 0 when its input ends and 1 when the upstream goes away (calls in flight
are answered with a JSON-RPC error first). A line from the client that is not
JSON-RPC is answered with -32700 or -32600 and the session goes on; a line on
the server's stdout that is not JSON-RPC (a banner, a log line) is skipped and
logged. Request IDs are relayed as they were written.`,
		Example: `  toolfailure proxy -- node server.js
  toolfailure proxy --upstream http://127.0.0.1:3000/mcp
  toolfailure proxy --listen 127.0.0.1:3001 -- python3 server.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := runProxy(cmd.Context(), f, args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitSilently(code)
			}
			return nil
		},
	}
	// The first argument that is not a flag is the command: its own flags
	// (node --inspect) must reach it, not the proxy.
	cmd.Flags().SetInterspersed(false)
	cmd.Annotations = map[string]string{annotationArgsAreACommand: ""}
	fs := cmd.Flags()
	f.cf = addClientFlags(fs)
	fs.StringVar(&f.upstream, "upstream", "", "streamable HTTP endpoint of the MCP server to front, instead of -- COMMAND")
	fs.StringVar(&f.listen, "listen", "", "serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio, one upstream session (for a command, one child) per client session, and one shared by the stateless protocol's requests")
	fs.StringVar(&f.label, "label", "", "server label failures are reported under (default: the upstream's serverInfo.name)")
	fs.DurationVar(&f.budget, "budget", mcpfailure.DefaultBudget, "how long a failed result may wait for the service before it is passed on unchanged")
	fs.IntVar(&f.maxMessage, "max-message-bytes", mcpproxy.DefaultMaxMessageBytes, "largest JSON-RPC message relayed; a larger one fails its own call only")
	fs.IntVar(&f.maxSessions, "max-sessions", mcpproxy.DefaultMaxSessions, "with --listen: most sessions (for a command, child processes) open at once")
	fs.DurationVar(&f.idle, "idle-timeout", mcpproxy.DefaultIdleTimeout, "with --listen: end a session after this long without a request or an open stream")
	fs.IntVar(&f.maxTasks, "max-tasks", mcpproxy.DefaultMaxTasks, "most tasks one session remembers, to classify a tool failure in a task's result; the oldest is forgotten first")
	fs.DurationVar(&f.taskExpiry, "task-expiry", mcpproxy.DefaultTaskExpiry, "how long a session remembers a task after its tools/call was answered")
	f.listenToken = envStringVar(fs, "listen-token", "TOOLFAILURE_PROXY_TOKEN", "", "with --listen: require Authorization: Bearer TOKEN")
	f.metaKey = envStringVar(fs, "meta-key", "TOOLFAILURE_META_KEY", mcpfailure.MetaKey, "the _meta key failures carry and the name the extension is advertised under; a vendor prefix (com.example/toolFailure) runs the draft outside io.modelcontextprotocol, with the same name set in the clients")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log at debug level (--log-level debug)")
	f.log = addLogFlags(fs)
	return cmd
}

// runProxy runs the proxy for the parsed flags and the upstream command
// argv, and returns the exit status; its messages name "toolfailure proxy".
func runProxy(ctx context.Context, f proxyFlags, argv []string, stdout, stderr io.Writer) int {
	switch {
	case f.upstream == "" && len(argv) == 0:
		fmt.Fprintln(stderr, "toolfailure proxy: name the MCP server: -- COMMAND ARG… or --upstream URL")
		return 2
	case f.upstream != "" && len(argv) > 0:
		fmt.Fprintln(stderr, "toolfailure proxy: give either --upstream or a command, not both")
		return 2
	}
	if f.maxTasks < 1 {
		fmt.Fprintf(stderr, "toolfailure proxy: --max-tasks %d: want 1 or more\n", f.maxTasks)
		return 2
	}
	if f.taskExpiry <= 0 {
		fmt.Fprintf(stderr, "toolfailure proxy: --task-expiry %v: want a positive duration\n", f.taskExpiry)
		return 2
	}
	if err := mcpfailure.CheckMetaKey(f.metaKey.Get()); err != nil {
		fmt.Fprintf(stderr, "toolfailure proxy: --meta-key: %v\n", err)
		return 2
	}
	// Without a key the proxy still starts and relays (fail-open); it says
	// why it does not annotate, and checks a configured service at once.
	var classifier mcpfailure.Classifier
	unavailable := ""
	if client, err := f.cf.client(); err != nil {
		unavailable = err.Error()
	} else {
		classifier = toolfailurev1connect.NewClassifierServiceClient(client)
	}
	if f.verbose && !f.log.levelSet() {
		_ = f.log.level.Set("debug") // --verbose predates --log-level, which wins when given
	}
	logger, err := f.log.logger(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	// Spans and metrics by the standard OTEL_* variables, off unless asked
	// for. Over stdio, stdout carries MCP alone: the console exporters,
	// which write there, would break the session.
	if f.listen == "" && (strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "console") || strings.EqualFold(os.Getenv("OTEL_METRICS_EXPORTER"), "console")) {
		fmt.Fprintln(stderr, "toolfailure proxy: the console exporters write to stdout, which carries MCP over stdio: use otlp, or --listen")
		return 2
	}
	sdk, err := telemetry.Setup(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = sdk.Shutdown(flushCtx)
	}()
	p, err := mcpproxy.New(mcpproxy.Config{
		Classifier:      classifier,
		Unavailable:     unavailable,
		ServiceURL:      f.cf.serverURL(),
		Server:          f.label,
		Budget:          f.budget,
		MaxMessageBytes: f.maxMessage,
		MetaKey:         f.metaKey.Get(),
		MaxTasks:        f.maxTasks,
		TaskExpiry:      f.taskExpiry,
		Logger:          logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	go func() { _ = p.CheckService(ctx) }() // reports on stderr and to clients
	childStderr := f.log.childStderr(stderr, logger)
	newUpstream := func() (mcp.Transport, error) {
		if f.upstream != "" {
			return &mcpproxy.HTTPUpstream{Endpoint: f.upstream, Logger: logger}, nil
		}
		return mcpproxy.Command(argv, childStderr)
	}

	if f.listen != "" {
		opts := &mcpproxy.HandlerOptions{IdleTimeout: f.idle, MaxSessions: f.maxSessions, BearerToken: f.listenToken.Get()}
		return serveProxy(ctx, p.Handler(newUpstream, opts), f.listen, stderr, logger)
	}
	up, err := newUpstream()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	if err := p.Relay(ctx, mcpproxy.Stdio(os.Stdin, stdout), up); err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 1
	}
	return 0
}

// serveProxy serves MCP over streamable HTTP until ctx is done.
func serveProxy(ctx context.Context, h *mcpproxy.Handler, addr string, stderr io.Writer, logger *slog.Logger) int {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// No write timeout: event streams stay open as long as a tool runs.
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 1
	}
	logger.Info(fmt.Sprintf("toolfailure proxy: serving MCP over streamable HTTP at http://%s/mcp", ln.Addr()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	code := 0
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		code = 1
	case <-ctx.Done():
	}
	// Sessions first: their event streams would otherwise hold Shutdown.
	_ = h.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("toolfailure proxy: shutdown", slog.Any("error", err))
	}
	return code
}
