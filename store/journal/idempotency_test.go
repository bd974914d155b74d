package journal_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store/journal"
	"github.com/omcp/toolfailure/store/storetest"
)

// syncBuffer is a log destination that the drainer and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestIdempotencyKeyAcrossOutage pins the documented limit of idempotency keys
// (docs/reference.md, "Idempotency across an outage"): a key stored before the outage and
// replayed during it gets a second ID, since the journal cannot ask the database; after the
// drain both IDs look up their own record, the second stored without the key, and the log line
// of the drain links the two by the correlation IDs that support looks up.
func TestIdempotencyKeyAcrossOutage(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	b := setup(t, journal.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	first := failure(t, b.tenant.ID, 1)
	first.IdempotencyKey = "send-42"
	before, created, err := storetest.Insert(b.ctx, b.j, first)
	if err != nil || !created {
		t.Fatalf("insert before the outage: %v %v", created, err)
	}

	b.inner.down.Store(true)
	retry := failure(t, b.tenant.ID, 2)
	retry.IdempotencyKey = "send-42"
	during, _, err := storetest.Insert(b.ctx, b.j, retry)
	if err != nil {
		t.Fatal(err)
	}
	if during.ID == before.ID {
		t.Fatal("the journal found the key stored before the outage; the documented limit no longer holds, update docs/reference.md")
	}
	again, _, err := storetest.Insert(b.ctx, b.j, retry)
	if err != nil || again.ID != during.ID {
		t.Fatalf("a second replay during the outage got %x (%v), want the journal's %x", again.ID, err, during.ID)
	}

	b.inner.down.Store(false)
	waitDrained(t, b.j)
	for _, id := range [][16]byte{before.ID, during.ID} {
		if _, err := b.inner.Store.GetFailure(b.ctx, b.tenant.ID, id); err != nil {
			t.Fatalf("record %x after the drain: %v", id, err)
		}
	}
	stored, err := b.inner.Store.GetFailure(b.ctx, b.tenant.ID, during.ID)
	if err != nil || stored.IdempotencyKey != "" {
		t.Fatalf("the second record kept the key %q (%v); the store can hold it once", stored.IdempotencyKey, err)
	}
	line := ""
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "idempotency key taken meanwhile") {
			line = l
		}
	}
	for _, want := range []string{
		"correlationId=" + correlation.ID(during.ID).String(),
		"sameKeyAs=" + correlation.ID(before.ID).String(),
	} {
		if !strings.Contains(line, want) {
			t.Errorf("the drain's log line %q does not say %s", line, want)
		}
	}
}
