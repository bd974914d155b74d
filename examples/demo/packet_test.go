package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/conformance"
)

// TestPacket holds the reviewer's table to the scenario's traceability file
// and to the code: every row of sep-3313.yaml is printed (a tested row with
// its check, its wording, where it is implemented and the scenario that
// tests it; an excluded row with its reason), the hand-kept map names no
// check the yaml lacks, and every place it names exists.
func TestPacket(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := printPacket(&buf, 3); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	tr, err := conformance.SEP3313()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Requirements) == 0 {
		t.Fatal("sep-3313.yaml has no rows")
	}
	blocks := strings.Split(out, "\n\n")[1:] // the heading, then one block per row
	if len(blocks) != len(tr.Requirements) {
		t.Fatalf("%d rows printed, sep-3313.yaml has %d:\n%s", len(blocks), len(tr.Requirements), out)
	}
	checks := map[string]bool{}
	for i, r := range tr.Requirements {
		b := blocks[i]
		if !strings.Contains(b, r.Text) {
			t.Errorf("row %d: the requirement's wording is not printed:\n%s", i+1, b)
		}
		if r.Check == "" {
			if !strings.Contains(b, "(excluded)") || !strings.Contains(b, r.Excluded) {
				t.Errorf("row %d: excluded, but not printed with its reason:\n%s", i+1, b)
			}
			continue
		}
		checks[r.Check] = true
		for _, want := range []string{r.Check, "[" + r.Status + "]", "implemented  ", "tested       scenario " + r.Scenario, r.ScenarioFile, "must fail    "} {
			if !strings.Contains(b, want) {
				t.Errorf("row %d (%s) lacks %q:\n%s", i+1, r.Check, want, b)
			}
		}
		if r.Status != "tested" {
			t.Errorf("%s: traceability.json says %q", r.Check, r.Status)
		}
		if len(implementedIn[r.Check]) == 0 {
			t.Errorf("%s: not mapped to the code that implements it", r.Check)
		}
	}
	for check, places := range implementedIn {
		if !checks[check] {
			t.Errorf("implementedIn names %s, which sep-3313.yaml does not have", check)
		}
		for _, p := range places {
			if err := p.exists(filepath.Join("..", "..")); err != nil {
				t.Errorf("%s: %v", check, err)
			}
		}
	}
	if t.Failed() {
		t.Logf("printed:\n%s", out)
	}
}

// exists checks that the place's file is in the repository rooted at root
// and defines (or, for a rule or literal, holds) its symbol: Type.method is
// a Go method or a TypeScript function of that name, anything else a
// declaration or a literal.
func (p place) exists(root string) error {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.file)))
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	var pattern string
	typ, method, isMethod := strings.Cut(p.symbol, ".")
	switch {
	case isMethod && strings.HasSuffix(p.file, ".go"):
		pattern = `func \(\w+ \*?` + regexp.QuoteMeta(typ) + `\) ` + regexp.QuoteMeta(method) + `\(`
	case strings.HasSuffix(p.file, ".go") && regexp.MustCompile(`^\w+$`).MatchString(p.symbol):
		pattern = `(func|type|var|const) ` + regexp.QuoteMeta(p.symbol) + `\b`
	case strings.HasSuffix(p.file, ".ts"):
		pattern = `(function |async )` + regexp.QuoteMeta(p.symbol) + `[<(]`
	default:
		pattern = regexp.QuoteMeta(p.symbol)
	}
	if !regexp.MustCompile(pattern).Match(b) {
		return fmt.Errorf("%s: no %s in the file", p, p.symbol)
	}
	return nil
}
