package server_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/proto"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// TestSuggestRule drafts a rule from a group, checks it against the group and the tenant's other
// records, applies it unchanged (shadow), and then, enforced, sees it decide the group's next error.
func TestSuggestRule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := classifyMany(t, b, "ship_parcel", nil, "parcel 123 stuck at depot 'Berlin 7' since 2026-11-30T08:00:00Z",
		"parcel 98 stuck at depot 'Lyon' since 2026-11-29T23:10:05Z", "Parcel 4567 stuck at depot \"Oslo\" since 2026-11-30T01:02:03Z")
	classifyMany(t, b, "ship_parcel", nil, "parcel 5 delivered late", "parcel 6 delivered late")
	fc := b.failures(b.lookupKey)
	got, err := fc.GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	fp := got.GetFailure().GetFingerprint()

	rules := b.rules(b.allKey)
	res, err := rules.SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: fp})
	if err != nil {
		t.Fatalf("SuggestRule: %v", err)
	}
	r := res.GetRule()
	if r.GetMode() != "shadow" || r.GetTool() != "ship_parcel" || r.GetMessageMatches() == "" || r.GetName() != "suggested-"+fp {
		t.Fatalf("rule = %v", r)
	}
	for _, want := range []string{"matches all 3 records", "none of the tenant's 2 other recent records", "Mode shadow"} {
		if !strings.Contains(res.GetExplanation(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, res.GetExplanation())
		}
	}

	// Another tenant's fingerprint is not_found like an unknown one; a malformed one is invalid.
	_, errOther := b.rules(b.otherAllKey).SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: fp})
	_, errUnknown := rules.SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: "0123456789abcdef"})
	if connect.CodeOf(errOther) != connect.CodeNotFound || connect.CodeOf(errUnknown) != connect.CodeNotFound || errOther.Error() != errUnknown.Error() {
		t.Fatalf("other tenant: %v; unknown: %v; want the same not_found", errOther, errUnknown)
	}
	if _, err := rules.SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: "zz"}); connect.CodeOf(err) != connect.CodeInvalidArgument ||
		!strings.Contains(err.Error(), "fingerprint") {
		t.Fatalf("malformed: %v", err)
	}

	// Accepted unchanged; in shadow it decides nothing but shows on the next record.
	if _, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: r}); err != nil {
		t.Fatalf("CreateRule(suggestion): %v", err)
	}
	next := classifyMany(t, b, "ship_parcel", nil, "parcel 777 stuck at depot 'Graz' since 2026-12-01T00:00:00Z")
	rec, err := fc.GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: next[0]})
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetFailure().GetRuleId() == r.GetName() || len(rec.GetFailure().GetShadow()) != 1 || rec.GetFailure().GetShadow()[0].GetRuleId() != r.GetName() {
		t.Fatalf("shadow: rule %q, shadow %v", rec.GetFailure().GetRuleId(), rec.GetFailure().GetShadow())
	}
	if rec.GetFailure().GetFingerprint() != fp {
		t.Fatalf("the next error has fingerprint %s, want %s", rec.GetFailure().GetFingerprint(), fp)
	}
	// The group's page has the evidence: the shadow rule matched the one record classified since
	// it was added, of the group's four, and would have changed it if its outcome differs.
	grp, err := fc.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: fp})
	if err != nil {
		t.Fatalf("GetGroup: %v", err)
	}
	if grp.GetShadowRecords() != 4 || len(grp.GetShadow()) != 1 {
		t.Fatalf("shadow evidence over %d records: %v", grp.GetShadowRecords(), grp.GetShadow())
	}
	ev, decided := grp.GetShadow()[0], rec.GetFailure()
	wantDiffers := int64(0)
	if ev.GetClass() != decided.GetClass() || ev.GetCode() != decided.GetCode() {
		wantDiffers = 1
	}
	if ev.GetRuleId() != r.GetName() || ev.GetMatched() != 1 || ev.GetDiffers() != wantDiffers ||
		ev.GetCode() != r.GetThen().GetCode() {
		t.Fatalf("shadow evidence %v, want %s matching 1 record, differing %d", ev, r.GetName(), wantDiffers)
	}

	// Enforced, it decides the group's next error, and not the other group's.
	enforced := proto.Clone(r).(*v1.Rule)
	enforced.Mode = "enforce"
	enforced.Then.Class, enforced.Then.Code = "capability", "resource_unavailable"
	if _, err := rules.UpdateRule(ctx, &v1.UpdateRuleRequest{Rule: enforced}); err != nil {
		t.Fatalf("UpdateRule: %v", err)
	}
	next = classifyMany(t, b, "ship_parcel", nil, "parcel 31337 stuck at depot 'Wien' since 2026-12-01T01:00:00Z", "parcel 8 delivered late")
	for i, wantRule := range []bool{true, false} {
		rec, err := fc.GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: next[i]})
		if err != nil {
			t.Fatal(err)
		}
		if (rec.GetFailure().GetRuleId() == r.GetName()) != wantRule {
			t.Fatalf("record %d decided by %q", i, rec.GetFailure().GetRuleId())
		}
	}
}

// A group that no rule decided gets the class and code of the pack rule nearest to its wording,
// and the explanation names that rule and what it shares with the message.
func TestSuggestRuleConsultsNearestPackRule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := classifyMany(t, b, "graph_query", nil, "Cannot query field on this schema for order 17", "Cannot query field on this schema for order 42")
	got, err := b.failures(b.lookupKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	if f := got.GetFailure(); f.GetRuleId() != "baseline/text-model" && f.GetRuleId() != "baseline/default" {
		t.Fatalf("the group was decided by %s; this test needs one that no rule decides", f.GetRuleId())
	}
	res, err := b.rules(b.allKey).SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: got.GetFailure().GetFingerprint()})
	if err != nil {
		t.Fatalf("SuggestRule: %v", err)
	}
	if th := res.GetRule().GetThen(); th.GetClass() != "capability" || th.GetCode() != "invalid_input" {
		t.Errorf("then %s/%s, want the pack rule's capability/invalid_input", th.GetClass(), th.GetCode())
	}
	for _, want := range []string{"pack rule invalid.graphql-document", `shares "cannot query field"`} {
		if !strings.Contains(res.GetExplanation(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, res.GetExplanation())
		}
	}
}
