package rulecache_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omcp/toolfailure/internal/rulecache"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/store"
)

// source is a rule store in memory: a version per tenant, loads counted,
// and an optional gate that holds loads until it is closed.
type source struct {
	mu       sync.Mutex
	versions map[int64]int64
	loads    atomic.Int32
	checks   atomic.Int32
	gate     chan struct{}
	fail     error
}

func (s *source) Load(ctx context.Context, tenantID int64) (*ruleset.Set, error) {
	s.loads.Add(1)
	s.mu.Lock()
	v, gate, fail := s.versions[tenantID], s.gate, s.fail
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	return ruleset.Compile(v, nil)
}

func (s *source) Version(ctx context.Context, tenantID int64) (int64, error) {
	s.checks.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions[tenantID], s.fail
}

func (s *source) set(tenant, version int64) {
	s.mu.Lock()
	s.versions[tenant] = version
	s.mu.Unlock()
}

// watcher is a store.RuleWatcher whose events the test sends.
type watcher struct{ events chan store.RuleEvent }

func (w watcher) WatchRules(ctx context.Context, fn func(store.RuleEvent)) error {
	for {
		select {
		case ev := <-w.events:
			fn(ev)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func version(t *testing.T, c *rulecache.Cache, tenant int64) int64 {
	t.Helper()
	set, err := c.Get(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	return set.Version()
}

// TestConcurrentCallersShareOneLoad, and a failed load is not cached.
func TestConcurrentCallersShareOneLoad(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		src := &source{versions: map[int64]int64{1: 3}, gate: make(chan struct{})}
		c := rulecache.New(src, rulecache.Options{})
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if v := version(t, c, 1); v != 3 {
					t.Errorf("version %d, want 3", v)
				}
			})
		}
		synctest.Wait()
		close(src.gate)
		wg.Wait()
		if n := src.loads.Load(); n != 1 {
			t.Fatalf("%d loads for 10 concurrent callers, want 1", n)
		}
		version(t, c, 1)
		if n := src.loads.Load(); n != 1 {
			t.Fatalf("a cached set was loaded again (%d loads)", n)
		}
		src.fail = errors.New("database down")
		if _, err := c.Get(context.Background(), 2); err == nil {
			t.Fatal("a failed load returned a set")
		}
		src.fail = nil
		if v := version(t, c, 2); v != 0 || src.loads.Load() != 3 {
			t.Fatalf("after a failed load: version %d, %d loads; want a new load", v, src.loads.Load())
		}
	})
}

// TestChangeDuringLoad: an Invalidate while a load is in flight makes the
// next caller load afresh, and the older result is not cached.
func TestChangeDuringLoad(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		src := &source{versions: map[int64]int64{1: 1}, gate: gate}
		c := rulecache.New(src, rulecache.Options{})
		first := make(chan int64, 1)
		go func() { first <- version(t, c, 1) }()
		synctest.Wait() // the load read version 1 and waits at the gate
		src.mu.Lock()
		src.versions[1], src.gate = 2, nil // the change; later loads do not wait
		src.mu.Unlock()
		c.Invalidate(1, 2)
		if v := version(t, c, 1); v != 2 {
			t.Fatalf("after the change: version %d, want 2 (a caller joined the older load)", v)
		}
		close(gate) // the older load finishes: its caller gets what it read
		if v := <-first; v != 1 {
			t.Fatalf("the first caller got version %d, want the 1 it loaded", v)
		}
		if v := version(t, c, 1); v != 2 || src.loads.Load() != 2 {
			t.Fatalf("the cache holds version %d after %d loads; the older load must not replace 2", v, src.loads.Load())
		}
	})
}

// TestPutAndInvalidateVersions: Put keeps the later of two sets;
// Invalidate with a version the cache already has keeps it.
func TestPutAndInvalidateVersions(t *testing.T) {
	t.Parallel()
	src := &source{versions: map[int64]int64{1: 5}}
	c := rulecache.New(src, rulecache.Options{})
	set7, _ := ruleset.Compile(7, nil)
	set6, _ := ruleset.Compile(6, nil)
	c.Put(1, set7)
	c.Put(1, set6)
	if v := version(t, c, 1); v != 7 {
		t.Fatalf("version %d after Put 7 then 6, want 7", v)
	}
	c.Invalidate(1, 7)
	if v := version(t, c, 1); v != 7 || src.loads.Load() != 0 {
		t.Fatalf("Invalidate at the cached version dropped it (version %d, %d loads)", v, src.loads.Load())
	}
	c.Invalidate(1, 0)
	if v := version(t, c, 1); v != 5 || src.loads.Load() != 1 {
		t.Fatalf("Invalidate(0) kept the set (version %d, %d loads)", v, src.loads.Load())
	}
	n := 0
	for tenant, v := range c.Versions() {
		n++
		if tenant != 1 || v != 5 {
			t.Errorf("Versions yields (%d, %d), want (1, 5)", tenant, v)
		}
	}
	if n != 1 {
		t.Errorf("Versions yields %d entries, want 1", n)
	}
}

// TestPollingWithoutNotifications: a shared store is polled at most every
// PollInterval while notifications are not flowing, never while they are,
// and never when the store is not shared.
func TestPollingWithoutNotifications(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		src := &source{versions: map[int64]int64{1: 1}}
		w := watcher{events: make(chan store.RuleEvent)}
		c := rulecache.New(src, rulecache.Options{Watcher: w})
		version(t, c, 1)
		version(t, c, 1)
		if n := src.checks.Load(); n != 0 {
			t.Fatalf("%d version checks within PollInterval, want 0", n)
		}
		time.Sleep(rulecache.PollInterval)
		src.set(1, 2)
		if v := version(t, c, 1); v != 2 || src.checks.Load() != 1 {
			t.Fatalf("after PollInterval: version %d with %d checks, want 2 and 1", v, src.checks.Load())
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		defer cancel()
		w.events <- store.RuleEvent{Kind: store.RuleWatchStarted}
		synctest.Wait()  // handled
		version(t, c, 1) // reloaded after the reconnection
		time.Sleep(10 * rulecache.PollInterval)
		checks := src.checks.Load()
		version(t, c, 1)
		if src.checks.Load() != checks {
			t.Fatal("polled while notifications flow")
		}
		src.set(1, 3)
		w.events <- store.RuleEvent{Kind: store.RuleSetChanged, TenantID: 1, Version: 3}
		synctest.Wait()
		if v := version(t, c, 1); v != 3 {
			t.Fatalf("after a notification: version %d, want 3", v)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}

		alone := rulecache.New(src, rulecache.Options{})
		version(t, alone, 1)
		time.Sleep(10 * rulecache.PollInterval)
		checks = src.checks.Load()
		version(t, alone, 1)
		if src.checks.Load() != checks {
			t.Fatal("a store of this process alone was polled")
		}
	})
}
