package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/omcp/toolfailure/store"
)

// twoTenants is a fresh store with two tenants, for the parts of the suite that check that one
// tenant's data never shows through to the other.
type twoTenants struct {
	ctx    context.Context
	store  store.Store
	tenant store.Tenant
	other  store.Tenant
}

func openTwoTenants(t *testing.T, h Harness) *twoTenants {
	t.Helper()
	s := h.Open(t)
	tenant, err := s.EnsureTenant(t.Context(), "acme")
	requireNoError(t, err)
	other, err := s.EnsureTenant(t.Context(), "globex")
	requireNoError(t, err)
	return &twoTenants{ctx: t.Context(), store: s, tenant: tenant, other: other}
}

// runRules is the part of the suite about tenant rules: versions, atomic replacement, the diff,
// optimistic concurrency, and tenant isolation.
func runRules(t *testing.T, h Harness) {
	setup := func(t *testing.T) *twoTenants { return openTwoTenants(t, h) }

	t.Run("EmptySetIsVersionZero", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		set, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if set.Version != 0 || len(set.Rules) != 0 {
			t.Fatalf("ListRules = %+v, want version 0 and no rules", set)
		}
		v, err := b.store.RuleSetVersion(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if v != 0 {
			t.Fatalf("RuleSetVersion = %d, want 0", v)
		}
		_, err = b.store.GetRule(b.ctx, b.tenant.ID, "missing")
		requireErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("ReplaceListsInEvaluationOrder", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		in := []store.Rule{rule("b", 10), rule("a", 10), rule("Z", 10), rule("low", -5), rule("high", 100)}
		v, changes, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, in, nil)
		requireNoError(t, err)
		if v != 1 {
			t.Fatalf("version = %d, want 1", v)
		}
		requireChanges(t, changes, "Z added", "a added", "b added", "high added", "low added")
		set, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		// Priority descending, then name in byte order: "Z" (0x5a) before "a" (0x61).
		requireRuleNames(t, set.Rules, "high", "Z", "a", "b", "low")
		if set.Version != 1 {
			t.Fatalf("set version = %d, want 1", set.Version)
		}
		for _, r := range set.Rules {
			requireRuleEqual(t, in[slices.IndexFunc(in, func(x store.Rule) bool { return x.Name == r.Name })], r)
			if r.Version != 1 || r.TenantID != b.tenant.ID {
				t.Fatalf("rule %s: version %d tenant %d, want 1 and %d", r.Name, r.Version, r.TenantID, b.tenant.ID)
			}
			requireUTCMicro(t, "Rule.UpdatedAt", r.UpdatedAt)
		}
	})

	t.Run("ReplaceDiffKeepsUnchangedRules", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("keep", 1), rule("change", 1), rule("drop", 1)}, nil)
		requireNoError(t, err)
		before, err := b.store.GetRule(b.ctx, b.tenant.ID, "keep")
		requireNoError(t, err)

		// The same spec with other key order and whitespace is unchanged.
		keep := rule("keep", 1)
		keep.Spec = json.RawMessage(`{ "then": {"code":"c", "class":"capability"},  "name":"keep", "priority": 1 }`)
		changed := rule("change", 2)
		v, changes, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{keep, changed, rule("new", 1)}, nil)
		requireNoError(t, err)
		if v != 2 {
			t.Fatalf("version = %d, want 2", v)
		}
		requireChanges(t, changes, "change changed", "drop removed", "keep unchanged", "new added")
		after, err := b.store.GetRule(b.ctx, b.tenant.ID, "keep")
		requireNoError(t, err)
		if after.Version != 1 || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("unchanged rule: version %d updated %v, want 1 and %v", after.Version, after.UpdatedAt, before.UpdatedAt)
		}
		got, err := b.store.GetRule(b.ctx, b.tenant.ID, "change")
		requireNoError(t, err)
		if got.Version != 2 || got.Priority != 2 {
			t.Fatalf("changed rule: version %d priority %d, want 2 and 2", got.Version, got.Priority)
		}
		_, err = b.store.GetRule(b.ctx, b.tenant.ID, "drop")
		requireErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("ReplaceWithNoChangeKeepsVersion", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		rules := []store.Rule{rule("a", 1), rule("b", 2)}
		v1, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, rules, nil)
		requireNoError(t, err)
		v2, changes, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, rules, nil)
		requireNoError(t, err)
		if v1 != 1 || v2 != 1 {
			t.Fatalf("versions = %d, %d, want 1, 1", v1, v2)
		}
		requireChanges(t, changes, "a unchanged", "b unchanged")
	})

	t.Run("ReplaceWithEmptySetRemovesAll", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("a", 1)}, nil)
		requireNoError(t, err)
		v, changes, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, nil, nil)
		requireNoError(t, err)
		requireChanges(t, changes, "a removed")
		set, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if v != 2 || set.Version != 2 || len(set.Rules) != 0 {
			t.Fatalf("after removing all: version %d, set %+v; want 2 and empty", v, set)
		}
	})

	t.Run("ExpectedVersion", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		zero := int64(0)
		v, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("a", 1)}, &zero)
		requireNoError(t, err)
		if v != 1 {
			t.Fatalf("version = %d, want 1", v)
		}
		_, _, err = b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("b", 1)}, &zero)
		requireErrorIs(t, err, store.ErrConflict)
		set, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		requireRuleNames(t, set.Rules, "a")
		one := int64(1)
		v, _, err = b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("b", 1)}, &one)
		requireNoError(t, err)
		if v != 2 {
			t.Fatalf("version = %d, want 2", v)
		}
	})

	t.Run("DuplicateNamesConflict", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("a", 1), rule("a", 2)}, nil)
		requireErrorIs(t, err, store.ErrConflict)
		v, err := b.store.RuleSetVersion(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if v != 0 {
			t.Fatalf("version = %d after a refused replace, want 0", v)
		}
	})

	t.Run("CreateGetUpdateDelete", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := rule("one", 5)
		r.TenantID = b.tenant.ID
		created, err := b.store.CreateRule(b.ctx, r)
		requireNoError(t, err)
		if created.Version != 1 {
			t.Fatalf("created version = %d, want 1", created.Version)
		}
		requireRuleEqual(t, r, created)
		got, err := b.store.GetRule(b.ctx, b.tenant.ID, "one")
		requireNoError(t, err)
		requireRuleEqual(t, created, got)

		_, err = b.store.CreateRule(b.ctx, r)
		requireErrorIs(t, err, store.ErrConflict)

		same, err := b.store.UpdateRule(b.ctx, r)
		requireNoError(t, err)
		if same.Version != 1 {
			t.Fatalf("an update that changes nothing moved the rule to version %d", same.Version)
		}
		r.Priority = 6
		r.Spec = spec("one", 6)
		updated, err := b.store.UpdateRule(b.ctx, r)
		requireNoError(t, err)
		if updated.Version != 2 || updated.Priority != 6 {
			t.Fatalf("updated = version %d priority %d, want 2 and 6", updated.Version, updated.Priority)
		}
		missing := rule("missing", 1)
		missing.TenantID = b.tenant.ID
		_, err = b.store.UpdateRule(b.ctx, missing)
		requireErrorIs(t, err, store.ErrNotFound)

		v, err := b.store.DeleteRule(b.ctx, b.tenant.ID, "one")
		requireNoError(t, err)
		if v != 3 {
			t.Fatalf("delete version = %d, want 3", v)
		}
		_, err = b.store.DeleteRule(b.ctx, b.tenant.ID, "one")
		requireErrorIs(t, err, store.ErrNotFound)
		v, err = b.store.RuleSetVersion(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if v != 3 {
			t.Fatalf("version after a failed delete = %d, want 3", v)
		}
	})

	t.Run("UnknownTenantNotFound", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const ghost = 1 << 40
		_, _, err := b.store.ReplaceRules(b.ctx, ghost, []store.Rule{rule("a", 1)}, nil)
		requireErrorIs(t, err, store.ErrNotFound)
		r := rule("a", 1)
		r.TenantID = ghost
		_, err = b.store.CreateRule(b.ctx, r)
		requireErrorIs(t, err, store.ErrNotFound)
		set, err := b.store.ListRules(b.ctx, ghost)
		requireNoError(t, err)
		if set.Version != 0 || len(set.Rules) != 0 {
			t.Fatalf("ListRules of an unknown tenant = %+v, want empty", set)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("shared-name", 1), rule("mine", 1)}, nil)
		requireNoError(t, err)
		_, _, err = b.store.ReplaceRules(b.ctx, b.other.ID, []store.Rule{rule("shared-name", 9)}, nil)
		requireNoError(t, err)

		_, err = b.store.GetRule(b.ctx, b.other.ID, "mine")
		requireErrorIs(t, err, store.ErrNotFound)
		_, err = b.store.DeleteRule(b.ctx, b.other.ID, "mine")
		requireErrorIs(t, err, store.ErrNotFound)
		theirs, err := b.store.ListRules(b.ctx, b.other.ID)
		requireNoError(t, err)
		requireRuleNames(t, theirs.Rules, "shared-name")
		if theirs.Rules[0].Priority != 9 || theirs.Version != 1 {
			t.Fatalf("other tenant's set = %+v", theirs)
		}
		mine, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		requireRuleNames(t, mine.Rules, "mine", "shared-name")
		if mine.Rules[1].Priority != 1 {
			t.Fatalf("another tenant's replace changed this tenant's rule: %+v", mine.Rules[1])
		}
	})

	t.Run("ConcurrentWritersTakeTurns", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const n = 8
		versions := make([]int64, n)
		errs := make([]error, n)
		race(n, func(i int) {
			r := rule(fmt.Sprintf("r%d", i), int32(i))
			r.TenantID = b.tenant.ID
			var created store.Rule
			created, errs[i] = b.store.CreateRule(b.ctx, r)
			versions[i] = created.Version
		})
		requireNoError(t, errors.Join(errs...))
		slices.Sort(versions)
		for i, v := range versions {
			if v != int64(i+1) {
				t.Fatalf("versions handed out = %v, want 1..%d each once", versions, n)
			}
		}
	})

	t.Run("ConcurrentExpectedVersionOneWins", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const n = 6
		zero := int64(0)
		errs := make([]error, n)
		race(n, func(i int) {
			_, _, errs[i] = b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule(fmt.Sprintf("r%d", i), 1)}, &zero)
		})
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrConflict):
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d replaces at expected version 0 succeeded, want exactly 1", wins)
		}
	})

	t.Run("ReadersSeeWholeSets", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		setOf := func(tag string) []store.Rule {
			out := make([]store.Rule, 20)
			for i := range out {
				out[i] = rule(fmt.Sprintf("%s-%02d", tag, i), 1)
			}
			return out
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var bad error
		var mu sync.Mutex
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				set, err := b.store.ListRules(b.ctx, b.tenant.ID)
				if err == nil && len(set.Rules) > 0 && len(set.Rules) != 20 {
					err = fmt.Errorf("a reader saw %d rules at version %d, a mix of two sets", len(set.Rules), set.Version)
				}
				if err == nil && len(set.Rules) > 0 && set.Rules[0].Name[:1] != set.Rules[19].Name[:1] {
					err = fmt.Errorf("a reader saw %s and %s together", set.Rules[0].Name, set.Rules[19].Name)
				}
				if err != nil {
					mu.Lock()
					bad = err
					mu.Unlock()
					return
				}
			}
		})
		for i := range 10 {
			tag := "a"
			if i%2 == 1 {
				tag = "b"
			}
			_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, setOf(tag), nil)
			requireNoError(t, err)
		}
		close(stop)
		wg.Wait()
		requireNoError(t, bad)
	})

	t.Run("LargeSet", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const n = 10_000
		rules := make([]store.Rule, n)
		for i := range rules {
			rules[i] = rule(fmt.Sprintf("rule-%05d", i), int32(i%7))
		}
		v, changes, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, rules, nil)
		requireNoError(t, err)
		if v != 1 || len(changes) != n {
			t.Fatalf("version %d, %d changes; want 1 and %d", v, len(changes), n)
		}
		// Change one rule of 10,000: one rule gets the new version.
		rules[42] = rule("rule-00042", 99)
		v, changes, err = b.store.ReplaceRules(b.ctx, b.tenant.ID, rules, nil)
		requireNoError(t, err)
		set, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if len(set.Rules) != n || set.Rules[0].Name != "rule-00042" || set.Rules[0].Version != 2 || set.Rules[1].Version != 1 {
			t.Fatalf("after changing one rule: %d rules, first %+v", len(set.Rules), set.Rules[0])
		}
		changed := 0
		for _, c := range changes {
			if c.Change != store.RuleUnchanged {
				changed++
			}
		}
		if v != 2 || changed != 1 {
			t.Fatalf("version %d with %d changes, want 2 and 1", v, changed)
		}
	})

	t.Run("SurvivesReopen", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, _, err := b.store.ReplaceRules(b.ctx, b.tenant.ID, []store.Rule{rule("a", 1), rule("b", 2)}, nil)
		requireNoError(t, err)
		before, err := b.store.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		s := h.Reopen(t, b.store)
		requireNoError(t, s.Migrate(b.ctx))
		after, err := s.ListRules(b.ctx, b.tenant.ID)
		requireNoError(t, err)
		if after.Version != before.Version || len(after.Rules) != len(before.Rules) {
			t.Fatalf("after reopen: %+v, want %+v", after, before)
		}
		for i := range before.Rules {
			requireRuleEqual(t, before.Rules[i], after.Rules[i])
		}
	})
}

// spec builds the JSON a rule is stored as; the store treats it as an opaque object.
func spec(name string, priority int32) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"name": name, "priority": priority,
		"then": map[string]any{"class": "capability", "code": "c"}})
	return b
}

func rule(name string, priority int32) store.Rule {
	return store.Rule{Name: name, Priority: priority, Spec: spec(name, priority)}
}

func requireRuleNames(t *testing.T, rules []store.Rule, want ...string) {
	t.Helper()
	got := make([]string, len(rules))
	for i, r := range rules {
		got[i] = r.Name
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rules = %q, want %q", got, want)
	}
}

func requireChanges(t *testing.T, changes []store.RuleChange, want ...string) {
	t.Helper()
	got := make([]string, len(changes))
	for i, c := range changes {
		got[i] = c.Name + " " + c.Change
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %q, want %q", got, want)
	}
}

// requireRuleEqual compares what the caller controls: name, priority and spec (by value); and,
// when want has them, version and update time.
func requireRuleEqual(t *testing.T, want, got store.Rule) {
	t.Helper()
	if want.Name != got.Name || want.Priority != got.Priority || !store.SameJSON(want.Spec, got.Spec) ||
		(want.Version != 0 && want.Version != got.Version) ||
		(!want.UpdatedAt.IsZero() && !want.UpdatedAt.Equal(got.UpdatedAt)) {
		t.Fatalf("rule = {%s %d %s v%d %v}, want {%s %d %s v%d %v}", got.Name, got.Priority, got.Spec, got.Version, got.UpdatedAt,
			want.Name, want.Priority, want.Spec, want.Version, want.UpdatedAt)
	}
}
