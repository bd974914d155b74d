package server

import (
	"context"
	"log/slog"
	"time"
)

// Purger is what the retention loop needs of a store; store.Store has it.
type Purger interface {
	PurgeExpired(ctx context.Context, now time.Time, batch int) (int64, error)
}

// RunRetention removes expired failure records (see store.Store.PurgeExpired) now and then every
// interval, until ctx ends. Every replica may run it: the deletes are idempotent, and batched so
// that they never hold up inserts. A failed round is logged and retried at the next tick, since an
// unreachable database is also what the journal is for and must not stop the service.
func RunRetention(ctx context.Context, s Purger, every time.Duration, log *slog.Logger) {
	if every <= 0 {
		every = time.Hour
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		start := time.Now()
		removed, err := s.PurgeExpired(ctx, start, 0)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.WarnContext(ctx, "retention: purge failed; retrying at the next round", "removed", removed, "error", err)
		case removed > 0:
			log.InfoContext(ctx, "retention: removed expired failure records", "removed", removed, "took", time.Since(start))
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
