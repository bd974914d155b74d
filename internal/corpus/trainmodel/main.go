// Command trainmodel trains the baseline's text model on the repository's
// corpus and writes the weights that internal/classify/textmodel embeds (go generate
// runs it), or measures how the baseline generalises.
//
//	go run ./internal/corpus/trainmodel -out internal/classify/textmodel/weights.bin
//	go run ./internal/corpus/trainmodel -check        # the committed weights are what training gives
//	go run ./internal/corpus/trainmodel -lso          # leave-system-out table
//	go run ./internal/corpus/trainmodel -sweep        # leave-system-out scores of the engine's thresholds
//	go run ./internal/corpus/trainmodel -explain ID   # how the embedded baseline decides one case
//	go run ./internal/corpus/trainmodel -score -corpus F  # the committed baseline's table on a corpus file
//	go run ./internal/corpus/trainmodel -dump -corpus F   # every case's outcome, Explain trail and redaction, as JSON lines
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/ruleset"
)

func main() {
	dir := flag.String("corpus", "corpus", "corpus directory or file")
	out := flag.String("out", "", "write the trained model here")
	check := flag.String("check", "", "compare a trained model with this file; exit 1 when they differ")
	lso := flag.Bool("lso", false, "print the leave-system-out table")
	misses := flag.Bool("misses", false, "with -lso: list every case whose class or code is wrong")
	threshold := flag.Float64("threshold", classify.DefaultModelThreshold, "class probability threshold for -lso")
	sweep := flag.Bool("sweep", false, "print the leave-system-out scores of a grid of the engine's thresholds")
	sweepRetry := flag.Bool("sweep-retry", false, "print the leave-system-out scores of a grid of the evidence a retry needs")
	score := flag.Bool("score", false, "print the table of the embedded baseline (packs and the committed model, as the service runs them) on the corpus: how a sealed fresh batch is scored at its frozen commit (corpus/FRESH.md)")
	explain := flag.String("explain", "", "print how the embedded baseline decides the case with this ID (a substring matches several)")
	packFloor := flag.Float64("pack-retry-floor", float64(classify.DefaultPackRetryFloor), "with -score: the model's reliability probability under which a pack's transient reading is not retried (0: never doubted), for measuring it")
	dump := flag.Bool("dump", false, "print, for every case, the outcome, the whole Explain trail and the redacted message and details, one JSON line each: two commits' dumps compared tell whether a change to the matching machinery changed any decision")
	flag.Parse()
	if *dump {
		if err := runDump(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *explain != "" {
		if err := runExplain(*dir, *explain); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *score {
		if err := runScore(*dir, *misses, float32(*packFloor)); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *sweep || *sweepRetry {
		if err := runSweep(*dir, *sweepRetry); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *out, *check, *lso, *misses, float32(*threshold)); err != nil {
		fmt.Fprintln(os.Stderr, "trainmodel:", err)
		os.Exit(1)
	}
}

func run(dir, out, check string, lso, misses bool, threshold float32) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	corpus.WriteMakeup(os.Stdout, corpus.MakeupOf(cases))
	if lso {
		vs, err := corpus.LeaveSystemOut(cases, threshold)
		if err != nil {
			return err
		}
		corpus.Report(os.Stdout, "leave-system-out", vs)
		fmt.Println()
		corpus.Confusion(os.Stdout, vs)
		if misses {
			corpus.Misses(os.Stdout, vs)
		}
	}
	if out == "" && check == "" {
		return nil
	}
	m, err := corpus.Train(cases)
	if err != nil {
		return err
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	if check != "" {
		have, err := os.ReadFile(check)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, b) {
			return fmt.Errorf("%s is not what training on %s gives: run go generate ./internal/classify/textmodel and commit", check, dir)
		}
	}
	if out != "" {
		return os.WriteFile(out, b, 0o644)
	}
	return nil
}

func runSweep(dir string, retry bool) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	if retry {
		return runRetrySweep(cases)
	}
	// Two orderings bracket the grid: the rules always decide (the model
	// never overrules a rule that matched), and the model decides whenever
	// it is confident (it overrules any untrusted rule at the threshold).
	rulesFirst, modelFirst := corpus.DefaultSetting(), corpus.DefaultSetting()
	rulesFirst.Override, rulesFirst.WeakOverride, rulesFirst.CodeOverride = 1.01, 1.01, 1.01
	modelFirst.Override, modelFirst.WeakOverride, modelFirst.CodeOverride = modelFirst.Threshold, modelFirst.Threshold, modelFirst.Threshold
	grid := []corpus.Setting{rulesFirst, modelFirst}
	for _, th := range []float32{0.35, 0.4, 0.45, 0.5, 0.55} {
		for _, o := range []float32{0.6, 0.7, 0.8} {
			for _, w := range []float32{0.5, 0.6, 0.7} {
				for _, c := range []float32{0.5, 0.6, 0.7} {
					if w <= o {
						st := corpus.DefaultSetting()
						st.Threshold, st.Override, st.WeakOverride, st.CodeOverride = th, o, w, c
						grid = append(grid, st)
					}
				}
			}
		}
	}
	rs, err := corpus.Sweep(cases, grid)
	if err != nil {
		return err
	}
	fmt.Println("threshold override weak code: class % code % permanent→retryable transient-not-retried")
	for i, r := range rs {
		name := ""
		switch i {
		case 0:
			name = "  (rules decide)"
		case 1:
			name = "  (model decides when confident)"
		}
		fmt.Printf("%.2f %.2f %.2f %.2f: %.2f %.2f %d %d%s\n", r.Threshold, r.Override, r.WeakOverride, r.CodeOverride,
			corpus.Pct(r.Class, r.N), corpus.Pct(r.Code, r.N), r.PermanentRetryable, r.TransientNotRetried, name)
	}
	return nil
}

// runExplain prints, for every case whose ID contains id, its label, what
// the embedded baseline decides and every generic rule that matched, with
// the text model's guess: the first thing to read when a case is missed.
func runExplain(dir, id string) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	n := 0
	for i := range cases {
		c := &cases[i]
		if !strings.Contains(c.ID, id) {
			continue
		}
		n++
		out := corpus.Classify(c)
		fmt.Printf("%s [%s] want %s\n  got %s/%s by %s\n", c.ID, c.System, c.Label(), out.Class, out.Code, out.RuleID)
		_, rules := classify.Explain(c.Input(), corpus.Now)
		for _, r := range rules {
			switch {
			case r.Guess != nil:
				fmt.Printf("  model: %s/%s p=%.2f code p=%.2f words=%d confident=%v\n", r.Guess.Class, r.Guess.Code,
					r.Guess.Probability, r.Guess.CodeProbability, r.Guess.Words, r.Guess.Confident)
			case r.Matched:
				fmt.Printf("  rule %s: %s/%s\n", r.ID, r.Outcome.Class, r.Outcome.Code)
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("no case ID contains %q", id)
	}
	return nil
}

// runDump prints one JSON line per case: what Classify returns, what
// Explain evaluates (the packs' and the baseline's every rule), and what
// redaction stores. Explain evaluates each rule without the prefilters that
// Classify uses, so a dump covers both paths.
func runDump(dir string) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	var none *ruleset.Set
	for i := range cases {
		c := &cases[i]
		in := c.Input()
		ex := none.Explain(in, corpus.Now)
		_, rules := classify.Explain(in, corpus.Now)
		line := struct {
			ID         string
			Classify   ruleset.Result
			Explain    ruleset.Explanation
			Baseline   []classify.RuleResult
			Message    string
			Details    any
			Attributes map[string]string
		}{c.ID, none.ClassifyWith(classify.DefaultEngine(), in, corpus.Now), ex, rules,
			redact.String(c.Error.Message), redact.Value(c.Error.Details), redact.Map(c.Error.Attributes)}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
	}
	return nil
}

// retryCost is the cost ratio of the two retry mistakes
// (docs/classification.md, "When a failure is retryable"): a permanent
// error told to retry counts this many transient errors left unretried.
const retryCost = 3

// runRetrySweep scores a grid of the evidence floors a retry needs, the
// other settings as shipped, and prints each with its cost.
func runRetrySweep(cases []corpus.Case) error {
	var grid []corpus.Setting
	for _, fs := range []float32{0, 0.05, 0.1, 0.2} {
		for _, fp := range []float32{0, 0.1, 0.2, 0.3, 0.4} {
			for _, fv := range []float32{0, 0.1, 0.2, 0.3, 0.4, 0.5} {
				for _, m := range []float32{0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
					st := corpus.DefaultSetting()
					st.RetryFloors, st.RetryModel = [3]float32{fs, fp, fv}, m
					grid = append(grid, st)
				}
			}
		}
	}
	rs, err := corpus.Sweep(cases, grid)
	if err != nil {
		return err
	}
	fmt.Printf("floors status phrase vague, model: class %% code %% permanent→retryable transient-not-retried cost (ratio %d:1)\n", retryCost)
	for _, r := range rs {
		fmt.Printf("%.2f %.2f %.2f %.2f: %.2f %.2f %d %d %d\n", r.RetryFloors[0], r.RetryFloors[1], r.RetryFloors[2], r.RetryModel,
			corpus.Pct(r.Class, r.N), corpus.Pct(r.Code, r.N), r.PermanentRetryable, r.TransientNotRetried,
			retryCost*r.PermanentRetryable+r.TransientNotRetried)
	}
	return nil
}

// runScore prints the table of the embedded baseline on a corpus, with
// no training: the model that scores it is the committed one.
func runScore(dir string, misses bool, packFloor float32) error {
	cases, err := corpus.Load(dir)
	if err != nil {
		return err
	}
	corpus.WriteMakeup(os.Stdout, corpus.MakeupOf(cases))
	vs := corpus.Score(classify.DefaultEngine().WithPackRetryFloor(packFloor), cases)
	corpus.Report(os.Stdout, "committed baseline", vs)
	if misses {
		corpus.Misses(os.Stdout, vs)
	}
	return nil
}
