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
	for _, area := range []struct {
		name string
		run  func(*testing.T, Harness)
	}{
		{"Migrate", runMigrate},
		{"Ping", runPing},
		{"Tenants", runTenants},
		{"APIKeys", runAPIKeys},
		{"APIKeyLifecycle", runAPIKeyLifecycle},
		{"Sessions", runSessions},
		{"Failures", runFailures},
		{"List", runList},
		{"Idempotency", runIdempotency},
		{"SameCall", runSameCall},
		{"Concurrency", runConcurrency},
		{"Rules", runRules},
		{"Batching", runBatching},
		{"Groups", runGroups},
		{"Retention", runRetention},
		{"Durability", runDurability},
		{"RuleWatch", runRuleWatch},
	} {
		t.Run(area.name, func(t *testing.T) {
			t.Parallel()
			area.run(t, h)
		})
	}
}

// testBundle is one test's store and tenant.
type testBundle struct {
	ctx    context.Context
	store  store.Store
	tenant store.Tenant // "acme", created by setup
}

// setup opens a store for one test, with tenant "acme".
func setup(t *testing.T, h Harness) *testBundle {
	t.Helper()
	s := h.Open(t)
	tenant, err := s.EnsureTenant(t.Context(), "acme")
	requireNoError(t, err)
	return &testBundle{ctx: t.Context(), store: s, tenant: tenant}
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
	// Servers change every four records, so that each server has records of every tool and
	// outcome, and some records have no label.
	servers := []string{"mail-mcp", "fs-mcp", ""}
	out := make([]store.Failure, 0, n)
	for i := range n {
		f := minimalFailure(t, tenantID)
		f.Tool = tools[i%len(tools)]
		f.Server = servers[(i/4)%len(servers)]
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
			(f.Server == "" || r.Server == f.Server) &&
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

// Inserter is the store.Store method that Insert calls.
type Inserter interface {
	InsertFailure(ctx context.Context, p store.Prepared) (store.Failure, bool, error)
}

// Insert does what every caller of a store does with a record: store.Prepare, on the caller's
// goroutine, then InsertFailure. The error is either's, so that a test can send a record that
// Prepare refuses where a caller could.
func Insert(ctx context.Context, s Inserter, f store.Failure) (store.Failure, bool, error) {
	p, err := store.Prepare(f)
	if err != nil {
		return store.Failure{}, false, err
	}
	return s.InsertFailure(ctx, p)
}

func insert(t *testing.T, ctx context.Context, s store.Store, f store.Failure) store.Failure {
	t.Helper()
	stored, created, err := Insert(ctx, s, f)
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
	check("SameCallAs", want.SameCallAs == got.SameCallAs, uuid.UUID(want.SameCallAs), uuid.UUID(got.SameCallAs))
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
