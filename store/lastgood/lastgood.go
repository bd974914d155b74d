// Package lastgood serves the last good answer of the reads that every
// Classify call depends on (API keys, rule sets and their versions) while
// the store is unavailable. Without it, an outage would turn into failed
// authentication as soon as the server's short key cache expired, and the
// outage journal (package journal) would never be reached. The price is
// that a key revoked during an outage works until the store is back.
package lastgood

import (
	"context"
	"errors"
	"sync"

	"github.com/omcp/toolfailure/store"
)

// maxStale bounds each cache of last answers; past it the cache starts over. A busy service has a
// few thousand keys and tenants at most, so this is never reached in normal use.
const maxStale = 10_000

// Store wraps a store.Store and is one: reads of keys and rules pass through, and are answered
// from the last good answer while the wrapped store is unavailable.
type Store struct {
	store.Store

	mu       sync.Mutex
	keys     map[string]staleKey
	rules    map[int64]store.RuleSet
	versions map[int64]int64
}

// New wraps s.
func New(s store.Store) *Store { return &Store{Store: s} }

type staleKey struct {
	key    store.APIKey
	tenant store.Tenant
}

func remember[K comparable, V any](mu *sync.Mutex, m *map[K]V, k K, v V) {
	mu.Lock()
	defer mu.Unlock()
	if *m == nil || len(*m) >= maxStale {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

func recall[K comparable, V any](mu *sync.Mutex, m map[K]V, k K) (V, bool) {
	mu.Lock()
	defer mu.Unlock()
	v, ok := m[k]
	return v, ok
}

// APIKeyByHash passes through, and answers from the last good answer while the store is
// unavailable. A key that the store never confirmed is not accepted.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	k, t, err := s.Store.APIKeyByHash(ctx, hash)
	switch {
	case err == nil:
		remember(&s.mu, &s.keys, string(hash), staleKey{k, t})
	case errors.Is(err, store.ErrNotFound):
		s.mu.Lock()
		delete(s.keys, string(hash))
		s.mu.Unlock()
	case errors.Is(err, store.ErrUnavailable):
		if v, ok := recall(&s.mu, s.keys, string(hash)); ok {
			return v.key, v.tenant, nil
		}
	}
	return k, t, err
}

// ListRules passes through, and answers from the last good answer while the store is unavailable,
// so that classification keeps applying the tenant's rules.
func (s *Store) ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error) {
	set, err := s.Store.ListRules(ctx, tenantID)
	switch {
	case err == nil:
		remember(&s.mu, &s.rules, tenantID, set)
	case errors.Is(err, store.ErrUnavailable):
		if v, ok := recall(&s.mu, s.rules, tenantID); ok {
			return v, nil
		}
	}
	return set, err
}

// RuleSetVersion is like ListRules.
func (s *Store) RuleSetVersion(ctx context.Context, tenantID int64) (int64, error) {
	v, err := s.Store.RuleSetVersion(ctx, tenantID)
	switch {
	case err == nil:
		remember(&s.mu, &s.versions, tenantID, v)
	case errors.Is(err, store.ErrUnavailable):
		if old, ok := recall(&s.mu, s.versions, tenantID); ok {
			return old, nil
		}
	}
	return v, err
}

var _ store.RuleWatcher = (*Store)(nil)

// WatchRules forwards the wrapped store's notifications of rule changes (see store.ForwardWatch).
func (s *Store) WatchRules(ctx context.Context, fn func(store.RuleEvent)) error {
	return store.ForwardWatch(ctx, s.Store, fn)
}
