package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/omcp/toolfailure/internal/servicetest"

	"github.com/omcp/toolfailure/mcpfailure"
)

// TestLogFlagsUsageErrors: a bad --log-format or --log-level, and a bad --rate-limit or
// --shutdown-grace, is a usage error naming the flag, before serve or proxy starts anything.
func TestLogFlagsUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--log-format", "xml"}, `--log-format "xml": use text or json`},
		{[]string{"serve", "--log-level", "loud"}, `--log-level "loud": use debug, info, warn or error`},
		{[]string{"serve", "--rate-limit", "fast"}, "--rate-limit"},
		{[]string{"serve", "--shutdown-grace", "soon"}, "--shutdown-grace"},
		{[]string{"proxy", "--log-format", "xml", "--upstream", "http://127.0.0.1:1/mcp"}, `--log-format "xml"`},
		{[]string{"proxy", "--log-level", "loud", "--upstream", "http://127.0.0.1:1/mcp"}, `--log-level "loud"`},
	} {
		code, out, errOut := runCmd(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestLogEnvUsageErrors: the same from the environment names the flag and the variable.
func TestLogEnvUsageErrors(t *testing.T) {
	for _, c := range []struct {
		env, value, want string
	}{
		{"TOOLFAILURE_LOG_FORMAT", "xml", `--log-format (from $TOOLFAILURE_LOG_FORMAT) "xml"`},
		{"TOOLFAILURE_LOG_LEVEL", "loud", `--log-level (from $TOOLFAILURE_LOG_LEVEL) "loud"`},
		{"TOOLFAILURE_RATE_LIMIT", "fast", `--rate-limit: $TOOLFAILURE_RATE_LIMIT: "fast"`},
		{"TOOLFAILURE_SHUTDOWN_GRACE", "-1s", `--shutdown-grace: $TOOLFAILURE_SHUTDOWN_GRACE: "-1s"`},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			code, _, errOut := runCmd(t, "serve", "--listen", "127.0.0.1:0")
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
			}
		})
	}
}

// startLogged runs a long-running command (serve, proxy) with stderr into a LogSink until the
// test ends, when it must exit 0.
func startLogged(t *testing.T, args ...string) *servicetest.LogSink {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sink := servicetest.NewLogSink()
	done := make(chan int, 1)
	go func() { done <- runWith(ctx, defaultDeps(), args, io.Discard, sink) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("%s exited %d after its context ended:\n%s", args[0], code, sink.Text())
		}
	})
	return sink
}

var logURL = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)|at (http://127\.0\.0\.1:\d+/mcp)`)

// servedAt waits for the line that says where the command listens.
func servedAt(t *testing.T, sink *servicetest.LogSink) string {
	t.Helper()
	line := sink.WaitFor(t, "the address", func(m map[string]any) bool {
		msg, _ := m["msg"].(string)
		return strings.Contains(msg, "serving") && logURL.MatchString(msg)
	})
	m := logURL.FindStringSubmatch(line["msg"].(string))
	return m[1] + m[2]
}

// keyFor returns a migrated PostgreSQL schema of the test's own with a key of every scope.
func keyFor(t *testing.T) (dbURL, key string) {
	t.Helper()
	dbURL = migrated(t)
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup,rules", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return dbURL, lines[len(lines)-1]
}

// TestServeLogsJSON: with --log-format json every line serve writes is one JSON object, the
// start-up lines included; each RPC has its line with the correlation ID, probes have theirs at
// debug, and neither the key nor what the caller sent shows.
func TestServeLogsJSON(t *testing.T) {
	t.Parallel()
	dbURL, key := keyFor(t)
	sink := startLogged(t, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL, "--log-format", "json", "--log-level", "debug")
	url := servedAt(t, sink)
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key,
		`{"tool": "create_issue", "error": {"httpStatus": 401, "message": "GitHub token `+secret+` expired"}}`)
	cid := res["meta"].(map[string]any)[mcpfailure.MetaKey].(map[string]any)["correlationId"].(string)
	line := sink.WaitFor(t, "Classify", func(m map[string]any) bool { return m["msg"] == "rpc" && m["correlationId"] == cid })
	if line["level"] != "INFO" || line["code"] != "ok" || line["tenantName"] != "acme" || line["procedure"] != "/toolfailure.v1.ClassifierService/Classify" {
		t.Errorf("Classify's line: %v", line)
	}
	if _, ok := line["durationMs"].(float64); !ok {
		t.Errorf("Classify's line has no durationMs: %v", line)
	}
	if res, err := http.Get(url + "/livez"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	if line := sink.WaitFor(t, "/livez", func(m map[string]any) bool { return m["path"] == "/livez" }); line["level"] != "DEBUG" {
		t.Errorf("/livez's line: %v", line)
	}
	logged := sink.Text()
	for _, s := range []string{secret, key, key[13:], "GitHub token", "toolfailure: "} {
		if strings.Contains(logged, s) {
			t.Errorf("serve's log holds %q:\n%s", s, logged)
		}
	}
}

// TestProxyLogsRecordedFailure: the proxy writes one line per failed tool call that the service
// recorded, with the tool, the correlation ID the client got, the class and the duration, and
// not the tool's error text or the key.
func TestProxyLogsRecordedFailure(t *testing.T) {
	t.Parallel()
	dbURL, key := keyFor(t)
	serveLog := startLogged(t, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL, "--log-format", "json")
	serviceURL := servedAt(t, serveLog)

	const secret = "xoxb-1234567890-abcdefghijklmnop"
	upstream := mcp.NewServer(&mcp.Implementation{Name: "mail", Version: "1"}, nil)
	mcp.AddTool(upstream, &mcp.Tool{Name: "send_email"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		return nil, struct{}{}, errors.New("401 Unauthorized: token " + secret + " expired; sign in again")
	})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upstream }, nil))
	t.Cleanup(up.Close)

	// The budget is generous: what is checked here is what the two processes log, not how
	// fast a service answers on a host loaded by the race detector.
	proxyLog := startLogged(t, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL,
		"--server", serviceURL, "--key", key, "--log-format", "json", "--budget", "30s")
	proxyURL := servedAt(t, proxyLog)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: proxyURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	tf, present, err := mcpfailure.Parse(res)
	if !present || err != nil {
		t.Fatalf("the failed result has no toolFailure key (%v): %+v", err, res)
	}
	line := proxyLog.WaitFor(t, "the recorded failure", func(m map[string]any) bool { return m["correlationId"] == tf.CorrelationID })
	if line["level"] != "INFO" || line["tool"] != "send_email" || line["class"] != string(tf.Class) {
		t.Errorf("the proxy's line: %v", line)
	}
	if d, ok := line["durationMs"].(float64); !ok || d <= 0 {
		t.Errorf("the proxy's line: durationMs %v", line["durationMs"])
	}
	// The service logged the same ID for the Classify that recorded it.
	serveLog.WaitFor(t, "the proxy's Classify", func(m map[string]any) bool { return m["msg"] == "rpc" && m["correlationId"] == tf.CorrelationID })
	for name, logged := range map[string]string{"proxy": proxyLog.Text(), "serve": serveLog.Text()} {
		for _, s := range []string{secret, key, key[13:], "Unauthorized"} {
			if strings.Contains(logged, s) {
				t.Errorf("%s's log holds %q:\n%s", name, s, logged)
			}
		}
	}
}

// TestChildStderrInJSON: with --log-format json an upstream command's stderr becomes one record
// per line, however its writes split the lines; in text format it passes through as it is.
func TestChildStderrInJSON(t *testing.T) {
	t.Parallel()
	var f logFlags
	f.format, f.level = &envString{value: "json"}, &envString{value: "info"}
	sink := servicetest.NewLogSink()
	log, err := f.logger(sink)
	if err != nil {
		t.Fatal(err)
	}
	w := f.childStderr(io.Discard, log)
	for _, chunk := range []string{"listening on stdio\nconfig", ` "prod" loaded` + "\r\n", strings.Repeat("x", maxStderrLine)} {
		if _, err := io.WriteString(w, chunk); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"listening on stdio", `config "prod" loaded`, strings.Repeat("x", maxStderrLine)} {
		sink.WaitFor(t, want[:min(len(want), 20)], func(m map[string]any) bool { return m["msg"] == "upstream stderr" && m["line"] == want })
	}
	f.format.value = "text"
	if got := f.childStderr(io.Discard, log); got != io.Discard {
		t.Errorf("text format: the child's stderr is wrapped (%T)", got)
	}
}
