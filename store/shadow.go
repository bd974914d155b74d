package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ShadowOutcome is one entry of Failure.Shadow: what a shadow-mode rule
// that matched above the deciding rule would have decided.
type ShadowOutcome struct {
	RuleID    string `json:"ruleId"`
	Class     string `json:"class"`
	Code      string `json:"code"`
	Retryable bool   `json:"retryable,omitempty"`
}

// EncodeShadow is the Failure.Shadow of the outcomes; nil for none.
func EncodeShadow(outcomes []ShadowOutcome) json.RawMessage {
	if len(outcomes) == 0 {
		return nil
	}
	b, err := json.Marshal(outcomes)
	if err != nil {
		return nil // strings and a bool always encode
	}
	return b
}

// DecodeShadow reads a Failure.Shadow; nil for none.
func DecodeShadow(b json.RawMessage) ([]ShadowOutcome, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var out []ShadowOutcome
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("shadow outcomes: %w", err)
	}
	return out, nil
}

// ShadowEvidence is one shadow rule's account over a set of records.
type ShadowEvidence struct {
	RuleID, Class, Code string
	// Matched counts the records the rule matched above their decider: it
	// would have decided them, had it been enforced. Differs counts those
	// of them whose class or code it would have changed.
	Matched, Differs int
}

// SumShadow sums the shadow outcomes stored with the records, rule by
// rule, most matches first (then by rule ID): the evidence for promoting
// a shadow rule to enforce.
func SumShadow(records []Failure) ([]ShadowEvidence, error) {
	byRule := map[string]*ShadowEvidence{}
	for _, f := range records {
		outcomes, err := DecodeShadow(f.Shadow)
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", f.ID, err)
		}
		for _, o := range outcomes {
			e := byRule[o.RuleID]
			if e == nil {
				e = &ShadowEvidence{RuleID: o.RuleID, Class: o.Class, Code: o.Code}
				byRule[o.RuleID] = e
			}
			e.Matched++
			if o.Class != f.Class || o.Code != f.Code {
				e.Differs++
			}
		}
	}
	out := make([]ShadowEvidence, 0, len(byRule))
	for _, e := range byRule {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b ShadowEvidence) int {
		return cmp.Or(cmp.Compare(b.Matched, a.Matched), strings.Compare(a.RuleID, b.RuleID))
	})
	return out, nil
}
