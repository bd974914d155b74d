package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
)

// Harness adapts a backend to the suite.
type Harness struct {
	// Open returns a fresh, empty, migrated store for one test, cleaned up by t.Cleanup.
	Open func(t *testing.T) store.Store
	// Reopen closes s and opens the same underlying database again (a process restart). The suite
	// migrates the reopened store itself, as a restarted server would. The returned store must be
	// cleaned up by t.Cleanup too.
	Reopen func(t *testing.T, s store.Store) store.Store
}

// Run runs the whole suite against the backend behind h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil || h.Reopen == nil {
		t.Fatal("storetest: Harness.Open and Harness.Reopen are both required")
	}

	type testBundle struct {
		ctx    context.Context
		store  store.Store
		tenant store.Tenant // "acme", created by setup
	}

	setup := func(t *testing.T) *testBundle {
		t.Helper()
		s := h.Open(t)
		tenant, err := s.EnsureTenant(t.Context(), "acme")
		requireNoError(t, err)
		return &testBundle{ctx: t.Context(), store: s, tenant: tenant}
	}

	t.Run("Migrate", func(t *testing.T) {
		t.Parallel()

		t.Run("TwiceIsNoOp", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			before := insert(t, b.ctx, b.store, fullFailure(t, b.tenant.ID))

			requireNoError(t, b.store.Migrate(b.ctx))
			requireNoError(t, b.store.Migrate(b.ctx))

			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, before.ID)
			requireNoError(t, err)
			requireFailureEqual(t, before, got)
			insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		})
	})

	t.Run("Ping", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		requireNoError(t, b.store.Ping(b.ctx))
	})

	t.Run("Tenants", func(t *testing.T) {
		t.Parallel()

		t.Run("EnsureTwiceReturnsSame", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			again, err := b.store.EnsureTenant(b.ctx, "acme")
			requireNoError(t, err)
			requireTenantEqual(t, b.tenant, again)
		})

		t.Run("CreatedAtIsMicrosecondUTC", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			before := time.Now().Truncate(time.Microsecond)
			tenant, err := b.store.EnsureTenant(b.ctx, "globex")
			requireNoError(t, err)
			after := time.Now()
			requireUTCMicro(t, "CreatedAt", tenant.CreatedAt)
			if tenant.CreatedAt.Before(before) || tenant.CreatedAt.After(after) {
				t.Fatalf("CreatedAt = %v, want between %v and %v", tenant.CreatedAt, before, after)
			}
			if tenant.Name != "globex" || tenant.ID == 0 {
				t.Fatalf("tenant = %+v, want name globex and an ID", tenant)
			}
		})

		t.Run("DistinctNamesDistinctTenants", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			other, err := b.store.EnsureTenant(b.ctx, "Acme") // names are case-sensitive
			requireNoError(t, err)
			if other.ID == b.tenant.ID {
				t.Fatalf("tenants acme and Acme share ID %d", other.ID)
			}
		})

		t.Run("UnicodeName", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			const name = "株式会社 Ünïcødé 🚀 e\u0301"
			tenant, err := b.store.EnsureTenant(b.ctx, name)
			requireNoError(t, err)
			again, err := b.store.EnsureTenant(b.ctx, name)
			requireNoError(t, err)
			if tenant.Name != name {
				t.Fatalf("Name = %q, want %q", tenant.Name, name)
			}
			requireTenantEqual(t, tenant, again)
		})

		t.Run("ConcurrentEnsureOneTenant", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			const n = 10
			tenants := make([]store.Tenant, n)
			errs := make([]error, n)
			race(n, func(i int) { tenants[i], errs[i] = b.store.EnsureTenant(b.ctx, "racer") })
			requireNoError(t, errors.Join(errs...))
			for _, tenant := range tenants[1:] {
				requireTenantEqual(t, tenants[0], tenant)
			}
		})

		t.Run("EmptyNameRejected", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			if _, err := b.store.EnsureTenant(b.ctx, ""); err == nil {
				t.Fatal("EnsureTenant(\"\") succeeded, want an error")
			}
		})
	})

	t.Run("APIKeys", func(t *testing.T) {
		t.Parallel()

		t.Run("RoundTripAndLookupByHash", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := store.APIKey{
				ID:        "k_7Hq2",
				TenantID:  b.tenant.ID,
				Hash:      hash("tfk_secret_1"),
				Scopes:    []string{store.ScopeReport, store.ScopeLookup, store.ScopeRules},
				CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 678901234, zone),
			}
			created, err := b.store.CreateAPIKey(b.ctx, in)
			requireNoError(t, err)
			want := in
			want.CreatedAt = in.CreatedAt.Truncate(time.Microsecond).UTC()
			requireAPIKeyEqual(t, want, created)

			key, tenant, err := b.store.APIKeyByHash(b.ctx, hash("tfk_secret_1"))
			requireNoError(t, err)
			requireAPIKeyEqual(t, want, key)
			requireTenantEqual(t, b.tenant, tenant)
		})

		t.Run("ScopesRoundTrip", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			for i, scopes := range [][]string{
				nil,
				{store.ScopeLookup},
				{store.ScopeRules, store.ScopeReport}, // order is kept
			} {
				secret := fmt.Sprintf("secret-%d", i)
				_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{
					ID: fmt.Sprintf("k%d", i), TenantID: b.tenant.ID, Hash: hash(secret), Scopes: scopes,
				})
				requireNoError(t, err)
				key, _, err := b.store.APIKeyByHash(b.ctx, hash(secret))
				requireNoError(t, err)
				if !reflect.DeepEqual(key.Scopes, scopes) {
					t.Fatalf("Scopes = %#v, want %#v", key.Scopes, scopes)
				}
			}
		})

		t.Run("CreatedAtDefaultsToNow", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			before := time.Now().Truncate(time.Microsecond)
			key, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID, Hash: hash("s")})
			requireNoError(t, err)
			requireUTCMicro(t, "CreatedAt", key.CreatedAt)
			if key.CreatedAt.Before(before) || key.CreatedAt.After(time.Now()) {
				t.Fatalf("CreatedAt = %v, want about now", key.CreatedAt)
			}
		})

		t.Run("UnknownHashNotFound", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID, Hash: hash("known")})
			requireNoError(t, err)
			_, _, err = b.store.APIKeyByHash(b.ctx, hash("unknown"))
			requireErrorIs(t, err, store.ErrNotFound)
		})

		t.Run("DuplicateHashConflict", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			other, err := b.store.EnsureTenant(b.ctx, "globex")
			requireNoError(t, err)
			_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s")})
			requireNoError(t, err)
			_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k2", TenantID: other.ID, Hash: hash("s")})
			requireErrorIs(t, err, store.ErrConflict)
		})

		t.Run("DuplicateIDConflict", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s1")})
			requireNoError(t, err)
			_, err = b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k1", TenantID: b.tenant.ID, Hash: hash("s2")})
			requireErrorIs(t, err, store.ErrConflict)
		})

		t.Run("UnknownTenantNotFound", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{ID: "k", TenantID: b.tenant.ID + 1000, Hash: hash("s")})
			requireErrorIs(t, err, store.ErrNotFound)
		})

		t.Run("Count", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			n, err := b.store.CountAPIKeys(b.ctx)
			requireNoError(t, err)
			if n != 0 {
				t.Fatalf("CountAPIKeys on a fresh store = %d, want 0", n)
			}
			other, err := b.store.EnsureTenant(b.ctx, "globex")
			requireNoError(t, err)
			for i, tenantID := range []int64{b.tenant.ID, b.tenant.ID, other.ID} {
				_, err := b.store.CreateAPIKey(b.ctx, store.APIKey{
					ID: fmt.Sprintf("k%d", i), TenantID: tenantID, Hash: hash(fmt.Sprint(i)),
				})
				requireNoError(t, err)
			}
			n, err = b.store.CountAPIKeys(b.ctx)
			requireNoError(t, err)
			if n != 3 {
				t.Fatalf("CountAPIKeys = %d, want 3 (all tenants)", n)
			}
		})
	})

	t.Run("Failures", func(t *testing.T) {
		t.Parallel()

		t.Run("RoundTripEveryField", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			want := expectStored(in)

			stored, created, err := b.store.InsertFailure(b.ctx, in)
			requireNoError(t, err)
			if !created {
				t.Fatal("created = false for a new record")
			}
			requireFailureEqual(t, want, stored)

			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, want, got)

			list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
			requireNoError(t, err)
			if len(list) != 1 {
				t.Fatalf("ListFailures returned %d records, want 1", len(list))
			}
			requireFailureEqual(t, want, list[0])
		})

		t.Run("RoundTripZeroOptionals", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := minimalFailure(t, b.tenant.ID) // no RetryNotBefore, annotations, trace, key, times
			before := time.Now().Truncate(time.Microsecond)
			stored := insert(t, b.ctx, b.store, in)
			after := time.Now()

			if stored.CreatedAt.Before(before) || stored.CreatedAt.After(after) {
				t.Fatalf("CreatedAt = %v, want the time of the insert", stored.CreatedAt)
			}
			want := in
			want.CreatedAt = stored.CreatedAt
			want.OccurredAt = stored.CreatedAt // unknown occurrence defaults to receipt
			requireFailureEqual(t, want, stored)

			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, want, got)
			if got.ToolAnnotations != nil || !got.RetryNotBefore.IsZero() {
				t.Fatalf("absent fields came back set: annotations %q, retryNotBefore %v",
					got.ToolAnnotations, got.RetryNotBefore)
			}
		})

		t.Run("NullAnnotationsAreAbsent", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := minimalFailure(t, b.tenant.ID)
			in.ToolAnnotations = json.RawMessage("null")
			insert(t, b.ctx, b.store, in)
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			if got.ToolAnnotations != nil {
				t.Fatalf("ToolAnnotations = %q, want nil", got.ToolAnnotations)
			}
		})

		t.Run("TimesAreMicrosecondUTC", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			// Before 1970 (negative Unix time, where truncation and rounding differ) and far ahead.
			in.OccurredAt = time.Date(1969, 7, 20, 20, 17, 40, 999999999, zone)
			in.RetryNotBefore = time.Date(2999, 12, 31, 23, 59, 59, 999999999, zone)
			in.CreatedAt = time.Date(2025, 2, 3, 4, 5, 6, 1999, zone) // 1.999 µs → 1 µs
			insert(t, b.ctx, b.store, in)
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, expectStored(in), got)
			if got.CreatedAt.Nanosecond() != 1000 {
				t.Fatalf("CreatedAt = %v, want the nanoseconds truncated to 1 µs", got.CreatedAt)
			}
		})

		t.Run("TraceIDsStoredLowercase", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			in.TraceID, in.SpanID = strings.ToUpper(traceA), strings.ToUpper(spanA)
			stored := insert(t, b.ctx, b.store, in)
			if stored.TraceID != traceA || stored.SpanID != spanA {
				t.Fatalf("trace %q span %q, want %q %q", stored.TraceID, stored.SpanID, traceA, spanA)
			}
			list, err := b.store.ListFailures(b.ctx, b.tenant.ID,
				store.ListQuery{Filter: store.Filter{TraceID: strings.ToUpper(traceA)}})
			requireNoError(t, err)
			requireIDs(t, [][16]byte{in.ID}, list)
		})

		t.Run("GetUnknownNotFound", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
			_, err := b.store.GetFailure(b.ctx, b.tenant.ID, newID(t))
			requireErrorIs(t, err, store.ErrNotFound)
			_, err = b.store.GetFailure(b.ctx, b.tenant.ID+1000, newID(t))
			requireErrorIs(t, err, store.ErrNotFound)
		})

		t.Run("TenantIsolation", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			other, err := b.store.EnsureTenant(b.ctx, "globex")
			requireNoError(t, err)
			theirs := insert(t, b.ctx, b.store, fullFailure(t, b.tenant.ID))

			_, err = b.store.GetFailure(b.ctx, other.ID, theirs.ID)
			requireErrorIs(t, err, store.ErrNotFound)
			for _, f := range []store.Filter{
				{},
				{Tool: theirs.Tool},
				{TraceID: theirs.TraceID},
				{Class: theirs.Class, Code: theirs.Code},
			} {
				list, err := b.store.ListFailures(b.ctx, other.ID, store.ListQuery{Filter: f})
				requireNoError(t, err)
				if len(list) != 0 {
					t.Fatalf("tenant %d listed %d records of tenant %d with filter %+v",
						other.ID, len(list), b.tenant.ID, f)
				}
			}
			// And the owner still sees it.
			_, err = b.store.GetFailure(b.ctx, b.tenant.ID, theirs.ID)
			requireNoError(t, err)
		})

		t.Run("InsertRejectsInvalidRecords", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			for _, tc := range []struct {
				name   string
				mutate func(*store.Failure)
				is     error // nil: any error
			}{
				{"UnknownTenant", func(f *store.Failure) { f.TenantID += 1000 }, store.ErrNotFound},
				{"UnknownClass", func(f *store.Failure) { f.Class = "transient" }, nil},
				{"EmptyTool", func(f *store.Failure) { f.Tool = "" }, nil},
				{"EmptyCode", func(f *store.Failure) { f.Code = "" }, nil},
				{"RetryableOutsideReliability", func(f *store.Failure) {
					f.Class, f.Code = store.ClassGovernance, "auth_required"
				}, nil},
				{"RetryNotBeforeWithoutRetryable", func(f *store.Failure) { f.Retryable = false }, nil},
				{"NilError", func(f *store.Failure) { f.Error = nil }, nil},
				{"ErrorNotAnObject", func(f *store.Failure) { f.Error = json.RawMessage(`["a"]`) }, nil},
				{"ErrorNotJSON", func(f *store.Failure) { f.Error = json.RawMessage(`{"a":`) }, nil},
				{"AnnotationsNotAnObject", func(f *store.Failure) { f.ToolAnnotations = json.RawMessage(`true`) }, nil},
				{"TraceIDNotHex", func(f *store.Failure) { f.TraceID = strings.Repeat("z", 32) }, nil},
				{"SpanIDWrongLength", func(f *store.Failure) { f.SpanID = "abc" }, nil},
			} {
				f := fullFailure(t, b.tenant.ID)
				tc.mutate(&f)
				_, _, err := b.store.InsertFailure(b.ctx, f)
				if err == nil {
					t.Errorf("%s: InsertFailure succeeded, want an error", tc.name)
					continue
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("%s: error %v, want %v", tc.name, err, tc.is)
				}
			}
			list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
			requireNoError(t, err)
			if len(list) != 0 {
				t.Fatalf("%d invalid records were stored", len(list))
			}
		})

		t.Run("DuplicateIDConflict", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			f := minimalFailure(t, b.tenant.ID)
			insert(t, b.ctx, b.store, f)
			_, _, err := b.store.InsertFailure(b.ctx, f)
			requireErrorIs(t, err, store.ErrConflict)
		})

		t.Run("LargePayload", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			in.Error = largeErrorJSON(t, 1<<20)
			insert(t, b.ctx, b.store, in)
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, expectStored(in), got)
		})

		t.Run("Unicode", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			// Emoji (outside the BMP), CJK, combining marks that must not be normalised (e + U+0301
			// stays two code points), right-to-left text and a zero-width joiner sequence.
			const text = "🔥📧 数据库连接失败 メール送信 e\u0301 a\u0308\u0304 مرحبا 👩\u200d💻"
			in.Tool = "send_📧_邮件"
			in.Server = "mail-mcp " + text
			in.Code = "vendor_コード"
			in.AgentGuidance = text
			in.RuleID = "rule-é-\u0301"
			in.IdempotencyKey = "key-" + text
			errJSON, err := json.Marshal(map[string]any{
				"message": text,
				"details": map[string]any{"ключ " + text: []any{text, "\u00e9", "\\u escaped"}},
			})
			requireNoError(t, err)
			in.Error = errJSON
			in.ToolAnnotations = json.RawMessage(`{"title":"Envoyer \u00e9 ✉️"}`)

			stored := insert(t, b.ctx, b.store, in)
			requireFailureEqual(t, expectStored(in), stored)
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, expectStored(in), got)

			list, err := b.store.ListFailures(b.ctx, b.tenant.ID,
				store.ListQuery{Filter: store.Filter{Tool: in.Tool, Code: in.Code}})
			requireNoError(t, err)
			requireIDs(t, [][16]byte{in.ID}, list)
		})

		// U+0000 in text and JSON is stored as store.NULStandIn, on every backend, instead of the
		// record being refused (PostgreSQL keeps NUL neither in text nor in jsonb): a retry would
		// send the same bytes, so refusing would lose the failure for good.
		t.Run("NULStoredAsStandIn", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			in := fullFailure(t, b.tenant.ID)
			in.Tool = "read\x00file"
			in.Server = "srv\x00"
			in.AgentGuidance = "a\x00b"
			in.IdempotencyKey = "key\x00nul"
			in.Error = json.RawMessage(`{"message":"bad\u0000byte","attributes":{"k\u0000":"v\u0000"},"literal":"\\u0000 is text"}`)
			in.ToolAnnotations = json.RawMessage(`{"title":"\u0000"}`)

			want := expectStored(in)
			want.Tool, want.Server = "read\u2400file", "srv\u2400"
			want.AgentGuidance, want.IdempotencyKey = "a\u2400b", "key\u2400nul"
			want.Error = json.RawMessage(`{"message":"bad\u2400byte","attributes":{"k\u2400":"v\u2400"},"literal":"\\u0000 is text"}`)
			want.ToolAnnotations = json.RawMessage(`{"title":"\u2400"}`)

			stored, created, err := b.store.InsertFailure(b.ctx, in)
			requireNoError(t, err)
			if !created {
				t.Fatal("created = false for a new record")
			}
			requireFailureEqual(t, want, stored)
			got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
			requireNoError(t, err)
			requireFailureEqual(t, want, got)
			var e map[string]any
			requireNoError(t, json.Unmarshal(got.Error, &e))
			if e["message"] != "bad\u2400byte" || e["literal"] != "\\u0000 is text" {
				t.Fatalf("error read back as %v", e)
			}
			// A filter that holds a NUL finds the record, and reaches the database safely.
			list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Filter: store.Filter{Tool: in.Tool}})
			requireNoError(t, err)
			requireIDs(t, [][16]byte{in.ID}, list)
			// The same idempotency key, NUL and all, finds the same record.
			again := minimalFailure(t, b.tenant.ID)
			again.IdempotencyKey = in.IdempotencyKey
			replay, created, err := b.store.InsertFailure(b.ctx, again)
			requireNoError(t, err)
			if created || replay.ID != in.ID {
				t.Fatalf("replay with the same key: created=%v id=%x, want the first record", created, replay.ID)
			}
		})
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()

		t.Run("Filters", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			all := insertDataset(t, b.ctx, b.store, b.tenant.ID, 24)
			at := func(i int) time.Time { return all[len(all)-1-i].CreatedAt } // all is newest first

			for _, tc := range []struct {
				name      string
				filter    store.Filter
				wantEmpty bool
			}{
				{name: "None", filter: store.Filter{}},
				{name: "Tool", filter: store.Filter{Tool: "read_file"}},
				{name: "Class", filter: store.Filter{Class: store.ClassCapability}},
				{name: "Code", filter: store.Filter{Code: "auth_required"}},
				{name: "TraceID", filter: store.Filter{TraceID: traceA}},
				{name: "Since", filter: store.Filter{Since: at(5)}},  // inclusive: record 5 is in
				{name: "Until", filter: store.Filter{Until: at(17)}}, // exclusive: record 17 is out
				{name: "SinceUntil", filter: store.Filter{Since: at(5), Until: at(17)}},
				{name: "ClassCode", filter: store.Filter{Class: store.ClassCapability, Code: "resource_not_found"}},
				{name: "ToolClass", filter: store.Filter{Tool: "send_email", Class: store.ClassReliability}},
				{name: "ToolTraceID", filter: store.Filter{Tool: "search", TraceID: traceB}},
				{name: "ToolSinceUntil", filter: store.Filter{Tool: "send_email", Since: at(3), Until: at(20)}},
				{name: "All", filter: store.Filter{
					Tool: "send_email", Class: store.ClassCapability, Code: "invalid_input",
					TraceID: traceA, Since: at(0), Until: at(23).Add(time.Microsecond),
				}},
				{name: "NoMatchTool", filter: store.Filter{Tool: "nope"}, wantEmpty: true},
				{name: "NoMatchCombination", filter: store.Filter{Class: store.ClassGovernance, Code: "invalid_input"}, wantEmpty: true},
				{name: "EmptyWindow", filter: store.Filter{Since: at(7), Until: at(7)}, wantEmpty: true},
				{name: "UntilBeforeSince", filter: store.Filter{Since: at(9), Until: at(2)}, wantEmpty: true},
			} {
				want := filterRecords(all, tc.filter)
				if tc.wantEmpty != (len(want) == 0) {
					t.Fatalf("%s: the dataset gives %d matches; fix the test data", tc.name, len(want))
				}
				got, err := b.store.ListFailures(b.ctx, b.tenant.ID,
					store.ListQuery{Filter: tc.filter, Limit: store.MaxListLimit})
				requireNoError(t, err)
				if !slices.Equal(idsOf(want), idsOf(got)) {
					t.Errorf("%s: got %d records %v,\nwant %d %v", tc.name, len(got), shortIDs(got), len(want), shortIDs(want))
				}
			}
		})

		t.Run("NewestFirst", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			var ids [][16]byte
			for range 10 {
				ids = append(ids, newID(t))
			}
			// Insert out of order: the listing must follow the IDs, not the insertion order.
			for _, i := range []int{3, 9, 0, 7, 1, 8, 2, 6, 4, 5} {
				f := minimalFailure(t, b.tenant.ID)
				f.ID = ids[i]
				insert(t, b.ctx, b.store, f)
			}
			slices.SortFunc(ids, func(a, b [16]byte) int { return bytes.Compare(b[:], a[:]) })
			got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
			requireNoError(t, err)
			requireIDs(t, ids, got)
		})

		t.Run("Paging", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			all := insertDataset(t, b.ctx, b.store, b.tenant.ID, 23)
			for _, limit := range []int{1, 2, 7, 23, 50} {
				pages := pageAll(t, b.ctx, b.store, b.tenant.ID, store.Filter{}, limit)
				requireIDs(t, idsOf(all), slices.Concat(pages...))
				if want := 23/limit + 1; len(pages) != want {
					t.Errorf("limit %d: %d requests, want %d (the last one empty or short)", limit, len(pages), want)
				}
			}
			// Paging with a filter pages through the filtered set only.
			filter := store.Filter{Tool: "send_email"}
			pages := pageAll(t, b.ctx, b.store, b.tenant.ID, filter, 2)
			requireIDs(t, idsOf(filterRecords(all, filter)), slices.Concat(pages...))
		})

		t.Run("PagingStableUnderInserts", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			all := insertDataset(t, b.ctx, b.store, b.tenant.ID, 10)
			first, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 4})
			requireNoError(t, err)
			// A newer record arrives between two pages: it belongs before the cursor, so the
			// remaining pages neither repeat nor skip anything.
			insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
			after := first[len(first)-1].ID
			rest, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 100, After: &after})
			requireNoError(t, err)
			requireIDs(t, idsOf(all), slices.Concat(first, rest))
		})

		t.Run("CursorBounds", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			all := insertDataset(t, b.ctx, b.store, b.tenant.ID, 5)
			var highest, lowest [16]byte
			for i := range highest {
				highest[i] = 0xff
			}
			got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{After: &highest})
			requireNoError(t, err)
			requireIDs(t, idsOf(all), got)
			got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{After: &lowest})
			requireNoError(t, err)
			requireIDs(t, nil, got)
			// A cursor need not be a stored ID: strictly older than it is all that counts.
			mid := all[2].ID
			mid[15]++
			got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{After: &mid})
			requireNoError(t, err)
			requireIDs(t, idsOf(all[2:]), got)
		})

		t.Run("LimitDefaults", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			all := insertDataset(t, b.ctx, b.store, b.tenant.ID, store.DefaultListLimit+1)
			for _, limit := range []int{0, -5} {
				got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: limit})
				requireNoError(t, err)
				requireIDs(t, idsOf(all[:store.DefaultListLimit]), got)
			}
			// Beyond the cap the limit is clamped, not refused.
			got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: store.MaxListLimit + 1})
			requireNoError(t, err)
			requireIDs(t, idsOf(all), got)
		})
	})

	t.Run("Idempotency", func(t *testing.T) {
		t.Parallel()

		t.Run("Sequential", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			first := fullFailure(t, b.tenant.ID)
			first.IdempotencyKey = "report-1"
			stored := insert(t, b.ctx, b.store, first)

			replay := minimalFailure(t, b.tenant.ID) // different ID and content, same key
			replay.IdempotencyKey = "report-1"
			again, created, err := b.store.InsertFailure(b.ctx, replay)
			requireNoError(t, err)
			if created {
				t.Fatal("created = true for a replayed idempotency key")
			}
			requireFailureEqual(t, stored, again)

			_, err = b.store.GetFailure(b.ctx, b.tenant.ID, replay.ID)
			requireErrorIs(t, err, store.ErrNotFound)

			other := minimalFailure(t, b.tenant.ID)
			other.IdempotencyKey = "report-2"
			insert(t, b.ctx, b.store, other)

			list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
			requireNoError(t, err)
			requireIDs(t, [][16]byte{other.ID, first.ID}, list)
		})

		t.Run("SameIDAndKeyIsReplay", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			f := fullFailure(t, b.tenant.ID)
			stored := insert(t, b.ctx, b.store, f)
			again, created, err := b.store.InsertFailure(b.ctx, f) // a client retrying verbatim
			requireNoError(t, err)
			if created {
				t.Fatal("created = true for a verbatim retry")
			}
			requireFailureEqual(t, stored, again)
		})

		t.Run("Concurrent", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			const n = 20
			var (
				results = make([]store.Failure, n)
				created = make([]bool, n)
				errs    = make([]error, n)
			)
			inputs := make([]store.Failure, n)
			for i := range inputs {
				inputs[i] = fullFailure(t, b.tenant.ID) // a distinct ID each, as separate callers would have
				inputs[i].IdempotencyKey = "racy"
				inputs[i].AgentGuidance = fmt.Sprintf("caller %d", i)
			}
			race(n, func(i int) {
				results[i], created[i], errs[i] = b.store.InsertFailure(b.ctx, inputs[i])
			})
			requireNoError(t, errors.Join(errs...))

			winners := 0
			for i := range n {
				if created[i] {
					winners++
				}
				requireFailureEqual(t, results[0], results[i])
			}
			if winners != 1 {
				t.Fatalf("%d callers were told they created the record, want exactly 1", winners)
			}
			list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
			requireNoError(t, err)
			requireIDs(t, [][16]byte{results[0].ID}, list)
		})

		t.Run("KeysArePerTenant", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			other, err := b.store.EnsureTenant(b.ctx, "globex")
			requireNoError(t, err)
			mine, theirs := minimalFailure(t, b.tenant.ID), minimalFailure(t, other.ID)
			mine.IdempotencyKey, theirs.IdempotencyKey = "shared", "shared"
			insert(t, b.ctx, b.store, mine)
			insert(t, b.ctx, b.store, theirs) // insert requires created=true
			for tenantID, id := range map[int64][16]byte{b.tenant.ID: mine.ID, other.ID: theirs.ID} {
				list, err := b.store.ListFailures(b.ctx, tenantID, store.ListQuery{})
				requireNoError(t, err)
				requireIDs(t, [][16]byte{id}, list)
			}
		})

		t.Run("NoKeyNeverDeduplicates", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			a, c := minimalFailure(t, b.tenant.ID), minimalFailure(t, b.tenant.ID)
			insert(t, b.ctx, b.store, a)
			insert(t, b.ctx, b.store, c)
		})
	})

	t.Run("Concurrency", func(t *testing.T) {
		t.Parallel()

		t.Run("InsertsLoseNothing", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			const writers, each = 16, 8
			inputs := make([]store.Failure, writers*each)
			for i := range inputs {
				inputs[i] = minimalFailure(t, b.tenant.ID)
			}
			errs := make([]error, writers)
			race(writers, func(w int) {
				for _, f := range inputs[w*each : (w+1)*each] {
					if _, _, err := b.store.InsertFailure(b.ctx, f); err != nil {
						errs[w] = err
						return
					}
				}
			})
			requireNoError(t, errors.Join(errs...))
			want := idsOf(inputs)
			slices.SortFunc(want, func(a, b [16]byte) int { return bytes.Compare(b[:], a[:]) })
			got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: store.MaxListLimit})
			requireNoError(t, err)
			requireIDs(t, want, got)
		})
	})

	t.Run("Rules", func(t *testing.T) {
		t.Parallel()
		runRules(t, h)
	})

	t.Run("Batching", func(t *testing.T) {
		t.Parallel()
		runBatching(t, h)
	})

	t.Run("Retention", func(t *testing.T) {
		t.Parallel()
		runRetention(t, h)
	})

	t.Run("Durability", func(t *testing.T) {
		t.Parallel()

		t.Run("SurvivesReopen", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
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
			again, created, err := s.InsertFailure(b.ctx, replay)
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
	})
}

// zone is a non-UTC offset for input times, so that returning them in UTC is actually tested. A
// fixed zone keeps the suite independent of the machine's time zone database.
var zone = time.FixedZone("UTC+05:30", 5*3600+30*60)

const (
	traceA = "4bf92f3577b34da6a3ce929d0e0e4736"
	traceB = "0af7651916cd43dd8448eb211c80319c"
	spanA  = "00f067aa0ba902b7"
)

func newID(t *testing.T) [16]byte {
	t.Helper()
	id, err := uuid.NewV7()
	requireNoError(t, err)
	return id
}

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// fullFailure returns a record with every field set to a non-zero value, with times in a non-UTC
// zone and at nanosecond precision.
func fullFailure(t *testing.T, tenantID int64) store.Failure {
	t.Helper()
	return store.Failure{
		TenantID:       tenantID,
		ID:             newID(t),
		Tool:           "send_email",
		Server:         "mail-mcp",
		Class:          store.ClassReliability,
		Code:           "retryable_transient_error",
		Retryable:      true,
		RetryNotBefore: time.Date(2025, 11, 30, 0, 26, 40, 123456789, zone),
		AgentGuidance:  "Wait 30 s, then retry the same call.",
		RuleID:         "mail-retry",
		RuleVersion:    7,
		Shadow:         json.RawMessage(`[{"ruleId": "mail-confirm", "class": "governance", "code": "user_action_required"}]`),
		Error: json.RawMessage(`{"message": "read tcp: connection reset by peer", "type": "ECONNRESET",
			"httpStatus": 503, "retryAfter": "30", "jsonrpcCode": -32001,
			"details": {"attempt": 2, "ratio": 0.25, "nested": {"ok": false, "list": [1, "x", null, {}]}},
			"attributes": {"db.response.status_code": "40001"}}`),
		ToolAnnotations: json.RawMessage(`{"idempotentHint": true, "readOnlyHint": false}`),
		TraceID:         traceA,
		SpanID:          spanA,
		IdempotencyKey:  "idem-" + uuid.UUID(newID(t)).String(),
		CreatedAt:       time.Date(2025, 11, 30, 0, 26, 10, 987654321, zone),
		OccurredAt:      time.Date(2025, 11, 30, 0, 26, 9, 555555555, zone),
	}
}

// minimalFailure returns a record with only the required fields set.
func minimalFailure(t *testing.T, tenantID int64) store.Failure {
	t.Helper()
	return store.Failure{
		TenantID: tenantID,
		ID:       newID(t),
		Tool:     "read_file",
		Class:    store.ClassCapability,
		Code:     "resource_not_found",
		Error:    json.RawMessage(`{"message":"no such file"}`),
	}
}

// expectStored is the contract's view of what a backend keeps of in: times truncated to
// microseconds and in UTC. Only for inputs whose CreatedAt and OccurredAt are set.
func expectStored(in store.Failure) store.Failure {
	us := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t.Truncate(time.Microsecond).UTC()
	}
	in.CreatedAt, in.OccurredAt, in.RetryNotBefore = us(in.CreatedAt), us(in.OccurredAt), us(in.RetryNotBefore)
	return in
}

// largeErrorJSON returns an error object of about size bytes whose bulk is a long message.
func largeErrorJSON(t *testing.T, size int) json.RawMessage {
	t.Helper()
	line := "Traceback (most recent call last): File \"tool.py\", line 42, in send — ошибка 错误 🔥\n"
	msg := strings.Repeat(line, size/len(line)+1)
	b, err := json.Marshal(map[string]any{
		"message": msg,
		"type":    "RuntimeError",
		"details": map[string]any{"frames": strings.Split(msg[:4096], "\n")},
	})
	requireNoError(t, err)
	if len(b) < size {
		t.Fatalf("largeErrorJSON: %d bytes, want at least %d", len(b), size)
	}
	return b
}

// insertDataset inserts n records spread over tools, outcomes, trace IDs and one-minute steps of
// CreatedAt, and returns them as stored, newest first.
func insertDataset(t *testing.T, ctx context.Context, s store.Store, tenantID int64, n int) []store.Failure {
	t.Helper()
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tools := []string{"send_email", "read_file", "search"}
	outcomes := []struct{ class, code string }{
		{store.ClassCapability, "invalid_input"},
		{store.ClassCapability, "resource_not_found"},
		{store.ClassReliability, "retryable_transient_error"},
		{store.ClassGovernance, "auth_required"},
	}
	traces := []string{traceA, traceB, ""}
	out := make([]store.Failure, 0, n)
	for i := range n {
		f := minimalFailure(t, tenantID)
		f.Tool = tools[i%len(tools)]
		f.Class, f.Code = outcomes[i%len(outcomes)].class, outcomes[i%len(outcomes)].code
		f.TraceID = traces[(i/2)%len(traces)]
		f.CreatedAt = base.Add(time.Duration(i) * time.Minute)
		out = append(out, insert(t, ctx, s, f))
	}
	slices.Reverse(out)
	return out
}

// filterRecords is the reference semantics of store.Filter, applied to records in memory.
func filterRecords(all []store.Failure, f store.Filter) []store.Failure {
	var out []store.Failure
	for _, r := range all {
		if (f.Tool == "" || r.Tool == f.Tool) &&
			(f.Class == "" || r.Class == f.Class) &&
			(f.Code == "" || r.Code == f.Code) &&
			(f.TraceID == "" || r.TraceID == strings.ToLower(f.TraceID)) &&
			(f.Since.IsZero() || !r.CreatedAt.Before(f.Since)) &&
			(f.Until.IsZero() || r.CreatedAt.Before(f.Until)) {
			out = append(out, r)
		}
	}
	return out
}

// pageAll follows the keyset cursor until a page comes back short, and returns every page,
// including that last one. It fails on a page that is longer than the limit or repeats a record.
func pageAll(t *testing.T, ctx context.Context, s store.Store, tenantID int64, f store.Filter, limit int) [][]store.Failure {
	t.Helper()
	var (
		pages [][]store.Failure
		after *[16]byte
		seen  = map[[16]byte]bool{}
	)
	for {
		page, err := s.ListFailures(ctx, tenantID, store.ListQuery{Filter: f, Limit: limit, After: after})
		requireNoError(t, err)
		if len(page) > limit {
			t.Fatalf("page of %d records for limit %d", len(page), limit)
		}
		for _, r := range page {
			if seen[r.ID] {
				t.Fatalf("limit %d: record %s on two pages", limit, uuid.UUID(r.ID))
			}
			seen[r.ID] = true
		}
		pages = append(pages, page)
		if len(page) < limit {
			return pages
		}
		if len(pages) > 1000 {
			t.Fatal("paging does not end")
		}
		last := page[len(page)-1].ID
		after = &last
	}
}

// race runs fn(0..n-1) in n goroutines released at the same moment, and waits for all of them.
func race(n int, fn func(i int)) {
	var (
		start = make(chan struct{})
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			<-start
			fn(i)
		})
	}
	close(start)
	wg.Wait()
}

func insert(t *testing.T, ctx context.Context, s store.Store, f store.Failure) store.Failure {
	t.Helper()
	stored, created, err := s.InsertFailure(ctx, f)
	requireNoError(t, err)
	if !created {
		t.Fatalf("InsertFailure(%s): created = false, want a new record", uuid.UUID(f.ID))
	}
	if stored.ID != f.ID {
		t.Fatalf("InsertFailure(%s) returned record %s", uuid.UUID(f.ID), uuid.UUID(stored.ID))
	}
	return stored
}

func idsOf(fs []store.Failure) [][16]byte {
	ids := make([][16]byte, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

// shortIDs abbreviates IDs to their random tail, which is what tells records apart in a message.
func shortIDs(fs []store.Failure) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		s := uuid.UUID(f.ID).String()
		out[i] = s[len(s)-6:]
	}
	return out
}

func requireIDs(t *testing.T, want [][16]byte, got []store.Failure) {
	t.Helper()
	if g := idsOf(got); !slices.Equal(want, g) {
		t.Fatalf("got %d records %v, want %d in this order:\n%v", len(g), fmtIDs(g), len(want), fmtIDs(want))
	}
}

func fmtIDs(ids [][16]byte) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = uuid.UUID(id).String()
	}
	return out
}

func requireNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func requireErrorIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func requireUTCMicro(t *testing.T, field string, v time.Time) {
	t.Helper()
	if v.Location() != time.UTC {
		t.Fatalf("%s = %v is in %v, want UTC", field, v, v.Location())
	}
	if v.Nanosecond()%1000 != 0 {
		t.Fatalf("%s = %v has sub-microsecond digits", field, v)
	}
}

func requireTenantEqual(t *testing.T, want, got store.Tenant) {
	t.Helper()
	if want.ID != got.ID || want.Name != got.Name || !want.CreatedAt.Equal(got.CreatedAt) {
		t.Fatalf("tenant = %+v, want %+v", got, want)
	}
	requireUTCMicro(t, "Tenant.CreatedAt", got.CreatedAt)
}

func requireAPIKeyEqual(t *testing.T, want, got store.APIKey) {
	t.Helper()
	if want.ID != got.ID || want.TenantID != got.TenantID || !bytes.Equal(want.Hash, got.Hash) ||
		!reflect.DeepEqual(want.Scopes, got.Scopes) || !want.CreatedAt.Equal(got.CreatedAt) {
		t.Fatalf("API key = %+v, want %+v", got, want)
	}
	requireUTCMicro(t, "APIKey.CreatedAt", got.CreatedAt)
}

// requireFailureEqual compares every field of two records, JSON by value, times as instants that
// must also be in UTC, and reports all differences at once.
func requireFailureEqual(t *testing.T, want, got store.Failure) {
	t.Helper()
	var diffs []string
	check := func(field string, ok bool, w, g any) {
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", field, g, w))
		}
	}
	checkTime := func(field string, w, g time.Time) {
		check(field, w.Equal(g), w, g)
		if !g.IsZero() && g.Location() != time.UTC {
			diffs = append(diffs, fmt.Sprintf("%s: %v is not in UTC", field, g))
		}
	}
	check("TenantID", want.TenantID == got.TenantID, want.TenantID, got.TenantID)
	check("ID", want.ID == got.ID, uuid.UUID(want.ID), uuid.UUID(got.ID))
	check("Tool", want.Tool == got.Tool, want.Tool, got.Tool)
	check("Server", want.Server == got.Server, want.Server, got.Server)
	check("Class", want.Class == got.Class, want.Class, got.Class)
	check("Code", want.Code == got.Code, want.Code, got.Code)
	check("Retryable", want.Retryable == got.Retryable, want.Retryable, got.Retryable)
	checkTime("RetryNotBefore", want.RetryNotBefore, got.RetryNotBefore)
	check("AgentGuidance", want.AgentGuidance == got.AgentGuidance, want.AgentGuidance, got.AgentGuidance)
	check("RuleID", want.RuleID == got.RuleID, want.RuleID, got.RuleID)
	check("RuleVersion", want.RuleVersion == got.RuleVersion, want.RuleVersion, got.RuleVersion)
	check("Shadow", jsonEqual(want.Shadow, got.Shadow), abbrev(want.Shadow), abbrev(got.Shadow))
	check("Error", jsonEqual(want.Error, got.Error), abbrev(want.Error), abbrev(got.Error))
	check("ToolAnnotations", jsonEqual(want.ToolAnnotations, got.ToolAnnotations),
		abbrev(want.ToolAnnotations), abbrev(got.ToolAnnotations))
	check("TraceID", want.TraceID == got.TraceID, want.TraceID, got.TraceID)
	check("SpanID", want.SpanID == got.SpanID, want.SpanID, got.SpanID)
	check("IdempotencyKey", want.IdempotencyKey == got.IdempotencyKey, want.IdempotencyKey, got.IdempotencyKey)
	checkTime("CreatedAt", want.CreatedAt, got.CreatedAt)
	checkTime("OccurredAt", want.OccurredAt, got.OccurredAt)
	if len(diffs) > 0 {
		t.Fatalf("failure %s differs:\n  %s", uuid.UUID(want.ID), strings.Join(diffs, "\n  "))
	}
}

// jsonEqual compares documents by value: backends may reorder keys and change whitespace (jsonb
// does), but must keep every value. nil (absent) equals only nil.
func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func abbrev(j json.RawMessage) string {
	if j == nil {
		return "<nil>"
	}
	if len(j) > 200 {
		return fmt.Sprintf("%s… (%d bytes)", j[:200], len(j))
	}
	return string(j)
}
