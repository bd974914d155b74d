package mcpfailure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/mcpfailure"
	tfserver "github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
)

// A client reads the object of a failed result with Parse and dispatches on
// its class.
func ExampleParse() {
	var res mcp.CallToolResult
	_ = json.Unmarshal([]byte(`{
		"content": [{"type": "text", "text": "token expired"}],
		"isError": true,
		"_meta": {"io.modelcontextprotocol/toolFailure": {
			"class": "governance", "code": "auth_required",
			"correlationId": "tf_01M8N3YJHAFJPBR162ETPFRX5AD",
			"agentGuidance": "Ask the user to sign in again."}}}`), &res)

	tf, present, err := mcpfailure.Parse(&res)
	if err != nil || !present {
		fmt.Println("no usable toolFailure: behave as before")
		return
	}
	switch tf.Class {
	case mcpfailure.ClassGovernance:
		fmt.Printf("ask the user (%s), quoting %s\n", tf.Code, tf.CorrelationID)
	case mcpfailure.ClassCapability:
		fmt.Println("give up")
	case mcpfailure.ClassReliability:
		fmt.Println("maybe retry")
	}
	// Output: ask the user (auth_required), quoting tf_01M8N3YJHAFJPBR162ETPFRX5AD
}

// Protocol errors are mapped onto the same decision as tool results.
func ExampleProtocolFailure() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rateLimited := &jsonrpc.Error{Code: -32029, Message: "rate limited", Data: json.RawMessage(`{"retryAfter": 20}`)}
	tf, _ := mcpfailure.ProtocolFailure(rateLimited, now)
	fmt.Println(tf.Class, tf.Code, tf.Retryable, tf.RetryNotBefore.Sub(now))

	tf, _ = mcpfailure.ProtocolFailure(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `unknown tool "sned_email"`}, now)
	fmt.Println(tf.Class, tf.Code)
	// Output:
	// reliability retryable_transient_error true 20s
	// capability capability_unsupported
}

// A Dispatcher retries a retryable reliability failure of an idempotent tool
// on a trusted server that advertises the extension.
func ExampleDispatcher() {
	ctx := context.Background()
	// This server classifies its own failures, and says so in its
	// capabilities; a key from a server that does not is never retried on.
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpfailure.MetaKey, map[string]any{"version": mcpfailure.ExtensionVersion})
	server := mcp.NewServer(&mcp.Implementation{Name: "inventory", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	calls := 0
	server.AddTool(&mcp.Tool{
		Name:        "get_stock",
		InputSchema: map[string]any{"type": "object"},
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if calls++; calls < 3 {
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: "inventory busy"}},
				IsError: true,
				Meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{
					"class": "reliability", "code": "retryable_transient_error", "retryable": true,
					"correlationId": fmt.Sprintf("tf_example_%d", calls),
				}},
			}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "42 in stock"}}}, nil
	})
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	d, err := mcpfailure.NewDispatcher(session, mcpfailure.DispatcherConfig{Trusted: true})
	if err != nil {
		log.Fatal(err)
	}
	res, rep, err := d.CallTool(ctx, &mcp.CallToolParams{Name: "get_stock"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(rep.Action, rep.Attempts, rep.CorrelationIDs)
	// Output:
	// 42 in stock
	// retried 3 [tf_example_1 tf_example_2]
}

// fixedClassifier stands in for the toolfailure service so that this example
// runs on its own; a real server uses NewClassifierClient.
type fixedClassifier struct{}

func (fixedClassifier) Classify(_ context.Context, req *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	return &toolfailurev1.ClassifyResponse{ToolFailure: &toolfailurev1.ToolFailure{
		Class: toolfailurev1.Class_CLASS_GOVERNANCE, Code: "auth_required",
		CorrelationId: "tf_01M8N3YJHAFJPBR162ETPFRX5AD",
		AgentGuidance: "Ask the user to sign in to " + req.GetTool() + "'s provider.",
	}}, nil
}

// An Annotator is receiving middleware on the server: failed results leave
// with the toolFailure key.
func ExampleAnnotator() {
	ctx := context.Background()
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{
		Classifier: fixedClassifier{}, // mcpfailure.NewClassifierClient(nil, serviceURL, apiKey)
		Server:     "mail-mcp",
	})
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "send_email"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcpfailure.ToolError{Message: "SMTP login failed: token expired", HTTPStatus: 401}
		})
	server.AddReceivingMiddleware(a.Middleware)

	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "send_email"})
	if err != nil {
		log.Fatal(err)
	}
	tf, _, _ := mcpfailure.Parse(res)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(tf.Class, tf.Code, tf.CorrelationID)
	fmt.Printf("%+v\n", a.Stats())
	// Output:
	// SMTP login failed: token expired
	// governance auth_required tf_01M8N3YJHAFJPBR162ETPFRX5AD
	// {Failed:1 Classified:1 AlreadyTagged:0 Missed:0 MissedTimeout:0}
}

// NewAnnotatorFromEnv is the whole set-up: it reads TOOLFAILURE_SERVER and
// TOOLFAILURE_KEY (which an MCP host passes in the server's "env" block),
// checks the service at once, and fails at start-up on a configuration
// error, saying what to set. A service that is away only gets a warning:
// the server starts, and failures go out without the key until it answers.
func ExampleNewAnnotatorFromEnv() {
	stop := exampleEnvironment() // a local service, and the two variables a host would set
	defer stop()

	ctx := context.Background()
	a, err := mcpfailure.NewAnnotatorFromEnv(ctx, mcpfailure.AnnotatorConfig{Server: "mail-mcp"})
	if err != nil {
		log.Fatal(err) // such as: TOOLFAILURE_KEY: the toolfailure service at … does not know the API key
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "send_email"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return nil, nil, &mcpfailure.ToolError{Message: "SMTP login failed: token expired", HTTPStatus: 401}
		})
	server.AddReceivingMiddleware(a.Middleware)

	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "send_email"})
	if err != nil {
		log.Fatal(err)
	}
	tf, _, _ := mcpfailure.Parse(res)
	fmt.Println(tf.Class, tf.Code, strings.HasPrefix(tf.CorrelationID, "tf_"))
	// Output:
	// governance auth_required true
}

// exampleEnvironment runs the toolfailure service on an embedded store in
// a temporary directory, as `toolfailure serve` would, and sets
// TOOLFAILURE_SERVER and TOOLFAILURE_KEY to it with a key of the report
// scope. stop undoes all of it.
func exampleEnvironment() (stop func()) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mcpfailure-example-")
	if err != nil {
		log.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "toolfailure.db"))
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	tenant, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		log.Fatal(err)
	}
	key, err := apikey.New()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := st.CreateAPIKey(ctx, store.APIKey{ID: key.ID, TenantID: tenant.ID, Hash: key.Hash, Scopes: []string{apikey.ScopeReport}}); err != nil {
		log.Fatal(err)
	}
	h, err := tfserver.New(tfserver.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)

	restore := map[string]*string{}
	for name, value := range map[string]string{"TOOLFAILURE_SERVER": srv.URL, "TOOLFAILURE_KEY": key.Secret} {
		if old, ok := os.LookupEnv(name); ok {
			restore[name] = &old
		} else {
			restore[name] = nil
		}
		_ = os.Setenv(name, value)
	}
	return func() {
		for name, old := range restore {
			if old != nil {
				_ = os.Setenv(name, *old)
			} else {
				_ = os.Unsetenv(name)
			}
		}
		srv.Close()
		_ = st.Close()
		_ = os.RemoveAll(dir)
	}
}
