// Command freshcheck checks a fresh batch before it is sealed
// (corpus/FRESH.md): every line in the corpus's format with a baseline
// class and code, ids new to the corpus, and systems and vendors that no
// file of the corpus holds under any spelling. Cases whose system or
// vendor the corpus already has, or that overlap a known name, are
// dropped; so are cases past the third of one system, so that a few
// systems do not make the batch. The cases kept are written to -o.
//
//	go run ./internal/corpus/freshcheck -o KEPT.jsonl BATCH.jsonl
//	go run ./internal/corpus/freshcheck -names BATCH.jsonl   # also list words shared with known names, to judge by hand
//
// Exit status 1 when a line is malformed (nothing is written then).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/omcp/toolfailure/internal/corpus"
)

func main() {
	dir := flag.String("corpus", "corpus", "the corpus directory the batch must be new to")
	public := flag.String("public", os.Getenv("TOOLFAILURE_PUBLIC_CORPUS"), "the shared public corpus, whose ids are taken too")
	out := flag.String("o", "", "write the cases kept here")
	perSystem := flag.Int("per-system", 3, "cases kept of one system at most")
	names := flag.Bool("names", false, "list the words of each kept system's and vendor's names that a few known names share, to judge by hand")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: freshcheck [-o KEPT.jsonl] [-names] BATCH.jsonl")
		os.Exit(2)
	}
	if err := run(os.Stdout, *dir, *public, flag.Arg(0), *out, *perSystem, *names); err != nil {
		fmt.Fprintln(os.Stderr, "freshcheck:", err)
		os.Exit(1)
	}
}

// fields are a batch line's keys, all required: what FRESH.md's batches
// are written with (accept and expectRetryAfterSeconds are for the
// topic files, where a label's alternatives were argued).
var fields = []string{"id", "system", "vendor", "lang", "pattern", "source", "tool", "error", "expect", "note"}

var errorKeys = map[string]bool{"message": true, "type": true, "httpStatus": true, "grpcCode": true,
	"jsonrpcCode": true, "retryAfter": true, "details": true, "attributes": true}

var patterns = map[string]bool{"-": true, "foreign-language": true, "iot": true, "programming-error": true,
	"http200-error": true, "dev-tools": true, "auth-subtle": true, "permanent-limit": true,
	"misleading-4xx": true, "waf": true, "broker": true, "tls": true}

var (
	kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// sourceName is the system as the source names it: "approximate
	// wording (NAME, page)".
	sourceName = regexp.MustCompile(`^approximate wording \(([^,)]+)`)
)

type line struct {
	raw []byte
	c   corpus.Case
}

func run(w io.Writer, dir, public, batchPath, out string, perSystem int, names bool) error {
	known, raw, err := knownNames(dir, public, batchPath)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(batchPath)
	if err != nil {
		return err
	}
	workDir := ""
	if abs, err := filepath.Abs(batchPath); err == nil && len(filepath.Dir(abs)) > 1 {
		workDir = filepath.Dir(abs)
	}
	var lines []line
	var bad int
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		c, err := parse(text, workDir)
		if err == nil && known.HasID(c.ID) {
			err = fmt.Errorf("id %q is already in the corpus", c.ID)
		}
		if err == nil && seen[c.ID] > 0 {
			err = fmt.Errorf("id %q is also on line %d", c.ID, seen[c.ID])
		}
		if err != nil {
			fmt.Fprintf(w, "ERROR %s:%d: %v\n", filepath.Base(batchPath), n, err)
			bad++
			continue
		}
		seen[c.ID] = n
		lines = append(lines, line{raw: bytes.Clone(text), c: c})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var kept []line
	count := map[string]int{}
	dropped := 0
	for _, l := range lines {
		why := known.Clash(&l.c, true)
		if why == "" && count[corpus.NameKey(l.c.System)] >= perSystem {
			why = fmt.Sprintf("more than %d cases of %q", perSystem, l.c.System)
		}
		if why != "" {
			fmt.Fprintf(w, "DROP %s: %s\n", l.c.ID, why)
			dropped++
			continue
		}
		count[corpus.NameKey(l.c.System)]++
		kept = append(kept, l)
	}
	if names {
		listShared(w, kept, raw)
	}
	summary(w, bad, dropped, kept)
	if bad > 0 {
		return fmt.Errorf("%d malformed lines; nothing written", bad)
	}
	if out == "" {
		return nil
	}
	var buf bytes.Buffer
	for _, l := range kept {
		buf.Write(l.raw)
		buf.WriteByte('\n')
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// parse checks one line: its keys, its error's keys, its labels, that it
// names its source the way the batches do, and that it does not name
// workDir, where the batch was written.
func parse(text []byte, workDir string) (corpus.Case, error) {
	var c corpus.Case
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(text, &keys); err != nil {
		return c, err
	}
	for _, f := range fields {
		if _, ok := keys[f]; !ok {
			return c, fmt.Errorf("no %q", f)
		}
	}
	for k := range keys {
		if !slices.Contains(fields, k) {
			return c, fmt.Errorf("unknown key %q", k)
		}
	}
	var errKeys map[string]json.RawMessage
	if err := json.Unmarshal(keys["error"], &errKeys); err != nil {
		return c, fmt.Errorf("error: %w", err)
	}
	for k := range errKeys {
		if !errorKeys[k] {
			return c, fmt.Errorf("error: unknown key %q", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil { // int32 codes and string fields are checked here
		return c, err
	}
	switch {
	case !kebab.MatchString(c.ID):
		return c, fmt.Errorf("id %q is not lower-case words joined by hyphens", c.ID)
	case strings.TrimSpace(c.System) == "" || strings.TrimSpace(c.Vendor) == "":
		return c, fmt.Errorf("%s: no system or vendor", c.ID)
	case c.Lang == "" || c.Tool == "" || c.Note == "":
		return c, fmt.Errorf("%s: lang, tool and note are required", c.ID)
	case !patterns[c.Pattern]:
		return c, fmt.Errorf("%s: pattern %q is not one of the corpus's", c.ID, c.Pattern)
	case !sourceName.MatchString(c.Source):
		return c, fmt.Errorf("%s: source must read \"approximate wording (SYSTEM, page)\"", c.ID)
	case c.Error.Message == "" && c.Error.Type == "":
		return c, fmt.Errorf("%s: error has no message and no type", c.ID)
	}
	if workDir != "" && bytes.Contains(text, []byte(workDir)) {
		// The writer's own files leaked into a case: the corpus speaks
		// of the systems only.
		return c, fmt.Errorf("%s: names the directory the batch was written in", c.ID)
	}
	if err := c.CheckLabels(); err != nil {
		return c, fmt.Errorf("%s: %w", c.ID, err)
	}
	return c, nil
}

// knownNames reads every file of the corpus but the batch itself, and the
// public corpus's ids. raw maps each word of a known system's, vendor's
// or source's name (its NameKey) to the names that hold it.
func knownNames(dir, public, batchPath string) (*corpus.Names, map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	fresh, err := filepath.Glob(filepath.Join(dir, "fresh", "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	self, _ := filepath.Abs(batchPath)
	var all []corpus.Case
	for _, f := range append(files, fresh...) {
		if abs, _ := filepath.Abs(f); abs == self {
			continue
		}
		cases, err := corpus.Load(f)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, cases...)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("no corpus under %s", dir)
	}
	known := corpus.NewNames(all)
	if public != "" {
		cases, err := corpus.Load(public)
		if err != nil {
			return nil, nil, err
		}
		for i := range cases {
			known.Add(&corpus.Case{ID: cases[i].ID})
		}
	}
	raw := map[string][]string{}
	addWords := func(name string) {
		for _, w := range strings.FieldsFunc(name, notWord) {
			if k := corpus.NameKey(w); len([]rune(k)) >= 3 && !slices.Contains(raw[k], name) {
				raw[k] = append(raw[k], name)
			}
		}
	}
	for i := range all {
		addWords(all[i].System)
		addWords(all[i].Vendor)
		if m := sourceName.FindStringSubmatch(all[i].Source); m != nil && len(m[1]) <= 60 {
			addWords(m[1])
		}
	}
	return known, raw, nil
}

func notWord(r rune) bool { return strings.ContainsRune(" -&.,()'/_", r) }

// commonWords are words of names that say what a business is, not whose
// it is: sharing one says nothing.
var commonWords = map[string]bool{
	"api": true, "the": true, "and": true, "inc": true, "ltd": true, "llc": true, "gmbh": true, "group": true,
	"company": true, "corporation": true, "corp": true, "holdings": true, "services": true, "service": true,
	"online": true, "cloud": true, "app": true, "data": true, "systems": true, "international": true,
	"national": true, "bank": true, "club": true, "center": true, "centre": true, "school": true,
	"shop": true, "store": true, "studio": true, "tours": true, "travel": true, "booking": true,
}

// listShared prints, for each kept system, the words of its system's and
// vendor's names that one to six known names share: the same maker,
// owner or parent under another name is for a person to judge.
func listShared(w io.Writer, kept []line, raw map[string][]string) {
	done := map[string]bool{}
	for _, l := range kept {
		key := l.c.System + " | " + l.c.Vendor
		if done[key] {
			continue
		}
		done[key] = true
		var hits []string
		shared := map[string]bool{}
		for _, word := range strings.FieldsFunc(l.c.System+" "+l.c.Vendor, notWord) {
			k := corpus.NameKey(word)
			if len([]rune(k)) < 3 || commonWords[k] {
				continue
			}
			if names := raw[k]; len(names) >= 1 && len(names) <= 6 && !shared[k] {
				shared[k] = true
				hits = append(hits, k+": "+strings.Join(names, "; "))
			}
		}
		if len(hits) > 0 {
			fmt.Fprintf(w, "NAMES %s <<< %s\n", key, strings.Join(hits, " / "))
		}
	}
}

func summary(w io.Writer, bad, dropped int, kept []line) {
	systems := map[string]bool{}
	classes, codes := map[string]int{}, map[string]int{}
	nonEn, msgOnly := 0, 0
	for _, l := range kept {
		systems[corpus.NameKey(l.c.System)] = true
		classes[l.c.Expect.Class]++
		codes[l.c.Expect.Code]++
		if l.c.Lang != "en" {
			nonEn++
		}
		if l.c.Error.MessageOnly() {
			msgOnly++
		}
	}
	pct := func(n int) float64 {
		if len(kept) == 0 {
			return 0
		}
		return 100 * float64(n) / float64(len(kept))
	}
	fmt.Fprintf(w, "malformed %d, dropped %d, kept %d cases from %d systems; not English %.1f%%, message-only %.1f%%\n",
		bad, dropped, len(kept), len(systems), pct(nonEn), pct(msgOnly))
	fmt.Fprintf(w, "classes: %s\ncodes: %s\n", counts(classes), counts(codes))
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
