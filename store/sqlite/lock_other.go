//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || windows)

package sqlite

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// lockFile does nothing where neither flock nor LockFileEx exists: the store still works, but a
// second process on the same file is not detected.
func lockFile(*os.File) error { return nil }
