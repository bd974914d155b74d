package server

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestEvalSlotsPerTenant: one tenant holding all of its rule-evaluation slots waits for one of
// them; another tenant does not wait at all. A waiter whose caller leaves gives up, and a tenant
// with nobody evaluating holds no memory.
func TestEvalSlotsPerTenant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slots := newEvalSlots(2)
		ctx := context.Background()
		var held []func()
		for range 2 {
			release, err := slots.acquire(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, release)
		}
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if _, err := slots.acquire(short, 1); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a third slot for tenant 1: %v, want to wait until the deadline", err)
		}
		other, cancel2 := context.WithTimeout(ctx, time.Second)
		defer cancel2()
		release, err := slots.acquire(other, 2)
		if err != nil {
			t.Fatalf("tenant 2 waited for tenant 1: %v", err)
		}
		release()

		got := make(chan error, 1)
		go func() {
			r, err := slots.acquire(ctx, 1)
			if err == nil {
				r()
			}
			got <- err
		}()
		held[0]()
		if err := <-got; err != nil {
			t.Fatalf("tenant 1 after a release: %v", err)
		}
		held[1]()
		// Slots held past restAbove (those that waited out the deadline above) rest first.
		time.Sleep(maxRest)
		slots.mu.Lock()
		n := len(slots.tenants)
		slots.mu.Unlock()
		if n != 0 {
			t.Fatalf("%d tenants kept with nothing evaluating", n)
		}
	})
}

// TestLongHeldSlotsRest: a slot held past restAbove (heavy rules, a body at the size limit)
// stays taken for three times as long, so such work holds at most a quarter of a processor per
// slot; another tenant is not held meanwhile, a slot held briefly is given back at once, and no
// rest is longer than maxRest. Inside the synctest bubble, time.Sleep advances its fake clock:
// no real time passes.
func TestLongHeldSlotsRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slots := newEvalSlots(1)
		ctx := t.Context()
		hold := func(tenant int64, d time.Duration) {
			t.Helper()
			release, err := slots.acquire(ctx, tenant)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
			release()
		}
		waitFor := func(tenant int64) time.Duration {
			t.Helper()
			start := time.Now()
			hold(tenant, 0)
			return time.Since(start)
		}
		hold(1, 5*time.Millisecond)
		if waited := waitFor(2); waited != 0 {
			t.Errorf("tenant 2 waited %v for tenant 1's resting slot", waited)
		}
		if waited := waitFor(1); waited != 15*time.Millisecond {
			t.Errorf("tenant 1's next request waited %v after a slot held 5 ms, want 15ms", waited)
		}
		hold(1, restAbove/2)
		if waited := waitFor(1); waited != 0 {
			t.Errorf("after a slot held %v the next request waited %v", restAbove/2, waited)
		}
		hold(1, time.Second)
		if waited := waitFor(1); waited != maxRest {
			t.Errorf("after a slot held 1s the next request waited %v, want maxRest %v", waited, maxRest)
		}
		synctest.Wait()
		if n := len(slots.tenants); n != 0 {
			t.Errorf("%d tenants still hold slot state after every slot was given back", n)
		}
	})
}
