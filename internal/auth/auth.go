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
)

// KeyLookup is what an Authenticator needs of a store; store.Store has it.
type KeyLookup interface {
	APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error)
}

// Options tune an Authenticator.
type Options struct {
	// CacheTTL bounds how long a resolved key is answered from memory: a
	// revoked key keeps working that long on a replica that saw it
	// recently, in exchange for one store round trip per key per TTL
	// instead of per request. Zero asks the store every time.
	CacheTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
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
}

type cached struct {
	p       Principal
	expires time.Time
}

// New returns an Authenticator over s.
func New(s KeyLookup, opts Options) *Authenticator {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Authenticator{store: s, opts: opts, cache: map[[sha256.Size]byte]cached{}}
}

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
// itself does. Errors wrap ErrUnknown or ErrUnavailable.
func (a *Authenticator) ByHash(ctx context.Context, digest [sha256.Size]byte) (Principal, error) {
	now := a.opts.Now()
	if a.opts.CacheTTL > 0 {
		a.mu.Lock()
		c, hit := a.cache[digest]
		a.mu.Unlock()
		if hit && now.Before(c.expires) {
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
	p := Principal{TenantID: tenant.ID, TenantName: tenant.Name, KeyID: key.ID, Scopes: key.Scopes}
	if a.opts.CacheTTL > 0 {
		a.mu.Lock()
		if len(a.cache) >= maxCached {
			clear(a.cache)
		}
		a.cache[digest] = cached{p: p, expires: now.Add(a.opts.CacheTTL)}
		a.mu.Unlock()
	}
	return p, nil
}
