package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
)

// drain is serve's shutdown at SIGTERM, in the order a load balancer needs it:
//
//  1. readiness fails at once (/readyz and /healthz answer 503, grpc.health.v1 answers
//     NOT_SERVING through server.Config.Draining), so that Services, ingresses and load balancers
//     take the replica out of rotation;
//  2. for the drain delay the replica still accepts and answers every call, because taking it out
//     of rotation is not instant (endpoint updates reach every node's proxy and every balancer a
//     little later), and a call sent meanwhile must not meet a closed port; keep-alive is off, so
//     that clients move their pooled connections to other replicas as each answer goes out;
//  3. then the listener closes and calls in flight get up to the shutdown grace to finish (their
//     records are durable before they are answered).
type drain struct {
	draining atomic.Bool
}

// readiness answers the readiness probes with 503 once draining has begun, and hands everything
// else, and the probes before that, to next.
func (d *drain) readiness(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() && (r.URL.Path == "/readyz" || r.URL.Path == "/healthz") {
			http.Error(w, "draining: shutting down", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// begin is step 1: from here on readiness fails and every answer closes its connection.
func (d *drain) begin(srv *http.Server) {
	d.draining.Store(true)
	srv.SetKeepAlivesEnabled(false)
}

// shutdown runs steps 1 to 3 on srv. A zero delay closes the listener at once (a laptop's Ctrl-C
// should not wait for load balancers that are not there); the chart sets one.
func (d *drain) shutdown(srv *http.Server, delay, grace time.Duration, log *slog.Logger) error {
	d.begin(srv)
	if delay > 0 {
		// This line is the moment readiness fails; tests and operators wait for it.
		log.Info(fmt.Sprintf("draining: /readyz answers 503; still serving for %s (--drain-delay)", delay), "drain_delay", delay.String())
		t := time.NewTimer(delay)
		<-t.C
	}
	log.Info(fmt.Sprintf("closing the listener; calls in flight have %s to finish (--shutdown-grace)", grace), "shutdown_grace", grace.String())
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
