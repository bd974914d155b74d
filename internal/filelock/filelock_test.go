package filelock_test

import (
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/omcp/toolfailure/internal/filelock"
)

// A lock released while Acquire waits is taken; one held past the wait is refused with ErrHeld,
// and only after the whole wait. The wait runs on synctest's clock, so the test does not sleep.
func TestAcquireWaitsForARelease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "db.lock")
	const wait = time.Second
	synctest.Test(t, func(t *testing.T) {
		held, err := filelock.Acquire(t.Context(), path, wait)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(wait / 2)
			_ = held.Close()
		}()
		start := time.Now()
		got, err := filelock.Acquire(t.Context(), path, wait)
		if err != nil {
			t.Fatalf("a lock released after %v: %v, want it taken", wait/2, err)
		}
		if waited := time.Since(start); waited < wait/2 || waited > wait/2+100*time.Millisecond {
			t.Errorf("took the lock after %v, want about %v", waited, wait/2)
		}

		start = time.Now()
		_, err = filelock.Acquire(t.Context(), path, wait)
		if !errors.Is(err, filelock.ErrHeld) {
			t.Fatalf("a lock held throughout: %v, want ErrHeld", err)
		}
		if waited := time.Since(start); waited < wait {
			t.Errorf("refused after %v, want after the whole wait of %v", waited, wait)
		}

		// Without a wait, a held lock is refused at once.
		start = time.Now()
		if _, err := filelock.Acquire(t.Context(), path, 0); !errors.Is(err, filelock.ErrHeld) {
			t.Fatalf("no wait: %v, want ErrHeld", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("no wait: refused after %v", waited)
		}
		_ = got.Close()
		if again, err := filelock.Acquire(t.Context(), path, 0); err != nil {
			t.Fatalf("after the holder closed it: %v", err)
		} else {
			_ = again.Close()
		}
	})
}
