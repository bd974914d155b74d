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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/mcpfailure"
	"github.com/omcp/toolfailure/mcpproxy"
)

// proxyFlags are proxy's flags.
type proxyFlags struct {
	cf       clientFlags
	upstream string
	listen   string
	label    string
	budget   time.Duration
	verbose  bool
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

Over stdio, stdout carries MCP messages only; logs go to stderr. The proxy
exits 0 when its input ends and 1 when the upstream goes away (calls in flight
are answered with a JSON-RPC error first).`,
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
	fs.StringVar(&f.listen, "listen", "", "serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio, one upstream session (for a command, one child) per client session")
	fs.StringVar(&f.label, "label", "", "server label failures are reported under (default: the upstream's serverInfo.name)")
	fs.DurationVar(&f.budget, "budget", mcpfailure.DefaultBudget, "how long a failed result may wait for the service before it is passed on unchanged")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log at debug level")
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
	client, err := f.cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	p, err := mcpproxy.New(mcpproxy.Config{
		Classifier: toolfailurev1connect.NewClassifierServiceClient(client),
		Server:     f.label,
		Budget:     f.budget,
		Logger:     logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	newUpstream := func() (mcp.Transport, error) {
		if f.upstream != "" {
			return &mcpproxy.HTTPUpstream{Endpoint: f.upstream, Logger: logger}, nil
		}
		return mcpproxy.Command(argv, stderr)
	}

	if f.listen != "" {
		return serveProxy(ctx, p, newUpstream, f.listen, stderr, logger)
	}
	up, err := newUpstream()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 2
	}
	clientSide := &mcp.IOTransport{Reader: os.Stdin, Writer: nopWriteCloser{stdout}}
	if err := p.Relay(ctx, clientSide, up); err != nil {
		fmt.Fprintln(stderr, "toolfailure proxy:", err)
		return 1
	}
	return 0
}

// serveProxy serves MCP over streamable HTTP until ctx is done.
func serveProxy(ctx context.Context, p *mcpproxy.Proxy, newUpstream func() (mcp.Transport, error), addr string, stderr io.Writer, logger *slog.Logger) int {
	h := p.Handler(newUpstream, nil)
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

// nopWriteCloser lets the proxy hand stdout to the SDK's transport, which
// closes its writer when the session ends, without closing stdout itself.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
