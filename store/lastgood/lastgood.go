// Package lastgood serves the last good answer of the reads that every
// Classify call depends on (API keys, rule sets and their versions) while
// the store is unavailable. Without it, an outage would turn into failed
// authentication as soon as the server's short key cache expired, and the
// outage journal (package journal) would never be reached. The price is
// that a key revoked during an outage works until the store is back.
//
// Opened with a file (Open), the answers are kept on disk too, so that a
// process started while the store is unavailable (a replica restarted during
// an outage) answers from what the one before it last saw, instead of
// refusing every key until the store is back. The file holds what the store
// confirmed and nothing else: keys' hashes (as the store keeps them, never a
// key), their tenants and scopes, and rule sets. A key that the store says is
// unknown is removed from it. It is written when an answer changes, by a
// background writer (a new file renamed over the old one), and at Close.
package lastgood

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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

	// With a file: the writer's signal, its end, and what it logs to.
	path   string
	log    *slog.Logger
	dirty  chan struct{}
	quit   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	closed error
}

// New wraps s.
func New(s store.Store) *Store { return &Store{Store: s} }

// Open wraps s, and keeps the last good answers in the file at path too (see the package
// documentation): what the file holds now is answered while s is unavailable, until s answers.
// A file that does not exist is an empty one; one that cannot be read is logged and replaced.
// Close writes what changed and closes s.
func Open(s store.Store, path string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lg := &Store{Store: s, path: path, log: log, dirty: make(chan struct{}, 1), quit: make(chan struct{})}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("last good answers %s: %w", path, err)
	}
	switch n, err := lg.load(); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		log.Warn("lastgood: the saved answers cannot be read; starting without them", "file", path, "error", err)
	default:
		log.Info("lastgood: answers saved by an earlier run are kept for an outage", "file", path, "keys", n)
	}
	lg.wg.Add(1)
	go lg.writer()
	return lg, nil
}

// snapshot is the file's form.
type snapshot struct {
	Version  int              `json:"version"`
	Keys     []snapshotKey    `json:"keys"`
	Rules    []store.RuleSet  `json:"rules"`
	RuleOf   []int64          `json:"ruleTenants"` // the tenant of each of Rules
	Versions map[string]int64 `json:"versions"`
}

type snapshotKey struct {
	Hash   string       `json:"hash"` // hex SHA-256, as the store keeps it
	Key    store.APIKey `json:"key"`
	Tenant store.Tenant `json:"tenant"`
}

const snapshotVersion = 1

func (s *Store) load() (int, error) {
	b, err := os.ReadFile(s.path)
	if err != nil {
		return 0, err
	}
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return 0, err
	}
	if snap.Version != snapshotVersion || len(snap.Rules) != len(snap.RuleOf) {
		return 0, fmt.Errorf("unknown format %d", snap.Version)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = make(map[string]staleKey, len(snap.Keys))
	for _, k := range snap.Keys {
		h, err := hex.DecodeString(k.Hash)
		if err != nil {
			return 0, fmt.Errorf("key %s: %w", k.Key.ID, err)
		}
		s.keys[string(h)] = staleKey{k.Key, k.Tenant}
	}
	s.rules = make(map[int64]store.RuleSet, len(snap.Rules))
	for i, set := range snap.Rules {
		s.rules[snap.RuleOf[i]] = set
	}
	s.versions = make(map[int64]int64, len(snap.Versions))
	for t, v := range snap.Versions {
		id, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("version of tenant %q: %w", t, err)
		}
		s.versions[id] = v
	}
	return len(s.keys), nil
}

// save writes the answers to a new file and renames it over the old one, so that a crash leaves
// one or the other whole.
func (s *Store) save() error {
	s.mu.Lock()
	snap := snapshot{Version: snapshotVersion, Versions: make(map[string]int64, len(s.versions))}
	for h, k := range s.keys {
		snap.Keys = append(snap.Keys, snapshotKey{Hash: hex.EncodeToString([]byte(h)), Key: k.key, Tenant: k.tenant})
	}
	for t, set := range s.rules {
		snap.Rules = append(snap.Rules, set)
		snap.RuleOf = append(snap.RuleOf, t)
	}
	for t, v := range s.versions {
		snap.Versions[strconv.FormatInt(t, 10)] = v
	}
	s.mu.Unlock()
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), s.path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// writer saves whenever an answer changed; changes made while it saves are saved next.
func (s *Store) writer() {
	defer s.wg.Done()
	for {
		select {
		case <-s.quit:
			return
		case <-s.dirty:
			if err := s.save(); err != nil {
				s.log.Warn("lastgood: cannot save the answers for an outage", "file", s.path, "error", err)
			}
		}
	}
}

// changed tells the writer, if there is one, that an answer changed.
func (s *Store) changed() {
	if s.dirty == nil {
		return
	}
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// Close saves what changed, when the answers have a file, and closes the wrapped store.
func (s *Store) Close() error {
	s.once.Do(func() {
		if s.quit != nil {
			close(s.quit)
			s.wg.Wait()
			select {
			case <-s.dirty:
				if err := s.save(); err != nil {
					s.log.Warn("lastgood: cannot save the answers for an outage", "file", s.path, "error", err)
				}
			default:
			}
		}
		s.closed = s.Store.Close()
	})
	return s.closed
}

type staleKey struct {
	key    store.APIKey
	tenant store.Tenant
}

// remember keeps v as the last answer for k and reports whether that changed anything.
func remember[K comparable, V any](mu *sync.Mutex, m *map[K]V, k K, v V) bool {
	mu.Lock()
	defer mu.Unlock()
	if old, ok := (*m)[k]; ok && reflect.DeepEqual(old, v) {
		return false
	}
	if *m == nil || len(*m) >= maxStale {
		*m = map[K]V{}
	}
	(*m)[k] = v
	return true
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
		if remember(&s.mu, &s.keys, string(hash), staleKey{k, t}) {
			s.changed()
		}
	case errors.Is(err, store.ErrNotFound):
		s.mu.Lock()
		_, had := s.keys[string(hash)]
		delete(s.keys, string(hash))
		s.mu.Unlock()
		if had {
			s.changed()
		}
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
		if remember(&s.mu, &s.rules, tenantID, set) {
			s.changed()
		}
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
		if remember(&s.mu, &s.versions, tenantID, v) {
			s.changed()
		}
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
