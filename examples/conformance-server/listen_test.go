package main_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestListenFlags: "toolfailure proxy --listen" takes its bearer token from
// $TOOLFAILURE_PROXY_TOKEN and its session cap from --max-sessions.
func TestListenFlags(t *testing.T) {
	t.Parallel()
	env := append(os.Environ(), "TOOLFAILURE_PROXY_TOKEN=a-listen-token")
	url := start(t, env, regexp.MustCompile(`(http://\S+/mcp)`), "proxy", toolfailureBin,
		"proxy", "--listen", "127.0.0.1:0", "--max-sessions", "1", "--idle-timeout", "1m", serverBin, "--plain")
	post := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Errorf("initialize without the token: %d, want 401", code)
	}
	if code := post("Bearer a-listen-token"); code != http.StatusOK {
		t.Errorf("initialize with the token: %d, want 200", code)
	}
	if code := post("Bearer a-listen-token"); code != http.StatusServiceUnavailable {
		t.Errorf("a second session with --max-sessions 1: %d, want 503", code)
	}
}

// TestProxyConsoleExporterRefusedOverStdio: over stdio, stdout carries MCP
// alone, so the proxy refuses OpenTelemetry's console exporters, which would
// write spans into the session, instead of breaking it.
func TestProxyConsoleExporterRefusedOverStdio(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(toolfailureBin, "proxy", serverBin, "--plain")
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=console")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "console exporters write to stdout") {
		t.Fatalf("proxy with OTEL_TRACES_EXPORTER=console over stdio: %v\n%s", err, out)
	}
}
