package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runFailures: records round-trip exactly as Prepare left them.
func runFailures(t *testing.T, h Harness) {
	t.Run("RoundTripEveryField", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		in := fullFailure(t, b.tenant.ID)
		want := expectStored(in)

		stored, created, err := Insert(b.ctx, b.store, in)
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
		b := setup(t, h)
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
		b := setup(t, h)
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
		b := setup(t, h)
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
		b := setup(t, h)
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
		b := setup(t, h)
		insert(t, b.ctx, b.store, minimalFailure(t, b.tenant.ID))
		_, err := b.store.GetFailure(b.ctx, b.tenant.ID, newID(t))
		requireErrorIs(t, err, store.ErrNotFound)
		_, err = b.store.GetFailure(b.ctx, b.tenant.ID+1000, newID(t))
		requireErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
		b := setup(t, h)
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
			_, _, err := Insert(b.ctx, b.store, f)
			if err == nil {
				t.Errorf("%s: InsertFailure succeeded, want an error", tc.name)
				continue
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%s: error %v, want %v", tc.name, err, tc.is)
			}
		}
		// Only store.Prepare makes a record that a store takes: the zero Prepared is refused.
		if _, _, err := b.store.InsertFailure(b.ctx, store.Prepared{}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("InsertFailure(zero Prepared): error %v, want %v", err, store.ErrInvalid)
		}
		list, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{})
		requireNoError(t, err)
		if len(list) != 0 {
			t.Fatalf("%d invalid records were stored", len(list))
		}
	})

	t.Run("DuplicateIDConflict", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		f := minimalFailure(t, b.tenant.ID)
		insert(t, b.ctx, b.store, f)
		_, _, err := Insert(b.ctx, b.store, f)
		requireErrorIs(t, err, store.ErrConflict)
	})

	t.Run("LargePayload", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		in := fullFailure(t, b.tenant.ID)
		in.Error = largeErrorJSON(t, 1<<20)
		insert(t, b.ctx, b.store, in)
		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, in.ID)
		requireNoError(t, err)
		requireFailureEqual(t, expectStored(in), got)
	})

	t.Run("Unicode", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
		b := setup(t, h)
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

		stored, created, err := Insert(b.ctx, b.store, in)
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
		list, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Filter: store.Filter{Server: in.Server}})
		requireNoError(t, err)
		requireIDs(t, [][16]byte{in.ID}, list)
		// The same idempotency key, NUL and all, finds the same record.
		again := minimalFailure(t, b.tenant.ID)
		again.IdempotencyKey = in.IdempotencyKey
		replay, created, err := Insert(b.ctx, b.store, again)
		requireNoError(t, err)
		if created || replay.ID != in.ID {
			t.Fatalf("replay with the same key: created=%v id=%x, want the first record", created, replay.ID)
		}
	})
}

// runList: filters and key-set paging, newest first.
func runList(t *testing.T, h Harness) {
	t.Run("Filters", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
			{name: "Server", filter: store.Filter{Server: "mail-mcp"}},
			{name: "ServerTool", filter: store.Filter{Server: "fs-mcp", Tool: "read_file"}},
			{name: "ServerCodeSince", filter: store.Filter{Server: "mail-mcp", Code: "auth_required", Since: at(4)}},
			{name: "All", filter: store.Filter{
				Tool: "send_email", Class: store.ClassCapability, Code: "invalid_input",
				TraceID: traceA, Server: "mail-mcp", Since: at(0), Until: at(23).Add(time.Microsecond),
			}},
			{name: "NoMatchTool", filter: store.Filter{Tool: "nope"}, wantEmpty: true},
			// A label differing only in case is another server, as the same tool name on two
			// servers is two tools.
			{name: "NoMatchServer", filter: store.Filter{Server: "MAIL-MCP"}, wantEmpty: true},
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

	t.Run("ServerFilterKeepsTenantsApart", func(t *testing.T) {
		t.Parallel()
		b := openTwoTenants(t, h)
		// Two tenants whose MCP servers carry the same label: the label narrows a tenant's
		// records and never reaches past them.
		var mine, theirs [][16]byte
		for i := range 3 {
			f := minimalFailure(t, b.tenant.ID)
			f.Server = "mail-mcp"
			mine = append(mine, insert(t, b.ctx, b.store, f).ID)
			g := minimalFailure(t, b.other.ID)
			g.Server = "mail-mcp"
			theirs = append(theirs, insert(t, b.ctx, b.store, g).ID)
			if i == 0 {
				o := minimalFailure(t, b.tenant.ID)
				o.Server = "fs-mcp"
				insert(t, b.ctx, b.store, o)
			}
		}
		slices.Reverse(mine)
		slices.Reverse(theirs)
		for _, tc := range []struct {
			tenant int64
			want   [][16]byte
		}{{b.tenant.ID, mine}, {b.other.ID, theirs}} {
			got, err := b.store.ListFailures(b.ctx, tc.tenant, store.ListQuery{Filter: store.Filter{Server: "mail-mcp"}})
			requireNoError(t, err)
			requireIDs(t, tc.want, got)
		}
	})

	t.Run("Nearby", func(t *testing.T) {
		t.Parallel()
		b := openTwoTenants(t, h)
		at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		add := func(tenant int64, server, tool, code string, d time.Duration) store.Failure {
			f := minimalFailure(t, tenant)
			f.Server, f.Tool, f.Code, f.CreatedAt = server, tool, code, at.Add(d)
			return insert(t, b.ctx, b.store, f)
		}
		// The same tool name on two MCP servers, and a record that carries no label.
		mail := add(b.tenant.ID, "mail-mcp", "search", "rate_limited", 0)
		mailLater := add(b.tenant.ID, "mail-mcp", "search", "rate_limited", 30*time.Minute)
		docs := add(b.tenant.ID, "docs-mcp", "search", "rate_limited", -10*time.Minute)
		bare := add(b.tenant.ID, "", "search", "rate_limited", 5*time.Minute)
		add(b.tenant.ID, "mail-mcp", "search", "rate_limited", 2*time.Hour)     // outside the hour
		add(b.tenant.ID, "mail-mcp", "search", "auth_required", time.Minute)    // another code
		add(b.tenant.ID, "mail-mcp", "send_email", "rate_limited", time.Minute) // another tool
		add(b.other.ID, "mail-mcp", "search", "rate_limited", time.Minute)      // another tenant
		nearby := func(f store.Failure) []store.Failure {
			t.Helper()
			got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Filter: store.NearbyFilter(f, time.Hour)})
			requireNoError(t, err)
			return got
		}
		// A labelled record's neighbours are its own server's: docs-mcp's search is another tool.
		requireIDs(t, [][16]byte{mailLater.ID, mail.ID}, nearby(mail))
		requireIDs(t, [][16]byte{docs.ID}, nearby(docs))
		// A record without a label could have come from any server, so nothing narrows it.
		// (Newest ID first, and IDs follow the order of insertion, not CreatedAt.)
		requireIDs(t, [][16]byte{bare.ID, docs.ID, mailLater.ID, mail.ID}, nearby(bare))
	})

	t.Run("NewestFirst", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
		b := setup(t, h)
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
		b := setup(t, h)
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
		b := setup(t, h)
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
		// A cursor need not be a stored ID: strictly older than it is all that counts. The
		// cursor is the next 128-bit value after all[2].ID, carried past a last byte of 0xff.
		mid := all[2].ID
		for i := len(mid) - 1; i >= 0; i-- {
			mid[i]++
			if mid[i] != 0 {
				break
			}
		}
		got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{After: &mid})
		requireNoError(t, err)
		requireIDs(t, idsOf(all[2:]), got)
	})

	t.Run("ByteBudget", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		// Six records of about 10 KB, newest first, then 20 small ones below them.
		var large []store.Failure
		for range 6 {
			f := minimalFailure(t, b.tenant.ID)
			f.Error = largeErrorJSON(t, 10_000)
			large = append(large, insert(t, b.ctx, b.store, f))
		}
		slices.Reverse(large)
		size := store.RecordSize(large[0])
		for _, f := range large {
			if store.RecordSize(f) != size {
				t.Fatalf("records of one shape have sizes %d and %d", size, store.RecordSize(f))
			}
		}
		// Two records fit in two and a half records' budget; the third is returned as the one
		// that did not fit, and nothing after it is read.
		got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 100, MaxBytes: size * 5 / 2})
		requireNoError(t, err)
		requireIDs(t, idsOf(large[:3]), got)
		if n, more := store.PageEnd(got, 99, size*5/2); n != 2 || !more {
			t.Fatalf("PageEnd = %d, %v; want 2 records and more", n, more)
		}
		// A budget smaller than one record: that record alone, and the next one to say more follow.
		got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 100, MaxBytes: 1})
		requireNoError(t, err)
		requireIDs(t, idsOf(large[:2]), got)
		if n, more := store.PageEnd(got, 99, 1); n != 1 || !more {
			t.Fatalf("PageEnd = %d, %v; want 1 record and more", n, more)
		}
		// The limit still counts, and a budget that holds everything changes nothing: a long page
		// is read whole (in chunks, on a backend that reads that way).
		got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 4, MaxBytes: 1 << 30})
		requireNoError(t, err)
		requireIDs(t, idsOf(large[:4]), got)
		small := insertDataset(t, b.ctx, b.store, b.tenant.ID, 20)
		all := slices.Concat(small, large) // the dataset's times are older, but its IDs are newer
		got, err = b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 25, MaxBytes: 1 << 30})
		requireNoError(t, err)
		requireIDs(t, idsOf(all[:25]), got)
		// Paging as a server does, with the budget's pages, returns every record once, in order.
		var (
			paged []store.Failure
			after *[16]byte
		)
		for range len(all) + 1 {
			rows, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Limit: 8, After: after, MaxBytes: size * 2})
			requireNoError(t, err)
			n, more := store.PageEnd(rows, 7, size*2)
			paged = append(paged, rows[:n]...)
			if !more {
				break
			}
			last := rows[n-1].ID
			after = &last
		}
		requireIDs(t, idsOf(all), paged)
	})

	t.Run("LimitDefaults", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
}

// runIdempotency: one record per idempotency key, whoever races for it.
func runIdempotency(t *testing.T, h Harness) {
	t.Run("Sequential", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		first := fullFailure(t, b.tenant.ID)
		first.IdempotencyKey = "report-1"
		stored := insert(t, b.ctx, b.store, first)

		replay := minimalFailure(t, b.tenant.ID) // different ID and content, same key
		replay.IdempotencyKey = "report-1"
		again, created, err := Insert(b.ctx, b.store, replay)
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
		b := setup(t, h)
		f := fullFailure(t, b.tenant.ID)
		stored := insert(t, b.ctx, b.store, f)
		again, created, err := Insert(b.ctx, b.store, f) // a client retrying verbatim
		requireNoError(t, err)
		if created {
			t.Fatal("created = true for a verbatim retry")
		}
		requireFailureEqual(t, stored, again)
	})

	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
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
			results[i], created[i], errs[i] = Insert(b.ctx, b.store, inputs[i])
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
		b := setup(t, h)
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
		b := setup(t, h)
		a, c := minimalFailure(t, b.tenant.ID), minimalFailure(t, b.tenant.ID)
		insert(t, b.ctx, b.store, a)
		insert(t, b.ctx, b.store, c)
	})
}

// runConcurrency: concurrent writers and readers see whole records.
func runConcurrency(t *testing.T, h Harness) {
	t.Run("InsertsLoseNothing", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		const writers, each = 16, 8
		inputs := make([]store.Failure, writers*each)
		for i := range inputs {
			inputs[i] = minimalFailure(t, b.tenant.ID)
		}
		errs := make([]error, writers)
		race(writers, func(w int) {
			for _, f := range inputs[w*each : (w+1)*each] {
				if _, _, err := Insert(b.ctx, b.store, f); err != nil {
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
}
