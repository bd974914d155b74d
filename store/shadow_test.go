package store_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/omcp/toolfailure/store"
)

func TestShadowRoundTripAndSum(t *testing.T) {
	t.Parallel()
	if b := store.EncodeShadow(nil); b != nil {
		t.Fatalf("no outcomes encode as %s, want nil", b)
	}
	if got, err := store.DecodeShadow(nil); got != nil || err != nil {
		t.Fatalf("DecodeShadow(nil) = %v, %v", got, err)
	}
	a := store.ShadowOutcome{RuleID: "a", Class: store.ClassGovernance, Code: "policy_blocked"}
	b := store.ShadowOutcome{RuleID: "b", Class: store.ClassReliability, Code: "retryable_transient_error", Retryable: true}
	enc := store.EncodeShadow([]store.ShadowOutcome{a, b})
	if got, err := store.DecodeShadow(enc); err != nil || !reflect.DeepEqual(got, []store.ShadowOutcome{a, b}) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	records := []store.Failure{
		{Class: store.ClassGovernance, Code: "policy_blocked", Shadow: store.EncodeShadow([]store.ShadowOutcome{a})},       // agrees
		{Class: store.ClassGovernance, Code: "permission_denied", Shadow: store.EncodeShadow([]store.ShadowOutcome{a, b})}, // both differ
		{Class: store.ClassReliability, Code: "retryable_transient_error", Shadow: store.EncodeShadow([]store.ShadowOutcome{b})},
		{Class: store.ClassCapability, Code: "invalid_input"}, // no shadow rule matched
	}
	got, err := store.SumShadow(records)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ShadowEvidence{
		{RuleID: "a", Class: store.ClassGovernance, Code: "policy_blocked", Matched: 2, Differs: 1},
		{RuleID: "b", Class: store.ClassReliability, Code: "retryable_transient_error", Matched: 2, Differs: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SumShadow = %+v, want %+v", got, want)
	}
	if _, err := store.SumShadow([]store.Failure{{Shadow: json.RawMessage(`{"not":"a list"}`)}}); err == nil {
		t.Fatal("a malformed shadow column summed without an error")
	}
}
