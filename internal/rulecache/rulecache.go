// Package rulecache holds each tenant's compiled rule set, so that
// classifying a failure costs no store round trip and no compilation.
//
// Staying in step: a change made through this process updates the cache at
// once (the rule service calls Invalidate or Put). Changes made through
// other processes sharing a PostgreSQL store arrive by LISTEN/NOTIFY while
// Run is running, within milliseconds. Whenever notifications are not
// flowing (before Run connects, after the connection broke, until it is
// back) the cache checks a tenant's version with the store at most every
// PollInterval before using its set, and on reconnection it drops
// everything, since notifications sent meanwhile are lost. Either way a
// change is in force on every replica within a second. A store that is not
// a store.RuleWatcher (the embedded one) belongs to this process alone, and
// the cache never polls it.
//
// Concurrent callers for one tenant share one load (singleflight); a change
// while a load is in flight makes later callers start a new one, and keeps
// the older result out of the cache.
package rulecache

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/store"
)

// PollInterval is how old a cached set may be before it is checked against
// the store's version, when notifications are not flowing.
const PollInterval = 500 * time.Millisecond

// maxTenants bounds the cache; past it, an arbitrary tenant's set is
// dropped and compiled again when that tenant next classifies.
const maxTenants = 10_000

// loadTimeout bounds one load of a tenant's set. It is detached from the
// request that triggered it, because other requests wait for the same load.
const loadTimeout = 30 * time.Second

// Source is where sets come from: Load reads and compiles a tenant's set
// (a tenant without rules gets an empty one), Version reads the version
// the store has. A Source whose store implements store.RuleWatcher is
// shared with other processes, and Run follows its changes.
type Source interface {
	Load(ctx context.Context, tenantID int64) (*ruleset.Set, error)
	Version(ctx context.Context, tenantID int64) (int64, error)
}

// Options tune a Cache.
type Options struct {
	// Watcher delivers changes made by other processes; nil means the store
	// belongs to this process alone, and the cache never polls it.
	Watcher store.RuleWatcher
	Logger  *slog.Logger
	Now     func() time.Time // default time.Now
}

// Cache is safe for concurrent use.
type Cache struct {
	src  Source
	opts Options

	mu sync.Mutex
	// loads shares a load among concurrent callers; InvalidateAll replaces
	// it, so that no caller joins a load that started before.
	loads    *singleflight.Group
	entries  map[int64]*entry
	watching bool
	// epoch counts changes (Invalidate, Put, a reconnection). A load stores
	// its result only if no change came while it ran: the change may be
	// newer than what the load read.
	epoch uint64
}

type entry struct {
	set     *ruleset.Set
	checked time.Time // when the version was last known current
}

// New returns an empty cache over src.
func New(src Source, opts Options) *Cache {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache{src: src, opts: opts, loads: new(singleflight.Group), entries: map[int64]*entry{}}
}

// Run keeps the cache in step with changes made by other processes, until
// ctx ends. Without a Watcher it returns at once.
func (c *Cache) Run(ctx context.Context) error {
	if c.opts.Watcher == nil {
		return nil
	}
	err := c.opts.Watcher.WatchRules(ctx, func(ev store.RuleEvent) {
		switch ev.Kind {
		case store.RuleSetChanged:
			c.Invalidate(ev.TenantID, ev.Version)
		case store.RuleWatchStarted:
			c.mu.Lock()
			c.watching = true
			c.mu.Unlock()
			c.InvalidateAll()
			c.opts.Logger.Info("rule changes: listening")
		case store.RuleWatchLost:
			c.mu.Lock()
			c.watching = false
			c.mu.Unlock()
			c.opts.Logger.Warn("rule changes: notifications lost; checking versions until they are back")
		}
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Get returns the tenant's compiled rule set, loading it if needed.
func (c *Cache) Get(ctx context.Context, tenantID int64) (*ruleset.Set, error) {
	now := c.opts.Now()
	c.mu.Lock()
	e := c.entries[tenantID]
	switch {
	case e == nil:
	case c.opts.Watcher == nil || c.watching || now.Sub(e.checked) < PollInterval:
		c.mu.Unlock()
		return e.set, nil
	default:
		// Claim the check, so that concurrent callers keep using the set
		// meanwhile instead of all asking the store.
		e.checked = now
		c.mu.Unlock()
		v, err := c.src.Version(ctx, tenantID)
		if err != nil {
			c.opts.Logger.WarnContext(ctx, "rule cache: version check failed; using the cached rules", "tenant", tenantID, "error", err)
			return e.set, nil
		}
		if v == e.set.Version() {
			return e.set, nil
		}
		c.Invalidate(tenantID, v)
		c.mu.Lock()
	}
	epoch, loads := c.epoch, c.loads
	c.mu.Unlock()

	ch := loads.DoChan(strconv.FormatInt(tenantID, 10), func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
		defer cancel()
		set, err := c.src.Load(lctx, tenantID)
		if err != nil {
			return nil, err // not cached: the next call tries again
		}
		c.mu.Lock()
		if c.epoch == epoch {
			c.storeLocked(tenantID, set)
		}
		c.mu.Unlock()
		return set, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*ruleset.Set), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// storeLocked caches set for the tenant, making room first.
func (c *Cache) storeLocked(tenantID int64, set *ruleset.Set) {
	if _, ok := c.entries[tenantID]; !ok && len(c.entries) >= maxTenants {
		for t := range c.entries {
			delete(c.entries, t)
			break
		}
	}
	c.entries[tenantID] = &entry{set: set, checked: c.opts.Now()}
}

// Invalidate drops the tenant's cached set unless it is already at version
// or later; version 0 drops it whatever its version. A load in flight is
// not joined by later callers, and its result is not cached.
func (c *Cache) Invalidate(tenantID, version int64) {
	c.mu.Lock()
	if e := c.entries[tenantID]; e != nil && version > 0 && e.set.Version() >= version {
		c.mu.Unlock()
		return
	}
	delete(c.entries, tenantID)
	c.epoch++
	loads := c.loads
	c.mu.Unlock()
	loads.Forget(strconv.FormatInt(tenantID, 10))
}

// InvalidateAll drops every cached set.
func (c *Cache) InvalidateAll() {
	c.mu.Lock()
	clear(c.entries)
	c.epoch++
	c.loads = new(singleflight.Group)
	c.mu.Unlock()
}

// Put caches a set compiled elsewhere (by ReplaceRules), unless the cache
// already holds a later version.
func (c *Cache) Put(tenantID int64, set *ruleset.Set) {
	c.mu.Lock()
	if e := c.entries[tenantID]; e != nil && e.set.Version() > set.Version() {
		c.mu.Unlock()
		return
	}
	c.storeLocked(tenantID, set)
	c.epoch++
	loads := c.loads
	c.mu.Unlock()
	loads.Forget(strconv.FormatInt(tenantID, 10))
}

// Versions yields (tenant, rule-set version) for every cached set, for the
// rule-cache gauge: an operator sees at a glance whether every replica runs
// the same version. It snapshots under the lock and yields outside it, so a
// slow consumer never blocks classification.
func (c *Cache) Versions() iter.Seq2[int64, int64] {
	return func(yield func(int64, int64) bool) {
		type tv struct{ tenant, version int64 }
		c.mu.Lock()
		snap := make([]tv, 0, len(c.entries))
		for t, e := range c.entries {
			snap = append(snap, tv{t, e.set.Version()})
		}
		c.mu.Unlock()
		for _, x := range snap {
			if !yield(x.tenant, x.version) {
				return
			}
		}
	}
}
