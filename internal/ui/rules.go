package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/omcp/toolfailure/store"
)

// RuleGetter is the part of a store that reads one tenant rule; the
// PostgreSQL and SQLite stores have it.
type RuleGetter interface {
	GetRule(ctx context.Context, tenantID int64, name string) (store.Rule, error)
}

// StoreRules is the RuleSource of a store: it shows a stored rule's spec,
// which is the rule in the API's JSON form, indented for reading.
func StoreRules(s RuleGetter) RuleSource {
	return func(ctx context.Context, tenantID int64, name string) (Rule, error) {
		r, err := s.GetRule(ctx, tenantID, name)
		if err != nil {
			return Rule{}, fmt.Errorf("rule %q: %w", name, err)
		}
		var spec struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(r.Spec, &spec)
		if spec.Mode == "" {
			spec.Mode = "enforce"
		}
		def := string(r.Spec)
		var pretty bytes.Buffer
		if json.Indent(&pretty, r.Spec, "", "  ") == nil {
			def = pretty.String()
		}
		return Rule{Name: r.Name, Mode: spec.Mode, Priority: r.Priority, Definition: def}, nil
	}
}
