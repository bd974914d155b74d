package journal_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/journal"
	"github.com/omcp/toolfailure/store/storetest"
)

// TestSameCallLinkedAfterOutage is the outage of docs/reference.md, "Idempotency across an
// outage", end to end: a key stored before the outage as A, replayed during it and journaled as
// B, then drained. Both IDs stay valid, B is stored without the key and linked to A, and a lookup
// of either, through the journal as the server makes it, names the other.
func TestSameCallLinkedAfterOutage(t *testing.T) {
	t.Parallel()
	b := setup(t, journal.Options{})
	first := failure(t, b.tenant.ID, 1)
	first.IdempotencyKey = "send-42"
	a, created, err := storetest.Insert(b.ctx, b.j, first)
	if err != nil || !created {
		t.Fatalf("insert before the outage: %v %v", created, err)
	}

	b.inner.down.Store(true)
	retry := failure(t, b.tenant.ID, 2)
	retry.IdempotencyKey = "send-42"
	journaled, _, err := storetest.Insert(b.ctx, b.j, retry)
	if err != nil {
		t.Fatal(err)
	}
	if journaled.ID == a.ID {
		t.Fatal("the journal found the key stored before the outage; this test no longer reproduces the outage's second ID")
	}
	// While B waits in the journal nothing links them yet, and B is found all the same.
	if got, err := b.j.GetFailure(b.ctx, b.tenant.ID, journaled.ID); err != nil || got.SameCallAs != ([16]byte{}) {
		t.Fatalf("B during the outage: link %x, %v", got.SameCallAs, err)
	}

	b.inner.down.Store(false)
	waitDrained(t, b.j)

	gotB, err := b.j.GetFailure(b.ctx, b.tenant.ID, journaled.ID)
	if err != nil {
		t.Fatalf("B after the drain: %v", err)
	}
	if gotB.IdempotencyKey != "" {
		t.Errorf("B kept the key %q; the store can hold it once", gotB.IdempotencyKey)
	}
	if ids := gotB.SameCallIDs(); !slices.Equal(ids, [][16]byte{a.ID}) {
		t.Errorf("B's lookup names %s, want A %s", names(ids), correlation.ID(a.ID))
	}
	gotA, err := b.j.GetFailure(b.ctx, b.tenant.ID, a.ID)
	if err != nil {
		t.Fatalf("A after the drain: %v", err)
	}
	if gotA.IdempotencyKey != "send-42" {
		t.Errorf("A lost its key: %q", gotA.IdempotencyKey)
	}
	if ids := gotA.SameCallIDs(); !slices.Equal(ids, [][16]byte{journaled.ID}) {
		t.Errorf("A's lookup names %s, want B %s", names(ids), correlation.ID(journaled.ID))
	}

	// Another tenant's lookups know nothing of either.
	other, err := b.j.EnsureTenant(b.ctx, "globex")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range [][16]byte{a.ID, journaled.ID} {
		if _, err := b.j.GetFailure(b.ctx, other.ID, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("tenant globex looks up %s: %v, want not found", correlation.ID(id), err)
		}
	}
	// The key still answers with A.
	again, created, err := storetest.Insert(b.ctx, b.j, retry)
	if err != nil || created || again.ID != a.ID {
		t.Fatalf("a replay after the drain: %s created=%v (%v), want A %s", correlation.ID(again.ID), created, err, correlation.ID(a.ID))
	}
}

func names(ids [][16]byte) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = correlation.ID(id).String()
	}
	return out
}
