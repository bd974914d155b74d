package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runMigrate: migrations are idempotent and keep what is stored.
func runMigrate(t *testing.T, h Harness) {
	t.Run("TwiceIsNoOp", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		before := insert(t, b.ctx, b.store, fullFailure(t, b.tenant.ID))

		requireNoError(t, b.store.Migrate(b.ctx))
		requireNoError(t, b.store.Migrate(b.ctx))

		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, before.ID)
		requireNoError(t, err)
		requireFailureEqual(t, before, got)
		insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
	})
}

// runPing: a store that answers says so.
func runPing(t *testing.T, h Harness) {
	b := setup(t, h)
	requireNoError(t, b.store.Ping(b.ctx))
}

// runTenants: tenants are created once by name, concurrently too.
func runTenants(t *testing.T, h Harness) {
	t.Run("EnsureTwiceReturnsSame", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		again, err := b.store.EnsureTenant(b.ctx, "acme")
		requireNoError(t, err)
		requireTenantEqual(t, b.tenant, again)
	})

	t.Run("CreatedAtIsMicrosecondUTC", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		before := time.Now().Truncate(time.Microsecond)
		tenant, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		after := time.Now()
		requireUTCMicro(t, "CreatedAt", tenant.CreatedAt)
		if tenant.CreatedAt.Before(before) || tenant.CreatedAt.After(after) {
			t.Fatalf("CreatedAt = %v, want between %v and %v", tenant.CreatedAt, before, after)
		}
		if tenant.Name != "globex" || tenant.ID == 0 {
			t.Fatalf("tenant = %+v, want name globex and an ID", tenant)
		}
	})

	t.Run("DistinctNamesDistinctTenants", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "Acme") // names are case-sensitive
		requireNoError(t, err)
		if other.ID == b.tenant.ID {
			t.Fatalf("tenants acme and Acme share ID %d", other.ID)
		}
	})

	t.Run("UnicodeName", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		const name = "株式会社 Ünïcødé 🚀 e\u0301"
		tenant, err := b.store.EnsureTenant(b.ctx, name)
		requireNoError(t, err)
		again, err := b.store.EnsureTenant(b.ctx, name)
		requireNoError(t, err)
		if tenant.Name != name {
			t.Fatalf("Name = %q, want %q", tenant.Name, name)
		}
		requireTenantEqual(t, tenant, again)
	})

	t.Run("ConcurrentEnsureOneTenant", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		const n = 10
		tenants := make([]store.Tenant, n)
		errs := make([]error, n)
		race(n, func(i int) { tenants[i], errs[i] = b.store.EnsureTenant(b.ctx, "racer") })
		requireNoError(t, errors.Join(errs...))
		for _, tenant := range tenants[1:] {
			requireTenantEqual(t, tenants[0], tenant)
		}
	})

	t.Run("EmptyNameRejected", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		if _, err := b.store.EnsureTenant(b.ctx, ""); err == nil {
			t.Fatal("EnsureTenant(\"\") succeeded, want an error")
		}
	})
}

// runAPIKeys: keys round-trip and are found by hash.
func runAPIKeys(t *testing.T, h Harness) {
	t.Run("RoundTripAndLookupByHash", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		in := store.APIKey{
			ID:        "k_7Hq2",
			TenantID:  b.tenant.ID,
			Hash:      hash("tfk_secret_1"),
			Scopes:    []string{store.ScopeReport, store.ScopeLookup, store.ScopeRules},
			CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 678901234, zone),
		}
		created, err := b.store.CreateAPIKey(b.ctx, in)
		requireNoError(t, err)
		want := in
		want.CreatedAt = in.CreatedAt.Truncate(time.Microsecond).UTC()
		requireAPIKeyEqual(t, want, created)

		key, tenant, err := b.store.APIKeyByHash(b.ctx, hash("tfk_secret_1"))
		requireNoError(t, err)
		requireAPIKeyEqual(t, want, key)
		requireTenantEqual(t, b.tenant, tenant)
	})

	t.Run("ScopesRoundTrip", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		for i, scopes := range [][]string{
			nil,
			{store.ScopeLookup},
			{store.ScopeRules, store.ScopeReport}, // order is kept
		} {
			secret := fmt.Sprintf("secret-%d", i)
			_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{
				ID: fmt.Sprintf("k%d", i), TenantID: b.tenant.ID, Hash: hash(secret), Scopes: scopes,
			})
			requireNoError(t, err)
			key, _, err := b.store.APIKeyByHash(b.ctx, hash(secret))
			requireNoError(t, err)
			if !reflect.DeepEqual(key.Scopes, scopes) {
				t.Fatalf("Scopes = %#v, want %#v", key.Scopes, scopes)
			}
		}
	})

	t.Run("CreatedAtDefaultsToNow", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		before := time.Now().Truncate(time.Microsecond)
		key, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID, Hash: hash("s")})
		requireNoError(t, err)
		requireUTCMicro(t, "CreatedAt", key.CreatedAt)
		if key.CreatedAt.Before(before) || key.CreatedAt.After(time.Now()) {
			t.Fatalf("CreatedAt = %v, want about now", key.CreatedAt)
		}
	})

	t.Run("UnknownHashNotFound", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID, Hash: hash("known")})
		requireNoError(t, err)
		_, _, err = b.store.APIKeyByHash(b.ctx, hash("unknown"))
		requireErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("DuplicateHashConflict", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s")})
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k2", TenantID: other.ID, Hash: hash("s")})
		requireErrorIs(t, err, store.ErrConflict)
	})

	t.Run("DuplicateIDConflict", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s1")})
		requireNoError(t, err)
		_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s2")})
		requireErrorIs(t, err, store.ErrConflict)
	})

	t.Run("UnknownTenantNotFound", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID + 1000, Hash: hash("s")})
		requireErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("Count", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		n, err := b.store.CountAPIKeys(b.ctx)
		requireNoError(t, err)
		if n != 0 {
			t.Fatalf("CountAPIKeys on a fresh store = %d, want 0", n)
		}
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		for i, tenantID := range []int64{b.tenant.ID, b.tenant.ID, other.ID} {
			_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{
				ID: fmt.Sprintf("k%d", i), TenantID: tenantID, Hash: hash(fmt.Sprint(i)),
			})
			requireNoError(t, err)
		}
		n, err = b.store.CountAPIKeys(b.ctx)
		requireNoError(t, err)
		if n != 3 {
			t.Fatalf("CountAPIKeys = %d, want 3 (all tenants)", n)
		}
	})
}
