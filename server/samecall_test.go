package server_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/store"
)

// TestGetFailureSameCallIDs: a call answered with two IDs across an outage (the key's holder A,
// and B, which a journal stored without the key, linked to A) is looked up as one call: GetFailure
// of either names the other in sameCallIds, in JSON and in the binary protocol; a list names A on
// B; another tenant sees neither.
func TestGetFailureSameCallIDs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	status, res := b.post(t, classifyPath, b.reportKey,
		`{"tool": "send_email", "error": {"message": "connection reset", "type": "ECONNRESET"}, "idempotencyKey": "send-42"}`)
	if status != http.StatusOK {
		t.Fatalf("Classify: %d %v", status, res)
	}
	a := metaOf(t, res)["correlationId"].(string)
	aID, err := correlation.Parse(a)
	if err != nil {
		t.Fatal(err)
	}

	// B as a journal's drain writes it: the replay, with an ID of its own, linked to A.
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Prepare(store.Failure{
		TenantID: tenant.ID, ID: uuid.Must(uuid.NewV7()), Tool: "send_email",
		Class: store.ClassReliability, Code: "retryable_transient_error", Retryable: true,
		Error: []byte(`{"message": "connection reset", "type": "ECONNRESET"}`), IdempotencyKey: "send-42",
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, _, err := b.store.InsertFailure(ctx, p.SameCallAs([16]byte(aID)))
	if err != nil {
		t.Fatal(err)
	}
	bID := correlation.ID(stored.ID).String()

	for _, c := range []struct{ id, want string }{{a, bID}, {bID, a}} {
		status, res := b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, c.id))
		if status != http.StatusOK {
			t.Fatalf("GetFailure %s: %d %v", c.id, status, res)
		}
		got, _ := res["failure"].(map[string]any)["sameCallIds"].([]any)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("GetFailure %s (JSON): sameCallIds %v, want [%s]", c.id, got, c.want)
		}
		resp, err := b.failures(b.lookupKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: c.id})
		if err != nil {
			t.Fatal(err)
		}
		if ids := resp.GetFailure().GetSameCallIds(); !slices.Equal(ids, []string{c.want}) {
			t.Errorf("GetFailure %s: sameCallIds %v, want [%s]", c.id, ids, c.want)
		}
		if status, _ := b.post(t, getPath, b.otherAllKey, fmt.Sprintf(`{"correlationId": %q}`, c.id)); status != http.StatusNotFound {
			t.Errorf("tenant globex's GetFailure %s: %d, want 404", c.id, status)
		}
	}

	list, err := b.failures(b.lookupKey).ListFailures(ctx, &v1.ListFailuresRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range list.GetFailures() {
		want := []string(nil)
		if f.GetCorrelationId() == bID {
			want = []string{a}
		}
		if !slices.Equal(f.GetSameCallIds(), want) {
			t.Errorf("ListFailures: %s names %v, want %v", f.GetCorrelationId(), f.GetSameCallIds(), want)
		}
	}
}
