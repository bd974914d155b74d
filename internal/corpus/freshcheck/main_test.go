package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const knownCase = `{"id": "acme-timeout", "system": "Acme Cloud", "vendor": "Acme Holdings", "lang": "en", "pattern": "-", "source": "approximate wording (Acme Cloud, errors page)", "tool": "acme_get", "error": {"message": "Request timed out"}, "expect": {"class": "reliability", "code": "retryable_transient_error", "retryable": true}, "note": "A timeout."}
`

func batchLine(id, system, vendor, extra string) string {
	return `{"id": "` + id + `", "system": "` + system + `", "vendor": "` + vendor + `", "lang": "de", "pattern": "foreign-language", "source": "approximate wording (` + system + `, Fehlerseite)", "tool": "t", "error": {"message": "Zugriff verweigert"` + extra + `}, "expect": {"class": "governance", "code": "permission_denied", "retryable": false}, "note": "Refused."}` + "\n"
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "topic.jsonl"), []byte(knownCase), 0o644); err != nil {
		t.Fatal(err)
	}
	batch := batchLine("widget-1", "Widget", "Widget GmbH", "") +
		batchLine("widget-2", "Widget", "Widget GmbH", "") +
		batchLine("widget-3", "widget", "Widget GmbH", "") +
		batchLine("widget-4", "WIDGET", "Widget GmbH", "") + // a fourth case of one system
		batchLine("acme-2", "ACME-cloud", "Other", "") + // a known system, spelt otherwise
		batchLine("gizmo-1", "Gizmo", "Acme Holdings Europe", "") // inside a known vendor's name
	bp := filepath.Join(dir, "batch.jsonl")
	kept := filepath.Join(dir, "kept.jsonl")
	if err := os.WriteFile(bp, []byte(batch), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, dir, "", bp, kept, 3, true); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`DROP widget-4: more than 3 cases of "WIDGET"`,
		`DROP acme-2: system "ACME-cloud" is known as "Acme Cloud"`,
		`DROP gizmo-1: vendor "Acme Holdings Europe" overlaps the known vendor "Acme Holdings"`,
		"malformed 0, dropped 3, kept 3 cases from 1 systems; not English 100.0%, message-only 100.0%",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\n"); got != 3 || !strings.Contains(string(b), `"widget-3"`) {
		t.Errorf("kept file has %d lines, want widget-1 to -3:\n%s", got, b)
	}
}

func TestRunRefusesMalformedLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "topic.jsonl"), []byte(knownCase), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, want string }{
		{batchLine("acme-timeout", "New", "New Co", ""), `id "acme-timeout" is already in the corpus`},
		{batchLine("Bad_ID", "New", "New Co", ""), "is not lower-case words"},
		{batchLine("new-1", "New", "New Co", `, "status": 403`), `error: unknown key "status"`},
		{batchLine("new-1", "New", "New Co", `, "httpStatus": "403"`), "cannot unmarshal"},
		{strings.Replace(batchLine("new-1", "New", "New Co", ""), `"permission_denied"`, `"retryable_transient_error"`, 1), "not a baseline class and code"},
		{strings.Replace(batchLine("new-1", "New", "New Co", ""), `approximate wording (`, `from (`, 1), "source must read"},
		{strings.Replace(batchLine("new-1", "New", "New Co", ""), `"note"`, `"notes"`, 1), `no "note"`},
		{batchLine("new-1", "New", "New Co", `, "type": "`+dir+`/gen/x.py"`), "names the directory the batch was written in"},
	} {
		bp := filepath.Join(dir, "batch.jsonl")
		kept := filepath.Join(dir, "kept.jsonl")
		if err := os.WriteFile(bp, []byte(tc.line), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(&out, dir, "", bp, kept, 3, false); err == nil {
			t.Errorf("%s: no error", tc.want)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("output lacks %q:\n%s", tc.want, out.String())
		}
		if _, err := os.Stat(kept); err == nil {
			t.Errorf("%s: the kept file was written", tc.want)
		}
	}
}
