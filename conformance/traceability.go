package conformance

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The proposal's requirements in the official suite's form (sep-3313/,
// laid out as the suite's repository is), read here so that a reviewer's
// table is generated from the same files the suite's traceability command
// checks, never copied from them.
//
//go:embed sep-3313/src/seps/sep-3313.yaml sep-3313/src/seps/traceability.json
//go:embed sep-3313/src/scenarios/server/tool-failure.ts sep-3313/src/scenarios/client/tool-failure-retry.ts
//go:embed sep-3313/examples/servers/typescript/sep-3313-broken-server.ts sep-3313/examples/clients/typescript/sep-3313-broken-client.ts
var sepFiles embed.FS

// SEPDir is where the scenario's files live in the repository.
const SEPDir = "conformance/sep-3313"

// Requirement is one row of sep-3313.yaml: a MUST or SHOULD of the
// proposal's text, quoted, with the check of the official scenario that
// tests it, or the reason it cannot be tested on the wire.
type Requirement struct {
	// Check is the check ID the scenario emits; empty for an excluded row.
	Check string
	// Text is the requirement's wording, as the proposal has it.
	Text string
	// Excluded is why the row has no check; empty for a tested row.
	Excluded string
	// Status is the row's status in traceability.json ("tested" when a run
	// of the scenario emitted the check).
	Status string
	// Scenario is the scenario that emits Check ("tool-failure", against
	// servers, or "tool-failure-retry", against clients), and ScenarioFile
	// its source under SEPDir.
	Scenario, ScenarioFile string
	// Negative lists the defects of the negative example (a broken server
	// or client) that the scenario must fail on this check.
	Negative []string
	// NegativeFile is that negative example's source under SEPDir.
	NegativeFile string
}

// Traceability is the scenario's traceability: every row of sep-3313.yaml
// in its order, and the counts traceability.json gives.
type Traceability struct {
	Requirements []Requirement
	// Summary is traceability.json's summary: tested, untested, excluded…
	Summary map[string]int
}

var scenarioSources = []struct{ name, file, negative string }{
	{"tool-failure", "src/scenarios/server/tool-failure.ts", "examples/servers/typescript/sep-3313-broken-server.ts"},
	{"tool-failure-retry", "src/scenarios/client/tool-failure-retry.ts", "examples/clients/typescript/sep-3313-broken-client.ts"},
}

// defectPattern is an entry of a negative example's table of defects:
// 'defect-name': 'sep-3313-check', possibly across two lines.
var defectPattern = regexp.MustCompile(`'([a-z0-9-]+)':\s*'(sep-3313-[a-z0-9-]+)'`)

// SEP3313 reads the scenario's traceability file and manifest, and finds in
// the scenario sources which one emits each check and which defects of its
// negative example target it. It fails when a row's check is in no
// scenario or the manifest disagrees with the yaml, so that a table built
// from it cannot claim a test that does not exist.
func SEP3313() (*Traceability, error) {
	raw, err := sepFiles.ReadFile("sep-3313/src/seps/sep-3313.yaml")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Requirements []struct {
			Check    string `yaml:"check"`
			Text     string `yaml:"text"`
			Excluded string `yaml:"excluded"`
		} `yaml:"requirements"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("sep-3313.yaml: %w", err)
	}
	raw, err = sepFiles.ReadFile("sep-3313/src/seps/traceability.json")
	if err != nil {
		return nil, err
	}
	var manifest struct {
		SEPs map[string]struct {
			Requirements []struct {
				Check  string `json:"check"`
				Status string `json:"status"`
			} `json:"requirements"`
			Summary map[string]int `json:"summary"`
		} `json:"seps"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return nil, fmt.Errorf("traceability.json: %w", err)
	}
	sep, ok := manifest.SEPs["3313"]
	if !ok {
		return nil, fmt.Errorf("traceability.json has no entry for SEP 3313")
	}
	status := map[string]string{}
	for _, r := range sep.Requirements {
		status[r.Check] = r.Status
	}

	type source struct{ name, file, text, negativeFile string }
	negatives := map[string][]string{}
	var sources []source
	for _, s := range scenarioSources {
		text, err := sepFiles.ReadFile("sep-3313/" + s.file)
		if err != nil {
			return nil, err
		}
		neg, err := sepFiles.ReadFile("sep-3313/" + s.negative)
		if err != nil {
			return nil, err
		}
		for _, m := range defectPattern.FindAllStringSubmatch(string(neg), -1) {
			negatives[m[2]] = append(negatives[m[2]], m[1])
		}
		sources = append(sources, source{s.name, s.file, string(text), s.negative})
	}

	t := &Traceability{Summary: sep.Summary}
	for _, row := range doc.Requirements {
		r := Requirement{Check: row.Check, Text: strings.TrimSpace(row.Text), Excluded: strings.TrimSpace(row.Excluded)}
		if r.Check != "" {
			if r.Status, ok = status[r.Check]; !ok {
				return nil, fmt.Errorf("traceability.json does not list %s of sep-3313.yaml", r.Check)
			}
			for _, s := range sources {
				if strings.Contains(s.text, "'"+r.Check+"'") {
					r.Scenario, r.ScenarioFile, r.NegativeFile = s.name, s.file, s.negativeFile
					break
				}
			}
			if r.Scenario == "" {
				return nil, fmt.Errorf("no scenario emits %s", r.Check)
			}
			r.Negative = negatives[r.Check]
		}
		t.Requirements = append(t.Requirements, r)
	}
	return t, nil
}
