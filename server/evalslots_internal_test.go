package server

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omcp/toolfailure/internal/ruleset"
)

// TestEvalSlotsPerTenant: one tenant holding all of its rule-evaluation slots waits for one of
// them; another tenant does not wait at all. A waiter whose caller leaves gives up, and a tenant
// with nobody evaluating holds no memory.
func TestEvalSlotsPerTenant(t *testing.T) {
	t.Parallel()
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
	slots.mu.Lock()
	n := len(slots.tenants)
	slots.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d tenants kept with nothing evaluating", n)
	}
}

// TestHeavyRulesRestTheirSlot: after a request whose rules cost about 5 ms, the tenant's slot
// stays taken for three times that, so its rules hold at most a quarter of a processor per slot;
// another tenant is not held meanwhile, and rules of ordinary cost give the slot back at once.
func TestHeavyRulesRestTheirSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slots := newEvalSlots(1)
		ctx := t.Context()
		release, err := slots.acquire(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		releaseAfter(release, restAfter(5*ruleset.CostPerMillisecond))
		other, err := slots.acquire(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("tenant 2 waited %v for tenant 1's resting slot", waited)
		}
		other()
		next, err := slots.acquire(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 15*time.Millisecond {
			t.Errorf("tenant 1's next request waited %v after 5 ms of rules, want 15ms", waited)
		}
		start = time.Now()
		releaseAfter(next, restAfter(ruleset.CostPerMillisecond/10))
		last, err := slots.acquire(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("after ordinary rules the next request waited %v", waited)
		}
		last()
	})
}
