// Package servicetest runs the real classification service, over real HTTP, for the tests of the
// packages that call it from the MCP side (the middleware, the proxy, the examples). Each of them
// needs the same three things: a store with its schema, the service in front of it, and one key
// per scope; keeping them here keeps the set-up of those suites one and the same.
//
// It is for tests only: it reports set-up failures with t.Fatalf.
package servicetest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest/sqlitetest"
)

// Service is a running service and a key for each scope that MCP-side code uses.
type Service struct {
	URL       string
	ReportKey string
	LookupKey string
}

// KeyStore is what the set-up needs of a store beyond server.Store: a tenant and its keys.
type KeyStore interface {
	EnsureTenant(ctx context.Context, name string) (store.Tenant, error)
	CreateAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error)
}

// Embedded opens a migrated embedded store in the test's temporary directory, closed when the
// test ends. The file is a copy of one migrated once per test binary (sqlitetest), on which
// Migrate finds nothing to do: the callers test the service, not migrating.
func Embedded(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), sqlitetest.Path(t))
	if err != nil {
		t.Fatalf("open embedded store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate embedded store: %v", err)
	}
	return s
}

// Start serves the service on s until the test ends, with a report key and a lookup key of
// tenant "acme". s must also be a KeyStore, as both stores of this module are.
func Start(t testing.TB, s server.Store) Service {
	t.Helper()
	ks, ok := s.(KeyStore)
	if !ok {
		t.Fatalf("store %T cannot create keys", s)
	}
	h, err := server.New(server.Config{Store: s})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return Service{
		URL:       srv.URL,
		ReportKey: MintKey(t, ks, apikey.ScopeReport),
		LookupKey: MintKey(t, ks, apikey.ScopeLookup),
	}
}

// MintKey creates a key of tenant "acme" with scopes and returns its secret.
func MintKey(t testing.TB, s KeyStore, scopes ...string) string {
	t.Helper()
	ten, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatalf("ensure tenant: %v", err)
	}
	k, err := apikey.New()
	if err != nil {
		t.Fatalf("mint key: %v", err)
	}
	if _, err := s.CreateAPIKey(t.Context(), store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash, Scopes: scopes}); err != nil {
		t.Fatalf("store key: %v", err)
	}
	return k.Secret
}

// TextOf is the text content of a tool result, joined; "" for a nil result, so that a failed
// call can be printed in the test's message.
func TextOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
