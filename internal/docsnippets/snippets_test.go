// Package docsnippets_test compiles the Go snippets of the README and the
// docs, so that a snippet a reader copies builds against the code as it is.
package docsnippets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// snippet is one ```go block of a Markdown file.
type snippet struct {
	file string // relative to the repository root
	line int    // of the first line of code
	code string
}

// imports maps the package names that snippets use to their import paths.
var imports = map[string]string{
	"context":     "context",
	"errors":      "errors",
	"fmt":         "fmt",
	"http":        "net/http",
	"log":         "log",
	"os":          "os",
	"slog":        "log/slog",
	"time":        "time",
	"mcp":         "github.com/modelcontextprotocol/go-sdk/mcp",
	"mcpfailure":  "github.com/omcp/toolfailure/mcpfailure",
	"classify":    "github.com/omcp/toolfailure/internal/classify",
	"ruleset":     "github.com/omcp/toolfailure/internal/ruleset",
	"correlation": "github.com/omcp/toolfailure/correlation",
}

// The free variables a fragment may use, as the prose around it introduces
// them: a server (srv or server), a client session, the caller's context,
// an API key and a tool's arguments.
const (
	params        = "ctx context.Context, srv, server *mcp.Server, session *mcp.ClientSession, key string, args map[string]any"
	handlerReturn = "(*mcp.CallToolResult, any, error)"
)

var (
	qualifier = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Z]`)
	position  = regexp.MustCompile(`\S*/s(\d+)\.go:(\d+)`)
)

func TestGoSnippetsCompile(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	var all []snippet
	for _, f := range files {
		all = append(all, extract(t, root, f)...)
	}
	if len(all) < 4 {
		t.Fatalf("found %d Go snippets in %v; the README and docs/toolfailure.md have at least 4", len(all), files)
	}

	// Each snippet becomes one file of a package that exists only in an
	// overlay (go build -overlay), so nothing is written into the tree.
	dir := t.TempDir()
	pkgDir := filepath.Join(root, "internal", "docsnippets", "compiled")
	overlay := map[string]map[string]string{"Replace": {}}
	offsets := make([]int, len(all)) // generated line of the snippet's first line
	for i, s := range all {
		src, first, err := wrap(s, i)
		offsets[i] = first
		if err != nil {
			t.Errorf("%s:%d: %v", s.file, s.line, err)
			continue
		}
		tmp := filepath.Join(dir, fmt.Sprintf("s%d.go", i))
		if err := os.WriteFile(tmp, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		overlay["Replace"][filepath.Join(pkgDir, fmt.Sprintf("s%d.go", i))] = tmp
	}
	ov, _ := json.Marshal(overlay)
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay="+ovPath, "-o", os.DevNull, "./internal/docsnippets/compiled")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		// Point each error at the Markdown line it comes from.
		msg := position.ReplaceAllStringFunc(string(out), func(m string) string {
			p := position.FindStringSubmatch(m)
			i, _ := strconv.Atoi(p[1])
			line, _ := strconv.Atoi(p[2])
			return fmt.Sprintf("%s:%d", all[i].file, all[i].line+line-offsets[i])
		})
		t.Fatalf("the docs' Go snippets do not build:\n%s", msg)
	}
}

// extract returns the ```go blocks of a Markdown file.
func extract(t *testing.T, root, file string) []snippet {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	var out []snippet
	var cur *snippet
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```go":
			cur = &snippet{file: file, line: i + 2}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	return out
}

// wrap makes a compilable file of a snippet: a whole file stays as it is;
// a fragment becomes the body of a function whose parameters are the free
// variables the docs use, returning what a tool handler returns when the
// fragment does, and an error otherwise.
// It returns the file and the line of the file where the snippet starts.
func wrap(s snippet, i int) (string, int, error) {
	if strings.HasPrefix(strings.TrimSpace(s.code), "package ") {
		return "", 0, fmt.Errorf("a whole file: give it a package of its own under examples/ and link it instead")
	}
	if strings.Contains(s.code, "…") {
		return "", 0, fmt.Errorf("the snippet elides code with …: write the code out so that it compiles")
	}
	need := []string{"context", "mcp"}
	// Qualifiers that are not known packages are the snippet's own
	// variables (srv.AddReceivingMiddleware); an unknown package is then
	// reported by the compiler as undefined.
	for _, m := range qualifier.FindAllStringSubmatch(s.code, -1) {
		if _, ok := imports[m[1]]; ok && !slices.Contains(need, m[1]) {
			need = append(need, m[1])
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "package compiled\n\nimport (\n")
	for _, n := range need {
		fmt.Fprintf(&b, "\t%q\n", imports[n])
	}
	fmt.Fprintf(&b, ")\n\n")
	ret, tail := "error", "\treturn nil\n"
	if strings.Contains(s.code, "return nil, nil,") {
		ret, tail = handlerReturn, ""
	}
	fmt.Fprintf(&b, "func snippet%d(%s) %s {\n", i, params, ret)
	fmt.Fprintf(&b, "\t_, _, _, _, _, _ = ctx, srv, server, session, key, args\n")
	first := bytes.Count(b.Bytes(), []byte("\n")) + 1
	b.WriteString(s.code)
	b.WriteString(tail)
	b.WriteString("}\n")
	return b.String(), first, nil
}
