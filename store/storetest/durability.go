package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/omcp/toolfailure/store"
)

// runDurability: what was acknowledged survives a reopen.
func runDurability(t *testing.T, h Harness) {
	t.Run("SurvivesReopen", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		key, err := b.store.CreateAPIKey(b.ctx, store.APIKey{
			ID: "k1", TenantID: b.tenant.ID, Hash: hash("s1"), Scopes: []string{store.ScopeReport},
		})
		requireNoError(t, err)
		var acked []store.Failure
		for i := range 12 {
			var f store.Failure
			switch i % 3 {
			case 0:
				f = fullFailure(t, b.tenant.ID)
				f.IdempotencyKey = fmt.Sprintf("key-%d", i)
			case 1:
				f = minimalFailure(t, b.tenant.ID)
			default:
				f = fullFailure(t, b.tenant.ID)
				f.Error = largeErrorJSON(t, 64<<10)
				f.IdempotencyKey = ""
			}
			acked = append(acked, insert(t, b.ctx, b.store, f))
		}
		slices.Reverse(acked) // newest first, as listed

		s := h.Reopen(t, b.store)
		requireNoError(t, s.Migrate(b.ctx))

		for _, want := range acked {
			got, err := s.GetFailure(b.ctx, b.tenant.ID, want.ID)
			requireNoError(t, err)
			requireFailureEqual(t, want, got)
		}
		list, err := s.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
		requireNoError(t, err)
		if len(list) != len(acked) {
			t.Fatalf("%d records after reopening, want %d", len(list), len(acked))
		}
		for i := range acked {
			requireFailureEqual(t, acked[i], list[i])
		}

		tenant, err := s.EnsureTenant(b.ctx, "acme")
		requireNoError(t, err)
		requireTenantEqual(t, b.tenant, tenant)
		gotKey, gotTenant, err := s.APIKeyByHash(b.ctx, hash("s1"))
		requireNoError(t, err)
		requireAPIKeyEqual(t, key, gotKey)
		requireTenantEqual(t, b.tenant, gotTenant)

		// Idempotency keys outlive the process too.
		replay := minimalFailure(t, b.tenant.ID)
		replay.IdempotencyKey = acked[len(acked)-1].IdempotencyKey
		again, created, err := Insert(b.ctx, s, replay)
		requireNoError(t, err)
		if created {
			t.Fatal("idempotency key forgotten across a restart")
		}
		requireFailureEqual(t, acked[len(acked)-1], again)
	})

	t.Run("CloseIsIdempotent", func(t *testing.T) {
		t.Parallel()
		s := h.Open(t)
		requireNoError(t, s.Close())
		requireNoError(t, s.Close())
	})
}
