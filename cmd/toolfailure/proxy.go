package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/mcpfailure"
	"github.com/omcp/toolfailure/mcpproxy"
)

const proxyUsage = `usage: toolfailure proxy [flags] -- COMMAND [ARG…]
       toolfailure proxy [flags] --upstream URL

Fronts an MCP server and adds the toolFailure key to its failed tool results,
classified and recorded by the toolfailure service. Everything else passes
through unchanged. The server is started as a child process over stdio
(-- COMMAND ARG…) or reached over streamable HTTP (--upstream URL); the proxy
serves it on its own stdin and stdout, or over streamable HTTP with --listen.

The "--" before COMMAND is optional. Without a key (--key or TOOLFAILURE_KEY)
the proxy still starts and relays everything unchanged, and says why on stderr;
with one, it checks the service at start-up and reports any problem there.

Over stdio, stdout carries MCP messages only; logs go to stderr. The proxy
exits 0 when its input ends and 1 when the upstream goes away (calls in flight
are answered with a JSON-RPC error first).

Flags:
`

func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	cf := addClientFlags(fs)
	upstream := fs.String("upstream", "", "streamable HTTP endpoint of the MCP server to front, instead of -- COMMAND")
	listen := fs.String("listen", "", "serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio, one upstream session (for a command, one child) per client session")
	label := fs.String("label", "", "server label failures are reported under (default: the upstream's serverInfo.name)")
	budget := fs.Duration("budget", mcpfailure.DefaultBudget, "how long a failed result may wait for the service before it is passed on unchanged")
	maxMessage := fs.Int("max-message-bytes", mcpproxy.DefaultMaxMessageBytes, "largest JSON-RPC message relayed; a larger one fails its own call only")
	maxSessions := fs.Int("max-sessions", mcpproxy.DefaultMaxSessions, "with --listen: most sessions (for a command, child processes) open at once")
	idle := fs.Duration("idle-timeout", mcpproxy.DefaultIdleTimeout, "with --listen: end a session after this long without a request or an open stream")
	listenToken := fs.String("listen-token", "", "with --listen: require Authorization: Bearer TOKEN (default from $TOOLFAILURE_PROXY_TOKEN)")
	verbose := fs.Bool("v", false, "log at debug level")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), proxyUsage)
		fs.PrintDefaults()
	}
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	argv := fs.Args()
	switch {
	case *upstream == "" && len(argv) == 0:
		fmt.Fprintln(stderr, "toolfailure proxy: name the MCP server: -- COMMAND ARG… or --upstream URL")
		return 2
	case *upstream != "" && len(argv) > 0:
		fmt.Fprintln(stderr, "toolfailure proxy: give either --upstream or a command, not both")
		return 2
	}
	// Without a key the proxy still starts and relays (fail-open); it says
	// why it does not annotate, and checks a configured service at once.
	var classifier mcpfailure.Classifier
	unavailable := ""
	if client, err := cf.client(); err != nil {
		unavailable = err.Error()
	} else {
		classifier = toolfailurev1connect.NewClassifierServiceClient(client)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	p, err := mcpproxy.New(mcpproxy.Config{
		Classifier:      classifier,
		Unavailable:     unavailable,
		ServiceURL:      *cf.server,
		Server:          *label,
		Budget:          *budget,
		MaxMessageBytes: *maxMessage,
		Logger:          logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	go func() { _ = p.CheckService(ctx) }() // reports on stderr and to clients
	newUpstream := func() (mcp.Transport, error) {
		if *upstream != "" {
			return &mcpproxy.HTTPUpstream{Endpoint: *upstream, Logger: logger}, nil
		}
		return mcpproxy.Command(argv, stderr)
	}

	if *listen != "" {
		if *listenToken == "" {
			*listenToken = os.Getenv("TOOLFAILURE_PROXY_TOKEN")
		}
		opts := &mcpproxy.HandlerOptions{IdleTimeout: *idle, MaxSessions: *maxSessions, BearerToken: *listenToken}
		return serveProxy(ctx, p.Handler(newUpstream, opts), *listen, stderr, logger)
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
	fmt.Fprintf(stderr, "toolfailure proxy: serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())
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
		fmt.Fprintln(stderr, "toolfailure proxy: shutdown:", err)
	}
	return code
}
