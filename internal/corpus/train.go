package corpus

import (
	"fmt"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classify/textmodel"
)

// Labels are the text model's labels: every baseline class and code, in a
// fixed order (the order of the weights in the model file).
var Labels = []string{
	"capability/invalid_input",
	"capability/resource_not_found",
	"capability/capability_unsupported",
	"reliability/retryable_transient_error",
	"governance/auth_required",
	"governance/permission_denied",
	"governance/policy_blocked",
	"governance/user_action_required",
	"capability/internal_error",
}

func labelIndex(l string) (int, bool) {
	for i, x := range Labels {
		if x == l {
			return i, true
		}
	}
	return 0, false
}

// examples are the training examples for the cases: the cases
// themselves, then the baseline packs' phrases (packphrases.go).
func examples(cases []Case) ([]textmodel.Example, error) {
	phrases := packPhrases()
	ex := make([]textmodel.Example, 0, len(cases)+len(phrases))
	for i := range cases {
		l, ok := labelIndex(cases[i].Label())
		if !ok {
			return nil, fmt.Errorf("case %s: label %s is not a model label", cases[i].ID, cases[i].Label())
		}
		ex = append(ex, textmodel.Example{Input: classify.ModelInput(cases[i].Input()), Label: l})
	}
	for _, p := range phrases {
		l, ok := labelIndex(p.label)
		if !ok {
			return nil, fmt.Errorf("pack phrase %q: label %s is not a model label", p.text, p.label)
		}
		// Text only, without the generic rules' reading as hints: a
		// phrase alone is not an error as a system reports it, and what
		// the rules make of it must not teach the model how far to trust
		// them.
		in := classify.ModelInput(&classify.Input{Error: classify.RawError{Message: p.text}})
		in.Hints = [2]uint32{}
		ex = append(ex, textmodel.Example{Input: in, Label: l})
	}
	return ex, nil
}

// Train fits the text model to the cases with the default options; the
// temperature is fitted on held-out predictions from leave-system-out
// folds, so that the model's probabilities mean what they say on systems
// it has not seen.
func Train(cases []Case) (*textmodel.Model, error) {
	m, _, _, _, err := trainWithFolds(cases)
	return m, err
}

// CrossValidate is LeaveSystemOut and Train at once: the fold models that
// score the cases are the ones whose held-out predictions fit the trained
// model's temperature, so they are trained once for both.
func CrossValidate(cases []Case, threshold float32) ([]Verdict, *textmodel.Model, error) {
	m, models, logits, labels, err := trainWithFolds(cases)
	if err != nil {
		return nil, nil, err
	}
	engines, folds := foldEngines(cases, threshold, models, logits, labels)
	return judgeFolds(cases, engines, folds), m, nil
}

// trainWithFolds trains the model on every case, beside the fold models
// (foldModels), and gives it the temperature fitted on their held-out
// logits.
func trainWithFolds(cases []Case) (*textmodel.Model, []*textmodel.Model, [][]float64, []int, error) {
	var full *textmodel.Model
	var g errgroup.Group
	g.Go(func() error {
		ex, err := examples(cases)
		if err != nil {
			return err
		}
		full, err = textmodel.Train(Labels, ex, textmodel.DefaultTrainOptions)
		return err
	})
	models, logits, labels, ferr := foldModels(cases)
	if err := g.Wait(); err != nil {
		return nil, nil, nil, nil, err
	}
	if ferr != nil {
		return nil, nil, nil, nil, ferr
	}
	return full.WithTemperature(fitTemperature(logits, labels)), models, logits, labels, nil
}

// foldModels trains one model per fold on the other folds' cases, and
// returns them (by fold; nil for an empty fold) with every case's logits
// under the model that did not see its system. The folds train at the
// same time, as many as there are processors: each training is
// deterministic and writes only its own fold's entries, so the result is
// the same in any order.
func foldModels(cases []Case) ([]*textmodel.Model, [][]float64, []int, error) {
	models := make([]*textmodel.Model, Folds)
	logits := make([][]float64, len(cases))
	labels := make([]int, len(cases))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	_ = eachFold(cases, func(f int, train, test []int) error {
		g.Go(func() error {
			m, err := trainOn(cases, train)
			if err != nil {
				return fmt.Errorf("fold %d: %w", f, err)
			}
			models[f] = m
			for _, i := range test {
				mi := classify.ModelInput(cases[i].Input())
				logits[i] = m.Logits(&mi)
				labels[i], _ = labelIndex(cases[i].Label())
			}
			return nil
		})
		return nil
	})
	return models, logits, labels, g.Wait()
}

func trainOn(cases []Case, idx []int) (*textmodel.Model, error) {
	sub := make([]Case, len(idx))
	for k, i := range idx {
		sub[k] = cases[i]
	}
	ex, err := examples(sub)
	if err != nil {
		return nil, err
	}
	return textmodel.Train(Labels, ex, textmodel.DefaultTrainOptions)
}

// fitTemperature picks the softmax temperature with the lowest negative
// log-likelihood on the held-out logits, on a fixed grid (deterministic).
func fitTemperature(logits [][]float64, labels []int) float32 {
	best, bestT := math.Inf(1), 1.0
	for t := 0.5; t <= 4.0001; t += 0.05 {
		var nll float64
		for i, z := range logits {
			hi := math.Inf(-1)
			for _, v := range z {
				hi = max(hi, v/t)
			}
			var sum float64
			for _, v := range z {
				sum += math.Exp(v/t - hi)
			}
			nll -= z[labels[i]]/t - hi - math.Log(sum)
		}
		if nll < best {
			best, bestT = nll, t
		}
	}
	return float32(math.Round(bestT*100) / 100)
}
