package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/migrations"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/storetest"
)

func openMigrated(t *testing.T) (*Store, string) {
	t.Helper()
	u := pgtest.URL(t)
	s, err := Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s, u
}

func idOf(t *testing.T, at time.Time) [16]byte {
	t.Helper()
	id, err := correlation.New(at)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func record(t *testing.T, tenant int64, at time.Time, key string) store.Failure {
	t.Helper()
	return store.Failure{TenantID: tenant, ID: idOf(t, at), Tool: "search", Class: store.ClassCapability,
		Code: "invalid_input", Error: json.RawMessage(`{"message":"bad"}`), IdempotencyKey: key,
		CreatedAt: at, OccurredAt: at}
}

func partitionNames(t *testing.T, s *Store) []string {
	t.Helper()
	parts, err := partitions(t.Context(), s.pool)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range parts {
		names = append(names, p.name)
	}
	return names
}

func dayName(t time.Time) string { return "failures_p" + t.UTC().Format("20060102") }

// A new installation has the partitions of today and the days ahead, and nothing before; a record
// of a day without one (a journal replaying an old outage) gets its partition on the spot, alone
// in a batch and among others.
func TestPartitionsAheadAndOnDemand(t *testing.T) {
	t.Parallel()
	s, _ := openMigrated(t)
	ctx := t.Context()
	now := time.Now()
	names := partitionNames(t, s)
	if len(names) != PartitionsAhead+1 || names[0] != dayName(now) || names[len(names)-1] != dayName(now.Add(PartitionsAhead*partitionDay)) {
		t.Fatalf("partitions after Migrate: %v, want today's and %d days ahead", names, PartitionsAhead)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	old := now.AddDate(0, 0, -200)
	f := record(t, tenant.ID, old, "")
	if _, created, err := storetest.Insert(ctx, s, f); err != nil || !created {
		t.Fatalf("insert of a record 200 days old: created %v, %v", created, err)
	}
	if got, err := s.GetFailure(ctx, tenant.ID, f.ID); err != nil || got.ID != f.ID {
		t.Fatalf("GetFailure: %v", err)
	}
	if !slices.Contains(partitionNames(t, s), dayName(old)) {
		t.Fatalf("no partition %s after the insert: %v", dayName(old), partitionNames(t, s))
	}
	// The single-row path (a batch that failed for one bad row) makes partitions too.
	g := record(t, tenant.ID, now.AddDate(0, 0, -300), "k-1")
	if _, created, err := insertOne(ctx, s.pool, g); err != nil || !created {
		t.Fatalf("insertOne of a record 300 days old: created %v, %v", created, err)
	}
	if _, created, err := insertOne(ctx, s.pool, record(t, tenant.ID, now.AddDate(0, 0, -301), "k-1")); err != nil || created {
		t.Fatalf("insertOne of a taken key: created %v, %v; want the earlier record", created, err)
	}
}

// A lookup by ID reads one partition.
func TestLookupByIDPrunesToOnePartition(t *testing.T) {
	t.Parallel()
	s, _ := openMigrated(t)
	ctx := t.Context()
	var plan string
	err := s.pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON, COSTS OFF) SELECT `+failureColumns+`
		FROM failures WHERE tenant_id = 1 AND id = $1`, idOf(t, time.Now())).Scan(&plan)
	if err != nil {
		t.Fatal(err)
	}
	var scanned int
	for _, name := range partitionNames(t, s) {
		if json.Valid([]byte(plan)) && containsQuoted(plan, name) {
			scanned++
		}
	}
	if scanned != 1 {
		t.Fatalf("the plan of a lookup by ID reads %d partitions, want 1:\n%s", scanned, plan)
	}
}

func containsQuoted(s, name string) bool { return slices.Contains(quotedStrings(s), name) }

func quotedStrings(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			j++
		}
		out = append(out, s[i+1:min(j, len(s))])
		i = j
	}
	return out
}

// Partitions go when every tenant's retention has passed them, and only then: the longest
// retention decides, a tenant that keeps its records forever keeps every partition, and a shorter
// retention is still kept by deletes. An idempotency key whose record went with its partition is
// free again.
func TestDropExpiredPartitions(t *testing.T) {
	t.Parallel()
	s, _ := openMigrated(t)
	ctx := t.Context()
	now := time.Now()
	short, err := s.EnsureTenant(ctx, "short")
	if err != nil {
		t.Fatal(err)
	}
	long, err := s.EnsureTenant(ctx, "long")
	if err != nil {
		t.Fatal(err)
	}
	ages := []int{40, 20, 1}
	ids := map[string][16]byte{}
	for _, tenant := range []store.Tenant{short, long} {
		for _, age := range ages {
			f := record(t, tenant.ID, now.AddDate(0, 0, -age), fmt.Sprintf("key-%d", age))
			if _, _, err := storetest.Insert(ctx, s, f); err != nil {
				t.Fatal(err)
			}
			ids[fmt.Sprint(tenant.Name, age)] = f.ID
		}
	}
	oldest := dayName(now.AddDate(0, 0, -40))

	// "long" keeps everything: no partition may go, and "short" loses its two old records by deletes.
	if err := s.SetRetention(ctx, short.ID, 10); err != nil {
		t.Fatal(err)
	}
	removed, err := s.PurgeExpired(ctx, now, 0)
	if err != nil || removed != 2 {
		t.Fatalf("PurgeExpired with a tenant that keeps everything: removed %d, %v; want 2", removed, err)
	}
	if !slices.Contains(partitionNames(t, s), oldest) {
		t.Fatalf("partition %s dropped although tenant long keeps its records forever", oldest)
	}

	// Now "long" keeps 30 days: the 40-day-old partition holds nothing anyone keeps.
	if err := s.SetRetention(ctx, long.ID, 30); err != nil {
		t.Fatal(err)
	}
	removed, err = s.PurgeExpired(ctx, now, 0)
	if err != nil || removed != 1 {
		t.Fatalf("PurgeExpired: removed %d, %v; want long's 40-day-old record", removed, err)
	}
	if slices.Contains(partitionNames(t, s), oldest) {
		t.Fatalf("partition %s kept past every tenant's retention: %v", oldest, partitionNames(t, s))
	}
	for name, id := range ids {
		_, err := s.GetFailure(ctx, map[bool]int64{true: short.ID, false: long.ID}[name[:5] == "short"], id)
		gone := name == "long40" || name == "short40" || name == "short20"
		if gone != errors.Is(err, store.ErrNotFound) {
			t.Errorf("record %s: GetFailure %v, want gone %v", name, err, gone)
		}
	}
	// The keys of the dropped and deleted records are free; the kept ones still answer.
	for _, c := range []struct {
		tenant  store.Tenant
		age     int
		created bool
	}{{long, 40, true}, {short, 20, true}, {long, 20, false}, {short, 1, false}} {
		f := record(t, c.tenant.ID, now, fmt.Sprintf("key-%d", c.age))
		_, created, err := storetest.Insert(ctx, s, f)
		if err != nil || created != c.created {
			t.Errorf("tenant %s key-%d again: created %v, %v; want created %v", c.tenant.Name, c.age, created, err, c.created)
		}
	}
}

// A change of retention waits for a partition drop that is deciding on the retentions (and the
// drop reads them under the same lock), so a retention raised "during" a drop is either seen by
// it or applied after it.
func TestSetRetentionWaitsForADrop(t *testing.T) {
	t.Parallel()
	s, u := openMigrated(t)
	tenant, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	holder, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close(context.Background()) })
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_lock(`+retentionLockKey+`)`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if err := s.SetRetention(ctx, tenant.ID, 30); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SetRetention while a drop holds the retention lock: %v, want to wait", err)
	}
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_unlock(`+retentionLockKey+`)`); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRetention(t.Context(), tenant.ID, 30); err != nil {
		t.Fatal(err)
	}
}

// Migrating a store of the unpartitioned layout keeps every record in place (the old table becomes
// the first partition) and every idempotency key bound to its record.
func TestMigrationToPartitionsKeepsRecords(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	s, err := Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := t.Context()
	db := stdlib.OpenDB(*s.pool.Config().ConnConfig)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres,
		goose.WithTableName(versionTable), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var before []store.Failure
	for i, age := range []int{90, 3, 0} {
		f := record(t, tenant.ID, now.AddDate(0, 0, -age), fmt.Sprintf("key-%d", i))
		if _, err := s.pool.Exec(ctx, `INSERT INTO failures (tenant_id, id, tool, class, code, error,
			idempotency_key, created_at, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			f.TenantID, f.ID, f.Tool, f.Class, f.Code, string(f.Error), f.IdempotencyKey, f.CreatedAt, f.OccurredAt); err != nil {
			t.Fatal(err)
		}
		before = append(before, f)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var partitioned bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_partitioned_table WHERE partrelid = 'failures'::regclass)`).Scan(&partitioned); err != nil || !partitioned {
		t.Fatalf("failures is not partitioned after Migrate (%v)", err)
	}
	if names := partitionNames(t, s); names[0] != "failures_p0" {
		t.Fatalf("partitions %v, want the old table first", names)
	}
	for _, f := range before {
		if _, err := s.GetFailure(ctx, tenant.ID, f.ID); err != nil {
			t.Fatalf("record of key %s lost by the migration: %v", f.IdempotencyKey, err)
		}
		again := record(t, tenant.ID, now, f.IdempotencyKey)
		stored, created, err := storetest.Insert(ctx, s, again)
		if err != nil || created || stored.ID != f.ID {
			t.Fatalf("key %s after the migration: created %v, %v; want the record migrated", f.IdempotencyKey, created, err)
		}
	}
	// Records of today still go to the old table, which covers up to tomorrow's end; later days
	// have partitions of their own.
	if _, _, err := storetest.Insert(ctx, s, record(t, tenant.ID, now, "")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := storetest.Insert(ctx, s, record(t, tenant.ID, now.AddDate(0, 0, 3), "")); err != nil {
		t.Fatal(err)
	}
}

// The unclassified filter of the group reads names store.UnclassifiedRuleIDs as literals, as the
// partial index's predicate does, so that the planner can use the index (the 10 M records of
// `toolfailure bench --seed` show that it does).
func TestUnclassifiedIndexMatchesTheQueries(t *testing.T) {
	t.Parallel()
	s, _ := openMigrated(t)
	var def string
	// The index is named through the search path, not found in pg_indexes: that view reads
	// the definition of every schema's index of the name, and other tests drop theirs at
	// any moment ("could not open relation with OID").
	if err := s.pool.QueryRow(t.Context(), `SELECT pg_get_indexdef('failures_unclassified'::regclass)`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	for _, id := range store.UnclassifiedRuleIDs {
		if !strings.Contains(def, "'"+id+"'") {
			t.Fatalf("failures_unclassified does not name rule ID %q: %s", id, def)
		}
	}
	where, _ := groupWhere("", 1, store.GroupFilter{Unclassified: true})
	if !slices.Contains(where, "rule_id IN "+unclassifiedList) {
		t.Fatalf("the group queries' unclassified filter %v differs from the index's predicate: %s", where, def)
	}
}
