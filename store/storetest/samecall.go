package storetest

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
)

// insertSameCall stores f without its idempotency key, linked to holder, as a journal's drain
// does for a record whose key another record took meanwhile (store.Prepared.SameCallAs).
func insertSameCall(t *testing.T, b *testBundle, s store.Store, f store.Failure, holder [16]byte) store.Failure {
	t.Helper()
	p, err := store.Prepare(f)
	requireNoError(t, err)
	stored, created, err := s.InsertFailure(b.ctx, p.SameCallAs(holder))
	requireNoError(t, err)
	if !created || stored.ID != f.ID {
		t.Fatalf("InsertFailure(%s) linked to %s: created=%v, returned %s", uuid.UUID(f.ID), uuid.UUID(holder),
			created, uuid.UUID(stored.ID))
	}
	return stored
}

func requireNamedBy(t *testing.T, f store.Failure, want ...[16]byte) {
	t.Helper()
	if !slices.Equal(f.NamedBy, want) {
		got := make([]string, len(f.NamedBy))
		for i, id := range f.NamedBy {
			got[i] = uuid.UUID(id).String()
		}
		wantText := make([]string, len(want))
		for i, id := range want {
			wantText[i] = uuid.UUID(id).String()
		}
		t.Fatalf("record %s is named by %v, want %v", uuid.UUID(f.ID), got, wantText)
	}
}

// runSameCall: a record stored without its idempotency key, because another record held it (the
// journal's drain after an outage), keeps the ID of that record, and a lookup of either names
// the other (store.Failure.SameCallAs and NamedBy).
func runSameCall(t *testing.T, h Harness) {
	t.Run("LinkedBothWays", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		first := fullFailure(t, b.tenant.ID)
		first.IdempotencyKey = "send-42"
		holder := insert(t, b.ctx, b.store, first)

		second := fullFailure(t, b.tenant.ID) // the replay, with an ID of its own
		second.IdempotencyKey = "send-42"
		stored := insertSameCall(t, b, b.store, second, holder.ID)
		want := expectStored(second)
		want.IdempotencyKey, want.SameCallAs = "", holder.ID
		requireFailureEqual(t, want, stored)

		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, second.ID)
		requireNoError(t, err)
		requireFailureEqual(t, want, got)
		requireNamedBy(t, got)

		gotHolder, err := b.store.GetFailure(b.ctx, b.tenant.ID, first.ID)
		requireNoError(t, err)
		requireFailureEqual(t, holder, gotHolder)
		requireNamedBy(t, gotHolder, second.ID)
		if ids := gotHolder.SameCallIDs(); !slices.Equal(ids, [][16]byte{second.ID}) {
			t.Fatalf("SameCallIDs of the key's holder = %x, want the replay's", ids)
		}
		if ids := got.SameCallIDs(); !slices.Equal(ids, [][16]byte{first.ID}) {
			t.Fatalf("SameCallIDs of the replay = %x, want the holder's", ids)
		}

		// A list reads the stored link; only GetFailure reads the other direction.
		list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
		requireNoError(t, err)
		requireIDs(t, [][16]byte{second.ID, first.ID}, list)
		requireFailureEqual(t, want, list[0])
		requireFailureEqual(t, holder, list[1])

		// The key still belongs to the holder.
		replay := minimalFailure(t, b.tenant.ID)
		replay.IdempotencyKey = "send-42"
		again, created, err := Insert(b.ctx, b.store, replay)
		requireNoError(t, err)
		if created || again.ID != first.ID {
			t.Fatalf("a third replay of the key: created=%v, got %s, want the holder %s", created,
				uuid.UUID(again.ID), uuid.UUID(first.ID))
		}
	})

	t.Run("SeveralNameOne", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		holder := insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		one := insertSameCall(t, b, b.store, minimalFailure(t, b.tenant.ID), holder.ID)
		two := insertSameCall(t, b, b.store, minimalFailure(t, b.tenant.ID), holder.ID)
		unrelated := insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, holder.ID)
		requireNoError(t, err)
		requireNamedBy(t, got, one.ID, two.ID) // oldest first
		got, err = b.store.GetFailure(b.ctx, b.tenant.ID, unrelated.ID)
		requireNoError(t, err)
		requireNamedBy(t, got)
		if got.SameCallAs != ([16]byte{}) {
			t.Fatalf("an unlinked record names %s", uuid.UUID(got.SameCallAs))
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		holder := insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		mine := insertSameCall(t, b, b.store, minimalFailure(t, b.tenant.ID), holder.ID)
		// A record of another tenant that names the same ID, which no drain writes but nothing in
		// the schema forbids: it must never show in the first tenant's lookups.
		theirs := insertSameCall(t, b, b.store, minimalFailure(t, other.ID), holder.ID)

		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, holder.ID)
		requireNoError(t, err)
		requireNamedBy(t, got, mine.ID)

		_, err = b.store.GetFailure(b.ctx, other.ID, holder.ID)
		requireErrorIs(t, err, store.ErrNotFound)
		_, err = b.store.GetFailure(b.ctx, other.ID, mine.ID)
		requireErrorIs(t, err, store.ErrNotFound)
		_, err = b.store.GetFailure(b.ctx, b.tenant.ID, theirs.ID)
		requireErrorIs(t, err, store.ErrNotFound)
		gotTheirs, err := b.store.GetFailure(b.ctx, other.ID, theirs.ID)
		requireNoError(t, err)
		requireNamedBy(t, gotTheirs)
	})

	t.Run("SurvivesReopen", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		holder := insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		linked := insertSameCall(t, b, b.store, minimalFailure(t, b.tenant.ID), holder.ID)
		s := h.Reopen(t, b.store)
		requireNoError(t, s.Migrate(b.ctx))
		got, err := s.GetFailure(b.ctx, b.tenant.ID, holder.ID)
		requireNoError(t, err)
		requireNamedBy(t, got, linked.ID)
		got, err = s.GetFailure(b.ctx, b.tenant.ID, linked.ID)
		requireNoError(t, err)
		if got.SameCallAs != holder.ID {
			t.Fatalf("after a reopen the linked record names %s, want %s", uuid.UUID(got.SameCallAs), uuid.UUID(holder.ID))
		}
	})
}
