// Package auth resolves API keys to principals: who a call acts for, a
// tenant through one of its keys and the key's scopes. The RPC API (a
// bearer key on every call) and the support pages (a session that holds
// the key's hash) authenticate through the same Authenticator, so the two
// cannot drift apart on what a valid key is.
package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/store"
)

// Principal is who a call acts for: a tenant, through one of its keys.
type Principal struct {
	TenantID   int64
	TenantName string
	KeyID      string
	Scopes     []string
}

// Has reports whether the principal's key has the scope.
func (p Principal) Has(scope string) bool { return slices.Contains(p.Scopes, scope) }

type principalKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal that NewContext put in ctx.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// The errors of Authenticate and ByHash. ErrUnavailable says nothing about
// the key: the store could not be asked, and the same key may well work
// later.
var (
	ErrMissing     = errors.New("missing API key: send Authorization: Bearer <key>")
	ErrUnknown     = errors.New("unknown API key")
	ErrUnavailable = errors.New("cannot check the API key right now; retry shortly")
	// ErrRevoked and ErrExpired refuse a key that exists but no longer works. Both also match
	// ErrUnknown (errors.Is), so that every caller that refuses an unknown key refuses them too;
	// the RPC API answers unauthenticated with their own message.
	ErrRevoked error = refusedKey("API key revoked")
	ErrExpired error = refusedKey("API key expired")
)

// refusedKey is an error that is also ErrUnknown.
type refusedKey string

func (e refusedKey) Error() string        { return string(e) }
func (e refusedKey) Is(target error) bool { return target == ErrUnknown }

// KeyLookup is what an Authenticator needs of a store; store.Store has it.
type KeyLookup interface {
	APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error)
}

// KeyToucher is what an Authenticator needs of a store to record when a key was last used;
// store.Store has it. A KeyLookup without it records nothing.
type KeyToucher interface {
	TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error
}

// DefaultLastUsedInterval is how often, at most, an Authenticator records that a key was used:
// one write per key per interval (per process, and fewer when another process recorded a use
// recently), not one per request. A key's "last used" is therefore up to this old.
const DefaultLastUsedInterval = time.Minute

// touchTimeout bounds one recording of a key's use, which runs in the background.
const touchTimeout = 5 * time.Second

// Options tune an Authenticator.
type Options struct {
	// CacheTTL bounds how long a resolved key is answered from memory: a
	// revoked key keeps working that long on a replica that saw it
	// recently, in exchange for one store round trip per key per TTL
	// instead of per request. Zero asks the store every time.
	CacheTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// LastUsedInterval is how often, at most, a key's use is recorded in the store (when it is a
	// KeyToucher): zero means DefaultLastUsedInterval, a negative value records nothing.
	LastUsedInterval time.Duration
}

// maxCached bounds the cache: a flood of distinct valid keys cannot grow it
// forever.
const maxCached = 10_000

// Authenticator resolves keys to principals. It is safe for concurrent use.
type Authenticator struct {
	store KeyLookup
	opts  Options

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cached
	// used is, per key ID, the latest use known to be recorded (or being recorded) in the store.
	used     map[string]time.Time
	touching sync.WaitGroup
}

type cached struct {
	p Principal
	// expires is when the entry must be asked of the store again: after CacheTTL, or when the
	// key itself expires, whichever comes first.
	expires time.Time
}

// New returns an Authenticator over s.
func New(s KeyLookup, opts Options) *Authenticator {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LastUsedInterval == 0 {
		opts.LastUsedInterval = DefaultLastUsedInterval
	}
	return &Authenticator{store: s, opts: opts, cache: map[[sha256.Size]byte]cached{}, used: map[string]time.Time{}}
}

// Wait waits for the recordings of key use that are under way (see Options.LastUsedInterval).
func (a *Authenticator) Wait() { a.touching.Wait() }

// BearerToken returns the key of an Authorization header value: the scheme
// "Bearer" in any case (RFC 9110 section 11.1: BEARER and bearer are the same
// scheme), white space, and the key.
func BearerToken(header string) (string, bool) {
	h := strings.TrimSpace(header)
	i := strings.IndexAny(h, " \t")
	if i < 0 || !strings.EqualFold(h[:i], "Bearer") {
		return "", false
	}
	token := strings.TrimSpace(h[i:])
	return token, token != ""
}

// Authenticate resolves the value of an Authorization header.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Principal, error) {
	token, ok := BearerToken(header)
	if !ok {
		return Principal{}, ErrMissing
	}
	return a.Key(ctx, token)
}

// Key resolves a key as its holder sends it. A string that cannot be a key
// is unknown without asking the store.
func (a *Authenticator) Key(ctx context.Context, key string) (Principal, error) {
	if apikey.Check(key) != nil {
		return Principal{}, ErrUnknown
	}
	return a.ByHash(ctx, [sha256.Size]byte(apikey.Hash(key)))
}

// ByHash resolves a key by its hash, as a session that never holds the key
// itself does. Errors wrap ErrUnknown (ErrRevoked and ErrExpired among them)
// or ErrUnavailable.
//
// A key revoked in the store is refused from the next time it is asked of the
// store: at once without a cache, and within Options.CacheTTL with one, on
// every process. A key that expires is refused from its expiry on, cache or
// not.
func (a *Authenticator) ByHash(ctx context.Context, digest [sha256.Size]byte) (Principal, error) {
	now := a.opts.Now()
	if a.opts.CacheTTL > 0 {
		a.mu.Lock()
		c, hit := a.cache[digest]
		a.mu.Unlock()
		if hit && now.Before(c.expires) {
			a.touch(c.p, time.Time{}, now)
			return c.p, nil
		}
	}
	key, tenant, err := a.store.APIKeyByHash(ctx, digest[:])
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrUnknown
	}
	if err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	switch {
	case key.Revoked():
		return Principal{}, ErrRevoked
	case key.Expired(now):
		return Principal{}, ErrExpired
	}
	p := Principal{TenantID: tenant.ID, TenantName: tenant.Name, KeyID: key.ID, Scopes: key.Scopes}
	if a.opts.CacheTTL > 0 {
		expires := now.Add(a.opts.CacheTTL)
		if !key.ExpiresAt.IsZero() && key.ExpiresAt.Before(expires) {
			expires = key.ExpiresAt
		}
		a.mu.Lock()
		if len(a.cache) >= maxCached {
			clear(a.cache)
		}
		a.cache[digest] = cached{p: p, expires: expires}
		a.mu.Unlock()
	}
	a.touch(p, key.LastUsedAt, now)
	return p, nil
}

// touch records in the background that p's key was used at now, unless a use
// less than LastUsedInterval before now is recorded already: by this process
// (remembered) or by any (stored, as the store last said).
func (a *Authenticator) touch(p Principal, stored, now time.Time) {
	toucher, ok := a.store.(KeyToucher)
	if !ok || a.opts.LastUsedInterval < 0 {
		return
	}
	a.mu.Lock()
	last := a.used[p.KeyID]
	if stored.After(last) {
		last = stored
		a.used[p.KeyID] = stored
	}
	if !last.IsZero() && now.Sub(last) < a.opts.LastUsedInterval {
		a.mu.Unlock()
		return
	}
	if len(a.used) >= maxCached {
		clear(a.used)
	}
	a.used[p.KeyID] = now
	a.touching.Add(1)
	a.mu.Unlock()
	go func() {
		defer a.touching.Done()
		// Not the request's context: the write must not be cut short by the
		// call that happened to trigger it, and it must not delay that call.
		ctx, cancel := context.WithTimeout(context.Background(), touchTimeout)
		defer cancel()
		// A failed write is tried again one interval later; "last used" is
		// a hint for operators, not worth failing or slowing a call over.
		_ = toucher.TouchAPIKey(ctx, p.TenantID, p.KeyID, now)
	}()
}
