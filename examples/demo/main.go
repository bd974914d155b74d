// Command demo runs the toolFailure proposal end to end on one machine:
//
//	npm ci --prefix examples/demo   # once, for part 2 (Node >= 18)
//	go run ./examples/demo -out toolfailure-demo
//	go run ./cmd/toolfailure conform toolfailure-demo/*.json
//
// It starts the toolfailure service in-process on the embedded store (a
// fresh database in a temporary directory). Part 1: an MCP server whose
// tools fail in each class of the proposal, and an MCP client that calls
// every tool through a mcpfailure.Dispatcher. For each call it prints what
// the client saw and what it decided (retried, stopped, asked the user),
// with the correlation IDs, then looks one ID up the way a support engineer
// would.
//
// Part 2: a server that knows nothing of the proposal, the official MCP
// filesystem server from npm, unmodified, started over stdio by the proxy
// (mcpproxy, the relay of "toolfailure proxy --listen"); the same client
// calls it through the proxy. For a denied read and a missing file it
// prints what a client that does not know the proposal gets beside what
// the Dispatcher reads from the key the proxy added and decides. Without
// Node or the package it prints one line saying so and skips the part.
//
// The MCP servers speak streamable HTTP on local ports (part 2: the proxy
// does), as deployed servers would, and the service is reached over HTTP
// with an API key: the only thing in-process about the demo is that the
// service, the servers and the client run in one binary.
//
// Part 3, the reviewer's packet: where each requirement of the proposal is
// implemented and tested, generated from the official scenario's
// traceability file (conformance/sep-3313).
//
// With -server and -key it uses a running service instead (the key needs
// the report and lookup scopes). With -out it writes every tool result the
// client received, one JSON file per attempt, for the conformance checker.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/mcpfailure"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory to write each tool result to, as JSON, for `toolfailure conform`")
	serviceURL := fs.String("server", "", "use this running toolfailure service instead of an in-process one")
	key := fs.String("key", os.Getenv("TOOLFAILURE_KEY"), "API key for -server, with scopes report and lookup (env TOOLFAILURE_KEY)")
	node := fs.String("node", "", "Node binary for the third-party part (default: node on PATH)")
	fsPkg := fs.String("filesystem-server", "", "directory of the installed "+filesystemPackage+" package (default: examples/demo/node_modules, from "+installHint+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := options{outDir: *out, serviceURL: *serviceURL, key: *key, node: *node, filesystemPackage: *fsPkg}
	if err := demo(ctx, opts, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	return 0
}

// options are the demo's flags.
type options struct {
	outDir, serviceURL, key string
	// node and filesystemPackage locate the third-party part's server;
	// empty means node on PATH and the package npm ci installs.
	node, filesystemPackage string
}

func demo(ctx context.Context, o options, w, logw io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	outDir, serviceURL, key := o.outDir, o.serviceURL, o.key

	where := serviceURL
	if serviceURL == "" {
		svc, err := startService(ctx)
		if err != nil {
			return err
		}
		defer svc.close()
		serviceURL, key, where = svc.url, svc.key, svc.url+" (in-process, embedded store in a temporary directory)"
	} else if key == "" {
		return errors.New("-server needs -key (or TOOLFAILURE_KEY)")
	}

	annotator, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
		Classifier: mcpfailure.NewClassifierClient(nil, serviceURL, key),
		Server:     "demo-tools",
		// Generous for a laptop that is busy compiling; the default suits
		// a service next to the MCP server.
		Budget: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logw, nil)),
	})
	if err != nil {
		return err
	}
	mcpURL, stopMCP, err := serveMCP(toolServer(annotator))
	if err != nil {
		return err
	}
	defer stopMCP()

	rec := &recorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "demo-agent", Version: "v1"}, nil)
	client.AddSendingMiddleware(rec.middleware)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("connect to the MCP server: %w", err)
	}
	defer session.Close()
	// The demo's client trusts the demo's server: without that, the
	// server's idempotentHint would not count and nothing would be retried.
	dispatcher, err := mcpfailure.NewDispatcher(session, mcpfailure.DispatcherConfig{Trusted: true})
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "toolfailure demo\n  service     %s\n\n", where)
	fmt.Fprintf(w, "Part 1: the project's own Go MCP server, with the toolFailure middleware\n")
	fmt.Fprintf(w, "  MCP server  %s (streamable HTTP), client trusts it\n\n", mcpURL)

	var lookupID string
	for i, sc := range scenarios {
		res, rep, callErr := dispatcher.CallTool(ctx, &mcp.CallToolParams{Name: sc.tool, Arguments: sc.args})
		if callErr != nil && res == nil && rep.ProtocolError == nil {
			return fmt.Errorf("call %s: %w", sc.tool, callErr)
		}
		printScenario(w, i+1, sc, res, rep)
		if sc.lookup && len(rep.CorrelationIDs) > 0 {
			lookupID = rep.CorrelationIDs[len(rep.CorrelationIDs)-1]
		}
	}

	if lookupID != "" {
		if err := printLookup(ctx, w, mcpfailure.NewFailureClient(nil, serviceURL, key), lookupID); err != nil {
			return err
		}
	}
	if st := annotator.Stats(); st.Missed > 0 {
		fmt.Fprintf(w, "\nnote: %d failed results went out unclassified (service slow or down); see the log above\n", st.Missed)
	}

	fmt.Fprintln(w)
	if fsrv, why := findFilesystemServer(ctx, o.node, o.filesystemPackage); fsrv == nil {
		fmt.Fprintln(w, skippedLine+why)
	} else if err := thirdParty(ctx, w, logw, len(scenarios)+1, fsrv, serviceURL, key, rec); err != nil {
		return fmt.Errorf("third-party server part: %w", err)
	}
	if err := printPacket(w, 3); err != nil {
		return err
	}
	if outDir != "" {
		files, err := rec.write(outDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nwrote %d results to %s; check them with\n  go run ./cmd/toolfailure conform %s\n",
			len(files), outDir, filepath.Join(outDir, "*.json"))
	}
	return nil
}

// scenario is one tool call of the demo and what it shows.
type scenario struct {
	tool   string
	args   map[string]any
	what   string
	lookup bool
}

var scenarios = []scenario{
	{tool: "get_forecast", args: map[string]any{"city": "Lisbon"},
		what: "flaky: HTTP 503 with Retry-After: 1 twice, then fine; idempotentHint true"},
	{tool: "list_calendar", args: map[string]any{"day": "today"},
		what: "its OAuth token expired: HTTP 401", lookup: true},
	{tool: "export_contacts", args: map[string]any{"format": "csv"},
		what: "refused by the organisation's data-export policy"},
	{tool: "create_ticket", args: map[string]any{"title": "Printer on fire", "priority": "urgent!!"},
		what: "called with invalid arguments (priority not in the enum)"},
	{tool: "send_invoice", args: map[string]any{"invoice": "INV-7"},
		what: "flaky like get_forecast, but not idempotent (sending twice bills twice)"},
}

// toolServer is the demo's MCP server: every tool fails the way its
// scenario says, and the Annotator adds the toolFailure key on the way out.
func toolServer(a *mcpfailure.Annotator) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "demo-tools", Version: "v1"}, nil)

	type forecastArgs struct {
		City string `json:"city"`
	}
	var forecastCalls int
	var mu sync.Mutex
	mcp.AddTool(s, &mcp.Tool{Name: "get_forecast", Description: "Weather forecast for a city.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in forecastArgs) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			forecastCalls++
			n := forecastCalls
			mu.Unlock()
			if n <= 2 {
				return nil, nil, &mcpfailure.ToolError{
					Message: "weather backend unavailable (HTTP 503)", HTTPStatus: http.StatusServiceUnavailable, RetryAfter: "1"}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny, 21 °C in " + in.City}}}, nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "list_calendar", Description: "Events of a day.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcpfailure.ToolError{
				Message: "calendar API: 401 Unauthorized: the access token expired", HTTPStatus: http.StatusUnauthorized, Type: "HttpError"}
		})

	mcp.AddTool(s, &mcp.Tool{Name: "export_contacts", Description: "Export all contacts.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcpfailure.ToolError{
				Message:    "export blocked by policy DLP-12: bulk export of personal data is not allowed",
				HTTPStatus: http.StatusForbidden, Type: "PolicyViolation",
				Details: map[string]any{"reason_code": "policy_blocked", "policy": "DLP-12"},
			}
		})

	type ticketArgs struct {
		Title    string `json:"title"`
		Priority string `json:"priority" jsonschema:"one of low, normal, high"`
	}
	ticketTool := &mcp.Tool{Name: "create_ticket", Description: "Open a support ticket.",
		InputSchema: map[string]any{
			"type":                 "object",
			"required":             []string{"title", "priority"},
			"additionalProperties": false,
			"properties": map[string]any{
				"title":    map[string]any{"type": "string"},
				"priority": map[string]any{"type": "string", "enum": []string{"low", "normal", "high"}},
			},
		}}
	mcp.AddTool(s, ticketTool, func(ctx context.Context, req *mcp.CallToolRequest, in ticketArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ticket opened"}}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{Name: "send_invoice", Description: "Email an invoice to the customer.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false}},
		func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcpfailure.ToolError{
				Message: "mail relay unavailable (HTTP 503)", HTTPStatus: http.StatusServiceUnavailable, RetryAfter: "1"}
		})

	s.AddReceivingMiddleware(a.Middleware)
	return s
}

func printScenario(w io.Writer, n int, sc scenario, res *mcp.CallToolResult, rep *mcpfailure.Report) {
	fmt.Fprintf(w, "%d. %s — %s\n", n, sc.tool, sc.what)
	switch {
	case rep.Class != "":
		saw := fmt.Sprintf("%s / %s", rep.Class, rep.Code)
		switch {
		case rep.Retryable && !rep.RetryNotBefore.IsZero():
			saw += ", retryable, with retryNotBefore"
		case rep.Retryable:
			saw += ", retryable"
		case rep.Class == mcpfailure.ClassReliability:
			saw += ", not retryable"
		}
		fmt.Fprintf(w, "   saw       %s\n", saw)
	case rep.ProtocolError != nil:
		fmt.Fprintf(w, "   saw       JSON-RPC error %d: %s\n", rep.ProtocolError.Code, rep.ProtocolError.Message)
	default:
		fmt.Fprintf(w, "   saw       an error result without toolFailure\n")
	}
	if rep.AgentGuidance != "" {
		fmt.Fprintf(w, "   guidance  %q\n", rep.AgentGuidance)
	}
	decided := strings.ToUpper(strings.ReplaceAll(string(rep.Action), "_", " "))
	fmt.Fprintf(w, "   decided   %s after %d attempt%s: %s\n", decided, rep.Attempts, plural(rep.Attempts), rep.Reason)
	if len(rep.Waits) > 0 {
		var ws []string
		for _, d := range rep.Waits {
			ws = append(ws, d.Round(10*time.Millisecond).String())
		}
		fmt.Fprintf(w, "   waited    %s before the retries\n", strings.Join(ws, ", "))
	}
	if len(rep.CorrelationIDs) > 0 {
		fmt.Fprintf(w, "   ids       %s\n", strings.Join(rep.CorrelationIDs, ", "))
	}
	if res != nil && !res.IsError {
		fmt.Fprintf(w, "   result    %q\n", firstText(res))
	}
	fmt.Fprintln(w)
}

func printLookup(ctx context.Context, w io.Writer, failures interface {
	GetFailure(context.Context, *toolfailurev1.GetFailureRequest) (*toolfailurev1.GetFailureResponse, error)
}, id string,
) error {
	got, err := failures.GetFailure(ctx, &toolfailurev1.GetFailureRequest{CorrelationId: id})
	if err != nil {
		return fmt.Errorf("look up %s: %w", id, err)
	}
	f := got.GetFailure()
	fmt.Fprintf(w, "Support looks up %s (FailureService.GetFailure):\n", id)
	fmt.Fprintf(w, "   tool %s on %s, %s / %s, rule %s, stored %s\n", f.GetTool(), f.GetServer(),
		classwire.Word(f.GetClass()), f.GetCode(), f.GetRuleId(),
		f.GetCreatedAt().AsTime().Format(time.RFC3339))
	e := f.GetError()
	var about []string
	if e.GetType() != "" {
		about = append(about, "type "+e.GetType())
	}
	if e.GetHttpStatus() != 0 {
		about = append(about, fmt.Sprintf("HTTP %d", e.GetHttpStatus()))
	}
	fmt.Fprintf(w, "   error %q", e.GetMessage())
	if len(about) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(about, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

func firstText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// recorder keeps every tools/call result the client received, so that the
// demo can save them for the conformance checker. It is client sending
// middleware: it sees each attempt, including those the dispatcher retried.
type recorder struct {
	mu      sync.Mutex
	results []recorded
}

type recorded struct {
	tool string
	call string // tool and arguments: the attempts of one call share it
	doc  []byte
}

func (r *recorder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if p, ok := req.GetParams().(*mcp.CallToolParams); ok && err == nil {
			if doc, merr := json.MarshalIndent(res, "", "  "); merr == nil {
				r.mu.Lock()
				args, _ := json.Marshal(p.Arguments)
				r.results = append(r.results, recorded{p.Name, p.Name + string(args), doc})
				r.mu.Unlock()
			}
		}
		return res, err
	}
}

func (r *recorder) write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	attempts := map[string]int{}
	var files []string
	for i, rec := range r.results {
		attempts[rec.call]++
		name := filepath.Join(dir, fmt.Sprintf("%02d-%s-attempt%d.json", i+1, rec.tool, attempts[rec.call]))
		if err := os.WriteFile(name, append(rec.doc, '\n'), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		files = append(files, name)
	}
	return files, nil
}

// service is the toolfailure service running in this process.
type service struct {
	url   string
	key   string
	close func()
}

// startService runs the real service on a fresh embedded store, with one
// tenant and a key that may report failures and look them up.
func startService(ctx context.Context) (*service, error) {
	dir, err := os.MkdirTemp("", "toolfailure-demo-")
	if err != nil {
		return nil, fmt.Errorf("create the store's directory: %w", err)
	}
	cleanup := []func(){func() { _ = os.RemoveAll(dir) }}
	fail := func(err error) (*service, error) {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
		return nil, err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "toolfailure.db"))
	if err != nil {
		return fail(fmt.Errorf("open the embedded store: %w", err))
	}
	cleanup = append(cleanup, func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		return fail(fmt.Errorf("migrate the embedded store: %w", err))
	}
	tenant, err := st.EnsureTenant(ctx, "demo")
	if err != nil {
		return fail(fmt.Errorf("create the demo tenant: %w", err))
	}
	k, err := apikey.New()
	if err != nil {
		return fail(err)
	}
	if _, err := st.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: tenant.ID, Hash: k.Hash,
		Scopes: []string{apikey.ScopeReport, apikey.ScopeLookup}}); err != nil {
		return fail(fmt.Errorf("create the demo key: %w", err))
	}
	h, err := server.New(server.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fail(err)
	}
	url, stop, err := serveHTTP(h)
	if err != nil {
		return fail(err)
	}
	cleanup = append(cleanup, stop)
	return &service{url: url, key: k.Secret, close: func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}}, nil
}

// serveMCP serves s over streamable HTTP on a free local port. Stateless,
// because that is how the SDK speaks protocol 2026-07-28 over HTTP (a
// stateful handler negotiates 2025-11-25, whose results lack resultType).
func serveMCP(s *mcp.Server) (url string, stop func(), err error) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	url, stop, err = serveHTTP(h)
	return url + "/mcp", stop, err
}

func serveHTTP(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
