// Package schemagate lets the service start while its database is unreachable, and migrate it
// once it answers. serve migrates the schema before it serves; with an outage journal (package
// journal) it can serve Classify without the database, so a replica restarted during an outage
// must not wait for the database to migrate. A Store wraps the unmigrated database and answers
// every call with store.ErrUnavailable, as the database itself would, until a background loop has
// migrated it; from then on it only passes calls through. Callers above it (the journal, the
// last-good answers of package lastgood) therefore treat the time before the migration as the
// outage it is, and nothing reaches tables that may not exist yet: the journal is replayed only
// into a migrated schema.
package schemagate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/omcp/toolfailure/store"
)

// DefaultInterval is how often the loop tries to migrate while the database does not answer.
const DefaultInterval = time.Second

// migrateTimeout bounds one attempt.
const migrateTimeout = 30 * time.Second

// Options tune a Store.
type Options struct {
	// Interval is the time between two attempts to migrate (DefaultInterval).
	Interval time.Duration
	// Logger receives the migration's progress; nil discards it.
	Logger *slog.Logger
}

// Store is a store.Store that is unavailable until the store it wraps is migrated.
type Store struct {
	store.Store
	opts Options

	ready    atomic.Bool
	readyc   chan struct{} // closed once migrated
	lastErr  atomic.Pointer[error]
	quit     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	closeErr error
}

var _ store.Store = (*Store)(nil)
var _ store.RuleWatcher = (*Store)(nil)

// New wraps inner, whose Migrate has failed (cause) or not yet run, and starts migrating it in
// the background: right away, then every Options.Interval until it succeeds. Close stops that
// and closes inner.
func New(inner store.Store, cause error, opts Options) *Store {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if cause == nil {
		cause = errors.New("not migrated yet")
	}
	g := &Store{Store: inner, opts: opts, readyc: make(chan struct{}), quit: make(chan struct{})}
	g.setErr(cause)
	g.wg.Add(1)
	go g.loop()
	return g
}

func (g *Store) setErr(err error) {
	if !errors.Is(err, store.ErrUnavailable) {
		err = fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	err = fmt.Errorf("the schema is not migrated yet: %w", err)
	g.lastErr.Store(&err)
}

// Ready reports whether the wrapped store is migrated and calls pass through.
func (g *Store) Ready() bool { return g.ready.Load() }

// Migrated returns a channel that is closed once the wrapped store is
// migrated, for callers that wait for it rather than poll Ready.
func (g *Store) Migrated() <-chan struct{} { return g.readyc }

// loop migrates until it succeeds or the Store is closed.
func (g *Store) loop() {
	defer g.wg.Done()
	ticker := time.NewTicker(g.opts.Interval)
	defer ticker.Stop()
	logged := ""
	for {
		err := g.migrateOnce()
		if err == nil {
			return
		}
		// Each kind of failure is logged once: a database that stays down for an hour must not
		// write a line a second.
		if msg := err.Error(); msg != logged {
			logged = msg
			level := slog.LevelWarn
			if !errors.Is(err, store.ErrUnavailable) {
				level = slog.LevelError // not an outage: a migration that fails on a database that answers
			}
			g.opts.Logger.Log(context.Background(), level, "schema migration waits for the database; retrying", "every", g.opts.Interval, "error", err)
		}
		select {
		case <-g.quit:
			return
		case <-ticker.C:
		}
	}
}

func (g *Store) migrateOnce() error {
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	go func() {
		select {
		case <-g.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	return g.Migrate(ctx)
}

// Migrate migrates the wrapped store; once that succeeds, every call passes through.
func (g *Store) Migrate(ctx context.Context) error {
	if g.ready.Load() {
		return nil
	}
	if err := g.Store.Migrate(ctx); err != nil {
		g.setErr(err)
		return err
	}
	if g.ready.CompareAndSwap(false, true) {
		close(g.readyc)
		g.opts.Logger.Info("schema migrated: the database answers again")
	}
	return nil
}

// gate returns nil once migrated, and otherwise the reason why not (wrapping
// store.ErrUnavailable).
func (g *Store) gate() error {
	if g.ready.Load() {
		return nil
	}
	return *g.lastErr.Load()
}

// Ping fails with the reason until the store is migrated.
func (g *Store) Ping(ctx context.Context) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Store.Ping(ctx)
}

// WatchRules reports the watch lost until the store is migrated (so that a rule cache checks
// versions itself, through whatever answers them meanwhile), then forwards the wrapped store's
// notifications (see store.ForwardWatch).
func (g *Store) WatchRules(ctx context.Context, fn func(store.RuleEvent)) error {
	if !g.ready.Load() {
		fn(store.RuleEvent{Kind: store.RuleWatchLost})
		select {
		case <-g.readyc:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return store.ForwardWatch(ctx, g.Store, fn)
}

// Close stops the migration loop and closes the wrapped store.
func (g *Store) Close() error {
	g.once.Do(func() {
		close(g.quit)
		g.wg.Wait()
		g.closeErr = g.Store.Close()
	})
	return g.closeErr
}

// EnsureTenant, like every call below, answers the reason (wrapping store.ErrUnavailable) until the
// wrapped store is migrated, and passes through from then on.
func (g *Store) EnsureTenant(ctx context.Context, name string) (store.Tenant, error) {
	if err := g.gate(); err != nil {
		return store.Tenant{}, err
	}
	return g.Store.EnsureTenant(ctx, name)
}

func (g *Store) CreateAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	if err := g.gate(); err != nil {
		return store.APIKey{}, err
	}
	return g.Store.CreateAPIKey(ctx, k)
}

func (g *Store) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	if err := g.gate(); err != nil {
		return store.APIKey{}, store.Tenant{}, err
	}
	return g.Store.APIKeyByHash(ctx, hash)
}

func (g *Store) CountAPIKeys(ctx context.Context) (int, error) {
	if err := g.gate(); err != nil {
		return 0, err
	}
	return g.Store.CountAPIKeys(ctx)
}

func (g *Store) ListAPIKeys(ctx context.Context, tenantID int64) ([]store.APIKeyEntry, error) {
	if err := g.gate(); err != nil {
		return nil, err
	}
	return g.Store.ListAPIKeys(ctx, tenantID)
}

func (g *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time, by string) (store.APIKey, bool, error) {
	if err := g.gate(); err != nil {
		return store.APIKey{}, false, err
	}
	return g.Store.RevokeAPIKey(ctx, id, at, by)
}

func (g *Store) TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Store.TouchAPIKey(ctx, tenantID, id, at)
}

func (g *Store) RevokeSession(ctx context.Context, tenantID int64, id [16]byte, expires time.Time) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Store.RevokeSession(ctx, tenantID, id, expires)
}

func (g *Store) SessionRevoked(ctx context.Context, tenantID int64, id [16]byte) (bool, error) {
	if err := g.gate(); err != nil {
		return false, err
	}
	return g.Store.SessionRevoked(ctx, tenantID, id)
}

func (g *Store) InsertFailure(ctx context.Context, p store.Prepared) (store.Failure, bool, error) {
	if err := g.gate(); err != nil {
		return store.Failure{}, false, err
	}
	return g.Store.InsertFailure(ctx, p)
}

func (g *Store) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	if err := g.gate(); err != nil {
		return store.Failure{}, err
	}
	return g.Store.GetFailure(ctx, tenantID, id)
}

func (g *Store) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	if err := g.gate(); err != nil {
		return nil, err
	}
	return g.Store.ListFailures(ctx, tenantID, q)
}

func (g *Store) ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error) {
	if err := g.gate(); err != nil {
		return store.RuleSet{}, err
	}
	return g.Store.ListRules(ctx, tenantID)
}

func (g *Store) RuleSetVersion(ctx context.Context, tenantID int64) (int64, error) {
	if err := g.gate(); err != nil {
		return 0, err
	}
	return g.Store.RuleSetVersion(ctx, tenantID)
}

func (g *Store) GetRule(ctx context.Context, tenantID int64, name string) (store.Rule, error) {
	if err := g.gate(); err != nil {
		return store.Rule{}, err
	}
	return g.Store.GetRule(ctx, tenantID, name)
}

func (g *Store) CreateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	if err := g.gate(); err != nil {
		return store.Rule{}, err
	}
	return g.Store.CreateRule(ctx, r)
}

func (g *Store) UpdateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	if err := g.gate(); err != nil {
		return store.Rule{}, err
	}
	return g.Store.UpdateRule(ctx, r)
}

func (g *Store) DeleteRule(ctx context.Context, tenantID int64, name string) (int64, error) {
	if err := g.gate(); err != nil {
		return 0, err
	}
	return g.Store.DeleteRule(ctx, tenantID, name)
}

func (g *Store) ReplaceRules(ctx context.Context, tenantID int64, rules []store.Rule, expectedVersion *int64) (int64, []store.RuleChange, error) {
	if err := g.gate(); err != nil {
		return 0, nil, err
	}
	return g.Store.ReplaceRules(ctx, tenantID, rules, expectedVersion)
}

func (g *Store) SetRetention(ctx context.Context, tenantID int64, days int) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Store.SetRetention(ctx, tenantID, days)
}

func (g *Store) Retention(ctx context.Context, tenantID int64) (int, error) {
	if err := g.gate(); err != nil {
		return 0, err
	}
	return g.Store.Retention(ctx, tenantID)
}

func (g *Store) PurgeExpired(ctx context.Context, now time.Time, batch int) (int64, error) {
	if err := g.gate(); err != nil {
		return 0, err
	}
	return g.Store.PurgeExpired(ctx, now, batch)
}

func (g *Store) ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error) {
	if err := g.gate(); err != nil {
		return nil, err
	}
	return g.Store.ListGroups(ctx, tenantID, q)
}

func (g *Store) GetGroup(ctx context.Context, tenantID int64, fingerprint string, since, until time.Time) (store.Group, error) {
	if err := g.gate(); err != nil {
		return store.Group{}, err
	}
	return g.Store.GetGroup(ctx, tenantID, fingerprint, since, until)
}

func (g *Store) GroupHours(ctx context.Context, tenantID int64, fingerprints []string, since, until time.Time) (map[string][]int64, error) {
	if err := g.gate(); err != nil {
		return nil, err
	}
	return g.Store.GroupHours(ctx, tenantID, fingerprints, since, until)
}
