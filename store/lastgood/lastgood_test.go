package lastgood_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/lastgood"
	"github.com/omcp/toolfailure/store/sqlite"
)

// outage is the embedded store with a switch that makes its reads fail as
// an unreachable database does.
type outage struct {
	*sqlite.Store
	down atomic.Bool
}

var errDown = fmt.Errorf("connection refused: %w", store.ErrUnavailable)

func (o *outage) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	if o.down.Load() {
		return store.APIKey{}, store.Tenant{}, errDown
	}
	return o.Store.APIKeyByHash(ctx, hash)
}

func (o *outage) ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error) {
	if o.down.Load() {
		return store.RuleSet{}, errDown
	}
	return o.Store.ListRules(ctx, tenantID)
}

func (o *outage) RuleSetVersion(ctx context.Context, tenantID int64) (int64, error) {
	if o.down.Load() {
		return 0, errDown
	}
	return o.Store.RuleSetVersion(ctx, tenantID)
}

func setup(t *testing.T) (*outage, *lastgood.Store, store.Tenant) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, t.TempDir()+"/lastgood.db")
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
	o := &outage{Store: s}
	return o, lastgood.New(o), tenant
}

// Authentication keeps working through an outage with the last answer of
// the store; a key the store never confirmed is not accepted.
func TestAPIKeysServedDuringOutage(t *testing.T) {
	t.Parallel()
	o, s, tenant := setup(t)
	ctx := context.Background()
	hash := make([]byte, 32)
	hash[0] = 7
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: "k1", TenantID: tenant.ID, Hash: hash, Scopes: []string{store.ScopeReport}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.APIKeyByHash(ctx, hash); err != nil {
		t.Fatal(err)
	}
	o.down.Store(true)
	k, got, err := s.APIKeyByHash(ctx, hash)
	if err != nil || k.ID != "k1" || got.ID != tenant.ID {
		t.Fatalf("APIKeyByHash during the outage = %+v, %+v, %v; want the last answer", k, got, err)
	}
	unknown := make([]byte, 32)
	if _, _, err := s.APIKeyByHash(ctx, unknown); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("unknown key during the outage: error %v, want ErrUnavailable", err)
	}
	// A key the store says is gone is forgotten, outage or not.
	o.down.Store(false)
	other := make([]byte, 32)
	other[0] = 9
	if _, _, err := s.APIKeyByHash(ctx, other); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
}

// Rules and their version are served from the last answer too, so that
// classification keeps applying the tenant's rules.
func TestRulesServedDuringOutage(t *testing.T) {
	t.Parallel()
	o, s, tenant := setup(t)
	ctx := context.Background()
	spec := json.RawMessage(`{"name":"r","priority":1,"tool":"x","then":{"class":"capability","code":"invalid_input"}}`)
	if _, err := s.CreateRule(ctx, store.Rule{TenantID: tenant.ID, Name: "r", Priority: 1, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	set, err := s.ListRules(ctx, tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.RuleSetVersion(ctx, tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	o.down.Store(true)
	during, err := s.ListRules(ctx, tenant.ID)
	if err != nil || during.Version != set.Version || len(during.Rules) != 1 {
		t.Fatalf("ListRules during the outage = %+v, %v; want the last answer", during, err)
	}
	if got, err := s.RuleSetVersion(ctx, tenant.ID); err != nil || got != v {
		t.Fatalf("RuleSetVersion during the outage = %d, %v; want %d", got, err, v)
	}
	if _, err := s.ListRules(ctx, tenant.ID+1); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a tenant never read: %v, want ErrUnavailable", err)
	}
}

// TestAnswersSurviveRestart: with a file, the last good answers outlive the process, so that one
// started during an outage authenticates the keys and applies the rules that its predecessor saw;
// a key that the store said was gone is not among them, and a key never seen is still refused.
func TestAnswersSurviveRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, file := dir+"/lastgood.db", dir+"/journal/lastgood.json"
	openStore := func() *outage {
		s, err := sqlite.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return &outage{Store: s}
	}

	o := openStore()
	s, err := lastgood.Open(o, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	kept, gone := make([]byte, 32), make([]byte, 32)
	kept[0], gone[0] = 1, 2
	for i, h := range [][]byte{kept, gone} {
		if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: fmt.Sprintf("k%d", i), TenantID: tenant.ID, Hash: h, Scopes: []string{store.ScopeReport}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.APIKeyByHash(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	spec := json.RawMessage(`{"name":"r","priority":1,"tool":"x","then":{"class":"capability","code":"invalid_input"}}`)
	if _, err := s.CreateRule(ctx, store.Rule{TenantID: tenant.ID, Name: "r", Priority: 1, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListRules(ctx, tenant.ID); err != nil {
		t.Fatal(err)
	}
	// The second key is deleted; the store's "unknown" removes it from the answers.
	raw, err := sql.Open("sqlite", db) // a second connection, as an operator's tool would have
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.ExecContext(ctx, `DELETE FROM api_keys WHERE id = 'k1'`)
	_ = raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.APIKeyByHash(ctx, gone); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The next process starts while the store does not answer.
	o = openStore()
	o.down.Store(true)
	s, err = lastgood.Open(o, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if k, got, err := s.APIKeyByHash(ctx, kept); err != nil || k.ID != "k0" || got.Name != "acme" {
		t.Fatalf("a key seen before the restart = %+v, %+v, %v; want it answered from the file", k, got, err)
	}
	if _, _, err := s.APIKeyByHash(ctx, gone); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a key deleted before the restart: %v, want ErrUnavailable", err)
	}
	if set, err := s.ListRules(ctx, tenant.ID); err != nil || len(set.Rules) != 1 || set.Rules[0].Name != "r" {
		t.Fatalf("rules after the restart = %+v, %v; want the rule set seen before", set, err)
	}
}
