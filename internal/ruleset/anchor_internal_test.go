package ruleset

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/racetest"
)

// anchoredBranches are the branches of the packs' patterns and guards that
// are tried only where their starts occur (prefixAnchor).
func anchoredBranches(tb testing.TB) []*branch {
	tb.Helper()
	var out []*branch
	for _, r := range packs().set.rules {
		for _, m := range append([]*messageMatcher{r.msg}, r.guardLeaves...) {
			if m == nil {
				continue
			}
			for i := range m.branches {
				if m.branches[i].anchored != nil {
					out = append(out, &m.branches[i])
				}
			}
		}
	}
	if len(out) < 50 {
		tb.Fatalf("only %d pack branches are anchored; prefixAnchor stopped finding starts", len(out))
	}
	return out
}

// corpusMessages are the messages of the repository's corpus.
func corpusMessages(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("../../corpus/*.jsonl")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus files: %v", err)
	}
	var out []string
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var c struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				out = append(out, c.Error.Message)
			}
		}
		_ = f.Close()
	}
	return out
}

// An anchored branch decides every message as its whole expression does:
// on the corpus, and on each of its starts in a word, after a word, at the
// end, twice, in another case and after non-ASCII text.
func TestAnchoredBranchesAgree(t *testing.T) {
	t.Parallel()
	corpus := corpusMessages(t)
	checked := 0
	for k, b := range anchoredBranches(t) {
		if !racetest.Sample(k) {
			continue
		}
		// Every 25th corpus message (the branches differ, the messages
		// mostly repeat a few shapes), and the branch's own starts.
		var msgs []string
		for i := len(b.starts) % 25; i < len(corpus); i += 25 {
			msgs = append(msgs, corpus[i])
		}
		for _, st := range b.starts {
			msgs = append(msgs, st, "x"+st, "x "+st, st+" 42 ", "the "+st+" and "+st+" again",
				"é "+st, strings.ToLower(st)+" was refused", "_"+strings.ToLower(st))
		}
		for _, m := range msgs {
			if got, want := b.match(m, asciiUpper(m)), b.re.MatchString(m); got != want {
				t.Fatalf("branch %s on %q: anchored %v, whole expression %v", b.re, m, got, want)
			}
			checked++
		}
	}
	t.Logf("%d decisions of anchored branches agree with their whole expressions", checked)
}

// FuzzAnchoredBranches checks anchored branches against their whole
// expressions on arbitrary messages.
func FuzzAnchoredBranches(f *testing.F) {
	for _, m := range corpusMessages(f)[:40] {
		f.Add(m)
	}
	branches := anchoredBranches(f)
	f.Fuzz(func(t *testing.T, m string) {
		upper := asciiUpper(m)
		for _, b := range branches {
			if got, want := b.match(m, upper), b.re.MatchString(m); got != want {
				t.Fatalf("branch %s on %q: anchored %v, whole expression %v", b.re, m, got, want)
			}
		}
	})
}
