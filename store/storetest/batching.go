package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runBatching is the part of the suite about concurrent writes that a backend may group into one
// commit: idempotency inside a batch, and a bad record beside good ones. A backend that commits
// every record alone passes it trivially; one that batches must behave exactly the same.
func runBatching(t *testing.T, h Harness) {
	type testBundle struct {
		ctx    context.Context
		store  store.Store
		tenant store.Tenant
	}
	setup := func(t *testing.T) *testBundle {
		t.Helper()
		s := h.Open(t)
		tenant, err := s.EnsureTenant(t.Context(), "acme")
		requireNoError(t, err)
		return &testBundle{ctx: t.Context(), store: s, tenant: tenant}
	}

	// Many callers released together, some sharing idempotency keys and some sending the very same
	// record twice: one record per key, every caller of a key gets its ID, exactly one of them is
	// told it created it, and keyless records are never merged.
	t.Run("DuplicatesInsideOneBatch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const keys, perKey, keyless = 6, 5, 10
		var inputs []store.Failure
		for k := range keys {
			for i := range perKey {
				f := fullFailure(t, b.tenant.ID)
				f.IdempotencyKey = fmt.Sprintf("batch-key-%d", k)
				f.AgentGuidance = fmt.Sprintf("key %d caller %d", k, i)
				inputs = append(inputs, f)
			}
		}
		verbatim := fullFailure(t, b.tenant.ID) // a client retrying the same request at once
		inputs = append(inputs, verbatim, verbatim, verbatim)
		for range keyless {
			inputs = append(inputs, minimalFailure(t, b.tenant.ID))
		}
		results := make([]store.Failure, len(inputs))
		created := make([]bool, len(inputs))
		errs := make([]error, len(inputs))
		race(len(inputs), func(i int) {
			results[i], created[i], errs[i] = Insert(b.ctx, b.store, inputs[i])
		})
		requireNoError(t, errors.Join(errs...))

		winners := map[string]int{}
		byKey := map[string]store.Failure{}
		for i, in := range inputs {
			key := in.IdempotencyKey
			if key == "" {
				if !created[i] || results[i].ID != in.ID {
					t.Fatalf("keyless record %d: created %v, ID %x; want its own new record", i, created[i], results[i].ID)
				}
				continue
			}
			if created[i] {
				winners[key]++
			}
			if first, ok := byKey[key]; ok {
				requireFailureEqual(t, first, results[i])
			} else {
				byKey[key] = results[i]
			}
		}
		for key := range byKey {
			if winners[key] != 1 {
				t.Errorf("key %s: %d callers were told they created the record, want 1", key, winners[key])
			}
		}
		list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: store.MaxListLimit})
		requireNoError(t, err)
		if want := keys + 1 + keyless; len(list) != want {
			t.Fatalf("%d records stored, want %d", len(list), want)
		}
		for key, r := range byKey {
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, r.ID)
			requireNoError(t, err)
			if got.IdempotencyKey != key {
				t.Fatalf("record %x has key %q, want %q", r.ID, got.IdempotencyKey, key)
			}
		}
	})

	// The same ID without an idempotency key, twice at once: the second is a conflict, as it is
	// when the two come one after the other.
	t.Run("SameIDInsideOneBatchConflicts", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := minimalFailure(t, b.tenant.ID)
		created := make([]bool, 2)
		errs := make([]error, 2)
		race(2, func(i int) { _, created[i], errs[i] = Insert(b.ctx, b.store, f) })
		ok, conflicts := 0, 0
		for i := range 2 {
			switch {
			case errs[i] == nil && created[i]:
				ok++
			case errors.Is(errs[i], store.ErrConflict):
				conflicts++
			default:
				t.Fatalf("caller %d: created %v, error %v; want one success and one conflict", i, created[i], errs[i])
			}
		}
		if ok != 1 || conflicts != 1 {
			t.Fatalf("%d successes and %d conflicts, want 1 and 1", ok, conflicts)
		}
	})

	// Bad records sent at the same moment as good ones fail alone: every good record is stored and
	// acknowledged, whatever the bad ones did to the batch they shared.
	t.Run("BadRowBesideGoodOnes", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		type input struct {
			f   store.Failure
			bad bool // true: must fail; false: must succeed
			any bool // either outcome is allowed (backends differ), but never a failure of others
		}
		var inputs []input
		for i := range 24 {
			inputs = append(inputs, input{f: fullFailure(t, b.tenant.ID)})
			switch i % 6 {
			case 0:
				f := minimalFailure(t, b.tenant.ID)
				f.TenantID += 1000 // found only by the database's foreign key
				inputs = append(inputs, input{f: f, bad: true})
			case 2:
				f := minimalFailure(t, b.tenant.ID)
				f.Class = "transient"
				inputs = append(inputs, input{f: f, bad: true})
			case 4:
				// Valid JSON that PostgreSQL's jsonb refuses (it cannot hold U+0000); SQLite keeps it.
				f := minimalFailure(t, b.tenant.ID)
				f.Error = json.RawMessage(`{"message":"nul \u0000 byte"}`)
				inputs = append(inputs, input{f: f, any: true})
			}
		}
		errs := make([]error, len(inputs))
		race(len(inputs), func(i int) { _, _, errs[i] = Insert(b.ctx, b.store, inputs[i].f) })
		for i, in := range inputs {
			switch {
			case in.any:
			case in.bad && errs[i] == nil:
				t.Errorf("input %d (bad) was stored", i)
			case !in.bad && errs[i] != nil:
				t.Errorf("input %d (good) failed beside bad ones: %v", i, errs[i])
			}
		}
		for i, in := range inputs {
			if in.bad || in.any {
				continue
			}
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.f.ID)
			requireNoError(t, err)
			requireFailureEqual(t, expectStored(in.f), got)
			_ = i
		}
	})
}

// runRetention is the part of the suite about per-tenant retention.
func runRetention(t *testing.T, h Harness) {
	setup := func(t *testing.T) *twoTenants { return openTwoTenants(t, h) }

	t.Run("SetAndRead", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		days, err := b.store.Retention(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if days != 0 {
			t.Fatalf("default retention = %d days, want 0 (forever)", days)
		}
		requireNoError(t, b.store.SetRetention(b.ctx, b.tenant.ID, 30))
		days, err = b.store.Retention(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if days != 30 {
			t.Fatalf("retention = %d days, want 30", days)
		}
		requireNoError(t, b.store.SetRetention(b.ctx, b.tenant.ID, 0))
		days, err = b.store.Retention(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if days != 0 {
			t.Fatalf("retention = %d days after reset, want 0", days)
		}
		if err := b.store.SetRetention(b.ctx, b.tenant.ID, -1); err == nil {
			t.Fatal("SetRetention(-1) succeeded, want an error")
		}
	})

	t.Run("UnknownTenantNotFound", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		requireErrorIs(t, b.store.SetRetention(b.ctx, b.other.ID+1000, 7), store.ErrNotFound)
		_, err := b.store.Retention(b.ctx, b.other.ID+1000)
		requireErrorIs(t, err, store.ErrNotFound)
	})

	// Only records older than their own tenant's retention go, over several batches; a tenant
	// without retention keeps everything.
	t.Run("PurgeExpired", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		now := time.Now()
		requireNoError(t, b.store.SetRetention(b.ctx, b.tenant.ID, 10))
		var keep, expire [][16]byte
		for _, age := range []time.Duration{0, 24 * time.Hour, 9 * 24 * time.Hour, 11 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour, 12 * 24 * time.Hour} {
			f := minimalFailure(t, b.tenant.ID)
			f.ID = idAt(t, now.Add(-age))
			f.CreatedAt = now.Add(-age)
			insert(t, b.ctx, b.store, f)
			if age > 10*24*time.Hour {
				expire = append(expire, f.ID)
			} else {
				keep = append(keep, f.ID)
			}
			g := minimalFailure(t, b.other.ID)
			g.ID = idAt(t, now.Add(-age))
			insert(t, b.ctx, b.store, g)
		}
		removed, err := b.store.PurgeExpired(b.ctx, now, 2)
		requireNoError(t, err)
		if removed != int64(len(expire)) {
			t.Fatalf("PurgeExpired removed %d records, want %d", removed, len(expire))
		}
		for _, id := range expire {
			_, err := b.store.GetFailure(b.ctx, b.tenant.ID, id)
			requireErrorIs(t, err, store.ErrNotFound)
		}
		for _, id := range keep {
			_, err := b.store.GetFailure(b.ctx, b.tenant.ID, id)
			requireNoError(t, err)
		}
		others, err := b.store.ListFailures(b.ctx, b.other.ID, store.ListQuery{})
		requireNoError(t, err)
		if len(others) != 7 {
			t.Fatalf("tenant without retention has %d records left, want 7", len(others))
		}
		again, err := b.store.PurgeExpired(b.ctx, now, 0)
		requireNoError(t, err)
		if again != 0 {
			t.Fatalf("second PurgeExpired removed %d records, want 0", again)
		}
	})
}

// idAt returns a UUIDv7 whose time is at.
func idAt(t *testing.T, at time.Time) [16]byte {
	t.Helper()
	var id [16]byte
	_, _ = rand.Read(id[:])
	ms := at.UnixMilli()
	for i := 5; i >= 0; i-- {
		id[i] = byte(ms)
		ms >>= 8
	}
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // RFC 9562 variant
	return id
}
