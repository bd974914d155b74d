package store_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
)

func linkable(t *testing.T) store.Failure {
	t.Helper()
	return store.Failure{
		TenantID: 1, ID: uuid.Must(uuid.NewV7()), Tool: "send_email", Class: store.ClassCapability,
		Code: "invalid_input", Error: json.RawMessage(`{"message":"x"}`), IdempotencyKey: "send-42",
	}
}

// Prepared.SameCallAs drops the key and keeps the link, and the result prepares again unchanged;
// Prepare refuses a link beside a key, and a link to the record itself.
func TestPreparedSameCallAs(t *testing.T) {
	t.Parallel()
	holder := uuid.Must(uuid.NewV7())
	p, err := store.Prepare(linkable(t))
	if err != nil {
		t.Fatal(err)
	}
	linked, err := p.SameCallAs(holder).Record()
	if err != nil {
		t.Fatal(err)
	}
	if linked.IdempotencyKey != "" || linked.SameCallAs != holder {
		t.Fatalf("key %q, link %x; want no key and the holder's ID", linked.IdempotencyKey, linked.SameCallAs)
	}
	again, err := store.Prepare(linked)
	if err != nil || again.Failure().SameCallAs != holder {
		t.Fatalf("preparing the linked record again: %x, %v", again.Failure().SameCallAs, err)
	}
	self, _ := p.SameCallAs(p.Failure().ID).Record()
	if self.SameCallAs != ([16]byte{}) || self.IdempotencyKey != "" {
		t.Fatalf("a link to itself: key %q, link %x; want neither", self.IdempotencyKey, self.SameCallAs)
	}

	both := linkable(t)
	both.SameCallAs = holder
	if _, err := store.Prepare(both); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a link beside a key: %v, want ErrInvalid", err)
	}
	itself := linkable(t)
	itself.IdempotencyKey, itself.SameCallAs = "", itself.ID
	if _, err := store.Prepare(itself); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a link to itself: %v, want ErrInvalid", err)
	}
	named := linkable(t)
	named.NamedBy = [][16]byte{holder}
	if p, err := store.Prepare(named); err != nil || p.Failure().NamedBy != nil {
		t.Fatalf("NamedBy, which is never stored, came through Prepare: %v %v", p.Failure().NamedBy, err)
	}
}
