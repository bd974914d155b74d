package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

func (b *bundle) rules(key string, opts ...connecthttp.Option) toolfailurev1connect.RuleServiceClient {
	return ruleClient(b.url, key, opts...)
}

func ruleClient(url, key string, opts ...connecthttp.Option) toolfailurev1connect.RuleServiceClient {
	return toolfailurev1connect.NewRuleServiceClient(connect.NewClient(connecthttp.NewTransport(h2cClient(), url, opts...), bearer(key)))
}

func classifierAt(url, key string) toolfailurev1connect.ClassifierServiceClient {
	return toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(connecthttp.NewTransport(h2cClient(), url), bearer(key)))
}

func ptr[T any](v T) *T { return &v }

func confirmRule() *v1.Rule {
	return &v1.Rule{
		Name: "mail-needs-confirmation", Priority: 100, Tool: "send_*",
		When: `error.details.structuredContent.reason_code == "explicit_production_confirmation_required"`,
		Then: &v1.RuleOutcome{Class: "governance", Code: "user_action_required",
			AgentGuidance: "Ask the user to confirm the production send, then call {{tool}} again."},
	}
}

func confirmRequest(t *testing.T) *v1.ClassifyRequest {
	t.Helper()
	req := &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Message: "needs confirmation"}}
	var err error
	req.Error.Details, err = structValue(map[string]any{"structuredContent": map[string]any{"reason_code": "explicit_production_confirmation_required"}})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func requireCode(t *testing.T, err error, want connect.Code) *connect.Error {
	t.Helper()
	var cerr *connect.Error
	if !errors.As(err, &cerr) || cerr.Code() != want {
		t.Fatalf("error = %v, want code %v", err, want)
	}
	return cerr
}

func TestRuleServiceCRUD(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	rules := b.rules(b.allKey)

	created, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: confirmRule()})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetVersion() != 1 || created.GetRule().GetVersion() != 1 || created.GetRule().GetMode() != "enforce" ||
		created.GetRule().GetUpdateTime() == nil {
		t.Fatalf("created = %v", created)
	}
	_, err = rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: confirmRule()})
	requireCode(t, err, connect.CodeAlreadyExists)

	got, err := rules.GetRule(ctx, &v1.GetRuleRequest{Name: "mail-needs-confirmation"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetRule().GetWhen() != confirmRule().GetWhen() || got.GetRule().GetThen().GetCode() != "user_action_required" {
		t.Fatalf("got = %v", got)
	}

	upd := confirmRule()
	upd.Priority = 5
	updated, err := rules.UpdateRule(ctx, &v1.UpdateRuleRequest{Rule: upd})
	if err != nil {
		t.Fatal(err)
	}
	if updated.GetVersion() != 2 || updated.GetRule().GetPriority() != 5 {
		t.Fatalf("updated = %v", updated)
	}
	missing := confirmRule()
	missing.Name = "missing"
	_, err = rules.UpdateRule(ctx, &v1.UpdateRuleRequest{Rule: missing})
	requireCode(t, err, connect.CodeNotFound)

	list, err := rules.ListRules(ctx, &v1.ListRulesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if list.GetVersion() != 2 || len(list.GetRules()) != 1 {
		t.Fatalf("list = %v", list)
	}

	del, err := rules.DeleteRule(ctx, &v1.DeleteRuleRequest{Name: "mail-needs-confirmation"})
	if err != nil {
		t.Fatal(err)
	}
	if del.GetVersion() != 3 {
		t.Fatalf("delete version = %d", del.GetVersion())
	}
	_, err = rules.DeleteRule(ctx, &v1.DeleteRuleRequest{Name: "mail-needs-confirmation"})
	requireCode(t, err, connect.CodeNotFound)
}

func TestRuleServiceAuth(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	_, err := b.rules(b.reportKey).ListRules(ctx, &v1.ListRulesRequest{})
	requireCode(t, err, connect.CodePermissionDenied)
	_, err = b.rules("").ListRules(ctx, &v1.ListRulesRequest{})
	requireCode(t, err, connect.CodeUnauthenticated)

	// Another tenant's rules do not exist for this one, and do not classify its failures.
	if _, err := b.rules(b.otherAllKey).CreateRule(ctx, &v1.CreateRuleRequest{Rule: confirmRule()}); err != nil {
		t.Fatal(err)
	}
	_, err = b.rules(b.allKey).GetRule(ctx, &v1.GetRuleRequest{Name: "mail-needs-confirmation"})
	requireCode(t, err, connect.CodeNotFound)
	_, err = b.rules(b.allKey).DeleteRule(ctx, &v1.DeleteRuleRequest{Name: "mail-needs-confirmation"})
	requireCode(t, err, connect.CodeNotFound)
	res, err := b.classifier(b.allKey).Classify(ctx, confirmRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.GetRuleId() == "mail-needs-confirmation" {
		t.Fatal("another tenant's rule classified this tenant's failure")
	}
	res, err = b.classifier(b.otherAllKey).Classify(ctx, confirmRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.GetRuleId() != "mail-needs-confirmation" {
		t.Fatalf("the tenant's own rule did not decide: %s", res.GetRuleId())
	}
}

// A rule applied through the API decides the very next classification, and
// the record names the rule and the rule-set version.
func TestRulesClassifyAndRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	shadow := &v1.Rule{Name: "shadow-any-send", Priority: 200, Mode: "shadow", Tool: "send_*",
		Then: &v1.RuleOutcome{Class: "governance", Code: "policy_blocked"}}
	rep, err := b.rules(b.allKey).ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: []*v1.Rule{confirmRule(), shadow}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.GetVersion() != 1 || len(rep.GetChanges()) != 2 {
		t.Fatalf("replace = %v", rep)
	}
	res, err := b.classifier(b.allKey).Classify(ctx, confirmRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	tf := res.GetToolFailure()
	if res.GetRuleId() != "mail-needs-confirmation" || tf.GetClass() != v1.Class_CLASS_GOVERNANCE || tf.GetCode() != "user_action_required" ||
		tf.GetAgentGuidance() != "Ask the user to confirm the production send, then call send_email again." {
		t.Fatalf("classify = %v", res)
	}
	id, err := correlation.Parse(tf.GetCorrelationId())
	if err != nil {
		t.Fatal(err)
	}
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.store.GetFailure(ctx, tenant.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.RuleID != "mail-needs-confirmation" || rec.RuleVersion != 1 || !strings.Contains(string(rec.Shadow), `"shadow-any-send"`) {
		t.Fatalf("record: rule %q version %d shadow %s", rec.RuleID, rec.RuleVersion, rec.Shadow)
	}
	got, err := b.failures(b.allKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: tf.GetCorrelationId()})
	if err != nil {
		t.Fatal(err)
	}
	if sh := got.GetFailure().GetShadow(); len(sh) != 1 || sh[0].GetRuleId() != "shadow-any-send" ||
		sh[0].GetClass() != v1.Class_CLASS_GOVERNANCE || sh[0].GetCode() != "policy_blocked" || got.GetFailure().GetRuleVersion() != 1 {
		t.Fatalf("GetFailure shadow = %v, ruleVersion %d", sh, got.GetFailure().GetRuleVersion())
	}

	ex, err := b.classifier(b.allKey).Explain(ctx, &v1.ExplainRequest{Tool: "send_email", Error: confirmRequest(t).GetError()})
	if err != nil {
		t.Fatal(err)
	}
	if ex.GetRuleId() != "mail-needs-confirmation" || len(ex.GetEvaluations()) < 3 ||
		ex.GetEvaluations()[0].GetRuleId() != "shadow-any-send" || ex.GetEvaluations()[0].GetMode() != "shadow" ||
		!ex.GetEvaluations()[1].GetMatched() || ex.GetEvaluations()[2].GetSource() != "baseline" {
		t.Fatalf("explain = %v", ex)
	}
}

func TestReplaceRulesRefusesInvalidSets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	rules := b.rules(b.allKey)
	if _, err := rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: []*v1.Rule{confirmRule()}}); err != nil {
		t.Fatal(err)
	}
	bad := func(mut func(r *v1.Rule)) *v1.Rule {
		r := confirmRule()
		r.Name = "bad"
		mut(r)
		return r
	}
	tests := []struct {
		name string
		rule *v1.Rule
		want string
	}{
		{"invalid CEL", bad(func(r *v1.Rule) { r.When = `tool == "x" && error.foo` }), `rules[1] "bad": when: 1:21: undefined field 'foo'`},
		{"wrong type", bad(func(r *v1.Rule) { r.When = `error.httpStatus == "503"` }), `rules[1] "bad": when: 1:18: found no matching overload`},
		{"retryable governance", bad(func(r *v1.Rule) { r.Then.Retryable = ptr(true) }), `rules[1] "bad": then.retryable: only class reliability`},
		{"lookbehind", bad(func(r *v1.Rule) { r.MessageMatches = `(?<=x)y` }), `rules[1] "bad": messageMatches:`},
		{"unknown class", bad(func(r *v1.Rule) { r.Then.Class = "fatal" }), `rules[1].then.class`},
		{"duplicate", confirmRule(), `rules[1] "mail-needs-confirmation": name: duplicate name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: []*v1.Rule{confirmRule(), tt.rule}})
			cerr := requireCode(t, err, connect.CodeInvalidArgument)
			if !strings.Contains(cerr.Message(), tt.want) {
				t.Fatalf("message = %q, want %q", cerr.Message(), tt.want)
			}
		})
	}
	// CreateRule names the rule, not a position.
	_, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: bad(func(r *v1.Rule) { r.When = "nope" })})
	cerr := requireCode(t, err, connect.CodeInvalidArgument)
	if cerr.Message() != `rule "bad": when: 1:1: undeclared reference to 'nope'` {
		t.Fatalf("message = %q", cerr.Message())
	}
	list, err := rules.ListRules(ctx, &v1.ListRulesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if list.GetVersion() != 1 || len(list.GetRules()) != 1 {
		t.Fatalf("refused changes changed the set: %v", list)
	}
}

func TestReplaceRulesDryRunAndExpectedVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	rules := b.rules(b.allKey)
	plan, err := rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: []*v1.Rule{confirmRule()}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.GetVersion() != 0 || len(plan.GetChanges()) != 1 || plan.GetChanges()[0].GetChange() != "added" {
		t.Fatalf("plan = %v", plan)
	}
	if list, _ := rules.ListRules(ctx, &v1.ListRulesRequest{}); len(list.GetRules()) != 0 {
		t.Fatal("a dry run changed the set")
	}
	if _, err := rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: []*v1.Rule{confirmRule()}, ExpectedVersion: ptr(int64(0))}); err != nil {
		t.Fatal(err)
	}
	_, err = rules.ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: nil, ExpectedVersion: ptr(int64(0))})
	cerr := requireCode(t, err, connect.CodeAborted)
	if !strings.Contains(cerr.Message(), "version 1, not 0") {
		t.Fatalf("message = %q", cerr.Message())
	}
}

// The largest rule set is accepted in one apply, and classification stays fast.
func TestReplaceRulesLargestSet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	set := make([]*v1.Rule, 10_000)
	for i := range set {
		set[i] = &v1.Rule{Name: fmt.Sprintf("r%05d", i), Tool: fmt.Sprintf("tool_%d", i),
			Then: &v1.RuleOutcome{Class: "capability", Code: "unsupported"}}
	}
	start := time.Now()
	rep, err := b.rules(b.allKey).ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %d rules in %v", len(set), time.Since(start))
	if rep.GetVersion() != 1 {
		t.Fatalf("version = %d", rep.GetVersion())
	}
	res, err := b.classifier(b.allKey).Classify(ctx, &v1.ClassifyRequest{Tool: "tool_9999", Error: &v1.RawError{Message: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetRuleId() != "r09999" {
		t.Fatalf("decided by %s", res.GetRuleId())
	}
	over := append(set, &v1.Rule{Name: "one-too-many", Tool: "x", Then: &v1.RuleOutcome{Class: "capability", Code: "x"}})
	_, err = b.rules(b.allKey).ReplaceRules(ctx, &v1.ReplaceRulesRequest{Rules: over})
	requireCode(t, err, connect.CodeInvalidArgument)
}

// Two replicas (each its own store pool and rule cache, as two server
// processes have) on one PostgreSQL: a change applied through one is in
// force on the other within a second, by notification, and by polling the
// version when notifications are not running.
func TestRulesReachEveryReplica(t *testing.T) {
	t.Parallel()
	t.Run("Notified", func(t *testing.T) { t.Parallel(); testReplicas(t, true) })
	t.Run("Polled", func(t *testing.T) { t.Parallel(); testReplicas(t, false) })
}

func testReplicas(t *testing.T, notified bool) {
	b := setup(t)
	ctx := t.Context()
	// Each replica's log says when its watcher listens: a change made
	// before then would reach it only by polling.
	var sinks []*servicetest.LogSink
	replica := func() string {
		s, err := postgres.Open(context.Background(), b.dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		sink := servicetest.NewLogSink()
		sinks = append(sinks, sink)
		cache := server.NewRuleCache(s, slog.New(slog.NewJSONHandler(sink, nil)))
		if notified {
			runCtx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = cache.Run(runCtx) }()
			t.Cleanup(func() { cancel(); <-done })
		}
		h, err := server.New(server.Config{Store: s, Rules: cache})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(h)
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.URL
	}
	a, c := replica(), replica()
	classify := func(url string) string {
		res, err := classifierAt(url, b.allKey).Classify(ctx, confirmRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		return res.GetRuleId()
	}
	// Both replicas have cached the tenant's (empty) set.
	if classify(a) == "mail-needs-confirmation" || classify(c) == "mail-needs-confirmation" {
		t.Fatal("rule in force before it was applied")
	}
	if notified {
		for _, sink := range sinks {
			sink.WaitFor(t, "the watcher listening", func(m map[string]any) bool { return m["msg"] == "rule changes: listening" })
		}
	}
	for round, rule := range []*v1.Rule{confirmRule(), nil} {
		var err error
		if rule != nil {
			_, err = ruleClient(a, b.allKey).CreateRule(ctx, &v1.CreateRuleRequest{Rule: rule})
		} else {
			_, err = ruleClient(a, b.allKey).DeleteRule(ctx, &v1.DeleteRuleRequest{Name: "mail-needs-confirmation"})
		}
		if err != nil {
			t.Fatal(err)
		}
		applied := time.Now()
		want := rule != nil
		for (classify(c) == "mail-needs-confirmation") != want {
			if time.Since(applied) > time.Second {
				t.Fatalf("round %d: the other replica did not follow within a second", round)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("round %d: the other replica followed after %v", round, time.Since(applied))
	}
}

func structValue(v any) (*structpb.Value, error) { return structpb.NewValue(v) }

// A stored rule that no longer compiles (written under other limits, or by
// hand) is left out; the tenant's other rules and its classifications go on.
func TestStoredRuleThatNoLongerCompiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.Rule{
		{TenantID: tenant.ID, Name: "broken", Priority: 10,
			Spec: json.RawMessage(`{"name": "broken", "priority": 10, "when": "nope", "then": {"class": "governance", "code": "x"}}`)},
		{TenantID: tenant.ID, Name: "fine", Priority: 1,
			Spec: json.RawMessage(`{"name": "fine", "priority": 1, "tool": "send_*", "then": {"class": "governance", "code": "y"}}`)},
	} {
		if _, err := b.store.CreateRule(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	res, err := b.classifier(b.allKey).Classify(ctx, &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Message: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetRuleId() != "fine" {
		t.Fatalf("decided by %q, want fine", res.GetRuleId())
	}
}
