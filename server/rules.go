package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/internal/rulecache"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/store"
)

// RuleStore is what the rule service and the rule cache need of a backend.
type RuleStore interface {
	ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error)
	RuleSetVersion(ctx context.Context, tenantID int64) (int64, error)
	GetRule(ctx context.Context, tenantID int64, name string) (store.Rule, error)
	CreateRule(ctx context.Context, r store.Rule) (store.Rule, error)
	UpdateRule(ctx context.Context, r store.Rule) (store.Rule, error)
	DeleteRule(ctx context.Context, tenantID int64, name string) (int64, error)
	ReplaceRules(ctx context.Context, tenantID int64, rules []store.Rule, expectedVersion *int64) (int64, []store.RuleChange, error)
}

// ruleService is the RuleService handler. Every rule is compiled before it
// is stored, so a stored rule set always compiles; after a change it updates
// this replica's cache at once, and other replicas learn of the change from
// the store (see package rulecache).
type ruleService struct {
	store RuleStore
	cache *rulecache.Cache
	log   *slog.Logger
	// groups and now serve SuggestRule, which reads the group's records.
	groups GroupStore
	now    func() time.Time
}

func (s *ruleService) CreateRule(ctx context.Context, req *v1.CreateRuleRequest) (*v1.CreateRuleResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.checkOne(ctx, p, req.GetRule(), true)
	if err != nil {
		return nil, err
	}
	stored, err := s.store.CreateRule(ctx, r)
	if errors.Is(err, store.ErrConflict) {
		return nil, alreadyExists(fmt.Sprintf("a rule named %q exists; use UpdateRule to change it", r.Name))
	}
	if err != nil {
		return nil, s.storeError(ctx, p, "create rule", err)
	}
	s.cache.Invalidate(p.TenantID, stored.Version)
	pr, err := ruleProto(stored)
	if err != nil {
		return nil, err
	}
	return &v1.CreateRuleResponse{Rule: pr, Version: stored.Version}, nil
}

func (s *ruleService) GetRule(ctx context.Context, req *v1.GetRuleRequest) (*v1.GetRuleResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	stored, err := s.store.GetRule(ctx, p.TenantID, req.GetName())
	if errors.Is(err, store.ErrNotFound) {
		return nil, noSuchRule(req.GetName(), "")
	}
	if err != nil {
		return nil, s.storeError(ctx, p, "get rule", err)
	}
	pr, err := ruleProto(stored)
	if err != nil {
		return nil, err
	}
	return &v1.GetRuleResponse{Rule: pr}, nil
}

func (s *ruleService) UpdateRule(ctx context.Context, req *v1.UpdateRuleRequest) (*v1.UpdateRuleResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.checkOne(ctx, p, req.GetRule(), false)
	if err != nil {
		return nil, err
	}
	stored, err := s.store.UpdateRule(ctx, r)
	if errors.Is(err, store.ErrNotFound) {
		return nil, noSuchRule(r.Name, "; use CreateRule to add it")
	}
	if err != nil {
		return nil, s.storeError(ctx, p, "update rule", err)
	}
	version, err := s.store.RuleSetVersion(ctx, p.TenantID)
	if err != nil {
		return nil, s.storeError(ctx, p, "update rule", err)
	}
	s.cache.Invalidate(p.TenantID, version)
	pr, err := ruleProto(stored)
	if err != nil {
		return nil, err
	}
	return &v1.UpdateRuleResponse{Rule: pr, Version: version}, nil
}

func (s *ruleService) DeleteRule(ctx context.Context, req *v1.DeleteRuleRequest) (*v1.DeleteRuleResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	version, err := s.store.DeleteRule(ctx, p.TenantID, req.GetName())
	if errors.Is(err, store.ErrNotFound) {
		return nil, noSuchRule(req.GetName(), "")
	}
	if err != nil {
		return nil, s.storeError(ctx, p, "delete rule", err)
	}
	s.cache.Invalidate(p.TenantID, version)
	return &v1.DeleteRuleResponse{Version: version}, nil
}

func (s *ruleService) ListRules(ctx context.Context, _ *v1.ListRulesRequest) (*v1.ListRulesResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	set, err := s.store.ListRules(ctx, p.TenantID)
	if err != nil {
		return nil, s.storeError(ctx, p, "list rules", err)
	}
	res := &v1.ListRulesResponse{Version: set.Version, Rules: make([]*v1.Rule, 0, len(set.Rules))}
	for _, r := range set.Rules {
		pr, err := ruleProto(r)
		if err != nil {
			return nil, err
		}
		res.Rules = append(res.Rules, pr)
	}
	return res, nil
}

func (s *ruleService) ReplaceRules(ctx context.Context, req *v1.ReplaceRulesRequest) (*v1.ReplaceRulesResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	rules := make([]ruleset.Rule, len(req.GetRules()))
	for i, pr := range req.GetRules() {
		rules[i] = ruleset.FromProto(pr)
	}
	// The whole set is compiled, and so checked, before anything is
	// written: one invalid rule changes nothing.
	set, err := ruleset.Compile(0, rules)
	if err != nil {
		return nil, invalidRules(err)
	}
	stored := make([]store.Rule, len(rules))
	for i, r := range rules {
		if stored[i], err = storeRule(p.TenantID, r); err != nil {
			return nil, err
		}
	}
	if req.GetDryRun() {
		current, err := s.store.ListRules(ctx, p.TenantID)
		if err != nil {
			return nil, s.storeError(ctx, p, "list rules", err)
		}
		if req.ExpectedVersion != nil && req.GetExpectedVersion() != current.Version {
			return nil, versionConflict(current.Version, req.GetExpectedVersion())
		}
		return &v1.ReplaceRulesResponse{Version: current.Version, Changes: changesProto(store.DiffRules(current.Rules, stored))}, nil
	}
	version, changes, err := s.store.ReplaceRules(ctx, p.TenantID, stored, req.ExpectedVersion)
	if errors.Is(err, store.ErrConflict) && req.ExpectedVersion != nil {
		current, verr := s.store.RuleSetVersion(ctx, p.TenantID)
		if verr != nil {
			current = -1
		}
		return nil, versionConflict(current, req.GetExpectedVersion())
	}
	if err != nil {
		return nil, s.storeError(ctx, p, "replace rules", err)
	}
	// The set just written is the set just compiled: hand it to this
	// replica's cache rather than compiling it again on the next request.
	s.cache.Put(p.TenantID, set.WithVersion(version))
	s.log.InfoContext(ctx, "rules replaced", "tenant", p.TenantID, "version", version, "rules", len(rules))
	return &v1.ReplaceRulesResponse{Version: version, Changes: changesProto(changes)}, nil
}

// checkOne compiles a single rule for CreateRule and UpdateRule, in the
// context of the tenant's set only as far as its size goes: names are
// unique by the store's key.
func (s *ruleService) checkOne(ctx context.Context, p auth.Principal, pr *v1.Rule, adding bool) (store.Rule, error) {
	r := ruleset.FromProto(pr)
	if _, err := ruleset.Compile(0, []ruleset.Rule{r}); err != nil {
		var invalid *ruleset.InvalidError
		if errors.As(err, &invalid) {
			for _, e := range invalid.Problems {
				e.Index = -1 // one rule: name it, not its position
			}
		}
		return store.Rule{}, invalidRules(err)
	}
	set, err := s.cache.Get(ctx, p.TenantID)
	if err != nil {
		// The store answers the write next; if it is down, that says so.
		return storeRule(p.TenantID, r)
	}
	if adding && set.Len() >= ruleset.MaxRules {
		return store.Rule{}, refused(fmt.Sprintf("the tenant has %d rules, the most allowed", set.Len()))
	}
	// The rule budget is the whole set's: priced with this rule in it. A set
	// already over it (stored under older limits) may still take a rule that
	// makes it no dearer.
	cost, crossAt, err := set.CostWith(r)
	if err != nil {
		return store.Rule{}, invalidRules(err)
	}
	if cost > ruleset.RequestBudget && cost > set.Cost() {
		msg := fmt.Sprintf("with it the tenant's rule set could cost %d CEL cost units on one request, over the budget of %d per request",
			cost, ruleset.RequestBudget)
		if crossAt != "" && crossAt != r.Name {
			msg += fmt.Sprintf(" (crossed at rule %q, in evaluation order)", crossAt)
		}
		invalid := &ruleset.InvalidError{Problems: []*ruleset.RuleError{{Index: -1, Name: r.Name,
			Msg: msg + "; give rules a tool, a code or an error type at the top level of the condition, prefer messageMatches phrases to string functions on error.message, or remove rules"}}, Total: 1}
		return store.Rule{}, invalidRules(invalid)
	}
	return storeRule(p.TenantID, r)
}

// invalidRules answers a rule set that did not compile: the rule checker's account of a rule that
// is invalid, or internal for anything else.
func invalidRules(err error) error {
	var bad *ruleset.InvalidError
	if errors.As(err, &bad) {
		return refused(bad.Error())
	}
	return internal("cannot compile rules", err)
}

// noSuchRule answers a rule name the tenant has no rule of; hint, if any, follows the name.
func noSuchRule(name, hint string) error {
	return notFound(fmt.Sprintf("no rule named %q", name) + hint)
}

func versionConflict(current, expected int64) error {
	msg := fmt.Sprintf("the rule set changed meanwhile: it is at version %d, not %d; look at the current rules and apply again", current, expected)
	if current < 0 {
		msg = fmt.Sprintf("the rule set is no longer at version %d; look at the current rules and apply again", expected)
	}
	return aborted(msg)
}

func (s *ruleService) storeError(ctx context.Context, p auth.Principal, op string, err error) error {
	return storeFailed(ctx, op, p.TenantID, op+" failed; retry shortly", err)
}

// storeRule turns a rule into what the store keeps: its API JSON form,
// which is also the rules file's form.
func storeRule(tenantID int64, r ruleset.Rule) (store.Rule, error) {
	spec, err := protojson.Marshal(ruleset.ToProto(r))
	if err != nil {
		return store.Rule{}, internal("encode rule", err)
	}
	return store.Rule{TenantID: tenantID, Name: r.Name, Priority: r.Priority, Spec: spec}, nil
}

// specOptions read stored specs leniently: a spec written by a newer
// release may carry fields this one does not know.
var specOptions = protojson.UnmarshalOptions{DiscardUnknown: true}

func ruleProto(r store.Rule) (*v1.Rule, error) {
	pr := &v1.Rule{}
	if err := specOptions.Unmarshal(r.Spec, pr); err != nil {
		return nil, internal(fmt.Sprintf("stored rule %q is unreadable", r.Name), err)
	}
	pr.Name, pr.Priority = r.Name, r.Priority
	pr.Version = r.Version
	pr.UpdateTime = timestamppb.New(r.UpdatedAt)
	return pr, nil
}

func changesProto(changes []store.RuleChange) []*v1.RuleChange {
	out := make([]*v1.RuleChange, len(changes))
	for i, c := range changes {
		out[i] = &v1.RuleChange{Name: c.Name, Change: c.Change}
	}
	return out
}

// NewRuleCache returns an empty rule cache over s, loading each tenant's
// rules from it; it follows changes made by other processes when s is a
// store.RuleWatcher (see package rulecache). log may be nil.
func NewRuleCache(s RuleStore, log *slog.Logger) *rulecache.Cache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w, _ := s.(store.RuleWatcher)
	return rulecache.New(ruleSource{store: s, log: log}, rulecache.Options{Watcher: w, Logger: log})
}

// ruleSource loads a tenant's stored rules and compiles them. A stored
// rule that no longer compiles (written under other limits) is left out
// and logged, so that a tenant's classifications never fail because of
// its rules.
type ruleSource struct {
	store RuleStore
	log   *slog.Logger
}

func (c ruleSource) Version(ctx context.Context, tenantID int64) (int64, error) {
	return c.store.RuleSetVersion(ctx, tenantID)
}

func (c ruleSource) Load(ctx context.Context, tenantID int64) (*ruleset.Set, error) {
	stored, err := c.store.ListRules(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("load rules of tenant %d: %w", tenantID, err)
	}
	rules := make([]ruleset.Rule, 0, len(stored.Rules))
	for _, r := range stored.Rules {
		pr, err := ruleProto(r)
		if err != nil {
			c.log.ErrorContext(ctx, "rule cache: unreadable stored rule left out", "tenant", tenantID, "rule", r.Name, "error", err)
			continue
		}
		rules = append(rules, ruleset.FromProto(pr))
	}
	// Leniently as to the set's cost: a set stored under older limits keeps
	// classifying, within the rule budget of each request.
	set, err := ruleset.CompileStored(stored.Version, rules)
	var invalid *ruleset.InvalidError
	if errors.As(err, &invalid) {
		bad := map[int]bool{}
		for _, p := range invalid.Problems {
			bad[p.Index] = true
			c.log.ErrorContext(ctx, "rule cache: stored rule no longer compiles; left out", "tenant", tenantID, "problem", p.Error())
		}
		kept := rules[:0:0]
		for i, r := range rules {
			if !bad[i] {
				kept = append(kept, r)
			}
		}
		set, err = ruleset.CompileStored(stored.Version, kept)
	}
	if err != nil {
		return nil, fmt.Errorf("compile rules of tenant %d: %w", tenantID, err)
	}
	if set.Cost() > ruleset.RequestBudget {
		c.log.WarnContext(ctx, "rule cache: stored rule set is over the rule budget; requests that spend it are decided by the baseline",
			"tenant", tenantID, "cost", set.Cost(), "budget", ruleset.RequestBudget)
	}
	return set, nil
}

// The helpers below are what ClassifierService needs of the rules.

// shadowJSON is the record's account of the shadow rules that matched
// above the decider (store.Failure.Shadow); nil when none did.
func shadowJSON(shadows []ruleset.ShadowMatch) json.RawMessage {
	out := make([]store.ShadowOutcome, len(shadows))
	for i, s := range shadows {
		out[i] = store.ShadowOutcome{RuleID: s.RuleID, Class: string(s.Outcome.Class), Code: s.Outcome.Code, Retryable: s.Outcome.Retryable}
	}
	return store.EncodeShadow(out)
}

// logShadows reports shadow matches as log lines, the field a rule author
// filters on ("shadow_rule") to see how a rule would have fared.
func logShadows(ctx context.Context, log *slog.Logger, tenantID int64, res ruleset.Result) {
	for _, s := range res.Shadows {
		log.InfoContext(ctx, "shadow rule matched",
			"tenant", tenantID,
			"shadow_rule", s.RuleID,
			"shadow_class", string(s.Outcome.Class),
			"shadow_code", s.Outcome.Code,
			"applied_rule", res.RuleID,
			"applied_class", string(res.Class),
			"applied_code", res.Code,
			"rule_version", res.Version)
	}
}

// explainResponse is the wire form of a dry run.
func explainResponse(ex ruleset.Explanation) *v1.ExplainResponse {
	res := &v1.ExplainResponse{
		ToolFailure: toolFailureOf(ex.Outcome, ""),
		RuleId:      ex.RuleID,
		Reason:      ex.Reason,
		DecidedBy:   ex.DecidedBy,
		Evaluations: make([]*v1.RuleEvaluation, len(ex.Evaluations)),
	}
	if g := ex.Guess; g != nil {
		res.ModelGuess = &v1.ModelGuess{Class: classwire.ToProto(g.Class), Code: g.Code, Probability: g.Probability, Confident: g.Confident}
	}
	for i, e := range ex.Evaluations {
		res.Evaluations[i] = &v1.RuleEvaluation{
			RuleId:  e.RuleID,
			Source:  e.Source,
			Mode:    string(e.Mode),
			Matched: e.Matched,
			Detail:  e.Detail,
		}
		if e.Outcome.Class != "" { // a baseline rule that did not match has none
			res.Evaluations[i].Outcome = toolFailureOf(e.Outcome, "")
		}
	}
	return res
}
