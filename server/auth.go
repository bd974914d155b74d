package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/apikey"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/telemetry"
)

// Principal is who a call acts for: a tenant, through one of its keys.
type Principal struct {
	TenantID   int64
	TenantName string
	KeyID      string
	Scopes     []string
}

type principalKey struct{}

// PrincipalFrom returns the authenticated principal of a call.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// scopeFor maps a service to the scope that guards it. A procedure of a
// service not listed here is refused: new services must opt in explicitly.
var scopeFor = map[string]string{
	toolfailurev1connect.ClassifierServiceName: apikey.ScopeReport,
	toolfailurev1connect.FailureServiceName:    apikey.ScopeLookup,
	toolfailurev1connect.RuleServiceName:       apikey.ScopeRules,
}

// keyCacheTTL bounds how long a revoked key may keep working on a replica
// that saw it recently, in exchange for one store round trip per key per
// TTL instead of per request.
const keyCacheTTL = 10 * time.Second

type keyLookup interface {
	APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error)
}

// authenticator resolves bearer keys to principals, with a short cache.
type authenticator struct {
	store keyLookup
	now   func() time.Time
	log   *slog.Logger

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cachedPrincipal
}

type cachedPrincipal struct {
	p       Principal
	expires time.Time
}

func newAuthenticator(s keyLookup, now func() time.Time, log *slog.Logger) *authenticator {
	return &authenticator{store: s, now: now, log: log, cache: map[[sha256.Size]byte]cachedPrincipal{}}
}

// Authenticate resolves the value of an Authorization header.
func (a *authenticator) Authenticate(ctx context.Context, header string) (Principal, error) {
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		token, ok = strings.CutPrefix(header, "bearer ")
	}
	if !ok || token == "" {
		return Principal{}, connect.NewError(connect.CodeUnauthenticated, "missing API key: send Authorization: Bearer <key>")
	}
	token = strings.TrimSpace(token)
	if apikey.Check(token) != nil {
		return Principal{}, connect.NewError(connect.CodeUnauthenticated, "unknown API key")
	}
	var digest [sha256.Size]byte
	copy(digest[:], apikey.Hash(token))
	now := a.now()
	a.mu.Lock()
	c, hit := a.cache[digest]
	a.mu.Unlock()
	if hit && now.Before(c.expires) {
		return c.p, nil
	}
	key, tenant, err := a.store.APIKeyByHash(ctx, digest[:])
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, connect.NewError(connect.CodeUnauthenticated, "unknown API key")
	}
	if err != nil {
		a.log.ErrorContext(ctx, "api key lookup failed", "error", err)
		return Principal{}, connect.NewError(connect.CodeUnavailable, "cannot check the API key right now; retry shortly").WithCause(err)
	}
	p := Principal{TenantID: tenant.ID, TenantName: tenant.Name, KeyID: key.ID, Scopes: key.Scopes}
	a.mu.Lock()
	if len(a.cache) > 10_000 { // bounded: a flood of distinct valid keys cannot grow it forever
		clear(a.cache)
	}
	a.cache[digest] = cachedPrincipal{p: p, expires: now.Add(keyCacheTTL)}
	a.mu.Unlock()
	return p, nil
}

// authInterceptor authenticates every call before its payload is read and
// checks the scope of the service it addresses.
func authInterceptor(a *authenticator) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			info, ok := connect.CallInfoForServerContext(ctx)
			if !ok {
				return connect.NewError(connect.CodeInternal, "no call info")
			}
			p, err := a.Authenticate(ctx, info.RequestHeader().Get("Authorization"))
			if err != nil {
				return err
			}
			service := serviceOf(spec.Procedure)
			scope, known := scopeFor[service]
			if !known {
				return connect.NewError(connect.CodeUnimplemented, "unknown service")
			}
			if !slices.Contains(p.Scopes, scope) {
				return connect.NewError(connect.CodePermissionDenied, "this API key lacks the "+scope+" scope")
			}
			telemetry.SetPrincipal(ctx, p.TenantID, p.TenantName, p.KeyID)
			return next(context.WithValue(ctx, principalKey{}, p), spec, stream)
		}
	}
}

// serviceOf extracts "pkg.Service" from "/pkg.Service/Method".
func serviceOf(procedure string) string {
	s := strings.TrimPrefix(procedure, "/")
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i]
	}
	return s
}
