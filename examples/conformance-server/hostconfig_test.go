package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

// hostEnv is the environment the official SDKs give a server they start
// (getDefaultEnvironment in the TypeScript SDK): a host passes nothing else
// of its own environment, so the snippets must work with this plus their
// env block.
var hostEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// hostServer is one server entry of a host's configuration file.
type hostServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// docHostConfigs returns the server entries of the JSON snippets in the
// "In an MCP host" section of docs/proxy.md.
func docHostConfigs(t *testing.T) []hostServer {
	t.Helper()
	b, err := os.ReadFile("../../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(b)
	i := strings.Index(section, "\n## In an MCP host\n")
	if i < 0 {
		t.Fatal(`docs/proxy.md has no "## In an MCP host" section`)
	}
	section = section[i+1:]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	var out []hostServer
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1) {
		var file struct {
			MCPServers map[string]hostServer `json:"mcpServers"` // Claude Desktop, Cursor, the Inspector
			Servers    map[string]hostServer `json:"servers"`    // VS Code
		}
		if err := json.Unmarshal([]byte(m[1]), &file); err != nil {
			t.Fatalf("docs/proxy.md snippet is not JSON: %v\n%s", err, m[1])
		}
		for _, s := range file.MCPServers {
			out = append(out, s)
		}
		for _, s := range file.Servers {
			out = append(out, s)
		}
	}
	if len(out) < 2 {
		t.Fatalf("found %d host configurations in docs/proxy.md, want one per host family", len(out))
	}
	return out
}

// TestDocHostConfigs starts the proxy the way a host would from each of
// the snippets of docs/proxy.md: the snippet's command and arguments (the server's
// command line swapped for a server that knows nothing of the proposal),
// the SDKs' default environment plus the snippet's env block (its values
// swapped for a live service's). As written, failures are classified; with
// "--" before the server's command too; and with no key or a wrong one the
// server still runs, failures pass unchanged, and the proxy says why.
func TestDocHostConfigs(t *testing.T) {
	t.Parallel()
	toolfailure, server := toolfailureBin, serverBin
	svc := servicetest.Start(t, servicetest.Embedded(t))
	values := map[string]string{"TOOLFAILURE_SERVER": svc.URL, "TOOLFAILURE_KEY": svc.ReportKey}

	for i, hs := range docHostConfigs(t) {
		if hs.Command != "toolfailure" || len(hs.Args) < 2 || hs.Args[0] != "proxy" {
			t.Fatalf("snippet %d: command %q %q, want toolfailure proxy …", i, hs.Command, hs.Args)
		}
		if slices.Contains(hs.Args, "--") {
			t.Errorf("snippet %d: the Inspector's --config mode breaks on --; the snippets should do without", i)
		}
		for _, k := range []string{"TOOLFAILURE_SERVER", "TOOLFAILURE_KEY"} {
			if _, ok := hs.Env[k]; !ok {
				t.Errorf("snippet %d: no %s in its env block", i, k)
			}
		}
		proxyArgs := hs.Args[:1] // "proxy"; the server's command line follows
		for _, tc := range []struct {
			name     string
			args     []string
			env      map[string]string
			classify bool
			warning  string
		}{
			{"as-written", proxyArgs, values, true, ""},
			{"with-dashes", append(slices.Clone(proxyArgs), "--"), values, true, ""},
			{"no-key", proxyArgs, map[string]string{"TOOLFAILURE_SERVER": svc.URL}, false, "no API key"},
			{"wrong-key", proxyArgs, map[string]string{"TOOLFAILURE_SERVER": svc.URL, "TOOLFAILURE_KEY": "tfk_not_issued_here"}, false, "does not know the API key"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				env := []string{}
				for _, k := range hostEnv {
					if v, ok := os.LookupEnv(k); ok {
						env = append(env, k+"="+v)
					}
				}
				for k := range hs.Env {
					if v, ok := tc.env[k]; ok {
						env = append(env, k+"="+v)
					}
				}
				args := append(slices.Clone(tc.args), server, "--plain")
				runHostConfig(t, toolfailure, args, env, tc.classify, tc.warning)
			})
		}
	}
}

func runHostConfig(t *testing.T, toolfailure string, args, env []string, classify bool, warning string) {
	t.Helper()
	var stderr lockedBuffer
	cmd := exec.Command(toolfailure, args...)
	cmd.Env = env
	cmd.Stderr = &stderr
	logs := make(chan string, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s, _ := req.Params.Data.(string)
			logs <- s
		},
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// The protocol version of today's hosts, which start with a handshake.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("the host cannot start the server: %v\nstderr:\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil {
		t.Fatalf("CallTool: %v\nstderr:\n%s", err, stderr.String())
	}
	_, tagged := res.Meta[mcpfailure.MetaKey]
	if res.IsError && classify && !tagged && stderr.waitFor("budget exceeded", 5*time.Second) {
		// The proxy passes a failure on unchanged when the service does
		// not answer within its budget (mcpfailure.DefaultBudget), which
		// a first call to race-instrumented binaries on a saturated
		// machine can miss. That is the documented fail-open path, not a
		// broken snippet: the next failure being classified proves it.
		t.Logf("the first failure missed the proxy's budget; calling again:\n%s", stderr.String())
		if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"}); err != nil {
			t.Fatalf("CallTool: %v\nstderr:\n%s", err, stderr.String())
		}
		_, tagged = res.Meta[mcpfailure.MetaKey]
	}
	switch {
	case !res.IsError:
		t.Fatal("the failing tool did not fail")
	case classify && !tagged:
		// The proxy's log line about the miss comes through a pipe: give
		// it a moment, so that the report says why.
		stderr.waitFor("without classification", 5*time.Second)
		t.Errorf("failure not classified:\nstderr:\n%s", stderr.String())
	case !classify && tagged:
		t.Error("failure classified without a usable key")
	}
	if warning == "" {
		return
	}
	// The check runs beside the relay: wait for its verdict.
	stderr.waitFor(warning, 10*time.Second)
	if n := strings.Count(stderr.String(), "NOT annotating"); n != 1 || !strings.Contains(stderr.String(), warning) {
		t.Errorf("stderr says %d times that it is not annotating, want once, saying %q:\n%s", n, warning, stderr.String())
	}
	// The client hears it with its next call.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-logs:
		if !strings.Contains(m, warning) {
			t.Errorf("log message to the client: %q, want it to say %q", m, warning)
		}
	case <-time.After(5 * time.Second):
		t.Error("the client was not told")
	}
}

// lockedBuffer is the proxy's stderr as the test reads it while the
// process writes it: every write wakes the readers waiting in waitFor.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed and replaced by every write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		close(l.wrote)
		l.wrote = nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits up to d for the buffer to contain s, and reports whether
// it does. It wakes on each write, not on a clock.
func (l *lockedBuffer) waitFor(s string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), s) {
			l.mu.Unlock()
			return true
		}
		if l.wrote == nil {
			l.wrote = make(chan struct{})
		}
		wrote := l.wrote
		l.mu.Unlock()
		select {
		case <-wrote:
		case <-timeout:
			return strings.Contains(l.String(), s)
		}
	}
}
