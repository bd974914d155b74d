package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runAPIKeyLifecycle: a key's expiry, audit record, revocation and last use round-trip, are seen
// by every process that shares the store, and a listing never carries a hash.
func runAPIKeyLifecycle(t *testing.T, h Harness) {
	t.Run("FieldsRoundTrip", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		in := store.APIKey{
			ID: "k_life", TenantID: b.tenant.ID, Hash: hash("tfk_life"), Scopes: []string{store.ScopeLookup},
			CreatedAt:  time.Date(2025, 1, 2, 3, 4, 5, 678901234, zone),
			CreatedBy:  "keys create by alice on ops-1",
			ExpiresAt:  time.Date(2026, 1, 2, 3, 4, 5, 999999999, zone),
			LastUsedAt: time.Date(2025, 1, 3, 0, 0, 0, 1234, zone),
		}
		created, err := b.store.CreateAPIKey(b.ctx, in)
		requireNoError(t, err)
		got, _, err := b.store.APIKeyByHash(b.ctx, in.Hash)
		requireNoError(t, err)
		for _, k := range []store.APIKey{created, got} {
			requireUTCMicro(t, "ExpiresAt", k.ExpiresAt)
			requireUTCMicro(t, "LastUsedAt", k.LastUsedAt)
			if !k.ExpiresAt.Equal(in.ExpiresAt.Truncate(time.Microsecond)) || !k.LastUsedAt.Equal(in.LastUsedAt.Truncate(time.Microsecond)) ||
				k.CreatedBy != in.CreatedBy || k.Revoked() || k.RevokedBy != "" {
				t.Fatalf("key = %+v, want %+v", k, in)
			}
		}
		if !got.Expired(in.ExpiresAt) || got.Expired(in.ExpiresAt.Add(-time.Second)) {
			t.Error("Expired is wrong around ExpiresAt")
		}
		// A key without them has none.
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k_plain", TenantID: b.tenant.ID, Hash: hash("tfk_plain")})
		requireNoError(t, err)
		plain, _, err := b.store.APIKeyByHash(b.ctx, hash("tfk_plain"))
		requireNoError(t, err)
		if !plain.ExpiresAt.IsZero() || !plain.RevokedAt.IsZero() || !plain.LastUsedAt.IsZero() || plain.CreatedBy != "" {
			t.Fatalf("plain key = %+v, want no expiry, revocation or use", plain)
		}
	})

	t.Run("IDIsUniqueAcrossTenants", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "same", TenantID: b.tenant.ID, Hash: hash("s1")})
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "same", TenantID: other.ID, Hash: hash("s2")})
		requireErrorIs(t, err, store.ErrConflict)
	})

	t.Run("RevokeOnceSeenEverywhere", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k_rev", TenantID: b.tenant.ID, Hash: hash("tfk_rev")})
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k_keep", TenantID: b.tenant.ID, Hash: hash("tfk_keep")})
		requireNoError(t, err)
		at := time.Date(2025, 6, 1, 12, 0, 0, 123456789, zone)
		k, revoked, err := b.store.RevokeAPIKey(b.ctx, "k_rev", at, "keys revoke by bob on ops-2")
		requireNoError(t, err)
		if !revoked || !k.RevokedAt.Equal(at.Truncate(time.Microsecond)) || k.RevokedBy != "keys revoke by bob on ops-2" || k.ID != "k_rev" {
			t.Fatalf("RevokeAPIKey = %+v, %v", k, revoked)
		}
		requireUTCMicro(t, "RevokedAt", k.RevokedAt)
		// Twice keeps the first time and author.
		k2, revoked, err := b.store.RevokeAPIKey(b.ctx, "k_rev", at.Add(time.Hour), "someone else")
		requireNoError(t, err)
		if revoked || !k2.RevokedAt.Equal(k.RevokedAt) || k2.RevokedBy != k.RevokedBy {
			t.Fatalf("second RevokeAPIKey = %+v, %v; want the first revocation kept", k2, revoked)
		}
		_, _, err = b.store.RevokeAPIKey(b.ctx, "nosuch", at, "x")
		requireErrorIs(t, err, store.ErrNotFound)
		// Another process (a restart, another replica) finds the key revoked by its hash; the
		// other key is untouched.
		s := h.Reopen(t, b.store)
		requireNoError(t, s.Migrate(b.ctx))
		got, _, err := s.APIKeyByHash(b.ctx, hash("tfk_rev"))
		requireNoError(t, err)
		if !got.Revoked() || !got.RevokedAt.Equal(k.RevokedAt) {
			t.Fatalf("after revocation APIKeyByHash = %+v, want it revoked", got)
		}
		kept, _, err := s.APIKeyByHash(b.ctx, hash("tfk_keep"))
		requireNoError(t, err)
		if kept.Revoked() {
			t.Fatal("revoking one key revoked another")
		}
	})

	t.Run("TouchOnlyMovesForward", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k_use", TenantID: b.tenant.ID, Hash: hash("tfk_use")})
		requireNoError(t, err)
		t1 := time.Date(2025, 6, 1, 12, 0, 0, 0, zone)
		requireNoError(t, b.store.TouchAPIKey(b.ctx, b.tenant.ID, "k_use", t1))
		requireNoError(t, b.store.TouchAPIKey(b.ctx, b.tenant.ID, "k_use", t1.Add(-time.Minute))) // a late writer
		requireNoError(t, b.store.TouchAPIKey(b.ctx, b.tenant.ID+1000, "k_use", t1.Add(time.Hour)))
		requireNoError(t, b.store.TouchAPIKey(b.ctx, b.tenant.ID, "nosuch", t1)) // not an error
		got, _, err := b.store.APIKeyByHash(b.ctx, hash("tfk_use"))
		requireNoError(t, err)
		if !got.LastUsedAt.Equal(t1) {
			t.Fatalf("LastUsedAt = %v, want %v (later, other tenant's and earlier touches ignored)", got.LastUsedAt, t1)
		}
		requireNoError(t, b.store.TouchAPIKey(b.ctx, b.tenant.ID, "k_use", t1.Add(time.Minute)))
		got, _, err = b.store.APIKeyByHash(b.ctx, hash("tfk_use"))
		requireNoError(t, err)
		if !got.LastUsedAt.Equal(t1.Add(time.Minute)) {
			t.Fatalf("LastUsedAt = %v, want %v", got.LastUsedAt, t1.Add(time.Minute))
		}
	})

	t.Run("ListNeverHashes", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
		for _, k := range []store.APIKey{
			{ID: "g1", TenantID: other.ID, Hash: hash("g1"), CreatedAt: base},
			{ID: "a2", TenantID: b.tenant.ID, Hash: hash("a2"), CreatedAt: base.Add(2 * time.Hour), Scopes: []string{store.ScopeRules}},
			{ID: "a1", TenantID: b.tenant.ID, Hash: hash("a1"), CreatedAt: base.Add(time.Hour), CreatedBy: "me"},
		} {
			_, err := b.store.CreateAPIKey(b.ctx, k)
			requireNoError(t, err)
		}
		_, _, err = b.store.RevokeAPIKey(b.ctx, "a2", base.Add(3*time.Hour), "you")
		requireNoError(t, err)
		all, err := b.store.ListAPIKeys(b.ctx, 0)
		requireNoError(t, err)
		var ids []string
		for _, e := range all {
			ids = append(ids, e.Tenant.Name+"/"+e.Key.ID)
			if e.Key.Hash != nil {
				t.Errorf("ListAPIKeys carries the hash of %s", e.Key.ID)
			}
			if e.Tenant.ID != e.Key.TenantID {
				t.Errorf("key %s listed with tenant %d, belongs to %d", e.Key.ID, e.Tenant.ID, e.Key.TenantID)
			}
		}
		if want := []string{"acme/a1", "acme/a2", "globex/g1"}; !slices.Equal(ids, want) {
			t.Fatalf("ListAPIKeys(all) = %v, want %v (tenant name, then creation)", ids, want)
		}
		if a2 := all[1].Key; !a2.Revoked() || a2.RevokedBy != "you" || len(a2.Scopes) != 1 || all[0].Key.CreatedBy != "me" {
			t.Errorf("listed keys lost fields: %+v %+v", all[0].Key, a2)
		}
		one, err := b.store.ListAPIKeys(b.ctx, other.ID)
		requireNoError(t, err)
		if len(one) != 1 || one[0].Key.ID != "g1" || one[0].Tenant.Name != "globex" {
			t.Fatalf("ListAPIKeys(globex) = %+v", one)
		}
		none, err := b.store.ListAPIKeys(b.ctx, other.ID+1000)
		requireNoError(t, err)
		if len(none) != 0 {
			t.Fatalf("ListAPIKeys(unknown tenant) = %+v, want none", none)
		}
	})
}
