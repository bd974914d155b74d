//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errWouldBlock = unix.EWOULDBLOCK

// tryLock takes an exclusive flock without waiting. flock, unlike fcntl locks, belongs to the
// open file description, so a second Acquire in the same process is refused too, and closing this
// descriptor releases it without disturbing other descriptors of the file.
func tryLock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EAGAIN) {
		return errWouldBlock
	}
	return err
}
