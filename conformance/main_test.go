package conformance_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/conformance"
)

// now is the --now value matching testNow, so that Main judges the
// examples' retry times as of when they were written.
const now = "2026-11-30T02:30:00Z"

func runMain(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = conformance.Main(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestMain_Examples(t *testing.T) {
	t.Parallel()
	files := append(jsonFiles(t, callToolResultExamples), "--now", now)
	status, stdout, stderr := runMain(files...)
	if status != 0 {
		t.Fatalf("status %d, want 0\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
	for _, f := range files[:len(files)-2] {
		if !strings.Contains(stdout, f+": ok\n") {
			t.Errorf("stdout lacks %q:\n%s", f+": ok", stdout)
		}
	}
}

func TestMain_Invalid(t *testing.T) {
	t.Parallel()
	file := "testdata/invalid/retryable-only-reliability.json"
	status, stdout, _ := runMain("--now", now, file)
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	want := file + ": MUST retryable-only-reliability at /_meta/io.modelcontextprotocol~1toolFailure/retryable: "
	if !strings.HasPrefix(stdout, want) {
		t.Errorf("stdout %q does not start with %q", stdout, want)
	}
	if strings.Contains(stdout, ": ok") {
		t.Errorf("a failing file was reported ok:\n%s", stdout)
	}
}

// TestMain_Strict pins the documented policy: SHOULD findings are printed
// but fail the run only under --strict, wherever the flag is placed.
func TestMain_Strict(t *testing.T) {
	t.Parallel()
	file := "testdata/warning/agent-guidance-injection.json"
	tests := []struct {
		args   []string
		status int
	}{
		{[]string{file}, 0},
		{[]string{"--strict", file}, 1},
		{[]string{file, "--strict"}, 1},
		{[]string{"-strict", file}, 1},
		{[]string{"--strict=false", file}, 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := runMain(tt.args...)
			if status != tt.status {
				t.Errorf("status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.status, stdout, stderr)
			}
			if !strings.Contains(stdout, file+": SHOULD agent-guidance-injection at ") {
				t.Errorf("warning not printed:\n%s", stdout)
			}
			if tt.status == 0 && !strings.Contains(stdout, file+": ok (1 warning)\n") {
				t.Errorf("stdout lacks the ok line with the warning count:\n%s", stdout)
			}
		})
	}
}

func TestMain_Now(t *testing.T) {
	t.Parallel()
	file := filepath.Join(callToolResultExamples, "transient-error-with-retry.json")
	// A week after the example was written, its retry time is stale.
	status, stdout, _ := runMain("--now", "2026-12-07T00:00:00Z", file)
	if status != 0 || !strings.Contains(stdout, "SHOULD retry-not-before-past") {
		t.Errorf("status %d, stdout:\n%s", status, stdout)
	}
	status, stdout, _ = runMain("--now", "1796005800000", file)
	if status != 0 || stdout != file+": ok\n" {
		t.Errorf("epoch-millisecond --now: status %d, stdout:\n%s", status, stdout)
	}
}

func TestMain_UsageAndErrors(t *testing.T) {
	t.Parallel()
	notJSON := filepath.Join(t.TempDir(), "response.txt")
	if err := os.WriteFile(notJSON, []byte("HTTP/1.1 502 Bad Gateway\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		status     int
		stdout     string // substring
		stderr     string // substring
		wantStdout bool
	}{
		{name: "no files", args: nil, status: 2, stderr: "no files given"},
		{name: "unknown flag", args: []string{"--fix", "a.json"}, status: 2, stderr: "flag provided but not defined: -fix"},
		{name: "bad --now", args: []string{"--now", "tomorrow", "a.json"}, status: 2, stderr: "--now"},
		{name: "help", args: []string{"--help"}, status: 0, stdout: "usage: toolfailure conform"},
		{name: "missing file", args: []string{"testdata/no-such-file.json"}, status: 1, stderr: "no-such-file.json"},
		{name: "not JSON", args: []string{notJSON}, status: 1, stderr: "not a JSON document"},
		{name: "after --", args: []string{"--", "--strict"}, status: 1, stderr: "--strict"},
		{name: "one bad file fails the run", args: []string{"--now", now, filepath.Join(callToolResultExamples, "invalid-input.json"), "testdata/invalid/code-empty.json"}, status: 1, stdout: "invalid-input.json: ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := runMain(tt.args...)
			if status != tt.status {
				t.Errorf("status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.status, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}
