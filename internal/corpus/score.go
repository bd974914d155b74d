package corpus

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// Folds is the number of cross-validation folds.
const Folds = 10

// Groups assigns every case to a fold such that cases that share wording
// are never split between training and scoring. The unit held out is the
// connected component of cases that share a system, a vendor (two
// systems of one maker share its wording) or a source page (two cases
// written from one page share its text): holding out a system alone let
// its vendor's other systems, or another case from the same page, teach
// the model the words it was then scored on. A component falls in one
// fold by a hash of its first system's name, so folds are stable as
// cases are added elsewhere.
func Groups(cases []Case) []int {
	parent := make([]int, len(cases))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[rb] = ra
		}
	}
	first := map[string]int{}
	link := func(i int, key string) {
		if j, ok := first[key]; ok {
			union(j, i)
		} else {
			first[key] = i
		}
	}
	for i := range cases {
		c := &cases[i]
		link(i, "system:"+strings.ToLower(c.System))
		if c.Vendor != "" {
			link(i, "vendor:"+strings.ToLower(c.Vendor))
		}
		for _, u := range sourcePages(c.Source) {
			link(i, "page:"+u)
		}
	}
	// The component's name is the smallest system name in it, so that
	// its fold does not depend on the order of the files.
	name := map[int]string{}
	for i := range cases {
		r := find(i)
		if n, ok := name[r]; !ok || cases[i].System < n {
			name[r] = cases[i].System
		}
	}
	folds := make([]int, len(cases))
	for i := range cases {
		h := fnv.New32a()
		h.Write([]byte(name[find(i)]))
		folds[i] = int(h.Sum32() % Folds)
	}
	return folds
}

// sourcePage matches a web address with a path in a case's source: the
// page its wording was taken from. A bare host ("github.com") names no
// page and links nothing.
var sourcePage = regexp.MustCompile(`(?i)(?:https?://)?((?:[a-z0-9-]+\.)+[a-z]{2,}/[^\s,;)\]]+)`)

// sourcePages returns the pages a source names, without scheme, query,
// fragment or trailing punctuation, lower-cased.
func sourcePages(source string) []string {
	var out []string
	for _, m := range sourcePage.FindAllStringSubmatch(source, -1) {
		u := strings.ToLower(m[1])
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		u = strings.TrimRight(u, "/.:'\"")
		u = strings.TrimPrefix(u, "www.")
		if strings.Count(u, "/") == 0 {
			continue
		}
		out = append(out, u)
	}
	return out
}

// eachFold calls fn with the indices of the training and the test cases of
// every fold, in fold order.
func eachFold(cases []Case, fn func(fold int, train, test []int) error) error {
	folds := Groups(cases)
	for f := range Folds {
		var train, test []int
		for i := range cases {
			if folds[i] == f {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		if len(test) == 0 {
			continue
		}
		if err := fn(f, train, test); err != nil {
			return fmt.Errorf("fold %d: %w", f, err)
		}
	}
	return nil
}

// Verdict is the outcome of one case.
type Verdict struct {
	Case    *Case
	Outcome classify.Outcome
	ClassOK bool
	CodeOK  bool
	// RetryOK: retryable as the (accepted) class implies.
	RetryOK bool
	// PermanentRetryable: a capability or governance case that came out
	// retryable (the worst mistake: the agent loops on it).
	PermanentRetryable bool
	// TransientNotRetried: a case labelled retryable that did not come out
	// retryable (the agent gives up on something that would have worked).
	TransientNotRetried bool
	// SEP is what the _meta object breaks of the proposal, if anything.
	SEP []string
}

// Now anchors retry times when scoring.
var Now = time.Date(2026, 6, 3, 10, 0, 0, 0, time.UTC)

// Judge scores one outcome against its case.
func Judge(c *Case, o classify.Outcome) Verdict {
	v := Verdict{Case: c, Outcome: o}
	v.ClassOK, v.CodeOK = c.Accepts(string(o.Class), o.Code)
	wantRetry := c.Expect.Retryable
	if v.CodeOK {
		wantRetry = o.Class == classify.Reliability
	}
	v.RetryOK = o.Retryable == wantRetry
	v.PermanentRetryable = o.Retryable && c.Expect.Class != string(classify.Reliability) && !v.ClassOK
	v.TransientNotRetried = !o.Retryable && c.Expect.Retryable
	v.SEP = CheckSEP(o.Meta("tf_01JX0000000000000000000000"))
	return v
}

// CheckSEP lists what a _meta toolFailure object breaks of the proposal,
// after a JSON round trip so that types are what a client decodes.
func CheckSEP(meta map[string]any) []string {
	raw, err := json.Marshal(meta)
	if err != nil {
		return []string{"marshal: " + err.Error()}
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return []string{"decode: " + err.Error()}
	}
	var bad []string
	allowed := map[string]bool{"class": true, "code": true, "retryable": true, "retryNotBefore": true, "correlationId": true, "agentGuidance": true}
	for k := range m {
		if !allowed[k] {
			bad = append(bad, "unexpected key "+k)
		}
	}
	class, _ := m["class"].(string)
	if class != "capability" && class != "reliability" && class != "governance" {
		bad = append(bad, fmt.Sprintf("class %q not in the closed set", class))
	}
	if code, _ := m["code"].(string); code == "" {
		bad = append(bad, "empty code")
	}
	retryable := false
	if v, ok := m["retryable"]; ok {
		b, isBool := v.(bool)
		if !isBool || class != "reliability" {
			bad = append(bad, "retryable on a class other than reliability, or not a boolean")
		}
		retryable = b
	}
	if v, ok := m["retryNotBefore"]; ok {
		n, isNum := v.(json.Number)
		if _, err := n.Int64(); !isNum || err != nil || !retryable {
			bad = append(bad, "retryNotBefore not an integer, or without retryable")
		}
	}
	if cid, _ := m["correlationId"].(string); !strings.HasPrefix(cid, "tf_") || len(cid) > 64 {
		bad = append(bad, "correlationId")
	}
	if g, ok := m["agentGuidance"]; ok {
		if s, isString := g.(string); !isString || s == "" || len(s) >= 500 {
			bad = append(bad, "agentGuidance")
		}
	}
	return bad
}

// Score classifies every case with the engine.
func Score(e *classify.Engine, cases []Case) []Verdict {
	out := make([]Verdict, len(cases))
	for i := range cases {
		out[i] = Judge(&cases[i], classifyWith(e, &cases[i]))
	}
	return out
}

// LeaveSystemOut scores every case with an engine whose model was trained
// on the other folds only (Groups: a case's system, vendor and source
// page are all held out with it), at the given threshold. The fold's
// temperature is fitted on the held-out logits of the other folds, so the
// fold's own cases do not calibrate the model that scores them.
func LeaveSystemOut(cases []Case, threshold float32) ([]Verdict, error) {
	engines, folds, err := FoldEngines(cases, threshold)
	if err != nil {
		return nil, err
	}
	return judgeFolds(cases, engines, folds), nil
}

// judgeFolds scores every case with its fold's engine.
func judgeFolds(cases []Case, engines []*classify.Engine, folds []int) []Verdict {
	out := make([]Verdict, len(cases))
	for i := range cases {
		out[i] = Judge(&cases[i], classifyWith(engines[folds[i]], &cases[i]))
	}
	return out
}

// Classify classifies a case with the embedded baseline, as a tenant
// with no rules of its own sees it.
func Classify(c *Case) classify.Outcome { return classifyWith(classify.DefaultEngine(), c) }

// classifyWith classifies a case as a tenant with no rules of its own
// sees it: the baseline packs, then the engine.
func classifyWith(e *classify.Engine, c *Case) classify.Outcome {
	var none *ruleset.Set
	return none.ClassifyWith(e, c.Input(), Now).Outcome
}

func subset(cases []Case, idx []int) []Case {
	sub := make([]Case, len(idx))
	for k, i := range idx {
		sub[k] = cases[i]
	}
	return sub
}

// Totals are the shares of right answers over a set of verdicts.
type Totals struct {
	N, Class, Code, Retry, PermanentRetryable, TransientNotRetried, SEP int
}

func (t *Totals) add(v Verdict) {
	t.N++
	t.Class += b2i(v.ClassOK)
	t.Code += b2i(v.CodeOK)
	t.Retry += b2i(v.RetryOK)
	t.PermanentRetryable += b2i(v.PermanentRetryable)
	t.TransientNotRetried += b2i(v.TransientNotRetried)
	t.SEP += b2i(len(v.SEP) > 0)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Pct is 100·k/n.
func Pct(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(k) / float64(n)
}

// Sum totals the verdicts.
func Sum(vs []Verdict) Totals {
	var t Totals
	for _, v := range vs {
		t.add(v)
	}
	return t
}

// Report writes the table of a scoring run: overall, then by class, code,
// pattern, language, the error's shape and the deciding signal.
func Report(w io.Writer, title string, vs []Verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcases\tclass %%\tcode %%\tretryable %%\tpermanent→retryable\ttransient not retried\tSEP violations\t\n", title)
	row := func(name string, t Totals) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t\n", name, t.N, Pct(t.Class, t.N), Pct(t.Code, t.N), Pct(t.Retry, t.N), t.PermanentRetryable, t.TransientNotRetried, t.SEP)
	}
	row("all", Sum(vs))
	groups := []struct {
		name string
		key  func(v Verdict) string
	}{
		{"class", func(v Verdict) string { return v.Case.Expect.Class }},
		{"code", func(v Verdict) string { return v.Case.Expect.Code }},
		{"pattern", func(v Verdict) string { return orDash(v.Case.Pattern) }},
		{"language", func(v Verdict) string {
			if v.Case.Lang == "" || v.Case.Lang == "en" {
				return "en"
			}
			return "not en"
		}},
		{"shape", func(v Verdict) string {
			if v.Case.Error.MessageOnly() {
				return "message only"
			}
			return "structured"
		}},
		{"decided by", func(v Verdict) string { return Signal(v.Outcome.RuleID) }},
		{"rule", func(v Verdict) string {
			if strings.HasPrefix(v.Outcome.RuleID, "baseline/") {
				return v.Outcome.RuleID
			}
			return "pack rules"
		}},
	}
	for _, g := range groups {
		by := map[string]*Totals{}
		for _, v := range vs {
			k := g.key(v)
			if by[k] == nil {
				by[k] = &Totals{}
			}
			by[k].add(v)
		}
		keys := make([]string, 0, len(by))
		for k := range by {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			row(g.name+": "+k, *by[k])
		}
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Signal names the kind of signal a baseline rule ID stands for.
func Signal(ruleID string) string {
	switch ruleID {
	case classify.DefaultRuleID:
		return "default"
	case classify.ModelRuleID:
		return "model"
	}
	if strings.HasPrefix(ruleID, "baseline/") {
		return "structure/phrase"
	}
	return "pack"
}

// Misses lists the cases whose class or code is wrong, or whose retry
// decision is, one line each.
func Misses(w io.Writer, vs []Verdict) {
	for _, v := range vs {
		if v.CodeOK && !v.PermanentRetryable && !v.TransientNotRetried {
			continue
		}
		msg := v.Case.Error.Message
		if len(msg) > 160 {
			msg = msg[:160]
		}
		mark := "code"
		if v.CodeOK {
			mark = "retry"
		}
		if !v.ClassOK {
			mark = "CLASS"
		}
		// The retry mistakes are marked apart so that they can be listed
		// alone: a permanent error told to retry is the costlier one.
		switch {
		case v.PermanentRetryable:
			mark += " RETRIED"
		case v.TransientNotRetried:
			mark += " UNRETRIED"
		}
		fmt.Fprintf(w, "%s %s [%s %s] want %s got %s/%s by %s: %q\n", mark, v.Case.ID, v.Case.File, orDash(v.Case.Pattern),
			v.Case.Label(), v.Outcome.Class, v.Outcome.Code, v.Outcome.RuleID, msg)
	}
}

// Makeup is what a corpus is made of.
type Makeup struct {
	Cases, Systems, NotEnglish, MessageOnly, WithPattern int
	Classes, Codes, Languages, Patterns                  map[string]int
}

// MakeupOf counts a corpus's cases by system, language, shape and label.
func MakeupOf(cases []Case) Makeup {
	m := Makeup{Cases: len(cases), Classes: map[string]int{}, Codes: map[string]int{}, Languages: map[string]int{}, Patterns: map[string]int{}}
	systems := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		systems[c.System] = true
		lang := c.Lang
		if lang == "" {
			lang = "en"
		}
		m.Languages[strings.ToLower(strings.SplitN(lang, "-", 2)[0])]++
		if !strings.HasPrefix(lang, "en") {
			m.NotEnglish++
		}
		if c.Error.MessageOnly() {
			m.MessageOnly++
		}
		if c.Pattern != "" {
			m.WithPattern++
			m.Patterns[c.Pattern]++
		}
		m.Classes[c.Expect.Class]++
		m.Codes[c.Expect.Code]++
	}
	m.Systems = len(systems)
	return m
}

// WriteMakeup prints a corpus's make-up.
func WriteMakeup(w io.Writer, m Makeup) {
	fmt.Fprintf(w, "%d cases from %d systems; %.1f%% not in English, %.1f%% message-only, %.1f%% in a known-hard pattern\n",
		m.Cases, m.Systems, Pct(m.NotEnglish, m.Cases), Pct(m.MessageOnly, m.Cases), Pct(m.WithPattern, m.Cases))
	for _, g := range []struct {
		name string
		m    map[string]int
	}{{"classes", m.Classes}, {"codes", m.Codes}, {"languages", m.Languages}, {"patterns", m.Patterns}} {
		keys := make([]string, 0, len(g.m))
		for k := range g.m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if g.m[a] != g.m[b] {
				return g.m[b] - g.m[a]
			}
			return strings.Compare(a, b)
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, g.m[k])
		}
		fmt.Fprintf(w, "%s: %s\n", g.name, strings.Join(parts, ", "))
	}
}

// shortLabels are Labels' codes, abbreviated for the confusion table.
var shortLabels = [...]string{"inv", "nf", "uns", "tra", "auth", "perm", "pol", "act", "bug"}

// Confusion writes the table of expected codes (rows) against the codes
// given (columns), over the cases whose code is wrong or right alike.
func Confusion(w io.Writer, vs []Verdict) {
	idx := map[string]int{}
	for i, l := range Labels {
		_, code, _ := strings.Cut(l, "/")
		idx[code] = i
	}
	var m [len(shortLabels)][len(shortLabels)]int
	for _, v := range vs {
		want, ok1 := idx[v.Case.Expect.Code]
		got, ok2 := idx[v.Outcome.Code]
		if v.CodeOK {
			got = want
		}
		if ok1 && ok2 {
			m[want][got]++
		}
	}
	short := shortLabels[:]
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "want \\ got\t")
	for _, s := range short {
		fmt.Fprintf(tw, "%s\t", s)
	}
	fmt.Fprintln(tw)
	for i, s := range short {
		fmt.Fprintf(tw, "%s\t", s)
		for j := range short {
			fmt.Fprintf(tw, "%d\t", m[i][j])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// Setting is one choice of the engine's probabilities (see
// classify.DefaultModelThreshold and classify.DefaultModelOverride).
type Setting struct {
	Threshold, Override, WeakOverride, CodeOverride float32
	// RetryFloors and RetryModel are the evidence a retry needs (see
	// classify.DefaultRetryFloors).
	RetryFloors [3]float32
	RetryModel  float32
}

// DefaultSetting is the engine's settings as it ships.
func DefaultSetting() Setting {
	return Setting{Threshold: classify.DefaultModelThreshold, Override: classify.DefaultModelOverride,
		WeakOverride: classify.DefaultModelWeakOverride, CodeOverride: classify.DefaultModelCodeOverride,
		RetryFloors: classify.DefaultRetryFloors, RetryModel: classify.DefaultRetryModel}
}

// SweepResult is the leave-system-out score of one Setting.
type SweepResult struct {
	Setting
	Totals
}

// Sweep scores every setting with leave-system-out cross-validation, the
// fold models trained once: how the thresholds were chosen.
func Sweep(cases []Case, settings []Setting) ([]SweepResult, error) {
	models, logits, labels, err := foldModels(cases)
	if err != nil {
		return nil, err
	}
	engines, folds := foldEngines(cases, 0, models, logits, labels)
	out := make([]SweepResult, 0, len(settings))
	for _, st := range settings {
		var t Totals
		for i := range cases {
			e := engines[folds[i]].WithThreshold(st.Threshold).WithOverrides(st.Override, st.WeakOverride, st.CodeOverride).
				WithRetryFloors(st.RetryFloors, st.RetryModel)
			t.add(Judge(&cases[i], classifyWith(e, &cases[i])))
		}
		out = append(out, SweepResult{st, t})
	}
	return out, nil
}
