package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/conformance"
)

// TestDemo runs the demo as a reviewer does and holds it to what it
// promises: one decision per scenario, a successful lookup, and result
// files that the conformance checker accepts without a single finding.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"1. get_forecast", "RETRIED after 3 attempts",
		"governance / auth_required", "governance / policy_blocked", "capability / invalid_input",
		"reliability / retryable_transient_error, not retryable",
		"Support looks up tf_", "tool list_calendar on demo-tools",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "ASK USER"); n != 2 {
		t.Errorf("%d ASK USER decisions, want 2:\n%s", n, out)
	}
	if n := strings.Count(out, "STOPPED"); n != 2 {
		t.Errorf("%d STOPPED decisions, want 2:\n%s", n, out)
	}
	if n := len(regexp.MustCompile(`tf_[0-9A-Z]{26}.`).FindAllString(out, -1)); n < 7 {
		t.Errorf("%d correlation IDs printed, want at least 7", n)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr not empty (a classification miss?):\n%s", stderr.String())
	}

	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != 7 {
		t.Fatalf("%d result files (%v), want 7: one per attempt", len(files), err)
	}
	for _, f := range files {
		vs, err := conformance.CheckFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Errorf("%s: %s", filepath.Base(f), v)
		}
	}
}
