package bench

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
)

// TestZeroWorkCommitWait drives the zero-work handler with and without a simulated commit: both
// answer and check the key; with the commit every call waits at least its latency, and concurrent
// calls share commits.
func TestZeroWorkCommitWait(t *testing.T) {
	const key = "tfk_test"
	const latency = 50 * time.Millisecond
	for _, wait := range []time.Duration{0, latency} {
		srv := httptest.NewServer(ZeroWorkHandler(key, wait))
		t.Cleanup(srv.Close)
		url := srv.URL + toolfailurev1connect.ClassifierServiceClassifyProcedure
		c := client(16)

		const callers = 16
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			fastest = time.Hour
		)
		start := time.Now()
		for range callers {
			wg.Go(func() {
				t0 := time.Now()
				if err := call(t.Context(), c, url, key, requestMix[0]); err != nil {
					t.Errorf("commit wait %v: %v", wait, err)
				}
				d := time.Since(t0)
				mu.Lock()
				fastest = min(fastest, d)
				mu.Unlock()
			})
		}
		wg.Wait()
		total := time.Since(start)
		switch {
		case wait > 0 && fastest < latency:
			t.Errorf("with a commit wait of %v the fastest call took %v", wait, fastest)
		case wait > 0 && total >= callers*latency:
			t.Errorf("%d concurrent calls took %v: they did not share commits of %v", callers, total, wait)
		}
		if err := call(t.Context(), c, url, "wrong", requestMix[0]); err == nil {
			t.Errorf("commit wait %v: a wrong key was accepted", wait)
		}
	}
}
