package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/omcp/toolfailure/internal/pgcluster"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/storetest"
)

// A real streaming replica (pg_basebackup from a private primary): lookups are answered by the
// replica when it has the record, by the primary when replay is paused (the lag case: an ID just
// handed out is found all the same) and when the replica is down, and every fallback is counted.
func TestReplicaFallback(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two PostgreSQL clusters of its own")
	}
	ctx := t.Context()
	primaryCluster := pgcluster.Start(t)
	replicaCluster := pgcluster.StartReplica(t, primaryCluster)

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s, err := postgres.OpenReplicated(ctx, primaryCluster.URL(), replicaCluster.URL(), postgres.ReplicaOptions{
		MaxLag:        time.Nanosecond, // any measurable lag sends lists to the primary
		LagCheckEvery: time.Nanosecond, // measure on every list
		MeterProvider: mp,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	replicaConn := connectURL(t, replicaCluster.URL())
	primaryConn := connectURL(t, primaryCluster.URL())

	// Caught up: the replica answers, nothing falls back.
	first := insert(t, s, tenant.ID)
	waitReplayed(t, primaryConn, replicaConn)
	requireFound(t, s, tenant.ID, first.ID)
	if _, err := s.ListFailures(ctx, tenant.ID, store.ListQuery{}); err != nil {
		t.Fatal(err)
	}
	// The groups of the Problems view come from the replica too.
	until := time.Now().Add(time.Minute)
	since := until.Add(-time.Hour)
	groups, err := s.ListGroups(ctx, tenant.ID, store.GroupQuery{Filter: store.GroupFilter{Since: since, Until: until}})
	if err != nil || len(groups) != 1 || groups[0].Count != 1 {
		t.Fatalf("ListGroups from the replica: %v, %v", groups, err)
	}
	if _, err := s.GetGroup(ctx, tenant.ID, groups[0].Fingerprint, since, until); err != nil {
		t.Fatalf("GetGroup from the replica: %v", err)
	}
	if _, err := s.GroupHours(ctx, tenant.ID, []string{groups[0].Fingerprint}, since, until); err != nil {
		t.Fatalf("GroupHours from the replica: %v", err)
	}
	requireFallbacks(t, reader, map[[2]string]int64{})

	// Lagging: replay paused, so the replica has not seen the new record.
	if _, err := replicaConn.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	second := insert(t, s, tenant.ID)
	var onReplica bool
	if err := replicaConn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM failures WHERE tenant_id = $1 AND id = $2)`, tenant.ID, second.ID).Scan(&onReplica); err != nil {
		t.Fatal(err)
	}
	if onReplica {
		t.Fatal("the replica has the record although replay is paused; the test proves nothing")
	}
	requireFound(t, s, tenant.ID, second.ID)
	waitWAL(t, primaryConn, replicaConn, "pg_last_wal_receive_lsn()") // received, not replayed: lag
	list, err := s.ListFailures(ctx, tenant.ID, store.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("ListFailures while the replica lags: %d records, want 2 (from the primary)", len(list))
	}
	// The group counts the new record: the primary answered.
	groups, err = s.ListGroups(ctx, tenant.ID, store.GroupQuery{Filter: store.GroupFilter{Since: since, Until: until}})
	if err != nil || len(groups) != 1 || groups[0].Count != 2 {
		t.Fatalf("ListGroups while the replica lags: %v, %v; want one group of 2 (from the primary)", groups, err)
	}
	requireFallbacks(t, reader, map[[2]string]int64{
		{"get_failure", postgres.FallbackNotFound}: 1,
		{"list_failures", postgres.FallbackLag}:    1,
		{"list_groups", postgres.FallbackLag}:      1,
	})
	if _, err := replicaConn.Exec(ctx, `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	waitReplayed(t, primaryConn, replicaConn)
	requireFound(t, s, tenant.ID, second.ID) // from the replica now: no new fallback
	requireFallbacks(t, reader, map[[2]string]int64{
		{"get_failure", postgres.FallbackNotFound}: 1,
		{"list_failures", postgres.FallbackLag}:    1,
		{"list_groups", postgres.FallbackLag}:      1,
	})

	// Down: every lookup still answers, from the primary.
	replicaConn.Close(ctx)
	replicaCluster.StopImmediate()
	third := insert(t, s, tenant.ID)
	for _, id := range [][16]byte{first.ID, second.ID, third.ID} {
		requireFound(t, s, tenant.ID, id)
	}
	list, err = s.ListFailures(ctx, tenant.ID, store.ListQuery{})
	if err != nil {
		t.Fatalf("ListFailures with the replica down: %v", err)
	}
	if len(list) != 3 {
		t.Fatalf("ListFailures with the replica down: %d records, want 3", len(list))
	}
	requireFallbacks(t, reader, map[[2]string]int64{
		{"get_failure", postgres.FallbackNotFound}: 1,
		{"get_failure", postgres.FallbackError}:    3,
		{"list_failures", postgres.FallbackLag}:    2, // the lag measurement failed too
		{"list_groups", postgres.FallbackLag}:      1,
	})
	// An unknown ID is still not_found, after asking both.
	if _, err := s.GetFailure(ctx, tenant.ID, uuid.Must(uuid.NewV7())); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown ID with the replica down: %v, want ErrNotFound", err)
	}
}

func connectURL(t *testing.T, u string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func insert(t *testing.T, s store.Store, tenantID int64) store.Failure {
	t.Helper()
	f := store.Failure{
		TenantID: tenantID, ID: uuid.Must(uuid.NewV7()), Tool: "send_email",
		Class: store.ClassReliability, Code: "retryable_transient_error", Retryable: true,
		Error: json.RawMessage(`{"message":"connection reset","type":"ECONNRESET"}`),
	}
	stored, _, err := storetest.Insert(t.Context(), s, f)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

func requireFound(t *testing.T, s store.Store, tenantID int64, id [16]byte) {
	t.Helper()
	got, err := s.GetFailure(t.Context(), tenantID, id)
	if err != nil {
		t.Fatalf("GetFailure %x: %v", id, err)
	}
	if got.ID != id {
		t.Fatalf("GetFailure %x returned %x", id, got.ID)
	}
}

// waitReplayed waits until the replica has replayed everything the primary has written so far.
func waitReplayed(t *testing.T, primary, replica *pgx.Conn) {
	t.Helper()
	waitWAL(t, primary, replica, "pg_last_wal_replay_lsn()")
}

// waitWAL waits until the replica's position (an expression such as pg_last_wal_receive_lsn())
// has reached the primary's current WAL position. It waits on a condition the server reports, not
// for a fixed time.
func waitWAL(t *testing.T, primary, replica *pgx.Conn, position string) {
	t.Helper()
	ctx := t.Context()
	var lsn string
	if err := primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var done bool
		if err := replica.QueryRow(ctx, `SELECT `+position+` >= $1::pg_lsn`, lsn).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica's %s has not reached %s in 30 s", position, lsn)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// requireFallbacks compares the fallback counter, by (operation, reason), with want.
func requireFallbacks(t *testing.T, reader *sdkmetric.ManualReader, want map[[2]string]int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "toolfailure.store.replica.fallbacks" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				op, _ := dp.Attributes.Value(attribute.Key("operation"))
				reason, _ := dp.Attributes.Value(attribute.Key("reason"))
				got[[2]string{op.AsString(), reason.AsString()}] = dp.Value
			}
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("fallbacks %v = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("unexpected fallbacks %v = %d", k, v)
		}
	}
}

// A replica that is down when the service starts does not keep it from starting, and lookups are
// answered by the primary from the first call.
func TestReplicaDownAtStart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	reader := sdkmetric.NewManualReader()
	s, err := postgres.OpenReplicated(ctx, migrated(t), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2",
		postgres.ReplicaOptions{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatalf("a replica that is down kept the store from opening: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// Migrating at start-up, with the replica down, still succeeds.
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	f := insert(t, s, tenant.ID)
	requireFound(t, s, tenant.ID, f.ID)
	list, err := s.ListFailures(ctx, tenant.ID, store.ListQuery{})
	if err != nil || len(list) != 1 {
		t.Fatalf("ListFailures with the replica down: %d records, %v", len(list), err)
	}
	requireFallbacks(t, reader, map[[2]string]int64{
		{"get_failure", postgres.FallbackError}: 1,
		{"list_failures", postgres.FallbackLag}: 1, // the lag could not be measured
	})
}
