package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// watcher runs WatchRules on its own store (a second replica) and hands its events to the test.
type watcher struct {
	events chan store.RuleEvent
}

func watch(t *testing.T, s *postgres.Store) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{events: make(chan store.RuleEvent, 100)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.WatchRules(ctx, func(ev store.RuleEvent) { w.events <- ev })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// next waits up to one second for the next event of a kind, skipping others: one second is the
// promise that every replica is in step.
func (w *watcher) next(t *testing.T, kind store.RuleEventKind, within time.Duration) store.RuleEvent {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev := <-w.events:
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event of kind %d within %v", kind, within)
			return store.RuleEvent{}
		}
	}
}

func specOf(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"name": name, "then": map[string]any{"class": "capability", "code": "c"}})
	return b
}

// A change committed through one replica's store reaches another replica's watcher within a second,
// naming the tenant and the version; after the watcher's connection is killed it reports the loss,
// reconnects and delivers changes again.
func TestWatchRules(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	// A name of its own, so that the test can find its listener's backend among parallel tests'.
	app := "tf-watch-" + randomHex(6)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()

	writer := open(t, dbURL)
	reader := open(t, u.String())
	tenant, err := writer.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}

	w := watch(t, reader)
	w.next(t, store.RuleWatchStarted, 5*time.Second)

	start := time.Now()
	v, _, err := writer.ReplaceRules(t.Context(), tenant.ID, []store.Rule{{Name: "a", Spec: specOf("a")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := w.next(t, store.RuleSetChanged, time.Second)
	if ev.TenantID != tenant.ID || ev.Version != v {
		t.Fatalf("event = %+v, want tenant %d version %d", ev, tenant.ID, v)
	}
	t.Logf("notified %v after the commit was acknowledged", time.Since(start))

	// Kill the listening session, as a failover or a restart of PostgreSQL would.
	var killed int
	err = connect(t, dbURL).QueryRow(t.Context(),
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
		app).Scan(&killed)
	if err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening sessions, want 1", killed)
	}
	w.next(t, store.RuleWatchLost, 5*time.Second)
	w.next(t, store.RuleWatchStarted, 5*time.Second)

	r := store.Rule{TenantID: tenant.ID, Name: "b", Spec: specOf("b")}
	if _, err := writer.CreateRule(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	ev = w.next(t, store.RuleSetChanged, time.Second)
	if ev.TenantID != tenant.ID || ev.Version != v+1 {
		t.Fatalf("event after reconnect = %+v, want tenant %d version %d", ev, tenant.ID, v+1)
	}
}

// A change in another schema of the same database (another deployment sharing it) is not reported.
func TestWatchRulesIgnoresOtherSchemas(t *testing.T) {
	t.Parallel()
	s := open(t, migrated(t))
	other := open(t, migrated(t))
	// Their tenant gets another ID than ours, so that an event of theirs cannot pass for ours.
	if _, err := other.EnsureTenant(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	theirs, err := other.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if mine.ID == theirs.ID {
		t.Fatalf("both tenants have ID %d", mine.ID)
	}
	w := watch(t, s)
	w.next(t, store.RuleWatchStarted, 5*time.Second)
	if _, _, err := other.ReplaceRules(t.Context(), theirs.ID, []store.Rule{{Name: "a", Spec: specOf("a")}}, nil); err != nil {
		t.Fatal(err)
	}
	// A change of our own, committed after theirs, marks the end: both are notified on the one
	// channel, which delivers in commit order, so an event for their change would come first.
	v, _, err := s.ReplaceRules(t.Context(), mine.ID, []store.Rule{{Name: "b", Spec: specOf("b")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.events:
		if ev.Kind != store.RuleSetChanged || ev.TenantID != mine.ID || ev.Version != v {
			t.Fatalf("got %+v before the change in our own schema (version %d): a change in another schema was reported", ev, v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the change in our own schema was not reported within 5 s")
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
