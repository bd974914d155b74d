package mcpfailure_test

import (
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// The tests of NewAnnotatorFromEnv set the process environment with
// t.Setenv, so none of them is parallel.

// fromEnv sets the two variables (an empty value as if unset, which is how
// NewAnnotatorFromEnv reads it) and calls NewAnnotatorFromEnv with a logger
// the test can read.
func fromEnv(t *testing.T, serviceURL, key string) (*mcpfailure.Annotator, *syncBuffer, error) {
	t.Helper()
	t.Setenv("TOOLFAILURE_SERVER", serviceURL)
	t.Setenv("TOOLFAILURE_KEY", key)
	logs := &syncBuffer{}
	a, err := mcpfailure.NewAnnotatorFromEnv(t.Context(), mcpfailure.AnnotatorConfig{
		Server: "test-tools",
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	return a, logs, err
}

// wantConfigError checks that err is a start-up error that contains each of
// want, and that no Annotator came with it.
func wantConfigError(t *testing.T, a *mcpfailure.Annotator, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("NewAnnotatorFromEnv succeeded (%v); want an error containing %q", a, want)
	}
	if a != nil {
		t.Errorf("NewAnnotatorFromEnv returned an Annotator with the error %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// TestFromEnvNotSet: without the variables there is nothing to report to,
// and the error names what to set.
func TestFromEnvNotSet(t *testing.T) {
	cases := []struct {
		name, url, key string
		want           []string
	}{
		{"nothing", "", "", []string{"TOOLFAILURE_SERVER", "TOOLFAILURE_KEY", "try http://127.0.0.1:8080", "report scope"}},
		{"no URL", "", "tfk_whatever", []string{"TOOLFAILURE_SERVER is not set", "try http://127.0.0.1:8080"}},
		{"no key", "http://127.0.0.1:8080", "", []string{"no API key: set TOOLFAILURE_KEY"}},
		{"blank", "  ", " \n", []string{"TOOLFAILURE_SERVER", "TOOLFAILURE_KEY"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := fromEnv(t, c.url, c.key)
			wantConfigError(t, a, err, c.want...)
		})
	}
}

// TestFromEnvMalformedURL: a URL the HTTP client would turn into
// "unsupported protocol scheme" at every failure is refused at start-up,
// with the proxy's advice, before any call is made.
func TestFromEnvMalformedURL(t *testing.T) {
	cases := []struct{ url, want string }{
		{"127.0.0.1:18080", `"127.0.0.1:18080" does not start with http:// or https:// (try http://127.0.0.1:18080)`},
		{"localhost:8080", `"localhost:8080" does not start with http:// or https:// (try http://localhost:8080)`},
		{"ftp://toolfailure.example.com", `does not start with http:// or https://`},
		{"http://", `names no host`},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			a, _, err := fromEnv(t, c.url, "tfk_whatever")
			wantConfigError(t, a, err, "TOOLFAILURE_SERVER", c.want)
		})
	}
}

// TestFromEnvRefused: a key the service refuses, or a URL where something
// else answers, fails at start-up, not as a warning at every failure.
func TestFromEnvRefused(t *testing.T) {
	svc := startService(t, nil)
	cases := []struct {
		name, url, key string
		want           []string
	}{
		{"unknown key", svc.url, "tfk_not_a_key_of_this_service", []string{"TOOLFAILURE_KEY", "does not know the API key (unauthenticated): check the key"}},
		{"no report scope", svc.url, svc.lookupKey, []string{"TOOLFAILURE_KEY", "lacks the report scope", "--scopes report"}},
		{"not the service", svc.url + "/elsewhere", svc.reportKey, []string{"TOOLFAILURE_SERVER", "answers, but not as a toolfailure service", "check the URL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := fromEnv(t, c.url, c.key)
			wantConfigError(t, a, err, c.want...)
			if strings.Contains(err.Error(), c.key) {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

// TestFromEnvUnreachable: a service that is away at start-up is not a
// configuration error. The server starts, a warning says why failures will
// go out without the key, and they do (fail-open).
func TestFromEnvUnreachable(t *testing.T) {
	closed := httptest.NewServer(nil)
	unreachable := closed.URL
	closed.Close()

	a, logs, err := fromEnv(t, unreachable, "tfk_whatever")
	if err != nil {
		t.Fatalf("NewAnnotatorFromEnv with the service away: %v; want a warning only", err)
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "cannot reach the toolfailure service at "+unreachable) {
		t.Errorf("no warning that the service cannot be reached; log:\n%s", l)
	}

	ts := newToolServer(t, a)
	bare := newToolServer(t, nil)
	got := callJSON(t, connect(t, ts.Server, "memory"), "needs_auth")
	want := callJSON(t, connect(t, bare.Server, "memory"), "needs_auth")
	if got != want {
		t.Errorf("result changed although the service is away:\n got %s\nwant %s", got, want)
	}
	if st := a.Stats(); st.Failed != 1 || st.Missed != 1 || st.Classified != 0 {
		t.Errorf("stats = %+v, want 1 failed, 1 missed", st)
	}
	ts.checkEmitted(t, "key-missing-on-error")
}

// TestFromEnvFirstFailureWithinBudget: with a good configuration, against
// the service on PostgreSQL, the very first failure after start leaves with
// the key within the default budget, over the connection the start-up
// check opened: connection set-up is not spent out of the budget.
func TestFromEnvFirstFailureWithinBudget(t *testing.T) {
	svc := startService(t, postgresStore)
	front := newConnCounter(t, svc.url)

	a, logs, err := fromEnv(t, front.url, svc.reportKey)
	if err != nil {
		t.Fatalf("NewAnnotatorFromEnv: %v", err)
	}
	if l := logs.String(); !strings.Contains(l, "level=INFO") || !strings.Contains(l, "accepts the key") {
		t.Errorf("no word that the service accepts the key; log:\n%s", l)
	}
	if n := front.accepted.Load(); n != 1 {
		t.Errorf("the start-up check opened %d connections, want 1", n)
	}

	ts := newToolServer(t, a)
	cs := connect(t, ts.Server, "memory")
	start := time.Now()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "needs_auth"})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}

	tf := failureOf(t, res)
	if tf["code"] != "auth_required" {
		t.Errorf("code = %v, want auth_required", tf["code"])
	}
	if st := a.Stats(); st.Classified != 1 || st.Missed != 0 {
		t.Errorf("stats = %+v, want the first failure classified", st)
	}
	if n := front.accepted.Load(); n != 1 {
		t.Errorf("%d connections to the service after the first failure, want the start-up check's one, reused", n)
	}
	t.Logf("first failure after start: %v (budget %v)", elapsed, mcpfailure.DefaultBudget)
	if l := logs.String(); strings.Contains(l, "level=WARN") {
		t.Errorf("warnings logged:\n%s", l)
	}
	ts.checkEmitted(t)
}

// TestStartupCheckSpeaksLikeTheProxy: for every configuration error both
// check, the Annotator says what toolfailure proxy says (but for naming
// itself), so that a user meets one set of words.
func TestStartupCheckSpeaksLikeTheProxy(t *testing.T) {
	svc := startService(t, nil)
	cases := []struct{ name, url, key string }{
		{"scheme missing", "127.0.0.1:18080", svc.reportKey},
		{"host as scheme", "localhost:8080", svc.reportKey},
		{"other scheme", "ftp://toolfailure.example.com", svc.reportKey},
		{"no host", "http://", svc.reportKey},
		{"unknown key", svc.url, "tfk_not_a_key_of_this_service"},
		{"no report scope", svc.url, svc.lookupKey},
		{"not the service", svc.url + "/elsewhere", svc.reportKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := mcpproxy.New(mcpproxy.Config{
				Classifier: mcpfailure.NewClassifierClient(nil, c.url, c.key),
				ServiceURL: c.url,
				Logger:     slog.New(slog.DiscardHandler),
			})
			if err != nil {
				t.Fatal(err)
			}
			proxyErr := p.CheckService(t.Context())
			if proxyErr == nil {
				t.Fatal("the proxy's check passed")
			}
			_, _, err = fromEnv(t, c.url, c.key)
			if err == nil {
				t.Fatal("NewAnnotatorFromEnv succeeded")
			}
			// "mcpfailure: TOOLFAILURE_…: " and then the proxy's words.
			_, words, _ := strings.Cut(err.Error(), ": ")
			_, words, _ = strings.Cut(words, ": ")
			words = strings.ReplaceAll(words, "the annotator needs", "the proxy needs")
			if words != proxyErr.Error() {
				t.Errorf("the Annotator says\n  %s\nthe proxy says\n  %s", words, proxyErr)
			}
		})
	}
}

// connCounter is a TCP relay in front of the service that counts the
// connections clients open to it.
type connCounter struct {
	url      string
	accepted atomic.Int64
}

func newConnCounter(t *testing.T, target string) *connCounter {
	t.Helper()
	targetAddr := strings.TrimPrefix(target, "http://")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &connCounter{url: "http://" + ln.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, conn := range open {
			_ = conn.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			out, err := net.Dial("tcp", targetAddr)
			if err != nil {
				_ = in.Close()
				continue
			}
			mu.Lock()
			open = append(open, in, out)
			mu.Unlock()
			wg.Go(func() { relay(out, in) })
			wg.Go(func() { relay(in, out) })
		}
	})
	return c
}

// relay copies src to dst, then closes both ends so that the other
// direction ends too.
func relay(dst, src net.Conn) {
	_, _ = io.Copy(dst, src) // a reset or a close ends it like EOF
	_ = dst.Close()
	_ = src.Close()
}

// TestFromEnvClassifierGiven: a Classifier of the caller's would be
// silently replaced; NewAnnotatorFromEnv says to use NewAnnotator instead.
func TestFromEnvClassifierGiven(t *testing.T) {
	t.Setenv("TOOLFAILURE_SERVER", "http://127.0.0.1:8080")
	t.Setenv("TOOLFAILURE_KEY", "tfk_whatever")
	a, err := mcpfailure.NewAnnotatorFromEnv(t.Context(), mcpfailure.AnnotatorConfig{Classifier: refusing{}})
	wantConfigError(t, a, err, "leave AnnotatorConfig.Classifier nil, or call NewAnnotator")
}
