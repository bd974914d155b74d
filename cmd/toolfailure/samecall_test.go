package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest"
)

// TestLookupShowsSameCall: lookup of either record of a call answered with two IDs across an
// outage (A holds the idempotency key; B, stored by a journal's drain, is linked to it) names the
// other, in text and in JSON.
func TestLookupShowsSameCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "tf.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: tenant.ID, Hash: k.Hash, Scopes: []string{apikey.ScopeLookup}}); err != nil {
		t.Fatal(err)
	}
	record := func() store.Failure {
		return store.Failure{
			TenantID: tenant.ID, ID: uuid.Must(uuid.NewV7()), Tool: "send_email", Class: store.ClassCapability,
			Code: "invalid_input", Error: json.RawMessage(`{"message":"bad address"}`), IdempotencyKey: "send-42",
		}
	}
	a, _, err := storetest.Insert(ctx, s, record())
	if err != nil {
		t.Fatal(err)
	}
	pb, err := store.Prepare(record())
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.InsertFailure(ctx, pb.SameCallAs(a.ID))
	if err != nil {
		t.Fatal(err)
	}
	h, err := server.New(server.Config{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	aID, bID := correlation.ID(a.ID).String(), correlation.ID(b.ID).String()
	for _, c := range []struct{ id, other string }{{aID, bID}, {bID, aID}} {
		code, text, errOut := runCmd(t, "lookup", c.id, "--server", srv.URL, "--key", k.Secret)
		if code != 0 {
			t.Fatalf("lookup %s: exit %d: %s", c.id, code, errOut)
		}
		if !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool {
			return strings.HasPrefix(l, "Same call as") && strings.HasSuffix(l, c.other)
		}) {
			t.Errorf("lookup %s does not name %s as the same call:\n%s", c.id, c.other, text)
		}
		code, text, errOut = runCmd(t, "lookup", c.id, "--server", srv.URL, "--key", k.Secret, "--output", "json")
		if code != 0 {
			t.Fatalf("lookup %s --output json: exit %d: %s", c.id, code, errOut)
		}
		var f struct {
			SameCallIDs []string `json:"sameCallIds"`
		}
		if err := json.Unmarshal([]byte(text), &f); err != nil || !slices.Equal(f.SameCallIDs, []string{c.other}) {
			t.Errorf("lookup %s --output json: sameCallIds %v (%v), want [%s]:\n%s", c.id, f.SameCallIDs, err, c.other, text)
		}
	}
}
