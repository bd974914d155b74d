package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classify/textmodel"
)

// LoadConfirmed reads a corpus as Load does, leaving out the cases that a
// person has not confirmed yet: `toolfailure corpus export` writes a
// tenant's records with the service's decision as a provisional label and
// "confirmed": false, and a case counts once that person has corrected its
// label and set "confirmed" to true (or removed it: a case without the
// field, as in the repository's corpus, is confirmed). It returns how many
// cases it left out. A corpus in which no case has the field is read by
// Load itself. Otherwise the confirmed cases are checked as Load checks
// them, except that a code may also be a tenant's own (a rule's code that
// is not a baseline one), so that a tenant can score its rules on its own
// traffic; the unconfirmed ones need only be JSON with a unique id.
func LoadConfirmed(path string) (cases []Case, unconfirmed int, err error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, 0, fmt.Errorf("corpus %s: %w", path, err)
	} else if st.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*.jsonl"))
		if err != nil {
			return nil, 0, err
		}
		slices.Sort(files)
	}
	contents := make([][]byte, len(files))
	exported := false
	for i, file := range files {
		if contents[i], err = os.ReadFile(file); err != nil {
			return nil, 0, fmt.Errorf("corpus %s: %w", file, err)
		}
		exported = exported || hasConfirmedField(contents[i])
	}
	if !exported {
		cases, err := Load(path)
		return cases, 0, err
	}
	seen := map[string]string{}
	codes := classify.BaselineCodes()
	for fi, file := range files {
		sc := bufio.NewScanner(bytes.NewReader(contents[fi]))
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for line := 1; sc.Scan(); line++ {
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			var l struct {
				Case
				Confirmed *bool `json:"confirmed"`
			}
			if err := json.Unmarshal(text, &l); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			c := l.Case
			c.File = filepath.Base(file)
			where := fmt.Sprintf("%s:%d (%s)", file, line, c.ID)
			if c.ID == "" {
				return nil, 0, fmt.Errorf("%s: no id", where)
			}
			if prev, dup := seen[c.ID]; dup {
				return nil, 0, fmt.Errorf("%s: id also used at %s", where, prev)
			}
			seen[c.ID] = where
			if l.Confirmed != nil && !*l.Confirmed {
				unconfirmed++
				continue
			}
			if c.System == "" {
				c.System = c.ID
			}
			if err := checkLabel(c.Expect.Class, c.Expect.Code, codes); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", where, err)
			}
			if c.Expect.Retryable != (c.Expect.Class == string(classify.Reliability)) {
				return nil, 0, fmt.Errorf("%s: retryable must be true exactly for reliability", where)
			}
			for _, a := range c.Accept {
				if err := checkLabel(a.Class, a.Code, codes); err != nil {
					return nil, 0, fmt.Errorf("%s: accept: %w", where, err)
				}
			}
			cases = append(cases, c)
		}
		if err := sc.Err(); err != nil {
			return nil, 0, fmt.Errorf("corpus %s: %w", file, err)
		}
	}
	if len(cases) == 0 && unconfirmed == 0 {
		return nil, 0, fmt.Errorf("corpus %s: no cases", path)
	}
	return cases, unconfirmed, nil
}

// tenantCode is the form of a rule's own code (the rules file's then.code).
var tenantCode = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)

// checkLabel checks a class and code: the class in the closed set, a
// baseline code only with its own class, any other code in a rule's form.
func checkLabel(class, code string, codes map[string]classify.Class) error {
	if !classify.Class(class).Valid() {
		return fmt.Errorf("class %q is not capability, reliability or governance", class)
	}
	if want, ok := codes[code]; ok {
		if string(want) != class {
			return fmt.Errorf("%s/%s: %s is a baseline code of class %s", class, code, code, want)
		}
		return nil
	}
	if !tenantCode.MatchString(code) || len(code) > 64 {
		return fmt.Errorf("%s/%q: not a code", class, code)
	}
	return nil
}

// FoldEngines returns the engines that LeaveSystemOut scores the cases
// with, one per fold (nil for a fold with no cases), and the fold of every
// case: so that a tenant's rules can be scored in front of them, as
// set.ClassifyWith(engines[folds[i]], …) does.
func FoldEngines(cases []Case, threshold float32) (engines []*classify.Engine, folds []int, err error) {
	models, logits, labels, err := foldModels(cases)
	if err != nil {
		return nil, nil, err
	}
	engines, folds = foldEngines(cases, threshold, models, logits, labels)
	return engines, folds, nil
}

// foldEngines puts each fold's model in an engine, with the temperature
// fitted on the held-out logits of the other folds, so that the fold's
// own cases do not calibrate the model that scores them.
func foldEngines(cases []Case, threshold float32, models []*textmodel.Model, logits [][]float64, labels []int) (engines []*classify.Engine, folds []int) {
	folds = Groups(cases)
	engines = make([]*classify.Engine, len(models))
	for f, m := range models {
		if m == nil {
			continue
		}
		var ol [][]float64
		var oy []int
		for i := range cases {
			if folds[i] != f {
				ol, oy = append(ol, logits[i]), append(oy, labels[i])
			}
		}
		engines[f] = classify.NewEngine(m.WithTemperature(fitTemperature(ol, oy)), threshold)
	}
	return engines, folds
}

// hasConfirmedField reports whether a line of a corpus file has a
// top-level "confirmed" field.
func hasConfirmedField(b []byte) bool {
	if !bytes.Contains(b, []byte(`"confirmed"`)) {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var probe struct {
			Confirmed *bool `json:"confirmed"`
		}
		if json.Unmarshal(sc.Bytes(), &probe) == nil && probe.Confirmed != nil {
			return true
		}
	}
	return false
}
