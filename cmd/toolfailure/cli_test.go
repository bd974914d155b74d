package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/sqlite"
)

// fullTree is the command tree with the help and completion commands,
// which cobra adds only when it executes.
func fullTree() *cobra.Command {
	root := newRootCmd(defaultDeps())
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

// anID is a well-formed correlation ID.
func anID(t *testing.T) string {
	id, err := correlation.New(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return id.String()
}

// commandPaths lists every command of the tree, hidden ones included, as
// the arguments that name it.
func commandPaths(root *cobra.Command) [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, nil)
	return paths
}

const (
	secretKey      = "tfk_SeCrEtKeyValue0123456789abcdef"
	secretPassword = "Pa55wordThatMustNotShow"
)

// TestHelpNeverPrintsSecrets: with a key and a database password in the
// environment, no command's help, usage error or failure shows either;
// the defaults they give are named "(from $NAME)".
func TestHelpNeverPrintsSecrets(t *testing.T) {
	t.Setenv("TOOLFAILURE_KEY", secretKey)
	t.Setenv("DATABASE_URL", "postgres://admin:"+secretPassword+"@127.0.0.1:1/db?sslmode=disable")
	noSecret := func(t *testing.T, what string, texts ...string) {
		t.Helper()
		for _, s := range texts {
			if strings.Contains(s, secretKey) || strings.Contains(s, secretPassword) {
				t.Errorf("%s shows a secret:\n%s", what, s)
			}
		}
	}
	paths := commandPaths(fullTree())
	if len(paths) < 20 {
		t.Fatalf("only %d commands in the tree", len(paths))
	}
	for _, path := range paths {
		name := strings.Join(append([]string{"toolfailure"}, path...), " ")
		for _, help := range []string{"--help", "-h"} {
			code, out, errOut := runCmd(t, append(append([]string{}, path...), help)...)
			if code != 0 || !strings.Contains(out, "Usage:") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", name, help, code, out, errOut)
			}
			noSecret(t, name+" "+help, out, errOut)
		}
		code, out, errOut := runCmd(t, append([]string{"help"}, path...)...)
		if code != 0 {
			t.Errorf("toolfailure help %s: exit %d", strings.Join(path, " "), code)
		}
		noSecret(t, "toolfailure help "+strings.Join(path, " "), out, errOut)
		code, out, errOut = runCmd(t, append(append([]string{}, path...), "--no-such-flag")...)
		if code != 2 || strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("%s --no-such-flag: exit %d, want 2 and one line; stderr %q", name, code, errOut)
		}
		noSecret(t, name+" --no-such-flag", out, errOut)
	}
	// The defaults are named, not shown.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--help"}, "(from $DATABASE_URL)"},
		{[]string{"migrate", "--help"}, "(from $DATABASE_URL)"},
		{[]string{"keys", "create", "--help"}, "(from $DATABASE_URL)"},
		{[]string{"retention", "purge", "--help"}, "(from $DATABASE_URL)"},
		{[]string{"lookup", "--help"}, "(from $TOOLFAILURE_KEY)"},
		{[]string{"failures", "list", "--help"}, "(from $TOOLFAILURE_KEY)"},
		{[]string{"rules", "apply", "--help"}, "(from $TOOLFAILURE_KEY)"},
		{[]string{"rules", "export", "--help"}, "(from $TOOLFAILURE_KEY)"},
		{[]string{"proxy", "--help"}, "(from $TOOLFAILURE_KEY)"},
	} {
		if _, out, _ := runCmd(t, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%v does not say %s:\n%s", c.args, c.want, out)
		}
	}
	// Failures that use the secrets do not repeat them.
	for _, args := range [][]string{
		{"migrate"},
		{"migrate", "--database-url", "postgres://admin:" + secretPassword + "@127.0.0.1:notaport/db"},
		{"migrate", "--database-url", "mysql://admin:" + secretPassword + "@127.0.0.1/db"},
		{"serve", "--listen", "127.0.0.1:0"},
		{"keys", "create", "--tenant", "x", "--scopes", "report"},
		{"retention", "show", "--tenant", "x"},
		{"lookup", anID(t), "--server", "http://127.0.0.1:1"},
		{"failures", "list", "--server", "http://127.0.0.1:1"},
		{"rules", "export", "--server", "http://127.0.0.1:1"},
	} {
		code, out, errOut := runCmd(t, args...)
		if code == 0 {
			t.Errorf("%v: exit 0 against nothing", args)
		}
		noSecret(t, fmt.Sprint(args), out, errOut)
	}
}

// TestExitStatus: 0 ok, 1 failure, 2 usage error, each error with a
// one-line reason on stderr and no usage dump.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	id := anID(t)
	cases := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{}, 0, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"--version"}, 0, ""},
		{[]string{"nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"help", "nosuch"}, 2, `unknown help topic "nosuch"`},
		{[]string{"help", "rules", "nosuch"}, 2, `unknown help topic "rules nosuch"`},
		{[]string{"lookup"}, 2, "want one correlation ID"},
		{[]string{"lookup", "a", "b"}, 2, "want one correlation ID"},
		{[]string{"lookup", "not-an-id", "--key", "k"}, 2, "not a correlation ID"},
		{[]string{"lookup", id, "--output", "yaml", "--key", "k"}, 2, `--output "yaml"`},
		{[]string{"lookup", id, "--json", "--output", "text", "--key", "k"}, 2, "--json contradicts"},
		{[]string{"lookup", id, "--key", "k", "--server", "http://127.0.0.1:1"}, 1, "toolfailure lookup: "},
		{[]string{"keys"}, 2, "name a subcommand: create"},
		{[]string{"keys", "delete"}, 2, `unknown subcommand "delete"`},
		{[]string{"failures"}, 2, "name a subcommand: list"},
		{[]string{"failures", "list", "--limit", "0", "--key", "k"}, 2, "--limit 0"},
		{[]string{"failures", "list", "--since", "yesterday", "--key", "k"}, 2, "--since"},
		{[]string{"failures", "list", "--class", "reliabilty", "--key", "k"}, 2, "want capability, reliability or governance"},
		{[]string{"groups", "list", "--class", "CLASS_NOPE", "--key", "k"}, 2, "want capability, reliability or governance"},
		{[]string{"rules"}, 2, "name a subcommand"},
		{[]string{"rules", "apply"}, 2, "-f FILE is required"},
		{[]string{"rules", "test", "-f", "x.yaml"}, 2, "at least one --case"},
		{[]string{"retention"}, 2, "name a subcommand"},
		{[]string{"retention", "set", "--tenant", "x"}, 2, "--days is required"},
		{[]string{"retention", "set", "--tenant", "x", "--days", "-1"}, 2, "--days -1: must be from 0"},
		{[]string{"bench", "zero-work"}, 2, "--key is required"},
		{[]string{"bench", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"conform"}, 2, "no files given"},
		{[]string{"conform", "/nonexistent/result.json"}, 1, ""},
		{[]string{"proxy", "--key", "k"}, 2, "name the MCP server"},
		{[]string{"proxy", "--key", "k", "--upstream", "http://127.0.0.1:1/mcp", "node", "server.js"}, 2, "either --upstream or a command"},
		{[]string{"proxy", "--meta-key", "toolFailure", "--", "node", "server.js"}, 2, "--meta-key: \"toolFailure\" is not a prefixed _meta key"},
		{[]string{"proxy", "--max-tasks", "0", "--", "node", "server.js"}, 2, "--max-tasks 0: want 1 or more"},
		{[]string{"proxy", "--task-expiry", "-1s", "--", "node", "server.js"}, 2, "--task-expiry -1s: want a positive duration"},
		{[]string{"serve", "--rate-limit-tenants", "acme=fast"}, 2, "--rate-limit-tenants"},
		{[]string{"serve", "--listen"}, 2, "flag needs an argument"},
		{[]string{"migrate", "--database-url", "mysql://h/db"}, 2, `--database-url: unsupported database URL "mysql://h/db"`},
	}
	for _, c := range cases {
		code, out, errOut := runCmd(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d; stderr %q", c.args, code, c.code, errOut)
			continue
		}
		if c.code == 0 {
			if out == "" {
				t.Errorf("%v: nothing on stdout", c.args)
			}
			continue
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errOut, c.want)
		}
		if c.args[0] != "conform" && strings.Count(strings.TrimRight(errOut, "\n"), "\n") != 0 {
			t.Errorf("%v: stderr is not one line:\n%s", c.args, errOut)
		}
		if strings.Contains(errOut, "Usage:") || strings.Contains(out, "Usage:") {
			t.Errorf("%v: a usage dump on an error:\n%s%s", c.args, out, errOut)
		}
	}
}

// parseOnly resolves a command line to its command and parses its flags
// and arguments exactly as running it would, without running it.
func parseOnly(args []string) (*cobra.Command, error) {
	cmd, rest, err := fullTree().Find(args)
	if err != nil {
		return nil, err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return cmd, err
	}
	if v, _ := cmd.Flags().GetBool("version"); !cmd.Runnable() && !v {
		return cmd, fmt.Errorf("%s does not run", cmd.CommandPath())
	}
	return cmd, cmd.ValidateArgs(cmd.Flags().Args())
}

// TestGoStyleLongFlags: the single-dash long flags that the commands took
// before cobra still work, and nothing else changes meaning.
func TestGoStyleLongFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"lookup -json -server http://h tf_x", "lookup --json --server http://h tf_x"},
		{"lookup tf_x -server=http://h -key k", "lookup tf_x --server=http://h --key k"},
		{"keys create -tenant acme -scopes report -database-url sqlite:x.db", "keys create --tenant acme --scopes report --database-url sqlite:x.db"},
		{"rules export -ocurrent.yaml -baseline", "rules export -ocurrent.yaml --baseline"},
		{"rules export -out x.yaml", "rules export -out x.yaml"}, // -o with the value "ut": pflag's meaning
		{"rules apply -f rules.yaml -dry-run", "rules apply -f rules.yaml --dry-run"},
		{"failures list -since -1h -limit 5", "failures list --since -1h --limit 5"},
		{"proxy -label x -- node -inspect s.js", "proxy --label x -- node -inspect s.js"},
		{"proxy -label x node -listen 3000", "proxy --label x node -listen 3000"},
		{"proxy -v node -budget 1", "proxy -v node -budget 1"},
		{"serve -listen 127.0.0.1:0", "serve --listen 127.0.0.1:0"},
		{"nosuch -listen x", "nosuch -listen x"},
	} {
		if got := strings.Join(goStyleLongFlags(newRootCmd(defaultDeps()), strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.in, got, c.want)
		}
	}
	// And end to end: the old spelling parses and is refused or run as before.
	if code, _, errOut := runCmd(t, "keys", "create", "-tenant", " ", "-scopes", "report"); code != 2 || !strings.Contains(errOut, "--tenant is required") {
		t.Errorf("keys create -tenant: exit %d %q", code, errOut)
	}
}

// TestProxyCommandLine: the command after the proxy's flags is the
// upstream's, with or without --, its own flags included.
func TestProxyCommandLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"proxy", "--label", "files", "--", "node", "server.js", "--port", "3"}, []string{"node", "server.js", "--port", "3"}},
		{[]string{"proxy", "--label", "files", "node", "--inspect", "server.js", "-v"}, []string{"node", "--inspect", "server.js", "-v"}},
		{[]string{"proxy", "-v", "--budget", "1s", "python3", "server.py"}, []string{"python3", "server.py"}},
	} {
		cmd, err := parseOnly(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := cmd.Flags().Args(); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v: upstream command %q, want %q", c.args, got, c.want)
		}
		if l, _ := cmd.Flags().GetString("label"); strings.Contains(strings.Join(c.args, " "), "--label") && l != "files" {
			t.Errorf("%v: --label = %q", c.args, l)
		}
	}
}

// commandLines finds the toolfailure command lines of a Markdown text: in
// fenced code blocks and in inline code. A ```text block is output or a
// usage synopsis (the generated help of docs/cli.md), not a command to run.
func commandLines(md string) []string {
	var block, prose strings.Builder
	fenced, text := false, false
	for _, line := range strings.Split(md, "\n") {
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
			text = fenced && trimmed == "```text"
			prose.WriteString("\n")
			continue
		}
		switch {
		case text:
		case fenced:
			block.WriteString(line + "\n")
		default:
			prose.WriteString(line + "\n")
		}
	}
	lines := codeCommandLines(block.String())
	// Inline code may wrap across source lines.
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose.String(), -1) {
		lines = append(lines, codeCommandLines(strings.ReplaceAll(m[1], "\n", " "))...)
	}
	return lines
}

// codeCommandLines finds the toolfailure command lines of shell text (a
// trailing backslash continues a line), as far as the shell's own syntax.
func codeCommandLines(code string) []string {
	code = strings.ReplaceAll(code, "\\\n", " ")
	start := regexp.MustCompile(`(?:^\s*(?:\$ )?|[(/])toolfailure `)
	var lines []string
	for _, line := range strings.Split(code, "\n") {
		for _, loc := range start.FindAllStringIndex(line, -1) {
			rest := line[loc[1]:]
			// The command ends where the shell takes over.
			end := len(rest)
			for _, stop := range []string{"|", ">", ")", "#", "&&", ";"} {
				if i := strings.Index(rest, stop); i >= 0 && i < end {
					end = i
				}
			}
			if cmdLine := strings.TrimSpace(rest[:end]); cmdLine != "" {
				lines = append(lines, cmdLine)
			}
		}
	}
	return lines
}

// shellWords splits a command line as sh would, for the quoting used in
// the documentation ('…' and "…").
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestREADMECommandLines: every toolfailure command line in the README and
// the pages of docs/, and every example in the commands' own help, names a
// command and flags that exist, with arguments the command accepts, and
// every command is shown in a command line of the documentation. (The
// commands themselves run end to end against a real serve in this
// package's other tests: docs/cli.md's tour in TestCLITourRuns, serve,
// keys create, lookup and failures list in TestEmbeddedFirstStart and
// TestLookupFlagsAfterArguments, migrate in TestPostgresGetsNoBootstrapKey,
// rules apply/export in TestRulesApplyAcrossReplicas, rules test in
// TestRulesTestOffline, bench in TestBenchRuns.)
func TestREADMECommandLines(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	pages = append([]string{filepath.Join("..", "..", "README.md")}, pages...)
	seen := map[string]bool{}
	total := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := commandLines(string(text))
		if filepath.Base(page) == "README.md" && len(lines) == 0 {
			t.Errorf("the README shows no toolfailure command line")
		}
		total += len(lines)
		for _, line := range lines {
			cmd, err := parseOnly(shellWords(line))
			if err != nil {
				t.Errorf("%s: toolfailure %s: %v", filepath.Base(page), line, err)
				continue
			}
			seen[cmd.CommandPath()] = true
		}
	}
	if total < 25 {
		t.Fatalf("found only %d command lines in the README and docs/", total)
	}
	for _, path := range commandPaths(fullTree()) {
		c, _, err := fullTree().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Runnable() && !c.Hidden && !c.HasAvailableSubCommands() && !strings.HasPrefix(c.CommandPath(), "toolfailure completion") &&
			c.Name() != "help" && c.Parent() != nil && !seen[c.CommandPath()] {
			t.Errorf("neither the README nor docs/ shows a command line of %s", c.CommandPath())
		}
		for _, line := range codeCommandLines(c.Example) {
			if _, err := parseOnly(shellWords(line)); err != nil {
				t.Errorf("%s --help example: toolfailure %s: %v", c.CommandPath(), line, err)
			}
		}
	}
}

// TestLookupFlagsAfterArguments: flags may follow the correlation ID, and
// --output json (or the old --json) prints the record as JSON.
func TestLookupFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	url, out, _ := startServe(t, "--database-url", "sqlite:"+dbFile)
	key := regexp.MustCompile(`export TOOLFAILURE_KEY=(\S+)`).FindStringSubmatch(out)[1]
	res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, `{"tool": "t", "error": {"httpStatus": 401}}`)
	cid := res["toolFailure"].(map[string]any)["correlationId"].(string)
	for _, args := range [][]string{
		{"lookup", cid, "--json", "--server", url, "--key", key},
		{"lookup", cid, "--server", url, "--output", "json", "--key", key},
		{"lookup", "--key", key, cid, "--server=" + url, "--output=json"},
	} {
		code, text, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var f struct {
			CorrelationID string `json:"correlationId"`
			Code          string `json:"code"`
		}
		if err := json.Unmarshal([]byte(text), &f); err != nil || f.CorrelationID != cid || f.Code != "auth_required" {
			t.Fatalf("%v: not the record as JSON (%v):\n%s", args, err, text)
		}
	}
	code, text, errOut := runCmd(t, "lookup", cid, "--server", url, "--key", key)
	if code != 0 || !strings.Contains(text, "governance / auth_required") {
		t.Fatalf("lookup ID --server --key: exit %d\n%s%s", code, text, errOut)
	}
	code, text, errOut = runCmd(t, "failures", "list", "--class", "governance", "--server", url, "--key", key, "--output", "json")
	if code != 0 || !strings.Contains(text, cid) {
		t.Fatalf("failures list --output json: exit %d\n%s%s", code, text, errOut)
	}
	// The proposal's word, as _meta and the text output say it, not the
	// enum's name; the filter takes both spellings.
	if !regexp.MustCompile(`"class":\s*"governance"`).MatchString(text) || strings.Contains(text, "CLASS_") {
		t.Fatalf("failures list --output json does not say the class as the proposal's word:\n%s", text)
	}
	code, text, errOut = runCmd(t, "failures", "list", "--class", "CLASS_GOVERNANCE", "--server", url, "--key", key, "--output", "json")
	if code != 0 || !strings.Contains(text, cid) {
		t.Fatalf("failures list --class CLASS_GOVERNANCE: exit %d\n%s%s", code, text, errOut)
	}
	code, text, errOut = runCmd(t, "lookup", cid, "--server", url, "--key", key, "--output", "json")
	if code != 0 || !regexp.MustCompile(`"class":\s*"governance"`).MatchString(text) {
		t.Fatalf("lookup --output json: exit %d, class not as the proposal's word\n%s%s", code, text, errOut)
	}
}

// TestFailuresListPages: --limit is reached across as many pages as it
// takes, and a listing cut short says how to continue.
func TestFailuresListPages(t *testing.T) {
	t.Parallel()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	url, out, _ := startServe(t, "--database-url", "sqlite:"+dbFile)
	key := regexp.MustCompile(`export TOOLFAILURE_KEY=(\S+)`).FindStringSubmatch(out)[1]
	const n = 25
	for i := range n {
		post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, fmt.Sprintf(`{"tool": "t%d", "error": {"httpStatus": 503}}`, i))
	}
	rows := func(text string) int { return strings.Count(text, " tf_") }
	for _, c := range []struct {
		limit    int
		wantRows int
		more     bool
	}{{20, 20, true}, {n, n, false}, {100, n, false}, {3, 3, true}} {
		code, text, errOut := runCmd(t, "failures", "list", "--server", url, "--key", key, "--limit", fmt.Sprint(c.limit), "--page-size", "7")
		if code != 0 {
			t.Fatalf("--limit %d: exit %d: %s", c.limit, code, errOut)
		}
		if got := rows(text); got != c.wantRows {
			t.Errorf("--limit %d: %d rows, want %d:\n%s", c.limit, got, c.wantRows, text)
		}
		if strings.Contains(text, "more: toolfailure failures list --page-token") != c.more {
			t.Errorf("--limit %d: continuation line present = %v, want %v:\n%s", c.limit, !c.more, c.more, text)
		}
		if errOut != "" {
			t.Errorf("--limit %d: stderr %q", c.limit, errOut)
		}
	}
	// The token continues where the listing stopped: together the two
	// listings are every record once.
	_, first, _ := runCmd(t, "failures", "list", "--server", url, "--key", key, "--limit", "10", "--page-size", "4")
	token := regexp.MustCompile(`--page-token (\S+)`).FindStringSubmatch(first)
	if token == nil {
		t.Fatalf("no page token:\n%s", first)
	}
	_, second, _ := runCmd(t, "failures", "list", "--server", url, "--key", key, "--limit", "100", "--page-token", token[1], "--output", "json")
	var listed struct {
		Failures []struct {
			CorrelationID string `json:"correlationId"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(second), &listed); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`tf_\S+`).FindAllString(strings.Split(first, "\nmore:")[0], -1) {
		ids[m] = true
	}
	for _, f := range listed.Failures {
		if ids[f.CorrelationID] {
			t.Errorf("%s listed twice", f.CorrelationID)
		}
		ids[f.CorrelationID] = true
	}
	if len(ids) != n {
		t.Errorf("the two listings hold %d records, want %d", len(ids), n)
	}
}

// TestFailuresListBeyondOnePage: past the service's page limit of 1,000,
// the listing either has every record or says on stderr that the service
// stopped early (a service whose last page is full but has no token).
func TestFailuresListBeyondOnePage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("classifies 1,001 errors")
	}
	dbURL := migrated(t)
	url, _, _ := startServe(t, "--database-url", dbURL)
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: %d %s", code, errOut)
	}
	key := strings.TrimSpace(out)
	const n = maxPageSize + 1
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, fmt.Sprintf(`{"tool": "t%d", "error": {"httpStatus": 503}}`, i))
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	code, text, errOut := runCmd(t, "failures", "list", "--server", url, "--key", key, "--limit", "1500", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var listed struct {
		Failures []json.RawMessage `json:"failures"`
	}
	if err := json.Unmarshal([]byte(text), &listed); err != nil {
		t.Fatal(err)
	}
	warned := strings.Contains(errOut, "there may be more than shown")
	switch got := len(listed.Failures); {
	case got == n && !warned:
	case got == maxPageSize && warned:
		t.Logf("the service stopped at %d without a page token; the CLI said so", got)
	default:
		t.Fatalf("%d of %d records listed, warning %v: %s", got, n, warned, errOut)
	}
}

// TestServePortTakenCreatesNoKey: when the port is taken, the first start
// of an embedded store fails with one clear line and creates no key; the
// next start that can listen prints the one key.
func TestServePortTakenCreatesNoKey(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"serve", "--listen", ln.Addr().String(), "--database-url", "sqlite:" + dbFile}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "TOOLFAILURE_KEY") {
		t.Fatalf("a key was printed although serve could not listen:\n%s", stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "toolfailure serve: cannot listen on "+ln.Addr().String()+": ") {
		t.Fatalf("last line %q does not say that the port is taken", last)
	}
	s, err := sqlite.Open(t.Context(), dbFile)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.CountAPIKeys(t.Context())
	_ = s.Close()
	if err != nil || n != 0 {
		t.Fatalf("%d keys in the store after a failed start (%v)", n, err)
	}
	_, out, _ := startServe(t, "--database-url", "sqlite:"+dbFile)
	if !strings.Contains(out, "export TOOLFAILURE_KEY=") {
		t.Fatalf("the first start that listened printed no key:\n%s", out)
	}
}

// orderedStore is a real store that records the order of its purges and
// its closing. A purge lasts until its context ends; closing waits until a
// purge has begun, so that a purge left running shows.
type orderedStore struct {
	*sqlite.Store
	mu      sync.Mutex
	events  []string
	once    sync.Once
	started chan struct{}
}

func (s *orderedStore) record(e string) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *orderedStore) PurgeExpired(ctx context.Context, _ time.Time, _ int) (int64, error) {
	s.record("purge began")
	s.once.Do(func() { close(s.started) })
	<-ctx.Done()
	s.record("purge ended")
	return 0, ctx.Err()
}

func (s *orderedStore) Close() error {
	<-s.started
	s.record("closed")
	return s.Store.Close()
}

// TestServeStopsBackgroundWorkBeforeClosing: when serve fails after it has
// started its background work (here: the port is taken), that work ends
// before the store is closed, not later on a closed store.
func TestServeStopsBackgroundWorkBeforeClosing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	st := &orderedStore{started: make(chan struct{})}
	d := deps{openBackend: func(ctx context.Context, databaseURL string, _ ...postgres.Option) (store.Store, string, bool, error) {
		s, err := sqlite.Open(ctx, strings.TrimPrefix(databaseURL, "sqlite:"))
		st.Store = s
		return st, databaseURL, true, err
	}}
	var stdout, stderr bytes.Buffer
	code := runWith(t.Context(), d, []string{"serve", "--listen", ln.Addr().String(), "--database-url", "sqlite:" + filepath.Join(t.TempDir(), "tf.db")}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if got := strings.Join(st.events, ", "); got != "purge began, purge ended, closed" {
		t.Fatalf("events %q, want the purge to end before the store closes", got)
	}
}

// TestProgress: drawn in place on a terminal, removed when done, out of
// the way of log lines; nothing at all when the writer is not a terminal.
func TestProgress(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	p := newProgressOn(&buf, "seeding", 200, clock)
	now = now.Add(3 * time.Second)
	p.Set(100)
	if got, want := buf.String(), "\rseeding ["+strings.Repeat("=", 15)+strings.Repeat(" ", 15)+"] 100/200  50% 3s\x1b[K"; got != want {
		t.Fatalf("drawn %q, want %q", got, want)
	}
	buf.Reset()
	fmt.Fprintln(p.writer(nil), "bench: seeded 100 of 200 records")
	if got := buf.String(); !strings.HasPrefix(got, "\r\x1b[Kbench: seeded 100 of 200 records\n\rseeding [") {
		t.Fatalf("a log line is not written on a clean line with the bar below it: %q", got)
	}
	buf.Reset()
	p.Done()
	p.Set(200) // after Done: nothing
	if got := buf.String(); got != "\r\x1b[K" {
		t.Fatalf("Done left %q", got)
	}
	spinner := newProgressOn(&buf, "removing expired failure records", 0, clock)
	if got := spinner.line(); got != "| removing expired failure records… 0s" {
		t.Fatalf("spinner line %q", got)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, out := range []any{&buf, w} {
		if p := newProgress(out.(interface{ Write([]byte) (int, error) }), "x", 10); p != nil {
			t.Errorf("a progress display on %T, which is not a terminal", out)
		}
	}
	var none *progress
	none.Set(5)
	none.Done()
	if none.writer(&buf) != &buf {
		t.Error("a nil progress does not pass its output through")
	}
}

// TestEveryCommandHasHelp: every command that an operator sees has a
// summary, and every one that runs has examples in its help.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	for _, path := range commandPaths(fullTree()) {
		c, _, err := fullTree().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Hidden || c.Name() == "help" || strings.HasPrefix(c.CommandPath(), "toolfailure completion") {
			continue
		}
		if c.Short == "" {
			t.Errorf("%s has no summary", c.CommandPath())
		}
		if c.Example == "" {
			t.Errorf("%s --help has no examples", c.CommandPath())
		}
	}
}

// TestCompletion prints the completion scripts of the three shells.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := runCmd(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "toolfailure") || len(out) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes; %s", shell, code, len(out), errOut)
		}
	}
	// What the scripts ask the binary: subcommands, and the values of --class.
	if _, out, _ := runCmd(t, "__complete", "rules", ""); !strings.Contains(out, "apply") || !strings.Contains(out, "export") || !strings.Contains(out, "test") {
		t.Errorf("rules subcommands not completed:\n%s", out)
	}
	if _, out, _ := runCmd(t, "__complete", "failures", "list", "--class", "re"); !strings.Contains(out, "reliability") {
		t.Errorf("--class values not completed:\n%s", out)
	}
}
