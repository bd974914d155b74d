package schemagate_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/schemagate"
	"github.com/omcp/toolfailure/store/storetest"
)

// TestMigratesOnceTheDatabaseAnswers: a store opened while PostgreSQL cannot be reached, and
// never migrated, answers every call with store.ErrUnavailable (so that a journal above it keeps
// the records), and migrates the schema by itself as soon as the database answers; then calls
// pass through and watching rules works.
func TestMigratesOnceTheDatabaseAnswers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	proxy, dbURL := pgtest.NewProxy(t, pgtest.URL(t))
	proxy.Down()

	if _, err := postgres.Open(ctx, dbURL); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open of an unreachable database: %v, want store.ErrUnavailable", err)
	}
	pg, err := postgres.OpenLazy(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	err = pg.Migrate(ctx)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Migrate of an unreachable database: %v, want store.ErrUnavailable", err)
	}
	g := schemagate.New(pg, err, schemagate.Options{Interval: 20 * time.Millisecond})
	t.Cleanup(func() { _ = g.Close() })

	if err := g.Ping(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Ping before the migration: %v, want store.ErrUnavailable", err)
	}
	f := store.Failure{TenantID: 1, ID: uuid.Must(uuid.NewV7()), Tool: "t", Class: store.ClassCapability,
		Code: "invalid_input", Error: json.RawMessage(`{"message":"x"}`)}
	if _, _, err := storetest.Insert(ctx, g, f); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("InsertFailure before the migration: %v, want store.ErrUnavailable", err)
	}
	events := make(chan store.RuleEvent, 16)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() { _ = g.WatchRules(watchCtx, func(e store.RuleEvent) { events <- e }) }()
	if e := <-events; e.Kind != store.RuleWatchLost {
		t.Fatalf("first watch event before the migration: %v, want RuleWatchLost", e.Kind)
	}

	proxy.Up()
	select {
	case <-g.Migrated():
	case <-time.After(30 * time.Second):
		t.Fatalf("not migrated 30s after the database came back: %v", g.Ping(ctx))
	}
	if !g.Ready() {
		t.Fatal("Migrated closed while Ready is false")
	}
	if err := g.Ping(ctx); err != nil {
		t.Fatalf("Ping after the migration: %v", err)
	}
	tenant, err := g.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatalf("EnsureTenant after the migration: %v", err)
	}
	f.TenantID = tenant.ID
	if _, created, err := storetest.Insert(ctx, g, f); err != nil || !created {
		t.Fatalf("InsertFailure after the migration: %v %v", created, err)
	}
	if e := <-events; e.Kind != store.RuleWatchStarted {
		t.Fatalf("watch event after the migration: %v, want RuleWatchStarted", e.Kind)
	}
}
