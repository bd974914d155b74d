package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// cliTour is the code block of docs/cli.md's "Commands at a glance"
// section, one command line a line.
func cliTour(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## Commands at a glance\n\n```sh\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatalf(`%s has no "## Commands at a glance" code block`, cliDoc)
	}
	return codeCommandLines(string(m[1]))
}

// TestCLITourRuns runs docs/cli.md's command list as written, against a
// real serve on PostgreSQL, with its placeholders filled in: the database
// URL, a correlation ID that exists, files in a scratch directory. The
// environment stands in for --server and --key, as the page says it may.
// bench and proxy are run end to end by TestBenchRuns and the examples'
// tests.
func TestCLITourRuns(t *testing.T) {
	dbURL := pgtest.URL(t)
	lines := cliTour(t)
	t.Chdir(t.TempDir())
	t.Setenv("DATABASE_URL", dbURL)
	byCommand := map[string][]string{}
	for _, line := range lines {
		line = strings.ReplaceAll(line, "postgres://USER:PASS@HOST:5432/DB", dbURL)
		words := shellWords(line)
		cmd, err := parseOnly(words)
		if err != nil {
			t.Fatalf("toolfailure %s: %v", line, err)
		}
		byCommand[cmd.CommandPath()] = append(byCommand[cmd.CommandPath()], line)
	}
	runLine := func(line string, wantCode int) (string, string) {
		t.Helper()
		code, out, errOut := runCmd(t, shellWords(line)...)
		if code != wantCode {
			t.Fatalf("toolfailure %s: exit %d, want %d\n%s%s", line, code, wantCode, out, errOut)
		}
		return out, errOut
	}
	one := func(path string) string {
		t.Helper()
		l := byCommand[strings.TrimSpace("toolfailure "+path)]
		if len(l) == 0 {
			t.Fatalf("%s's command list has no %s", cliDoc, path)
		}
		return l[0]
	}

	runLine(one("migrate"), 0)
	serveWords := shellWords(strings.ReplaceAll(one("serve"), "127.0.0.1:8080", "127.0.0.1:0"))
	url, _, _ := startServe(t, serveWords[1:]...)
	t.Setenv("TOOLFAILURE_SERVER", url)
	out, _ := runLine(one("keys create"), 0)
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:])
	t.Setenv("TOOLFAILURE_KEY", key)

	res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, `{"tool": "send_email", "error": {"message": "upstream returned 503", "httpStatus": 503}}`)
	cid := res["toolFailure"].(map[string]any)["correlationId"].(string)
	out, _ = runLine(strings.ReplaceAll(strings.ReplaceAll(one("lookup"), "tf_…", cid), "http://127.0.0.1:8080", url), 0)
	var rec struct {
		CorrelationID string `json:"correlationId"`
		Fingerprint   string `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.CorrelationID != cid {
		t.Errorf("lookup printed no JSON record of %s (%v):\n%s", cid, err, out)
	}
	out, _ = runLine(one("failures list"), 0)
	if !strings.Contains(out, cid) {
		t.Errorf("failures list does not list %s:\n%s", cid, out)
	}
	out, _ = runLine(one("groups list"), 0)
	if rec.Fingerprint == "" || !strings.Contains(out, rec.Fingerprint) {
		t.Errorf("groups list does not list fingerprint %q:\n%s", rec.Fingerprint, out)
	}
	out, _ = runLine(strings.ReplaceAll(one("groups show"), "FINGERPRINT", rec.Fingerprint), 0)
	if !strings.Contains(out, cid) || !strings.Contains(out, "upstream returned <num>") {
		t.Errorf("groups show:\n%s", out)
	}
	out, _ = runLine(strings.ReplaceAll(one("rules suggest"), "FINGERPRINT", rec.Fingerprint), 0)
	if f, err := ruleset.ParseFile([]byte(out)); err != nil || len(f.Rules) != 1 || f.Rules[0].Mode != ruleset.Shadow {
		t.Errorf("rules suggest printed no rules file with one shadow rule (%v):\n%s", err, out)
	}

	if err := os.WriteFile("rules.yaml", []byte(rulesYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("case.json", []byte(confirmCase), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ = runLine(one("rules apply"), 0)
	if !strings.Contains(out, "+ mail-needs-confirmation (added)") {
		t.Errorf("rules apply shows no diff:\n%s", out)
	}
	runLine(one("rules export"), 0)
	if b, err := os.ReadFile("current.yaml"); err != nil || !strings.Contains(string(b), "Rule set version") {
		t.Errorf("rules export wrote no current.yaml: %v %q", err, b)
	}
	out, _ = runLine(one("rules test"), 0)
	if !regexp.MustCompile(`"ruleId":\s*"mail-needs-confirmation"`).MatchString(out) {
		t.Errorf("rules test --output json:\n%s", out)
	}

	for _, line := range byCommand["toolfailure retention set"] {
		runLine(line, 0)
	}
	out, _ = runLine(one("retention show"), 0)
	if !strings.Contains(out, `tenant "acme" keeps its failure records for 30 days`) {
		t.Errorf("retention show: %s", out)
	}
	out, _ = runLine(one("retention purge"), 0)
	if !strings.Contains(out, "removed 0 expired failure records") {
		t.Errorf("retention purge: %s", out)
	}

	result, _ := json.Marshal(map[string]any{
		"content":    []map[string]any{{"type": "text", "text": "upstream returned 503"}},
		"isError":    true,
		"resultType": "complete",
		"_meta":      res["meta"],
	})
	if err := os.WriteFile("result.json", result, 0o600); err != nil {
		t.Fatal(err)
	}
	runLine(one("conform"), 0)
	out, _ = runLine(one("completion bash"), 0)
	if !strings.Contains(out, "toolfailure") {
		t.Error("completion bash printed no script")
	}
	out, _ = runLine(one(""), 0) // toolfailure --version
	if !strings.HasPrefix(out, "toolfailure ") {
		t.Errorf("--version: %q", out)
	}
}
