package server

import (
	"context"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// evalSlots limits how many of one tenant's requests are decoded and evaluate its rules at the
// same time (Limits.RuleConcurrency; the tenant gate takes a slot before the body is decoded), so
// that one tenant, however heavy its rules or bodies or however many its callers, holds at most
// that many processors for that work and leaves the others to the other tenants. With the rule
// budget (ruleset.RequestBudget) bounding each request, it bounds what one tenant can take from
// another.
//
// A tenant's semaphore lives while some of its requests hold or wait for it, so the map holds
// only the tenants being served.
type evalSlots struct {
	per int64

	mu      sync.Mutex
	tenants map[int64]*tenantSlots
}

type tenantSlots struct {
	sem   *semaphore.Weighted
	users int // requests holding or waiting for a slot
}

func newEvalSlots(per int) *evalSlots {
	return &evalSlots{per: int64(per), tenants: map[int64]*tenantSlots{}}
}

// defaultRuleConcurrency is half the processors, at least one: a tenant never has more than
// half the machine for its rules.
func defaultRuleConcurrency() int {
	return max(1, runtime.GOMAXPROCS(0)/2)
}

// acquire waits for one of the tenant's slots, or for ctx to end (then it returns ctx's error).
// The caller must call release once evaluation is done.
func (e *evalSlots) acquire(ctx context.Context, tenantID int64) (release func(), err error) {
	e.mu.Lock()
	t := e.tenants[tenantID]
	if t == nil {
		t = &tenantSlots{sem: semaphore.NewWeighted(e.per)}
		e.tenants[tenantID] = t
	}
	t.users++
	e.mu.Unlock()
	if err := t.sem.Acquire(ctx, 1); err != nil {
		e.leave(tenantID, t)
		return nil, err
	}
	start := time.Now()
	return func() {
		give := func() {
			t.sem.Release(1)
			e.leave(tenantID, t)
		}
		if rest := restFor(time.Since(start)); rest > 0 {
			time.AfterFunc(rest, give)
			return
		}
		give()
	}, nil
}

// A slot that was held long rests before it is given back. The slots bound how many processors
// one tenant's work holds at once, not for how long: a tenant whose rule set is near the budget,
// or whose bodies are at the size limit, keeps a processor busy for as long as its callers keep
// sending (even callers that hang up at once: the work is done before it is noticed), and the
// other tenants share what is left with the store and the network. So a slot held for restAbove
// or longer stays taken for restFactor times as long (at most maxRest) before the tenant's next
// request may take it: such work then holds at most 1/(1+restFactor) of a processor per slot.
// The request itself is answered at once; only the tenant's next one waits. An ordinary request
// holds its slot for far less than restAbove and never rests.
const (
	restAbove  = time.Millisecond
	restFactor = 3
	maxRest    = 300 * time.Millisecond
)

// restFor is how long a slot rests after it was held for held.
func restFor(held time.Duration) time.Duration {
	if held < restAbove {
		return 0
	}
	return min(held*restFactor, maxRest)
}

func (e *evalSlots) leave(tenantID int64, t *tenantSlots) {
	e.mu.Lock()
	t.users--
	if t.users == 0 {
		delete(e.tenants, tenantID)
	}
	e.mu.Unlock()
}
