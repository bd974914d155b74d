package procstat

import (
	"os"
	"testing"
	"time"
)

// TestCPU reads this process's own CPU time, which must grow while it spins, and fails for a
// process that does not exist.
func TestCPU(t *testing.T) {
	before, err := CPU(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		now, err := CPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now-before >= 50*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU stayed at %v after spinning for 20 s (started at %v)", now, before)
		}
	}
	if _, err := CPU(-1); err == nil {
		t.Error("CPU(-1) did not fail")
	}
}
