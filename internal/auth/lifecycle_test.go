package auth_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/store"
)

// touchCounter counts the writes of "last used" that reach the store.
type touchCounter struct {
	*keyStore
	mu      sync.Mutex
	touches []time.Time
}

func (s *touchCounter) TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error {
	s.mu.Lock()
	s.touches = append(s.touches, at)
	s.mu.Unlock()
	return s.keyStore.TouchAPIKey(ctx, tenantID, id, at)
}

func (s *touchCounter) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.touches)
}

// TestLastUsedCoalesced: many calls within the interval make one write; the next interval makes
// one more; a process that starts afresh does not write again while the store's record is recent.
func TestLastUsedCoalesced(t *testing.T) {
	t.Parallel()
	ks, k := setup(t)
	s := &touchCounter{keyStore: ks}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, ttl := range []time.Duration{0, 10 * time.Second} {
		s.mu.Lock()
		s.touches = nil
		s.mu.Unlock()
		a := auth.New(s, auth.Options{CacheTTL: ttl, Now: clock, LastUsedInterval: time.Minute})
		for range 100 {
			if _, err := a.Key(t.Context(), k.Secret); err != nil {
				t.Fatal(err)
			}
			now = now.Add(100 * time.Millisecond) // 10 s in all
		}
		a.Wait()
		if ttl == 0 && s.count() != 1 {
			t.Fatalf("CacheTTL %v: 100 calls in 10 s wrote last used %d times, want 1", ttl, s.count())
		}
		if ttl > 0 && s.count() != 0 {
			// The first authenticator recorded a use less than a minute ago: the store says so.
			t.Fatalf("CacheTTL %v: a use recorded by another process seconds ago was written again (%d)", ttl, s.count())
		}
		now = now.Add(time.Minute)
		if _, err := a.Key(t.Context(), k.Secret); err != nil {
			t.Fatal(err)
		}
		a.Wait()
		if want := map[bool]int{true: 2, false: 1}[ttl == 0]; s.count() != want {
			t.Fatalf("CacheTTL %v: after a minute, %d writes, want %d", ttl, s.count(), want)
		}
	}
	got, _, err := ks.Store.APIKeyByHash(t.Context(), k.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastUsedAt.Equal(now) {
		t.Fatalf("LastUsedAt = %v, want %v", got.LastUsedAt, now)
	}
}

// TestRevokedAndExpired: both are refused with their own error, which is also ErrUnknown, so that
// every caller that refuses unknown keys (the web page's sessions among them) refuses them; with a
// cache, a revocation takes effect when the entry ends and an expiry at once.
func TestRevokedAndExpired(t *testing.T) {
	t.Parallel()
	s, k := setup(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := auth.New(s, auth.Options{CacheTTL: 10 * time.Second, Now: clock, LastUsedInterval: -1})
	if _, err := a.Key(t.Context(), k.Secret); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.RevokeAPIKey(t.Context(), k.ID, now, "test"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Second)
	_, err := a.ByHash(t.Context(), [sha256.Size]byte(k.Hash))
	if !errors.Is(err, auth.ErrRevoked) || !errors.Is(err, auth.ErrUnknown) || errors.Is(err, auth.ErrExpired) {
		t.Fatalf("revoked key: %v, want ErrRevoked (also ErrUnknown)", err)
	}

	ten, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte("expiring"))
	if _, err := s.CreateAPIKey(t.Context(), store.APIKey{ID: "exp1", TenantID: ten.ID, Hash: digest[:], ExpiresAt: now.Add(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ByHash(t.Context(), digest); err != nil {
		t.Fatal(err)
	}
	now = now.Add(3 * time.Second) // within the cache's 10 s, at the key's expiry
	_, err = a.ByHash(t.Context(), digest)
	if !errors.Is(err, auth.ErrExpired) || !errors.Is(err, auth.ErrUnknown) {
		t.Fatalf("expired key: %v, want ErrExpired (also ErrUnknown)", err)
	}
}
