package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/mcpfailure"
)

// TestDemo runs the demo as a reviewer does and holds it to what it
// promises: one decision per scenario, a successful lookup, and result
// files that the conformance checker accepts without a single finding.
//
// The third-party part needs Node and the filesystem server that npm ci
// installs here (examples/demo/package-lock.json). Without them that part
// is skipped, unless TOOLFAILURE_REQUIRE_NODE is set, as in CI, where it
// fails instead.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if stderr.Len() > 0 {
		t.Errorf("stderr not empty (a classification miss?):\n%s", stderr.String())
	}
	// The reviewer's packet ends the run (TestPacket checks its rows).
	out, packet, found := strings.Cut(out, "\nPart 3: ")
	if !found || !strings.HasPrefix(packet, packetHeading) {
		t.Errorf("the run does not end with Part 3, %q:\n%s", packetHeading, stdout.String())
	}
	own, third, ran := strings.Cut(out, "Part 2: ")
	if !ran {
		own, third, _ = strings.Cut(out, skippedLine)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("own server", func(t *testing.T) {
		for _, want := range []string{
			"Part 1: ", "1. get_forecast", "RETRIED after 3 attempts",
			"governance / auth_required", "governance / policy_blocked", "capability / invalid_input",
			"reliability / retryable_transient_error, not retryable",
			"Support looks up tf_", "tool list_calendar on demo-tools",
		} {
			if !strings.Contains(own, want) {
				t.Errorf("output lacks %q:\n%s", want, own)
			}
		}
		if n := strings.Count(own, "ASK USER"); n != 2 {
			t.Errorf("%d ASK USER decisions, want 2:\n%s", n, own)
		}
		if n := strings.Count(own, "STOPPED"); n != 2 {
			t.Errorf("%d STOPPED decisions, want 2:\n%s", n, own)
		}
		if n := len(regexp.MustCompile(`tf_[0-9A-Z]{26}.`).FindAllString(own, -1)); n < 7 {
			t.Errorf("%d correlation IDs printed, want at least 7", n)
		}
		if len(files) < 7 {
			t.Fatalf("%d result files, want 7 from this part: one per attempt", len(files))
		}
		for _, f := range files[:7] {
			for _, v := range check(t, f) {
				t.Errorf("%s: %s", filepath.Base(f), v)
			}
		}
	})

	t.Run("third-party server", func(t *testing.T) {
		if !ran {
			line, _, _ := strings.Cut(third, "\n")
			if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
				t.Fatalf("TOOLFAILURE_REQUIRE_NODE is set, but the demo printed %q", skippedLine+line)
			}
			t.Skip(skippedLine + line + " (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)")
		}
		blocks := numbered(third)
		for _, c := range []struct {
			n    string
			want []string
		}{
			{"6", []string{"read_text_file allowed/notes.txt", `result    "Quarterly numbers are in the shared drive.\n", passed through unchanged`}},
			{"7", []string{"read_text_file secret.txt",
				`isError: true, "Access denied - path outside allowed directories: `,
				`the dispatcher reads _meta["io.modelcontextprotocol/toolFailure"], added by the proxy`,
				"class governance, code permission_denied, retryable false, correlationId tf_",
				"decided   ASK USER after 1 attempt: "}},
			{"8", []string{"read_text_file allowed/missing.txt",
				`isError: true, "ENOENT: no such file or directory`,
				"class capability, code resource_not_found, retryable false, correlationId tf_",
				"decided   STOPPED after 1 attempt: "}},
		} {
			b, ok := blocks[c.n]
			if !ok {
				t.Errorf("no call %s. in the third-party part:\n%s", c.n, third)
				continue
			}
			for _, want := range c.want {
				if !strings.Contains(b, want) {
					t.Errorf("call %s lacks %q:\n%s", c.n, want, b)
				}
			}
		}
		// The ID the dispatcher printed is the one the proxy put on the
		// wire, and support finds it under the name the server gave.
		id := regexp.MustCompile(`correlationId (tf_\w+)`).FindStringSubmatch(blocks["7"])
		if id == nil {
			t.Fatalf("no correlation ID in call 7:\n%s", blocks["7"])
		}
		for _, want := range []string{"Support looks up " + id[1], "tool read_text_file on secure-filesystem-server, governance / permission_denied"} {
			if !strings.Contains(third, want) {
				t.Errorf("third-party part lacks %q:\n%s", want, third)
			}
		}

		if len(files) != 10 {
			t.Fatalf("%d result files, want 10: 7 attempts of the first part, 3 of this one", len(files))
		}
		var denied struct {
			IsError bool                       `json:"isError"`
			Meta    map[string]json.RawMessage `json:"_meta"`
		}
		b, err := os.ReadFile(files[8])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &denied); err != nil {
			t.Fatalf("%s: %v", files[8], err)
		}
		var tf struct {
			CorrelationID string `json:"correlationId"`
		}
		_ = json.Unmarshal(denied.Meta[mcpfailure.MetaKey], &tf)
		if !denied.IsError || tf.CorrelationID != id[1] {
			t.Errorf("%s: isError %t, correlationId %q; the demo printed %s", filepath.Base(files[8]), denied.IsError, tf.CorrelationID, id[1])
		}
		for _, f := range files[7:] {
			// The server negotiates a protocol version before 2026-07-28,
			// whose results have no resultType, and none is reported.
			for _, v := range check(t, f) {
				t.Errorf("%s: %s", filepath.Base(f), v)
			}
		}
	})
}

func check(t *testing.T, file string) []conformance.Violation {
	t.Helper()
	vs, err := conformance.CheckFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// numbered splits the demo's output into its numbered calls ("7. …" up to
// the next blank line), by number.
func numbered(out string) map[string]string {
	blocks := map[string]string{}
	for _, b := range strings.Split(out, "\n\n") {
		b = strings.TrimLeft(b, "\n")
		if n, _, ok := strings.Cut(b, ". "); ok && regexp.MustCompile(`^\d+$`).MatchString(n) {
			blocks[n] = b
		}
	}
	return blocks
}

// TestFindFilesystemServerSays checks that a missing Node or server yields
// a reason that says what to install, which the demo prints as its one
// skip line.
func TestFindFilesystemServerSays(t *testing.T) {
	t.Parallel()
	if _, why := findFilesystemServer(t.Context(), filepath.Join(t.TempDir(), "node"), ""); !strings.Contains(why, "node --version failed") {
		t.Errorf("missing node: %q", why)
	}
	empty := t.TempDir()
	fs, why := findFilesystemServer(t.Context(), "", empty)
	if fs != nil {
		t.Fatalf("found a server in an empty directory: %+v", fs)
	}
	if !strings.Contains(why, "no node on PATH") && !strings.Contains(why, installHint) {
		t.Errorf("missing package: %q names neither Node nor %q", why, installHint)
	}
}
