package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/racetest"
)

// benchCases are a small corpus: a 503 with a retry time, a 404, a
// confirmation that only a tenant rule (rulesYAML) recognises, and a case
// that no one has confirmed yet.
const benchCases = `{"id": "a", "tool": "t", "error": {"httpStatus": 503, "retryAfter": "30"}, "expect": {"class": "reliability", "code": "retryable_transient_error", "retryable": true}, "expectRetryAfterSeconds": 30}
{"id": "b", "tool": "t", "error": {"httpStatus": 404, "message": "Not Found"}, "expect": {"class": "capability", "code": "resource_not_found", "retryable": false}, "pattern": "p"}
{"id": "c", "tool": "send_email", "error": {"message": "confirmation required", "details": {"structuredContent": {"reason_code": "explicit_production_confirmation_required"}}}, "expect": {"class": "governance", "code": "user_action_required", "retryable": false}, "confirmed": true}

{"id": "d", "tool": "t", "error": {"message": "whatever the service said"}, "expect": {"class": "capability", "code": "invalid_input", "retryable": false}, "confirmed": false}
`

// TestBenchClassify scores a small corpus with and without rules and
// peers, in each output format, and refuses what it cannot score.
func TestBenchClassify(t *testing.T) {
	t.Parallel()
	mine := writeFile(t, "mine.jsonl", benchCases)
	rules := writeFile(t, "rules.yaml", rulesYAML)

	// Flags after the argument; JSON.
	code, out, errOut := runCmd(t, "bench", "classify", mine, "--peers", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Peers   []struct{ Name, Source string }
		Corpora []struct {
			Corpus             string
			Cases, Unconfirmed int
			Deciders           []struct {
				Name string
				Rows []map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(rep.Peers) != 6 || len(rep.Corpora) != 1 {
		t.Fatalf("%d peers, %d corpora", len(rep.Peers), len(rep.Corpora))
	}
	c := rep.Corpora[0]
	if c.Corpus != "mine.jsonl" || c.Cases != 3 || c.Unconfirmed != 1 || len(c.Deciders) != 7 {
		t.Fatalf("corpus %q: %d cases, %d unconfirmed, %d deciders", c.Corpus, c.Cases, c.Unconfirmed, len(c.Deciders))
	}
	row := func(d int, name string) map[string]any {
		t.Helper()
		for _, r := range c.Deciders[d].Rows {
			if r["row"] == name {
				return r
			}
		}
		t.Fatalf("%s: no row %q", c.Deciders[d].Name, name)
		return nil
	}
	// The service: the 503 is retried at the right time, the 404 is not
	// found, and the confirmation is not a retry.
	if all := row(0, "all"); all["n"] != 3.0 || all["retry"] != 3.0 || all["delayN"] != 1.0 || all["delayOK"] != 1.0 || all["sepViolations"] != 0.0 {
		t.Errorf("service: %v", all)
	}
	if r := row(0, "pattern: p"); r["n"] != 1.0 {
		t.Errorf("pattern row: %v", r)
	}
	if r := row(0, "pattern: (none)"); r["n"] != 2.0 {
		t.Errorf("no-pattern row: %v", r)
	}
	// The AI SDK retries the 503 only; it has no class column.
	if ai := row(1, "all"); c.Deciders[1].Name != "Vercel AI SDK" || ai["retry"] != 3.0 || ai["permanentRetried"] != 0.0 || ai["class"] != nil || ai["delayN"] != nil {
		t.Errorf("%s: %v", c.Deciders[1].Name, ai)
	}
	// LangGraph retries what it cannot place (the message-only confirmation) and a 404 read as httpx's: 2 right.
	if lg := row(4, "all"); c.Deciders[4].Name != "LangGraph default_retry_on" || lg["retry"] != 2.0 || lg["permanentRetried"] != 1.0 {
		t.Errorf("%s: %v", c.Deciders[4].Name, lg)
	}
	// LiteLLM names classes: the 503 and the 404 right.
	if ll := row(6, "all"); ll["class"] != 2.0 || ll["code"] != 2.0 {
		t.Errorf("LiteLLM: %v", ll)
	}

	// Text, with the rules in front of the baseline: the confirmation is theirs.
	code, out, errOut = runCmd(t, "bench", "classify", "--rules", rules, "--corpus", mine)
	if code != 0 {
		t.Fatalf("--rules: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"mine.jsonl: 3 cases from 3 systems (1 unconfirmed cases left out); scored by the shipped text model, whose training data (corpus/) does not hold these cases; the rules of rules.yaml decide first.",
		"toolfailure baseline + rules.yaml",
		"class: governance  1    100.0   100.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// Markdown begins with the line the documentation is generated from.
	code, out, _ = runCmd(t, "bench", "classify", "--output", "markdown", mine)
	if code != 0 || !strings.HasPrefix(out, benchMarkdownHead+"\n") || !strings.Contains(out, "## mine.jsonl\n") {
		t.Errorf("markdown: exit %d:\n%s", code, out)
	}

	// With no corpus named, the repository's corpus/.
	code, out, errOut = runCmd(t, "bench", "classify")
	if code != 0 || !strings.HasPrefix(out, "corpus/: ") || !strings.Contains(out, "which was trained on these cases (--cv on corpus/ scores them held out)") {
		t.Errorf("default corpus: exit %d: %s\n%s", code, errOut, out)
	}

	onlyUnconfirmed := writeFile(t, "u.jsonl", strings.Split(benchCases, "\n")[4]+"\n")
	bad := writeFile(t, "bad.jsonl", `{"id": "x", "tool": "t", "error": {"message": "m"}, "expect": {"class": "capability", "code": "auth_required", "retryable": false}}`+"\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{mine, "--output", "xml"}, 2, `--output "xml": use text, json or markdown`},
		{[]string{"--corpus", filepath.Join("..", "..", "corpus", "cloud.jsonl"), "--cv"}, 2, "--cv: cross-validation holds systems out of the whole corpus/"},
		{[]string{"nosuch.jsonl"}, 1, "corpus nosuch.jsonl: no such file or directory"},
		{[]string{onlyUnconfirmed}, 1, "no confirmed cases (1 unconfirmed)"},
		{[]string{bad}, 1, "capability/auth_required is not a baseline class and code"},
		{[]string{mine, "--rules", "nosuch.yaml"}, 1, "nosuch.yaml"},
	} {
		code, _, errOut := runCmd(t, append([]string{"bench", "classify"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// benchDoc is the generated benchmark table and the public corpus it is
// generated from (TOOLFAILURE_PUBLIC_CORPUS, by default the shared one
// beside the repository: not in a clone, so that CI checks the corpus/
// section alone).
const benchDoc = "../../docs/benchmark-classification.md"

func publicCorpus() string {
	if p := os.Getenv("TOOLFAILURE_PUBLIC_CORPUS"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "shared", "corpus", "baseline-public.jsonl")
}

// TestBenchmarkDocIsCurrent regenerates the tables of
// docs/benchmark-classification.md, everything from the line that the
// Markdown output begins with, and fails when the committed file differs:
// a change to the corpus, the baseline or a peer's rule must come with
// the regenerated page. Without the public corpus at hand, its section is
// left as committed and the rest is checked. TOOLFAILURE_UPDATE_BENCHMARK_DOC=1
// rewrites the page (the public corpus is then required).
func TestBenchmarkDocIsCurrent(t *testing.T) {
	t.Parallel()
	if racetest.Enabled {
		t.Skip("ten trainings under the race detector take minutes; scripts/test runs this test without it")
	}
	if testing.Short() {
		t.Skip("cross-validation trains ten models")
	}
	b, err := os.ReadFile(benchDoc)
	if err != nil {
		t.Fatal(err)
	}
	committed := string(b)
	at := strings.Index(committed, benchMarkdownHead)
	if at < 0 {
		t.Fatalf("%s lacks the line the generated part begins with:\n%s", benchDoc, benchMarkdownHead)
	}
	args := []string{"bench", "classify", "--peers", "--cv", "--output", "markdown", filepath.Join("..", "..", "corpus")}
	public := publicCorpus()
	_, err = os.Stat(public)
	havePublic := err == nil
	if havePublic {
		args = append(args, public)
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	code, got, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("bench classify: exit %d: %s", code, errOut)
	}
	want := committed[at:]
	if !havePublic {
		t.Logf("no public corpus at %s: its section is not checked", public)
		want = dropSection(want, "## "+filepath.Base(public)+"\n")
	}
	if got == want {
		return
	}
	if os.Getenv("TOOLFAILURE_UPDATE_BENCHMARK_DOC") == "1" {
		if !havePublic {
			t.Fatalf("regenerating needs the public corpus (%s, or TOOLFAILURE_PUBLIC_CORPUS)", public)
		}
		if err := os.WriteFile(benchDoc, []byte(committed[:at]+got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", benchDoc)
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s is not what bench classify prints now; first difference at line %d of the generated part:\n committed: %s\n generated: %s\n"+
				"regenerate it: TOOLFAILURE_UPDATE_BENCHMARK_DOC=1 go test ./cmd/toolfailure/ -run TestBenchmarkDocIsCurrent", benchDoc, i+1, w, g)
			break
		}
	}
}

// dropSection removes the Markdown section that begins with the heading
// line, up to the next heading of its level.
func dropSection(md, heading string) string {
	i := strings.Index(md, "\n"+heading)
	if i < 0 {
		return md
	}
	rest := md[i+1+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		return md[:i+1] + rest[j+1:]
	}
	return md[:i+1]
}
