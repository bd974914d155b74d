package auth_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
)

// keyStore is the embedded store with one tenant and one key, and a switch
// that makes its key lookups fail as an unreachable database would.
type keyStore struct {
	*sqlite.Store
	mu   sync.Mutex
	down bool
	hits int
}

func (s *keyStore) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	s.mu.Lock()
	down := s.down
	s.hits++
	s.mu.Unlock()
	if down {
		return store.APIKey{}, store.Tenant{}, store.ErrUnavailable
	}
	return s.Store.APIKeyByHash(ctx, hash)
}

func setup(t *testing.T) (*keyStore, apikey.Key) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, t.TempDir()+"/auth.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash, Scopes: []string{apikey.ScopeLookup}}); err != nil {
		t.Fatal(err)
	}
	return &keyStore{Store: s}, k
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	s, k := setup(t)
	a := auth.New(s, auth.Options{})
	ctx := context.Background()
	// The scheme is case-insensitive (RFC 9110 section 11.1), and any white space may follow it.
	for _, h := range []string{"Bearer " + k.Secret, "bearer " + k.Secret, "Bearer  " + k.Secret + " ",
		"BEARER " + k.Secret, "bEaReR " + k.Secret, "Bearer\t" + k.Secret, " BEARER \t " + k.Secret} {
		p, err := a.Authenticate(ctx, h)
		if err != nil || p.TenantName != "acme" || p.KeyID != k.ID || !p.Has(apikey.ScopeLookup) || p.Has(apikey.ScopeRules) {
			t.Errorf("Authenticate(%q) = %+v, %v", h, p, err)
		}
	}
	for h, want := range map[string]error{
		"":                              auth.ErrMissing,
		"Bearer ":                       auth.ErrMissing,
		"Basic " + k.Secret:             auth.ErrMissing,
		"BEARER":                        auth.ErrMissing,
		"Bearer" + k.Secret:             auth.ErrMissing,
		"Bearers " + k.Secret:           auth.ErrMissing,
		k.Secret:                        auth.ErrMissing,
		"Bearer tfk_not_a_key":          auth.ErrUnknown,
		"Bearer " + k.Secret[:55] + "x": auth.ErrUnknown, // the right shape, not a stored key
	} {
		if _, err := a.Authenticate(ctx, h); !errors.Is(err, want) {
			t.Errorf("Authenticate(%q) error = %v, want %v", h, err, want)
		}
	}
	// ByHash, as a session holding only the hash asks.
	if p, err := a.ByHash(ctx, sha256.Sum256([]byte(k.Secret))); err != nil || p.KeyID != k.ID {
		t.Errorf("ByHash = %+v, %v", p, err)
	}
	s.down = true
	if _, err := a.Authenticate(ctx, "Bearer "+k.Secret); !errors.Is(err, auth.ErrUnavailable) || !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("with the store down: %v, want ErrUnavailable wrapping the store's error", err)
	}
}

// TestCache: with a TTL, a key is looked up once per TTL; without one,
// every time; and an expired entry is looked up again.
func TestCache(t *testing.T) {
	t.Parallel()
	s, k := setup(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cached := auth.New(s, auth.Options{CacheTTL: 10 * time.Second, Now: clock})
	ctx := context.Background()
	for range 5 {
		if _, err := cached.Key(ctx, k.Secret); err != nil {
			t.Fatal(err)
		}
	}
	if s.hits != 1 {
		t.Fatalf("%d lookups within the TTL, want 1", s.hits)
	}
	now = now.Add(11 * time.Second)
	if _, err := cached.Key(ctx, k.Secret); err != nil || s.hits != 2 {
		t.Fatalf("after the TTL: %d lookups, %v; want a second lookup", s.hits, err)
	}
	uncached := auth.New(s, auth.Options{Now: clock})
	for range 3 {
		_, _ = uncached.Key(ctx, k.Secret)
	}
	if s.hits != 5 {
		t.Fatalf("without a cache: %d lookups in all, want 5", s.hits)
	}
	// A failed lookup is not cached.
	s.down = true
	now = now.Add(time.Minute)
	if _, err := cached.Key(ctx, k.Secret); !errors.Is(err, auth.ErrUnavailable) {
		t.Fatalf("store down: %v", err)
	}
	s.down = false
	if _, err := cached.Key(ctx, k.Secret); err != nil {
		t.Fatalf("store back: %v", err)
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	if _, ok := auth.FromContext(context.Background()); ok {
		t.Fatal("a principal in an empty context")
	}
	p := auth.Principal{TenantID: 7, TenantName: "acme", KeyID: "k", Scopes: []string{"report"}}
	got, ok := auth.FromContext(auth.NewContext(context.Background(), p))
	if !ok || got.TenantID != 7 || !got.Has("report") {
		t.Fatalf("FromContext = %+v, %v", got, ok)
	}
}
