//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package journal

import (
	"fmt"
	"os"
)

// lockDir only opens the lock file where flock does not exist: the journal works, but a second
// process on the same directory is not detected.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return f, nil
}
