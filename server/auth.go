package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/telemetry"
)

// scopeFor maps a service to the scope that guards it. A procedure of a
// service not listed here is refused: new services must opt in explicitly.
var scopeFor = map[string]string{
	toolfailurev1connect.ClassifierServiceName: apikey.ScopeReport,
	toolfailurev1connect.FailureServiceName:    apikey.ScopeLookup,
	toolfailurev1connect.RuleServiceName:       apikey.ScopeRules,
}

// KeyCacheTTL bounds how long a revoked key may keep working on a replica
// that saw it recently, in exchange for one store round trip per key per
// TTL instead of per request: `keys revoke` takes effect on every replica
// within it. A key that expires is refused from its expiry on, cached or not.
const KeyCacheTTL = 10 * time.Second

// authInterceptor authenticates every call before its payload is read and
// checks the scope of the service it addresses.
func authInterceptor(a *auth.Authenticator) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			info, ok := connect.CallInfoForServerContext(ctx)
			if !ok {
				return internal("no call info", nil)
			}
			p, err := a.Authenticate(ctx, info.RequestHeader().Get("Authorization"))
			switch {
			case errors.Is(err, auth.ErrUnavailable):
				if gone := callerGone(ctx, err); gone != nil {
					// The caller's own deadline or cancellation, not the store's outage.
					return gone
				}
				return &storeOutage{what: "api key lookup failed", msg: auth.ErrUnavailable.Error(), err: err}
			case err != nil:
				return unauthenticated(err.Error())
			}
			service := serviceOf(spec.Procedure)
			scope, known := scopeFor[service]
			if !known {
				return unimplemented("unknown service")
			}
			if !p.Has(scope) {
				return permissionDenied(scope)
			}
			telemetry.SetPrincipal(ctx, p.TenantID, p.TenantName, p.KeyID)
			noteAuthenticated(ctx, p)
			return next(auth.NewContext(ctx, p), spec, stream)
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
