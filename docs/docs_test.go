// The docs directory holds the project's reference pages. Its tests keep
// the tables that mirror data in the code in step with that data, run the
// README's and the cookbook's curl commands against a live service, and
// check that every relative link resolves and that the README stays a
// front door whose test command is the one CI runs.
package docs_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/servicetest"
)

func TestReferenceListsEveryPatternAndRule(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("reference.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, p := range redact.Patterns() {
		if !strings.Contains(doc, "| `"+p.Kind+"` |") {
			t.Errorf("docs/reference.md does not list the redaction kind %q", p.Kind)
		}
	}
	for _, r := range classify.BaselineRules() {
		if !strings.Contains(doc, "| `"+r.ID+"` |") {
			t.Errorf("docs/reference.md does not list the baseline rule %q", r.ID)
		}
	}
	if d := classify.Default(time.Time{}); !strings.Contains(doc, d.AgentGuidance) || d.RuleID != classify.DefaultRuleID {
		t.Errorf("docs/reference.md does not show the default outcome's guidance %q", d.AgentGuidance)
	}
}

// pages are the Markdown files that the README and docs/ consist of,
// relative to this directory.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{filepath.Join("..", "README.md")}, docs...)
}

// fencedBlocks returns the code blocks of a Markdown text with the given
// info string ("sh", "go", …; "" for any).
func fencedBlocks(md, lang string) []string {
	var out []string
	var cur strings.Builder
	in, keep := false, false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, keep = true, lang == "" || strings.TrimPrefix(trimmed, "```") == lang
			cur.Reset()
		case in && trimmed == "```":
			if keep {
				out = append(out, cur.String())
			}
			in = false
		case in:
			cur.WriteString(line + "\n")
		}
	}
	return out
}

// TestREADMEIsAFrontDoor: the README stays short, and its test command is
// the one CI runs.
func TestREADMEIsAFrontDoor(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("the README has %d lines; it is a front door of at most 200: move the rest to a page of docs/ and link it", n)
	}
	m := regexp.MustCompile("(?s)\n## Run the tests\n\n```sh\n(.*?)\n```").FindStringSubmatch(readme)
	if m == nil || strings.Contains(m[1], "\n") {
		t.Fatalf(`the README has no "## Run the tests" section whose code block is one command`)
	}
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), m[1]) {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", m[1])
	}
}

// slug is the fragment that GitHub gives a Markdown heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the fragments of a Markdown file's headings.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		s := slug(strings.TrimLeft(line, "#"))
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestLinksResolve: every relative link of the README and docs/ names a
// file of the repository, and a fragment names a heading of its page.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		// Links in code are not links.
		text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
		text = regexp.MustCompile("`[^`\n]*`").ReplaceAllString(text, "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			tb, err := os.ReadFile(path)
			if err != nil {
				if _, serr := os.Stat(path); serr != nil {
					t.Errorf("%s: link %s: %v", page, target, serr)
				}
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchors(string(tb))[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, file, frag)
			}
		}
	}
}

// TestCurlCommandsAnswer runs the curl commands of the README and of
// rpc-cookbook.md, in order, against a live service whose key has every
// scope: each must be answered 200. The placeholders are filled in as a
// reader would: tf_… with the correlation ID the first Classify returned,
// FINGERPRINT with that record's fingerprint.
func TestCurlCommandsAnswer(t *testing.T) {
	t.Parallel()
	s := servicetest.Embedded(t)
	svc := servicetest.Start(t, s)
	key := servicetest.MintKey(t, s, "report", "lookup", "rules")

	curl := regexp.MustCompile(`^curl -s http://127\.0\.0\.1:8080(/\S+)`)
	data := regexp.MustCompile(`(?s) -d '([^']*)'`)
	var calls []string // "page: command"
	for _, page := range []string{filepath.Join("..", "README.md"), "rpc-cookbook.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, block := range fencedBlocks(string(b), "sh") {
			for _, line := range shellLines(block) {
				if strings.HasPrefix(line, "curl ") {
					calls = append(calls, filepath.Base(page)+": "+line)
					n++
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s shows no curl command", page)
		}
	}
	var cid, fingerprint string
	for _, call := range calls {
		page, line, _ := strings.Cut(call, ": ")
		m, d := curl.FindStringSubmatch(line), data.FindStringSubmatch(line)
		if m == nil || d == nil || !strings.Contains(line, `-H "Authorization: Bearer $TOOLFAILURE_KEY"`) {
			t.Errorf("%s: not a POST to the service with the key and a body: %s", page, line)
			continue
		}
		body := strings.NewReplacer("tf_…", cid, "FINGERPRINT", fingerprint).Replace(d[1])
		req, err := http.NewRequest(http.MethodPost, svc.URL+m[1], strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %s\nanswered %s: %s", page, line, res.Status, answer)
			continue
		}
		var got struct {
			ToolFailure struct{ CorrelationID string } `json:"toolFailure"`
			Failure     struct{ Fingerprint string }   `json:"failure"`
		}
		_ = json.Unmarshal(answer, &got)
		if cid == "" && got.ToolFailure.CorrelationID != "" {
			cid = got.ToolFailure.CorrelationID
		}
		if fingerprint == "" && got.Failure.Fingerprint != "" {
			fingerprint = got.Failure.Fingerprint
		}
	}
	if cid == "" || fingerprint == "" {
		t.Errorf("no Classify gave a correlation ID (%q) or no GetFailure a fingerprint (%q) for the later commands", cid, fingerprint)
	}
}

// shellLines splits shell text into command lines: a newline inside single
// quotes or after a backslash does not end one.
func shellLines(sh string) []string {
	var lines []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(sh); i++ {
		c := sh[i]
		switch {
		case c == '\\' && !quoted && i+1 < len(sh) && sh[i+1] == '\n':
			i++
			cur.WriteByte(' ')
			continue
		case c == '\'':
			quoted = !quoted
		case c == '\n' && !quoted:
			if l := strings.TrimSpace(cur.String()); l != "" {
				lines = append(lines, l)
			}
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	if l := strings.TrimSpace(cur.String()); l != "" {
		lines = append(lines, l)
	}
	return lines
}

// TestDevelopmentLayoutExists: every path in development.md's layout is in
// the repository.
func TestDevelopmentLayoutExists(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("development.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "\n## Layout\n")
	blocks := fencedBlocks(layout, "")
	if !ok || len(blocks) == 0 {
		t.Fatal(`development.md has no "## Layout" code block`)
	}
	for _, line := range strings.Split(strings.TrimSpace(blocks[0]), "\n") {
		path := strings.Fields(line)[0]
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(path))); err != nil {
			t.Errorf("development.md's layout names %s: %v", path, err)
		}
	}
}

// The benchmark figures live in one generated report: each bench command's
// section is what a run printed, headed by the command, its date and its
// machine, and the budget lines of the main bench are in it.
func TestBenchmarksReportIsGenerated(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	for _, section := range []string{"bench", "bench proxy", "bench isolation"} {
		begin, end := "<!-- "+section+" -->", "<!-- end "+section+" -->"
		i, j := strings.Index(report, begin), strings.Index(report, end)
		if i < 0 || j < i {
			t.Errorf("benchmarks.md has no generated %q section (toolfailure %s --report docs/benchmarks.md)", section, section)
			continue
		}
		body := report[i:j]
		if !regexp.MustCompile("(?m)^Measured on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} \\(UTC\\) on \\S+, \\d+ CPUs").MatchString(body) ||
			!strings.Contains(body, "```text\n") {
			t.Errorf("the %q section of benchmarks.md is not what --report writes:\n%s", section, body)
		}
	}
	for _, want := range []string{"service CPU per durable Classify", "PostgreSQL CPU per durable Classify"} {
		if !strings.Contains(report, want) {
			t.Errorf("benchmarks.md lacks the budget line %q", want)
		}
	}
}
