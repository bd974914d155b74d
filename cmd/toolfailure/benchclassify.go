package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/peers"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// newBenchClassifyCmd is `toolfailure bench classify`: the baseline (and a
// tenant's rules) scored offline on labelled errors, beside the published
// retry rules of peers (package peers).
func newBenchClassifyCmd() *cobra.Command {
	var (
		corpora         []string
		withPeers, cv   bool
		rulesFile, outp string
	)
	cmd := &cobra.Command{
		Use:   "classify [--corpus FILE…] [FILE…] [flags]",
		Short: "Score the classification offline on labelled errors, beside the retry rules of peers",
		Long: `Score the baseline, as a tenant with no rules of its own gets it (or with the rules of
--rules in front of it), on labelled errors in the corpus format (corpus/README.md), in
process, with no server. Each corpus is a JSONL file or a directory of them, named with
--corpus or as an argument; with none, the repository's corpus/ (found from the current
directory). Cases with "confirmed": false (as corpus export writes them) are left out.

It prints, for all cases and per expected class, code and pattern, each with its n: class and
code accuracy, the retry decision, permanent errors told to retry, transient errors not
retried, retry delays within ±5 s of the expected one, and outcomes that break the proposal.

--peers adds the same rows decided by the published retry rules that agent frameworks and
client libraries ship (the AI SDK, the AWS SDKs' standard mode, Polly, LangGraph, gRPC's
AIP-194, LiteLLM), each scored on what it decides.

The text model was trained on corpus/. --cv scores corpus/ with leave-system-out
cross-validation instead (each case by a model trained without its system, vendor and
source page); other corpora were never trained on and are scored as shipped.`,
		Example: `  toolfailure bench classify
  toolfailure bench classify --cv --peers
  toolfailure bench classify --corpus mine.jsonl --rules rules.yaml
  toolfailure bench classify corpus baseline-public.jsonl --peers --cv --output markdown`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch outp {
			case "text", "json", "markdown":
			default:
				return usageErrorf("--output %q: use text, json or markdown", outp)
			}
			paths := append(append([]string{}, corpora...), args...)
			root := repoRoot()
			if len(paths) == 0 {
				if root == "" {
					return usageErrorf("no corpus: name one with --corpus FILE, or run in a clone of the repository, whose corpus/ is the default")
				}
				paths = []string{filepath.Join(root, "corpus")}
			}
			var set *ruleset.Set
			rulesName := ""
			if rulesFile != "" {
				var ok bool
				if _, set, ok = loadRulesFile(rulesFile, cmd.ErrOrStderr()); !ok {
					return exitSilently(1)
				}
				rulesName = filepath.Base(rulesFile)
			}
			inputs := make([]benchInputSpec, len(paths))
			for i, p := range paths {
				var err error
				if inputs[i], err = benchInput(p, root, cv); err != nil {
					return err
				}
			}
			var report benchReport
			for _, in := range inputs {
				cs, err := scoreCorpus(in, set, rulesName, withPeers)
				if err != nil {
					return failed(err)
				}
				report.Corpora = append(report.Corpora, cs)
			}
			if withPeers {
				for _, p := range peers.All() {
					report.Peers = append(report.Peers, benchPeer{Name: p.Name, Version: p.Version, Rule: p.Rule,
						Source: p.Source, Sees: p.Sees, Classifies: p.Classifies})
				}
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			switch outp {
			case "json":
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(report); err != nil {
					return failedf("encode: %w", err)
				}
			case "markdown":
				writeBenchMarkdown(w, report)
			default:
				writeBenchText(w, report)
			}
			if err := w.Flush(); err != nil {
				return failed(err)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&corpora, "corpus", nil, "a corpus: a JSONL file in the corpus format or a directory of them (repeatable)")
	fs.BoolVar(&withPeers, "peers", false, "also score the published retry rules of agent frameworks and client libraries")
	fs.StringVar(&rulesFile, "rules", "", "a rules file (YAML) whose rules decide before the baseline, as a tenant's do")
	fs.StringVar(&outp, "output", "text", "output format: text, json or markdown")
	fs.BoolVar(&cv, "cv", false, "score the repository's corpus/ with leave-system-out cross-validation")
	completeWords(cmd, "output", "text", "json", "markdown")
	_ = cmd.MarkFlagFilename("rules", "yaml", "yml")
	_ = cmd.MarkFlagFilename("corpus", "jsonl")
	return cmd
}

// benchInputSpec is one corpus to score and how.
type benchInputSpec struct {
	path, label string
	// training: the text model was trained on these cases (the
	// repository's corpus/ or one of its files); crossValidate: score them
	// with leave-system-out cross-validation.
	training, crossValidate bool
}

// benchInput resolves a corpus argument: its label (the repository's
// corpus is "corpus/"; any other one is named by its base name, so that
// the output does not depend on where the files are) and whether it is
// the text model's training data.
func benchInput(path, root string, cv bool) (benchInputSpec, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return benchInputSpec{}, failedf("corpus %s: no such file or directory", path)
		}
		return benchInputSpec{}, failed(err)
	}
	in := benchInputSpec{path: path, label: filepath.Base(filepath.Clean(path))}
	if st.IsDir() {
		in.label += "/"
	}
	if rel, ok := underCorpus(root, path); ok {
		in.training, in.label = true, "corpus/"
		if rel != "." {
			in.label += filepath.ToSlash(rel)
		}
	}
	if cv && in.training {
		if !st.IsDir() {
			return benchInputSpec{}, usageErrorf("--cv: cross-validation holds systems out of the whole corpus/, not of %s alone: name the directory", in.label)
		}
		in.crossValidate = true
	}
	return in, nil
}

// underCorpus reports whether path is the repository's corpus/ or a file
// under it (its path relative to corpus/): the text model's training data.
func underCorpus(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(root, "corpus"))
	if err != nil {
		return "", false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// repoRoot is the root of the clone of this repository that holds the
// current directory, or "".
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module github.com/omcp/toolfailure" {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// The report, as --output json writes it.
type (
	benchReport struct {
		Peers   []benchPeer   `json:"peers,omitempty"`
		Corpora []benchCorpus `json:"corpora"`
	}
	benchPeer struct {
		Name       string `json:"name"`
		Version    string `json:"version"`
		Rule       string `json:"rule"`
		Source     string `json:"source"`
		Sees       string `json:"sees"`
		Classifies bool   `json:"classifies"`
	}
	benchCorpus struct {
		Corpus      string         `json:"corpus"`
		Cases       int            `json:"cases"`
		Systems     int            `json:"systems"`
		Unconfirmed int            `json:"unconfirmed"`
		Scoring     string         `json:"scoring"`
		Makeup      []string       `json:"makeup"`
		Deciders    []benchDecider `json:"deciders"`
	}
	// benchDecider is the service or one peer, and its rows. Full is
	// set for a decider scored on every column; the others decide retry
	// only (Classifies: also class and code).
	benchDecider struct {
		Name       string
		Full       bool
		Classifies bool
		Rows       []benchRow
	}
	// benchRow holds the counts of one row; the percentages are of N.
	benchRow struct {
		Row                                                          string
		N, Class, Code, Retry, PermanentRetried, TransientNotRetried int
		DelayN, DelayOK, SEP                                         int
	}
)

// MarshalJSON writes the counts of a decider's rows that it is scored on:
// class and code only for a decider that names them, retry delays and SEP
// violations only for the service.
func (d benchDecider) MarshalJSON() ([]byte, error) {
	type row struct {
		Row                 string `json:"row"`
		N                   int    `json:"n"`
		Class               *int   `json:"class,omitempty"`
		Code                *int   `json:"code,omitempty"`
		Retry               int    `json:"retry"`
		PermanentRetried    int    `json:"permanentRetried"`
		TransientNotRetried int    `json:"transientNotRetried"`
		DelayN              *int   `json:"delayN,omitempty"`
		DelayOK             *int   `json:"delayOK,omitempty"`
		SEP                 *int   `json:"sepViolations,omitempty"`
	}
	rows := make([]row, len(d.Rows))
	for i, r := range d.Rows {
		rows[i] = row{Row: r.Row, N: r.N, Retry: r.Retry, PermanentRetried: r.PermanentRetried, TransientNotRetried: r.TransientNotRetried}
		if d.Classifies {
			rows[i].Class, rows[i].Code = &r.Class, &r.Code
		}
		if d.Full {
			rows[i].DelayN, rows[i].DelayOK, rows[i].SEP = &r.DelayN, &r.DelayOK, &r.SEP
		}
	}
	return json.Marshal(struct {
		Name       string `json:"name"`
		Full       bool   `json:"full"`
		Classifies bool   `json:"classifies"`
		Rows       []row  `json:"rows"`
	}{d.Name, d.Full, d.Classifies, rows})
}

// mark is what one decider got right and wrong on one case.
type mark struct {
	classOK, codeOK, retryOK, permRetried, transNotRetried, delayN, delayOK, sep bool
}

func (r *benchRow) add(m mark) {
	r.N++
	r.Class += b2i(m.classOK)
	r.Code += b2i(m.codeOK)
	r.Retry += b2i(m.retryOK)
	r.PermanentRetried += b2i(m.permRetried)
	r.TransientNotRetried += b2i(m.transNotRetried)
	r.DelayN += b2i(m.delayN)
	r.DelayOK += b2i(m.delayOK)
	r.SEP += b2i(m.sep)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// delayTolerance is how far a retry time may be from the expected one.
const delayTolerance = 5.0 // seconds

// serviceMark turns the service's verdict on a case into a mark.
func serviceMark(v corpus.Verdict) mark {
	m := mark{classOK: v.ClassOK, codeOK: v.CodeOK, retryOK: v.RetryOK, permRetried: v.PermanentRetryable,
		transNotRetried: v.TransientNotRetried, sep: len(v.SEP) > 0}
	if want := v.Case.ExpectRetryAfterSeconds; want != nil {
		m.delayN = true
		o := v.Outcome
		if o.Retryable && !o.RetryNotBefore.IsZero() {
			m.delayOK = math.Abs(o.RetryNotBefore.Sub(corpus.Now).Seconds()-*want) <= delayTolerance
		}
	}
	return m
}

// peerMark scores a peer's decision on a case. A retry decision is right
// when it is what the expected label implies, or what an accepted
// alternative implies; retrying is a permanent error told to retry when
// neither the label nor an alternative is reliability.
func peerMark(c *corpus.Case, d peers.Decision) mark {
	var m mark
	if d.Class != "" {
		m.classOK, m.codeOK = c.Accepts(d.Class, d.Code)
	}
	transientOK := c.Expect.Retryable
	permanentOK := !c.Expect.Retryable
	for _, a := range c.Accept {
		if a.Class == string(classify.Reliability) {
			transientOK = true
		} else {
			permanentOK = true
		}
	}
	m.retryOK = (d.Retry && transientOK) || (!d.Retry && permanentOK)
	m.permRetried = d.Retry && !transientOK
	m.transNotRetried = !d.Retry && c.Expect.Retryable
	return m
}

// scoreCorpus loads a corpus and scores the service (with the rules of set,
// if any) and, with withPeers, every peer on its confirmed cases.
func scoreCorpus(in benchInputSpec, set *ruleset.Set, rulesName string, withPeers bool) (benchCorpus, error) {
	cases, unconfirmed, err := corpus.LoadConfirmed(in.path)
	if err != nil {
		return benchCorpus{}, err
	}
	if len(cases) == 0 {
		return benchCorpus{}, fmt.Errorf("corpus %s: no confirmed cases (%d unconfirmed): correct each exported label, then set \"confirmed\": true", in.path, unconfirmed)
	}
	out := benchCorpus{Corpus: in.label, Cases: len(cases), Unconfirmed: unconfirmed}
	systems := map[string]bool{}
	for i := range cases {
		systems[cases[i].System] = true
	}
	out.Systems = len(systems)
	var makeup strings.Builder
	corpus.WriteMakeup(&makeup, corpus.MakeupOf(cases))
	for _, l := range strings.Split(strings.TrimSpace(makeup.String()), "\n") {
		if !strings.HasSuffix(strings.TrimSpace(l), ":") { // an empty list (a corpus without patterns)
			out.Makeup = append(out.Makeup, l)
		}
	}

	var verdicts []corpus.Verdict
	switch {
	case in.crossValidate && set == nil:
		verdicts, err = corpus.LeaveSystemOut(cases, classify.DefaultModelThreshold)
	case in.crossValidate:
		var engines []*classify.Engine
		var folds []int
		if engines, folds, err = corpus.FoldEngines(cases, classify.DefaultModelThreshold); err == nil {
			verdicts = make([]corpus.Verdict, len(cases))
			for i := range cases {
				verdicts[i] = corpus.Judge(&cases[i], set.ClassifyWith(engines[folds[i]], cases[i].Input(), corpus.Now).Outcome)
			}
		}
	case set == nil:
		verdicts = corpus.Score(classify.DefaultEngine(), cases)
	default:
		verdicts = make([]corpus.Verdict, len(cases))
		for i := range cases {
			verdicts[i] = corpus.Judge(&cases[i], set.ClassifyWith(classify.DefaultEngine(), cases[i].Input(), corpus.Now).Outcome)
		}
	}
	if err != nil {
		return benchCorpus{}, fmt.Errorf("corpus %s: cross-validation: %w", in.path, err)
	}
	switch {
	case in.crossValidate:
		out.Scoring = "leave-system-out cross-validation: each case is scored by a text model trained without its system, vendor and source page"
	case in.training:
		out.Scoring = "the shipped text model, which was trained on these cases (--cv on corpus/ scores them held out)"
	default:
		out.Scoring = "the shipped text model, whose training data (corpus/) does not hold these cases"
	}
	name := "toolfailure baseline"
	if set != nil {
		name = "toolfailure baseline + " + rulesName
		out.Scoring += "; the rules of " + rulesName + " decide first"
	}
	marks := make([]mark, len(cases))
	for i, v := range verdicts {
		marks[i] = serviceMark(v)
	}
	out.Deciders = append(out.Deciders, benchDecider{Name: name, Full: true, Classifies: true, Rows: benchRows(cases, marks)})
	if withPeers {
		for _, p := range peers.All() {
			for i := range cases {
				marks[i] = peerMark(&cases[i], p.Decide(peers.See(&cases[i].Error)))
			}
			out.Deciders = append(out.Deciders, benchDecider{Name: p.Name, Classifies: p.Classifies, Rows: benchRows(cases, marks)})
		}
	}
	return out, nil
}

// benchRows totals the marks: all cases, then by expected class, code and
// pattern, each group in name order (cases without a pattern last).
func benchRows(cases []corpus.Case, marks []mark) []benchRow {
	rows := []benchRow{{Row: "all"}}
	for i := range marks {
		rows[0].add(marks[i])
	}
	for _, g := range []struct {
		name string
		key  func(c *corpus.Case) string
	}{
		{"class", func(c *corpus.Case) string { return c.Expect.Class }},
		{"code", func(c *corpus.Case) string { return c.Expect.Code }},
		{"pattern", func(c *corpus.Case) string { return c.Pattern }},
	} {
		by := map[string]*benchRow{}
		for i := range cases {
			k := g.key(&cases[i])
			if by[k] == nil {
				by[k] = &benchRow{}
			}
			by[k].add(marks[i])
		}
		keys := make([]string, 0, len(by))
		for k := range by {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if (a == "") != (b == "") {
				return b2i(a == "") - b2i(b == "")
			}
			return strings.Compare(a, b)
		})
		if g.name == "pattern" && len(keys) == 1 && keys[0] == "" {
			continue // a corpus without patterns
		}
		for _, k := range keys {
			r := *by[k]
			r.Row = g.name + ": " + k
			if k == "" {
				r.Row = g.name + ": (none)"
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// The cells of a row, as text and Markdown show them.
func pct(k, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", corpus.Pct(k, n))
}

func countPct(k, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%d (%.1f %%)", k, corpus.Pct(k, n))
}

func delayCell(r benchRow) string {
	if r.DelayN == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d", r.DelayOK, r.DelayN)
}

// columns are the headers and cells of a decider's table: every column for
// the service; the retry columns (and class and code for a peer that names
// them) for a peer.
func columns(d benchDecider) ([]string, func(r benchRow) []string) {
	if d.Full {
		return []string{"n", "class %", "code %", "retry %", "permanent → retry", "transient not retried", "retry delay ±5 s", "SEP violations"},
			func(r benchRow) []string {
				return []string{fmt.Sprint(r.N), pct(r.Class, r.N), pct(r.Code, r.N), pct(r.Retry, r.N), countPct(r.PermanentRetried, r.N),
					fmt.Sprint(r.TransientNotRetried), delayCell(r), fmt.Sprint(r.SEP)}
			}
	}
	if d.Classifies {
		return []string{"n", "class %", "code %", "retry %", "permanent → retry", "transient not retried"},
			func(r benchRow) []string {
				return []string{fmt.Sprint(r.N), pct(r.Class, r.N), pct(r.Code, r.N), pct(r.Retry, r.N), countPct(r.PermanentRetried, r.N),
					fmt.Sprint(r.TransientNotRetried)}
			}
	}
	return []string{"n", "retry %", "permanent → retry", "transient not retried"},
		func(r benchRow) []string {
			return []string{fmt.Sprint(r.N), pct(r.Retry, r.N), countPct(r.PermanentRetried, r.N), fmt.Sprint(r.TransientNotRetried)}
		}
}

// summary is the "all" row of every decider, on the service's columns.
func summary(c benchCorpus) ([]string, [][]string) {
	head := []string{"decider", "n", "class %", "code %", "retry %", "permanent → retry", "transient not retried", "retry delay ±5 s", "SEP violations"}
	var rows [][]string
	for _, d := range c.Deciders {
		r := d.Rows[0]
		class, code, delay, sep := "—", "—", "—", "—"
		if d.Classifies {
			class, code = pct(r.Class, r.N), pct(r.Code, r.N)
		}
		if d.Full {
			delay, sep = delayCell(r), fmt.Sprint(r.SEP)
		}
		rows = append(rows, []string{d.Name, fmt.Sprint(r.N), class, code, pct(r.Retry, r.N), countPct(r.PermanentRetried, r.N),
			fmt.Sprint(r.TransientNotRetried), delay, sep})
	}
	return head, rows
}

func corpusLine(c benchCorpus) string {
	s := fmt.Sprintf("%d cases from %d systems", c.Cases, c.Systems)
	if c.Unconfirmed > 0 {
		s += fmt.Sprintf(" (%d unconfirmed cases left out)", c.Unconfirmed)
	}
	return s + "; scored by " + c.Scoring + "."
}

func writeBenchText(w io.Writer, rep benchReport) {
	table := func(title string, head []string, rows [][]string) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t%s\t\n", title, strings.Join(head, "\t"))
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
	for i, c := range rep.Corpora {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %s\n", c.Corpus, corpusLine(c))
		for _, l := range c.Makeup {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintln(w)
		if len(c.Deciders) > 1 {
			head, rows := summary(c)
			table(head[0], head[1:], rows)
		}
		for _, d := range c.Deciders {
			head, cells := columns(d)
			var rows [][]string
			for _, r := range d.Rows {
				rows = append(rows, append([]string{r.Row}, cells(r)...))
			}
			table(d.Name, head, rows)
		}
	}
	if len(rep.Peers) > 0 {
		fmt.Fprintln(w, "The peers' rules:")
		for _, p := range rep.Peers {
			fmt.Fprintf(w, "  %s (%s): %s.\n    Sees: %s.\n    Source: %s\n", p.Name, p.Version, p.Rule, p.Sees, p.Source)
		}
	}
}

// benchMarkdownHead is the first line of the Markdown output: the line
// from which docs/benchmark-classification.md is generated.
const benchMarkdownHead = "<!-- Generated by `toolfailure bench classify --output markdown`: edit the command or the corpus, not the text below. -->"

func writeBenchMarkdown(w io.Writer, rep benchReport) {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	table := func(head []string, rows [][]string) {
		fmt.Fprintf(w, "| %s |\n|", strings.Join(head, " | "))
		for i := range head {
			if i == 0 {
				fmt.Fprint(w, "---|")
			} else {
				fmt.Fprint(w, "--:|")
			}
		}
		fmt.Fprintln(w)
		for _, r := range rows {
			for i := range r {
				r[i] = cell(r[i])
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, benchMarkdownHead)
	fmt.Fprintln(w)
	if len(rep.Peers) > 0 {
		fmt.Fprint(w, "## The peers' rules\n\n")
		fmt.Fprint(w, "| peer | version | rule | what it sees of a message-only or exception-only error | scored on |\n|---|---|---|---|---|\n")
		for _, p := range rep.Peers {
			scored := "retry"
			if p.Classifies {
				scored = "class, code, retry"
			}
			fmt.Fprintf(w, "| [%s](%s) | %s | %s | %s | %s |\n", cell(p.Name), p.Source, cell(p.Version), cell(p.Rule), cell(p.Sees), scored)
		}
		fmt.Fprintln(w)
	}
	for _, c := range rep.Corpora {
		fmt.Fprintf(w, "## %s\n\n%s\n\n", c.Corpus, corpusLine(c))
		for _, l := range c.Makeup {
			fmt.Fprintf(w, "- %s\n", cell(l))
		}
		fmt.Fprintln(w)
		if len(c.Deciders) > 1 {
			head, rows := summary(c)
			table(head, rows)
		}
		for _, d := range c.Deciders {
			fmt.Fprintf(w, "### %s\n\n", d.Name)
			head, cells := columns(d)
			var rows [][]string
			for _, r := range d.Rows {
				rows = append(rows, append([]string{r.Row}, cells(r)...))
			}
			table(append([]string{"rows"}, head...), rows)
		}
	}
}
