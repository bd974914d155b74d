package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/omcp/toolfailure/store"
)

// Replicated is a Store whose lookups go to a read replica first. Everything else (writes,
// migrations, keys, rules, retention) goes to the primary, which it embeds, so it offers every
// method the primary does.
//
// A lookup is never worse than on the primary alone:
//   - GetFailure that the replica cannot answer, because the record has not been replayed there
//     yet (replication lag) or because the replica is down or slow, is asked of the primary, so an
//     ID a user was just shown is always found.
//   - ListFailures goes to the primary while the replica is known to lag by more than MaxLag, and
//     when the replica fails.
//
// Each fallback is counted in toolfailure.store.replica.fallbacks {operation, reason}.
type Replicated struct {
	*Store
	replica *Store
	opts    ReplicaOptions

	fallbacks metric.Int64Counter

	mu        sync.Mutex
	lag       time.Duration // last measured replay lag
	lagAt     time.Time     // when lag was measured; zero = never
	lagFailed bool          // the last measurement failed: treat the replica as lagging
}

// Defaults of ReplicaOptions.
const (
	DefaultReplicaTimeout = 500 * time.Millisecond
	DefaultReplicaMaxLag  = 10 * time.Second
	DefaultLagCheckEvery  = 5 * time.Second
)

// ReplicaOptions tune Replicated; zero values take the defaults above.
type ReplicaOptions struct {
	// Timeout bounds each question to the replica, so that a replica that hangs costs a lookup at
	// most this much before the primary answers.
	Timeout time.Duration
	// MaxLag is the replay lag above which lists go to the primary.
	MaxLag time.Duration
	// LagCheckEvery is how often the replica's lag is measured (at most; only when lists are
	// asked for).
	LagCheckEvery time.Duration
	// MeterProvider receives the fallback counter; nil means the global provider.
	MeterProvider metric.MeterProvider
	// Now is the clock; nil means time.Now. Tests inject one.
	Now func() time.Time
}

// Fallback reasons, the values of the reason attribute.
const (
	FallbackNotFound = "not_found" // the replica does not have the record (yet)
	FallbackError    = "error"     // the replica failed or did not answer in time
	FallbackLag      = "lag"       // the replica lags by more than MaxLag
)

// NewReplicated routes primary's lookups to replica as described on Replicated. Close closes both.
func NewReplicated(primary, replica *Store, opts ReplicaOptions) (*Replicated, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultReplicaTimeout
	}
	if opts.MaxLag <= 0 {
		opts.MaxLag = DefaultReplicaMaxLag
	}
	if opts.LagCheckEvery <= 0 {
		opts.LagCheckEvery = DefaultLagCheckEvery
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	c, err := mp.Meter("github.com/omcp/toolfailure/store/postgres").Int64Counter("toolfailure.store.replica.fallbacks",
		metric.WithUnit("{lookup}"),
		metric.WithDescription("Lookups that the read replica could not answer and the primary did, by operation and reason (not_found, error, lag)."))
	if err != nil {
		return nil, fmt.Errorf("replica metrics: %w", err)
	}
	return &Replicated{Store: primary, replica: replica, opts: opts, fallbacks: c}, nil
}

// OpenReplica opens the read replica at databaseURL without waiting for it to answer: a replica
// that is down at start-up must not keep the service from starting, since the primary answers in
// its place until it is back. Ping reports whether it answers now.
func OpenReplica(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	s, err := open(ctx, databaseURL, false, opts...)
	if err != nil {
		return nil, fmt.Errorf("read replica: %w", err)
	}
	return s, nil
}

// OpenReplicated opens the primary and the replica (see OpenReplica); see Open for the URLs and
// options.
func OpenReplicated(ctx context.Context, primaryURL, replicaURL string, ropts ReplicaOptions, opts ...Option) (*Replicated, error) {
	primary, err := Open(ctx, primaryURL, opts...)
	if err != nil {
		return nil, err
	}
	replica, err := OpenReplica(ctx, replicaURL, opts...)
	if err != nil {
		_ = primary.Close()
		return nil, err
	}
	r, err := NewReplicated(primary, replica, ropts)
	if err != nil {
		_ = primary.Close()
		_ = replica.Close()
		return nil, err
	}
	return r, nil
}

var _ store.Store = (*Replicated)(nil)

// GetFailure asks the replica, then the primary when the replica does not have the record or
// cannot answer.
func (r *Replicated) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	rctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	f, err := r.replica.GetFailure(rctx, tenantID, id)
	cancel()
	if err == nil {
		return f, nil
	}
	if ctx.Err() != nil {
		return store.Failure{}, err // the caller gave up; the primary would not be asked in time either
	}
	reason := FallbackError
	if errors.Is(err, store.ErrNotFound) {
		reason = FallbackNotFound
	}
	r.countFallback(ctx, "get_failure", reason)
	return r.Store.GetFailure(ctx, tenantID, id)
}

// ListFailures asks the replica unless it lags by more than MaxLag, and the primary when the
// replica fails.
func (r *Replicated) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	return readList(r, ctx, "list_failures", func(ctx context.Context, s *Store) ([]store.Failure, error) {
		return s.ListFailures(ctx, tenantID, q)
	})
}

// ListGroups asks the replica unless it lags by more than MaxLag, and the primary when the
// replica fails: the Problems view's counts are as fresh as MaxLag allows.
func (r *Replicated) ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error) {
	return readList(r, ctx, "list_groups", func(ctx context.Context, s *Store) ([]store.Group, error) {
		return s.ListGroups(ctx, tenantID, q)
	})
}

// GroupHours asks the replica as ListGroups does.
func (r *Replicated) GroupHours(ctx context.Context, tenantID int64, fingerprints []string, since, until time.Time) (map[string][]int64, error) {
	return readList(r, ctx, "group_hours", func(ctx context.Context, s *Store) (map[string][]int64, error) {
		return s.GroupHours(ctx, tenantID, fingerprints, since, until)
	})
}

// GetGroup asks the replica as ListGroups does, and the primary also when the replica does not
// know the group yet: a problem a user was just shown (its first record only now replicating) is
// always found.
func (r *Replicated) GetGroup(ctx context.Context, tenantID int64, fingerprint string, since, until time.Time) (store.Group, error) {
	g, err := readList(r, ctx, "get_group", func(ctx context.Context, s *Store) (store.Group, error) {
		return s.GetGroup(ctx, tenantID, fingerprint, since, until)
	})
	if errors.Is(err, store.ErrNotFound) && ctx.Err() == nil && !r.lagging(ctx) {
		r.countFallback(ctx, "get_group", FallbackNotFound)
		return r.Store.GetGroup(ctx, tenantID, fingerprint, since, until)
	}
	return g, err
}

// readList runs a read on the replica unless it lags by more than MaxLag, and on the primary when
// the replica lags or fails (not when it answers not-found: that is the read's answer).
func readList[T any](r *Replicated, ctx context.Context, op string, read func(context.Context, *Store) (T, error)) (T, error) {
	if r.lagging(ctx) {
		r.countFallback(ctx, op, FallbackLag)
		return read(ctx, r.Store)
	}
	rctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	out, err := read(rctx, r.replica)
	cancel()
	if err == nil || errors.Is(err, store.ErrNotFound) || ctx.Err() != nil {
		return out, err
	}
	r.countFallback(ctx, op, FallbackError)
	return read(ctx, r.Store)
}

// Lag measures the replica's replay lag now: zero when it has replayed all the WAL it received
// (an idle primary makes the last replay timestamp old without any lag), otherwise the age of the
// last transaction it replayed.
func (r *Replicated) Lag(ctx context.Context) (time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	var seconds float64
	err := r.replica.pool.QueryRow(rctx, `SELECT CASE
		WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
		ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)::float8 END`).Scan(&seconds)
	if err != nil {
		return 0, fmt.Errorf("measure replica lag: %w", mapError(err))
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// lagging reports whether lists should skip the replica, measuring the lag when the last
// measurement is older than LagCheckEvery. A failed measurement counts as lagging until the next.
func (r *Replicated) lagging(ctx context.Context) bool {
	now := r.opts.Now()
	r.mu.Lock()
	fresh := !r.lagAt.IsZero() && now.Sub(r.lagAt) < r.opts.LagCheckEvery
	lag, failed := r.lag, r.lagFailed
	r.mu.Unlock()
	if !fresh {
		var err error
		lag, err = r.Lag(ctx)
		failed = err != nil
		r.mu.Lock()
		r.lag, r.lagFailed, r.lagAt = lag, failed, now
		r.mu.Unlock()
	}
	return failed || lag > r.opts.MaxLag
}

func (r *Replicated) countFallback(ctx context.Context, op, reason string) {
	r.fallbacks.Add(ctx, 1, metric.WithAttributes(attribute.String("operation", op), attribute.String("reason", reason)))
}

// Close closes the replica and the primary (which writes what is queued first).
func (r *Replicated) Close() error {
	return errors.Join(r.replica.Close(), r.Store.Close())
}
