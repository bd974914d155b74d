package journal_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/pgcluster"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/journal"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/storetest"
)

// PostgreSQL stopped hard (pg_ctl stop -m immediate) in the middle of a load, then started again:
// no call hangs, every call is acknowledged, and afterwards every acknowledged ID is in PostgreSQL
// with the class and code it was acknowledged with, without a restart of the service.
func TestPostgresHardStopMidLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	cluster := pgcluster.Start(t)
	ctx := t.Context()
	pg, err := postgres.Open(ctx, cluster.URL())
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(ctx, pg, journal.Options{
		Dir:           t.TempDir(),
		WriteTimeout:  500 * time.Millisecond,
		ProbeInterval: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	tenant, err := j.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}

	const writers = 16
	var (
		mu      sync.Mutex
		acked   []store.Failure
		slowest atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		errs    = make([]error, writers)
	)
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f := failure(t, tenant.ID, w*100000+i)
				if i%7 == 0 {
					f.Class, f.Code, f.Retryable, f.RetryNotBefore = store.ClassGovernance, "auth_required", false, time.Time{}
				}
				if i%5 == 0 {
					f.IdempotencyKey = fmt.Sprintf("w%d-%d", w, i)
				}
				start := time.Now()
				stored, _, err := storetest.Insert(ctx, j, f)
				if d := time.Since(start); d > time.Duration(slowest.Load()) {
					slowest.Store(int64(d))
				}
				if err != nil {
					errs[w] = fmt.Errorf("writer %d call %d: %w", w, i, err)
					return
				}
				mu.Lock()
				acked = append(acked, stored)
				mu.Unlock()
			}
		})
	}
	// Stops the writers and waits for them; deferred too, so that a failed wait below does not
	// leave them running, and then says why they stopped.
	halt := sync.OnceFunc(func() { close(stop); wg.Wait() })
	halted := false
	defer func() {
		if !halted {
			halt()
			if err := errors.Join(errs...); err != nil {
				t.Error(err)
			}
		}
	}()
	ackedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	// The load is under way when every writer has had a few calls acknowledged, on average.
	waitFor(t, 30*time.Second, "records acknowledged before the stop", func() bool { return ackedCount() >= 4*writers })
	cluster.StopImmediate()
	// The outage is exercised once the journal has noticed it and taken records in.
	waitFor(t, 30*time.Second, "the journal to notice that PostgreSQL is down and journal records", func() bool {
		st := j.Status()
		return st.Degraded && st.Journaled >= writers
	})
	cluster.Restart()
	// And recovery once the journal has noticed PostgreSQL back, with calls still coming in.
	waitFor(t, 30*time.Second, "the journal to notice that PostgreSQL is back", func() bool { return !j.Status().Degraded })
	afterRestart := ackedCount()
	waitFor(t, 30*time.Second, "records acknowledged after the restart", func() bool { return ackedCount() >= afterRestart+4*writers })
	halt()
	halted = true
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if d := time.Duration(slowest.Load()); d > 5*time.Second {
		t.Errorf("the slowest call took %v; an outage must not hold calls up for long", d)
	}
	st := j.Status()
	t.Logf("%d records acknowledged; %d went through the journal; slowest call %v", len(acked), st.Journaled, time.Duration(slowest.Load()))
	if st.Journaled == 0 {
		t.Error("no record went through the journal; the outage was not exercised")
	}
	deadline := time.Now().Add(30 * time.Second)
	for j.Status().Pending > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("journal still has %d pending records 30 s after PostgreSQL came back", j.Status().Pending)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Read back through a store of its own, as another replica would.
	check, err := postgres.Open(ctx, cluster.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	for _, f := range acked {
		got, err := check.GetFailure(ctx, tenant.ID, f.ID)
		if err != nil {
			t.Fatalf("acknowledged record %x is not in PostgreSQL: %v", f.ID, err)
		}
		if got.Class != f.Class || got.Code != f.Code {
			t.Fatalf("record %x is %s/%s in PostgreSQL, acknowledged as %s/%s", f.ID, got.Class, got.Code, f.Class, f.Code)
		}
	}
}
