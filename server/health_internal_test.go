package server

import (
	"context"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/store/postgres"
)

// TestHealthProbeOutlivesItsCaller: the store probe behind /healthz and gRPC health is shared by
// every caller for a second, so a caller whose own context has ended (a probe that gave up, a
// grpc-timeout of 1n) must not make it report a healthy store as down to everyone else.
func TestHealthProbeOutlivesItsCaller(t *testing.T) {
	t.Parallel()
	s, err := postgres.Open(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	h := &healthCheck{store: s, now: time.Now}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.ping(gone); err != nil {
		t.Fatalf("probe for a caller that left: %v; the store is up", err)
	}
	if err := h.ping(context.Background()); err != nil {
		t.Fatalf("the next caller within the second: %v; the store is up", err)
	}
}
