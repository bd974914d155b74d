package mcpfailure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"connectrpc.com/connect/v2"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/serviceurl"
)

// The environment variables NewAnnotatorFromEnv reads: the same ones the
// toolfailure CLI, its proxy and the TypeScript package read.
const (
	envServer = "TOOLFAILURE_SERVER"
	envKey    = "TOOLFAILURE_KEY"
)

// startupCheckTimeout bounds the start-up check of NewAnnotatorFromEnv
// (the caller's context may bound it further). A service that has not
// answered by then counts as unreachable: a warning, not an error. It is
// shorter than the proxy's, which checks beside its relay: this one holds
// up the server's start.
const startupCheckTimeout = 5 * time.Second

// startupCheckTool is the tool name of the start-up check's Explain call,
// so that a rule author who sees it in a trace knows where it came from.
const startupCheckTool = "mcpfailure-startup-check"

// NewAnnotatorFromEnv is the one-call set-up of an Annotator: it reads the
// service's URL from TOOLFAILURE_SERVER and an API key with the report
// scope from TOOLFAILURE_KEY, checks them, and returns an Annotator whose
// Classifier talks to that service. cfg supplies the rest (Server, Budget,
// Logger, Telemetry, Annotations); its Classifier must be nil.
//
// The check is one cheap authenticated call that stores nothing (Explain,
// which needs the same key and scope as Classify), made before it returns:
//
//   - A configuration error is returned, saying what to set: a variable
//     that is not set, a URL that is not an http:// or https:// URL, a key
//     the service does not know or that lacks the report scope, or a URL
//     where something other than the toolfailure service answers.
//   - A service that cannot be reached, or does not answer within
//     five seconds (or by ctx's deadline), is not an error: the cause is logged as one
//     warning on cfg.Logger, and the Annotator works as NewAnnotator's does,
//     failing open (a failed result goes out without the key, as it would
//     without the middleware) until the service answers.
//
// The check also opens the connection to the service, which the first
// failure then reuses, so that connection set-up (TCP, TLS) is not spent
// out of that failure's Budget.
//
// The proxy (toolfailure proxy) makes the same check at start-up, with
// the same messages.
func NewAnnotatorFromEnv(ctx context.Context, cfg AnnotatorConfig) (*Annotator, error) {
	if cfg.Classifier != nil {
		return nil, errors.New("mcpfailure: NewAnnotatorFromEnv makes the Classifier from " + envServer + " and " + envKey + ": leave AnnotatorConfig.Classifier nil, or call NewAnnotator")
	}
	serviceURL := strings.TrimSpace(os.Getenv(envServer))
	key := strings.TrimSpace(os.Getenv(envKey))
	switch {
	case serviceURL == "" && key == "":
		return nil, errors.New("mcpfailure: the toolfailure service is not configured: set " + envServer +
			" to its URL (try http://127.0.0.1:8080) and " + envKey + " to an API key with the report scope")
	case serviceURL == "":
		return nil, errors.New("mcpfailure: " + envServer + " is not set: set it to the toolfailure service URL (try http://127.0.0.1:8080)")
	case key == "":
		return nil, errors.New("mcpfailure: no API key: set " + envKey + " to an API key with the report scope")
	}
	if err := serviceurl.Check(serviceURL); err != nil {
		return nil, fmt.Errorf("mcpfailure: %s: %w", envServer, err)
	}
	serviceURL = strings.TrimRight(serviceURL, "/") // as the CLI: the RPC paths follow it

	client := NewClassifierClient(startupHTTPClient(), serviceURL, key)
	cfg.Classifier = client
	a, err := NewAnnotator(cfg)
	if err != nil {
		return nil, err
	}

	limit := startupCheckTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < limit {
		limit = time.Until(dl).Round(time.Millisecond)
	}
	checkCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	_, err = client.Explain(checkCtx, &toolfailurev1.ExplainRequest{
		Tool:  startupCheckTool,
		Error: &toolfailurev1.RawError{Message: "start-up check of mcpfailure.Annotator"},
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			// The caller gave up (a shutdown during start-up): that is
			// neither a configuration error nor the service's fault.
			return nil, fmt.Errorf("mcpfailure: start-up check of the toolfailure service at %s: %w", serviceURL, context.Cause(ctx))
		}
		variable, why, fatal := explainStartupCheck(serviceURL, limit, err)
		if fatal {
			return nil, fmt.Errorf("mcpfailure: %s: %w", variable, why)
		}
		a.cfg.Logger.WarnContext(ctx, "toolfailure: failed tool results go out without the key until the service answers: "+why.Error(),
			slog.String("service", serviceURL))
		return a, nil
	}
	a.cfg.Logger.InfoContext(ctx, "toolfailure: the toolfailure service accepts the key; failed tool results will be annotated",
		slog.String("service", serviceURL))
	return a, nil
}

// startupHTTPClient is the HTTP client of an Annotator made from the
// environment: one of its own, so that the connection the start-up check
// opens stays in a pool nobody else closes or crowds, and the first
// failure finds it there.
func startupHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return &http.Client{Transport: t.Clone()}
	}
	return http.DefaultClient // a program that replaced it meant it for everything
}

// explainStartupCheck turns the start-up check's error into what to do
// about it, in the proxy's words, with the variable to fix and whether it
// is a configuration error (fatal) rather than a service that is away.
func explainStartupCheck(serviceURL string, limit time.Duration, err error) (variable string, why error, fatal bool) {
	at := " at " + serviceURL
	switch connect.CodeOf(err) {
	case connect.CodeUnauthenticated:
		return envKey, fmt.Errorf("the toolfailure service%s does not know the API key (unauthenticated): check the key", at), true
	case connect.CodePermissionDenied:
		return envKey, fmt.Errorf("the API key lacks the report scope that the annotator needs (permission denied by the toolfailure service%s): create a key with --scopes report", at), true
	case connect.CodeUnimplemented, connect.CodeNotFound:
		return envServer, fmt.Errorf("the server%s answers, but not as a toolfailure service (%v): check the URL", at, err), true
	case connect.CodeDeadlineExceeded:
		return envServer, fmt.Errorf("the toolfailure service%s did not answer within %v", at, limit), false
	case connect.CodeUnavailable:
		return envServer, fmt.Errorf("cannot reach the toolfailure service%s: %v", at, err), false
	}
	return envServer, fmt.Errorf("the start-up check against the toolfailure service%s failed: %v", at, err), false
}
