package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// groupRecord is a record of tool whose message is msg, created at.
func groupRecord(t *testing.T, tenantID int64, tool, msg string, at time.Time) store.Failure {
	t.Helper()
	e, err := json.Marshal(map[string]any{"message": msg, "httpStatus": 404})
	requireNoError(t, err)
	return store.Failure{
		TenantID: tenantID, ID: newID(t), Tool: tool, Class: store.ClassCapability,
		Code: "resource_not_found", Error: e, CreatedAt: at,
	}
}

// runGroups is the part of the suite about fingerprints and groups: the fingerprint every record
// gets, filter.fingerprint, ListGroups' counts, orders, filters and pages, exact counts under
// concurrent inserts, limits, and tenant isolation.
func runGroups(t *testing.T, h Harness) {
	setup := func(t *testing.T) *twoTenants { return openTwoTenants(t, h) }
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Second).UTC()
	window := func() store.GroupFilter {
		return store.GroupFilter{Since: base.Add(-time.Hour), Until: base.Add(3 * time.Hour)}
	}

	t.Run("EveryRecordHasAFingerprint", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		a := insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", "order 12 not found", base))
		a2 := insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", "order 98765 not found", base))
		c := insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", "order 12 not shipped", base))
		want := store.FingerprintOf("get_order", a.Error)
		if len(want) != 16 || a.Fingerprint != want {
			t.Fatalf("stored fingerprint %q, want %q", a.Fingerprint, want)
		}
		got, err := b.store.GetFailure(b.ctx, b.tenant.ID, a.ID)
		requireNoError(t, err)
		if got.Fingerprint != want || a2.Fingerprint != want {
			t.Fatalf("read back %q and %q, want %q for both", got.Fingerprint, a2.Fingerprint, want)
		}
		if c.Fingerprint == want {
			t.Fatal("a different template got the same fingerprint")
		}
		// A fingerprint the caller computed is kept as given.
		f := groupRecord(t, b.tenant.ID, "get_order", "anything", base)
		f.Fingerprint = "00000000000000ff"
		if s := insert(t, b.ctx, b.store, f); s.Fingerprint != f.Fingerprint {
			t.Fatalf("given fingerprint %q stored as %q", f.Fingerprint, s.Fingerprint)
		}
		f = groupRecord(t, b.tenant.ID, "get_order", "anything", base)
		f.Fingerprint = "XYZ"
		if _, _, err := Insert(b.ctx, b.store, f); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("malformed fingerprint: err = %v, want ErrInvalid", err)
		}
		// The high bit set: stored as a negative integer, read back as the same text.
		f = groupRecord(t, b.tenant.ID, "get_order", "anything", base)
		f.Fingerprint = "ffffffffffffff00"
		s := insert(t, b.ctx, b.store, f)
		got, err = b.store.GetFailure(b.ctx, b.tenant.ID, s.ID)
		requireNoError(t, err)
		if got.Fingerprint != f.Fingerprint {
			t.Fatalf("read back %q, want %q", got.Fingerprint, f.Fingerprint)
		}
	})

	t.Run("FilterByFingerprint", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var want []store.Failure
		for i := range 3 {
			want = append(want, insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", fmt.Sprintf("order %d not found", i), base)))
			insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", fmt.Sprintf("invoice %d not found", i), base))
		}
		got, err := b.store.ListFailures(b.ctx, b.tenant.ID, store.ListQuery{Filter: store.Filter{Fingerprint: want[0].Fingerprint}})
		requireNoError(t, err)
		requireIDs(t, [][16]byte{want[2].ID, want[1].ID, want[0].ID}, got)
		got, err = b.store.ListFailures(b.ctx, b.other.ID, store.ListQuery{Filter: store.Filter{Fingerprint: want[0].Fingerprint}})
		requireNoError(t, err)
		if len(got) != 0 {
			t.Fatalf("other tenant sees %d records of the fingerprint", len(got))
		}
	})

	// fill writes 5 records of group A, 3 of B (the last of them the newest record of all), 1 of C,
	// and one of A outside the window.
	type filled struct{ a, b, c []store.Failure }
	fill := func(t *testing.T, bb *twoTenants) filled {
		var f filled
		for i := range 5 {
			f.a = append(f.a, insert(t, bb.ctx, bb.store, groupRecord(t, bb.tenant.ID, "get_order", fmt.Sprintf("order %d not found", i), base.Add(time.Duration(i)*time.Minute))))
		}
		f.c = append(f.c, insert(t, bb.ctx, bb.store, groupRecord(t, bb.tenant.ID, "get_user", "user 1 not found", base.Add(30*time.Minute))))
		for i := range 3 {
			f.b = append(f.b, insert(t, bb.ctx, bb.store, groupRecord(t, bb.tenant.ID, "get_order", fmt.Sprintf("invoice %d not found", i), base.Add(time.Duration(40+i)*time.Minute))))
		}
		insert(t, bb.ctx, bb.store, groupRecord(t, bb.tenant.ID, "get_order", "order 7 not found", base.Add(-2*time.Hour)))
		return f
	}
	checkGroup := func(t *testing.T, g store.Group, recs []store.Failure) {
		t.Helper()
		last := recs[len(recs)-1]
		if g.Fingerprint != last.Fingerprint || g.Count != int64(len(recs)) ||
			!g.FirstSeen.Equal(recs[0].CreatedAt) || !g.LastSeen.Equal(last.CreatedAt) || g.Sample.ID != last.ID {
			t.Fatalf("group %+v, want fingerprint %s, count %d, first %v, last %v, sample %x",
				g, last.Fingerprint, len(recs), recs[0].CreatedAt, last.CreatedAt, last.ID)
		}
		requireFailureEqual(t, last, g.Sample)
	}

	t.Run("CountsAndOrders", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := fill(t, b)
		groups, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: window()})
		requireNoError(t, err)
		if len(groups) != 3 {
			t.Fatalf("%d groups, want 3: %+v", len(groups), groups)
		}
		checkGroup(t, groups[0], f.a)
		checkGroup(t, groups[1], f.b)
		checkGroup(t, groups[2], f.c)
		groups, err = b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: window(), OrderBy: store.GroupsByLastSeen})
		requireNoError(t, err)
		if len(groups) != 3 {
			t.Fatalf("%d groups, want 3", len(groups))
		}
		checkGroup(t, groups[0], f.b)
		checkGroup(t, groups[1], f.c)
		checkGroup(t, groups[2], f.a)
	})

	t.Run("Filters", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := fill(t, b)
		// Decided by a rule: no longer unclassified.
		r := groupRecord(t, b.tenant.ID, "get_user", "user 2 not found", base.Add(31*time.Minute))
		r.RuleID, r.Class, r.Code = "users", store.ClassGovernance, "auth_required"
		ruled := insert(t, b.ctx, b.store, r)
		// Decided by the default and by the model: unclassified, in group C.
		for _, id := range store.UnclassifiedRuleIDs[1:] {
			r := groupRecord(t, b.tenant.ID, "get_user", "user 3 not found", base.Add(32*time.Minute))
			r.RuleID = id
			f.c = append(f.c, insert(t, b.ctx, b.store, r))
		}
		count := func(fl store.GroupFilter) map[string]int64 {
			t.Helper()
			groups, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: fl})
			requireNoError(t, err)
			out := map[string]int64{}
			for _, g := range groups {
				out[g.Fingerprint] = g.Count
			}
			return out
		}
		w := window()
		w.Tool = "get_user"
		if got := count(w); len(got) != 1 || got[f.c[0].Fingerprint] != int64(len(f.c))+1 {
			t.Fatalf("tool filter: %v", got)
		}
		w = window()
		w.Unclassified = true
		if got := count(w); len(got) != 3 || got[f.c[0].Fingerprint] != int64(len(f.c)) || got[f.a[0].Fingerprint] != 5 {
			t.Fatalf("unclassified filter: %v", got)
		}
		w = window()
		w.Class, w.Code = store.ClassGovernance, "auth_required"
		if got := count(w); len(got) != 1 || got[ruled.Fingerprint] != 1 {
			t.Fatalf("class and code filter: %v", got)
		}
		w = window()
		w.Since = base.Add(35 * time.Minute)
		if got := count(w); len(got) != 1 || got[f.b[0].Fingerprint] != 3 {
			t.Fatalf("window: %v", got)
		}
		w = window()
		w.Since, w.Until = base.Add(-3*time.Hour), base.Add(-time.Hour)
		if got := count(w); len(got) != 1 || got[f.a[0].Fingerprint] != 1 {
			t.Fatalf("old window: %v", got)
		}
	})

	t.Run("FilterByServer", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// One problem reported by two MCP servers is one group (the fingerprint leaves the server
		// out); the server filter counts only its own server's records, and its sample is one of
		// them even when the other server's record is newer.
		rec := func(tenant int64, server, msg string, minute int) store.Failure {
			r := groupRecord(t, tenant, "search", msg, base.Add(time.Duration(minute)*time.Minute))
			r.Server = server
			return insert(t, b.ctx, b.store, r)
		}
		mail := []store.Failure{rec(b.tenant.ID, "mail-mcp", "index 1 not found", 1), rec(b.tenant.ID, "mail-mcp", "index 2 not found", 2)}
		docs := rec(b.tenant.ID, "docs-mcp", "index 3 not found", 3)
		mailOnly := []store.Failure{rec(b.tenant.ID, "mail-mcp", "shard 1 not found", 4)}
		rec(b.tenant.ID, "", "index 4 not found", 5)
		// Another tenant's records from a server of the same label count for nobody else.
		for i := range 4 {
			rec(b.other.ID, "mail-mcp", fmt.Sprintf("index %d not found", i), 6+i)
		}
		if docs.Fingerprint != mail[0].Fingerprint || mailOnly[0].Fingerprint == mail[0].Fingerprint {
			t.Fatal("the test's records do not group as intended")
		}
		list := func(server string) []store.Group {
			t.Helper()
			w := window()
			w.Server = server
			groups, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: w})
			requireNoError(t, err)
			return groups
		}
		if all := list(""); len(all) != 2 || all[0].Fingerprint != mail[0].Fingerprint || all[0].Count != 4 {
			t.Fatalf("without the filter: %+v, want the shared group first with 4 records", all)
		}
		groups := list("mail-mcp")
		if len(groups) != 2 {
			t.Fatalf("mail-mcp: %d groups, want 2: %+v", len(groups), groups)
		}
		checkGroup(t, groups[0], mail)
		checkGroup(t, groups[1], mailOnly)
		groups = list("docs-mcp")
		if len(groups) != 1 {
			t.Fatalf("docs-mcp: %d groups, want 1: %+v", len(groups), groups)
		}
		checkGroup(t, groups[0], []store.Failure{docs})
		if groups := list("nope-mcp"); len(groups) != 0 {
			t.Fatalf("an unknown server: %d groups", len(groups))
		}
		w := window()
		w.Server = "mail-mcp"
		theirs, err := b.store.ListGroups(b.ctx, b.other.ID, store.GroupQuery{Filter: w})
		requireNoError(t, err)
		if len(theirs) != 1 || theirs[0].Count != 4 || theirs[0].Sample.TenantID != b.other.ID {
			t.Fatalf("the other tenant's mail-mcp groups: %+v, want its own one group of 4", theirs)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// 7 groups of counts 1, 1, 2, 2, 3, 3, 3: ties in count are broken by fingerprint.
		want := map[string]int64{}
		for g, n := range []int{1, 1, 2, 2, 3, 3, 3} {
			for i := range n {
				s := insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, fmt.Sprintf("tool_%d", g), fmt.Sprintf("x %d", i), base.Add(time.Duration(g*10+i)*time.Second)))
				want[s.Fingerprint] = int64(n)
			}
		}
		for _, order := range []string{store.GroupsByCount, store.GroupsByLastSeen} {
			got := map[string]int64{}
			var after *store.GroupCursor
			var prev *store.Group
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatal("paging does not end")
				}
				groups, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: window(), OrderBy: order, Limit: 2, After: after})
				requireNoError(t, err)
				for i := range groups {
					g := groups[i]
					if _, dup := got[g.Fingerprint]; dup {
						t.Fatalf("%s: group %s on two pages", order, g.Fingerprint)
					}
					got[g.Fingerprint] = g.Count
					if prev != nil && order == store.GroupsByCount && prev.Count < g.Count {
						t.Fatalf("%s: count %d after %d", order, g.Count, prev.Count)
					}
					if prev != nil && order == store.GroupsByLastSeen && prev.LastSeen.Before(g.LastSeen) {
						t.Fatalf("%s: last seen %v after %v", order, g.LastSeen, prev.LastSeen)
					}
					prev = &g
				}
				if len(groups) < 2 {
					break
				}
				last := groups[len(groups)-1]
				after = &store.GroupCursor{Count: last.Count, LastSeen: last.LastSeen, Fingerprint: last.Fingerprint}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: paged groups %v, want %v", order, got, want)
			}
		}
	})

	t.Run("CountsExactUnderConcurrentInserts", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const n = 120
		errs := make([]error, n)
		fps := make([]string, n)
		race(n, func(i int) {
			f := groupRecord(t, b.tenant.ID, "get_order", fmt.Sprintf("%s %d not found", []string{"order", "invoice", "parcel"}[i%3], i), base.Add(time.Duration(i)*time.Millisecond))
			var s store.Failure
			s, _, errs[i] = Insert(b.ctx, b.store, f)
			fps[i] = s.Fingerprint
			if i%10 == 0 {
				// Readers meanwhile see consistent, if partial, counts, or are told to retry (a
				// journal holding records that are not in the store yet says so).
				if _, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: window()}); err != nil && !errors.Is(err, store.ErrUnavailable) {
					errs[i] = err
				}
			}
		})
		requireNoError(t, errors.Join(errs...))
		groups, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: window()})
		requireNoError(t, err)
		if len(groups) != 3 {
			t.Fatalf("%d groups, want 3", len(groups))
		}
		for _, g := range groups {
			if g.Count != n/3 {
				t.Fatalf("group %s has count %d, want %d", g.Fingerprint, g.Count, n/3)
			}
			got, err := b.store.GetGroup(b.ctx, b.tenant.ID, g.Fingerprint, window().Since, window().Until)
			requireNoError(t, err)
			if got.Count != n/3 {
				t.Fatalf("GetGroup count %d, want %d", got.Count, n/3)
			}
		}
	})

	t.Run("GetGroup", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := fill(t, b)
		w := window()
		g, err := b.store.GetGroup(b.ctx, b.tenant.ID, f.a[0].Fingerprint, w.Since, w.Until)
		requireNoError(t, err)
		checkGroup(t, g, f.a)
		if _, err := b.store.GetGroup(b.ctx, b.tenant.ID, "0123456789abcdef", w.Since, w.Until); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown fingerprint: err = %v, want ErrNotFound", err)
		}
		if _, err := b.store.GetGroup(b.ctx, b.tenant.ID, "nothex", w.Since, w.Until); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("malformed fingerprint: err = %v, want ErrInvalid", err)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := fill(t, b)
		w := window()
		groups, err := b.store.ListGroups(b.ctx, b.other.ID, store.GroupQuery{Filter: w})
		requireNoError(t, err)
		if len(groups) != 0 {
			t.Fatalf("other tenant sees %d groups", len(groups))
		}
		if _, err := b.store.GetGroup(b.ctx, b.other.ID, f.a[0].Fingerprint, w.Since, w.Until); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other tenant's fingerprint: err = %v, want ErrNotFound", err)
		}
	})

	t.Run("Hours", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		f := fill(t, b) // A at base+0..4 min, C at base+30 min, B at base+40..42 min
		late := insert(t, b.ctx, b.store, groupRecord(t, b.tenant.ID, "get_order", "order 9 not found", base.Add(90*time.Minute)))
		hours, err := b.store.GroupHours(b.ctx, b.tenant.ID, []string{f.a[0].Fingerprint, f.b[0].Fingerprint, "0123456789abcdef"}, base, base.Add(3*time.Hour))
		requireNoError(t, err)
		if len(hours) != 2 || fmt.Sprint(hours[late.Fingerprint]) != "[5 1 0]" || fmt.Sprint(hours[f.b[0].Fingerprint]) != "[3 0 0]" {
			t.Fatalf("hours = %v", hours)
		}
		other, err := b.store.GroupHours(b.ctx, b.other.ID, []string{f.a[0].Fingerprint}, base, base.Add(3*time.Hour))
		requireNoError(t, err)
		if len(other) != 0 {
			t.Fatalf("other tenant's hours = %v", other)
		}
		if _, err := b.store.GroupHours(b.ctx, b.tenant.ID, []string{"bad"}, base, base.Add(time.Hour)); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("malformed fingerprint: %v", err)
		}
	})

	t.Run("WindowLimits", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		now := time.Now()
		for name, fl := range map[string]store.GroupFilter{
			"ten years": {Since: now.AddDate(-10, 0, 0), Until: now},
			"reversed":  {Since: now, Until: now.Add(-time.Hour)},
			"no since":  {Until: now},
		} {
			if _, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: fl}); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%s: ListGroups err = %v, want ErrInvalid", name, err)
			}
			if _, err := b.store.GetGroup(b.ctx, b.tenant.ID, "0123456789abcdef", fl.Since, fl.Until); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%s: GetGroup err = %v, want ErrInvalid", name, err)
			}
		}
		if _, err := b.store.ListGroups(b.ctx, b.tenant.ID, store.GroupQuery{Filter: store.GroupFilter{Since: now.Add(-store.MaxGroupWindow), Until: now}}); err != nil {
			t.Fatalf("a window of exactly the maximum: %v", err)
		}
	})
}
