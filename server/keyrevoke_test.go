package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// replica starts a second service on the same PostgreSQL schema as b, as another replica of a
// deployment would run, with its own store connection, key cache and clock.
func replica(t *testing.T, dbURL string, clock func() time.Time) (*bundle, *postgres.Store) {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	h, err := server.New(server.Config{Store: s, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return &bundle{url: srv.URL, store: s, dbURL: dbURL}, s
}

// TestRevokedKeyRefusedOnEveryReplica: two replicas on one schema have both answered a key from
// their caches; once the key is revoked (through either store), both refuse it, unauthenticated,
// no later than the key cache's lifetime, and a key that expires is refused from its expiry on
// even while cached. The clock is injected: nothing sleeps.
func TestRevokedKeyRefusedOnEveryReplica(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Now()}
	a := setupWith(t, func(c *server.Config) { c.Now = clock.Now })
	b, bStore := replica(t, a.dbURL, clock.Now)
	ctx := context.Background()

	list := func(r *bundle, key string) error {
		_, err := r.failures(key).ListFailures(ctx, &v1.ListFailuresRequest{})
		return err
	}
	for _, r := range []*bundle{a, b} {
		if err := list(r, a.lookupKey); err != nil {
			t.Fatalf("before revocation: %v", err)
		}
	}
	id := a.lookupKey[len("tfk_") : len("tfk_")+8]
	if _, revoked, err := bStore.RevokeAPIKey(ctx, id, clock.Now(), "test"); err != nil || !revoked {
		t.Fatalf("RevokeAPIKey: %v, %v", revoked, err)
	}
	// Within the cache's lifetime a replica may still answer from memory; at its end every
	// replica has asked the store again and refuses the key.
	clock.Advance(server.KeyCacheTTL)
	for i, r := range []*bundle{a, b} {
		err := list(r, a.lookupKey)
		requireCode(t, err, connect.CodeUnauthenticated)
		if connect.CodeOf(err) == connect.CodeUnauthenticated && !strings.Contains(err.Error(), "revoked") {
			t.Errorf("replica %d: %v does not say the key was revoked", i, err)
		}
	}
	// Other keys are untouched.
	for _, r := range []*bundle{a, b} {
		if err := list(r, a.allKey); err != nil {
			t.Fatalf("another key after the revocation: %v", err)
		}
	}

	// An expiring key: cached on both replicas, refused on both at its expiry, which comes
	// before the cache entry would otherwise end.
	ten, err := a.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash,
		Scopes: []string{apikey.ScopeLookup}, ExpiresAt: clock.Now().Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*bundle{a, b} {
		if err := list(r, k.Secret); err != nil {
			t.Fatalf("before expiry: %v", err)
		}
	}
	clock.Advance(2 * time.Second)
	for _, r := range []*bundle{a, b} {
		requireCode(t, list(r, k.Secret), connect.CodeUnauthenticated)
	}
}
