// Package filelock takes the exclusive, advisory lock on a file that keeps a second process away
// from a database file or a journal directory. The operating system releases it when the process
// ends, however it ends, so a crash leaves no stale lock behind.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrHeld is returned (wrapped) by Acquire when another holder kept the lock for the whole wait.
var ErrHeld = errors.New("locked by another process")

// poll is how often Acquire tries again while it waits: neither flock nor LockFileEx has a timed
// wait.
const poll = 10 * time.Millisecond

// Acquire opens path, creating it, and locks it. A lock that is held is tried again for up to
// wait: a process that is stopping, as when a supervisor restarts the service, or a descriptor
// briefly shared with a child being started, holds it for a moment after it is done, and the
// next holder should not fail for that. Closing the returned file releases the lock.
func Acquire(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	err = tryLock(f)
	for deadline := time.Now().Add(wait); errors.Is(err, errWouldBlock) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(poll):
		}
		err = tryLock(f)
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%s: %w", path, ErrHeld)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
