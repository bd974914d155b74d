package mcpproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// syncBuffer is a log destination that tests read while the proxy writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestNoServiceRelaysUnchangedAndSaysSo: a proxy without a service (a host
// that passes no key) starts, relays every message unchanged, and says once
// on its log, and once per session to a client that accepts log messages,
// why it is not annotating.
func TestNoServiceRelaysUnchangedAndSaysSo(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	p, err := mcpproxy.New(mcpproxy.Config{
		Unavailable: "no API key: pass --key or set TOOLFAILURE_KEY",
		Logger:      slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatalf("New without a service: %v", err)
	}
	for _, transport := range transports {
		t.Run(strings.NewReplacer("/", "-", "@", "-").Replace(transport), func(t *testing.T) {
			u := newUpstreamServer(t)
			messages := make(chan string, 8)
			cs := setupSession(t, p, u, transport, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					s, _ := req.Params.Data.(string)
					messages <- string(req.Params.Level) + " " + req.Params.Logger + ": " + s
				},
			})
			ctx := t.Context()
			// On the stateless protocol a request asks for log messages in
			// its _meta; on the others, the handshake is enough.
			meta := mcp.Meta{mcp.MetaKeyLogLevel: "info"}
			for range 2 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "unavailable", Meta: meta})
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				var sent mcp.CallToolResult
				if err := json.Unmarshal(u.lastResult("unavailable"), &sent); err != nil {
					t.Fatal(err)
				}
				if !res.IsError || servicetest.TextOf(res) != servicetest.TextOf(&sent) || res.Meta[mcpfailure.MetaKey] != nil {
					t.Errorf("failed result changed without a service:\n got %s\nsent %s", resultJSON(t, res), u.lastResult("unavailable"))
				}
			}
			select {
			case m := <-messages:
				if !strings.Contains(m, "NOT annotating") || !strings.Contains(m, "no API key") || !strings.HasPrefix(m, "warning toolfailure-proxy") {
					t.Errorf("log message to the client: %q", m)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the client was not told that the proxy does not annotate")
			}
			select {
			case m := <-messages:
				t.Errorf("a second log message in the session: %q", m)
			default:
			}
		})
	}
	if n := strings.Count(log.String(), "NOT annotating"); n != 1 {
		t.Errorf("the warning is on the log %d times, want once:\n%s", n, log.String())
	}
}

// TestCheckService: the start-up check names the exact problem of a wrong
// key, a key without the report scope, a URL without a scheme, a URL that is
// not the service, and a service that is not there; and passes a good setup.
func TestCheckService(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	notService := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notService.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := "http://" + ln.Addr().String()
	_ = ln.Close()

	for _, tc := range []struct {
		name, url, key, want string
	}{
		{"good", svc.url, svc.reportKey, ""},
		{"wrong-key", svc.url, "tfk_not_a_key_of_this_service", "does not know the API key"},
		{"wrong-scope", svc.url, svc.lookupKey, "lacks the report scope"},
		{"no-scheme", strings.TrimPrefix(svc.url, "http://"), svc.reportKey, "does not start with http:// or https://"},
		{"not-the-service", notService.URL, svc.reportKey, "not as a toolfailure service"},
		{"unreachable", nobody, svc.reportKey, "cannot reach the toolfailure service at " + nobody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log syncBuffer
			p, err := mcpproxy.New(mcpproxy.Config{
				Classifier: mcpfailure.NewClassifierClient(nil, tc.url, tc.key),
				ServiceURL: tc.url,
				Logger:     slog.New(slog.NewTextHandler(&log, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			err = p.CheckService(t.Context())
			if tc.want == "" {
				if err != nil || p.Warning() != "" {
					t.Fatalf("CheckService: %v (warning %q), want nil", err, p.Warning())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckService: %v, want an error saying %q", err, tc.want)
			}
			if !strings.Contains(p.Warning(), tc.want) || !strings.Contains(log.String(), tc.want) {
				t.Errorf("warning %q, log %q: want both to say %q", p.Warning(), log.String(), tc.want)
			}
			if strings.Contains(log.String(), tc.key) || strings.Contains(p.Warning(), tc.key) {
				t.Error("the warning shows the key")
			}
		})
	}
}
