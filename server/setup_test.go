package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// migrated returns the URL of a migrated PostgreSQL schema of the test's own, from the test
// binary's pool (pgtest.Migrated): the handlers' tests need the tables, not a run of the
// migrations each.
func migrated(tb testing.TB) string {
	tb.Helper()
	return pgmigrated.URL(tb)
}

// bundle is what one test gets from setup: a real service over real HTTP
// (HTTP/1.1 and h2c) on a migrated PostgreSQL schema of its own, and keys for two tenants.
type bundle struct {
	url   string
	store *postgres.Store
	dbURL string
	// keys of tenant "acme" by scope set, and of tenant "globex".
	reportKey, lookupKey, allKey, otherAllKey string
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return setupWith(t, nil)
}

// setupWith is setup with the server's configuration adjusted by configure (nil for none).
func setupWith(t *testing.T, configure func(*server.Config)) *bundle {
	t.Helper()
	ctx := context.Background()
	dbURL := migrated(t)
	s, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	b := &bundle{store: s, dbURL: dbURL}
	b.reportKey = mkKey(t, s, "acme", apikey.ScopeReport)
	b.lookupKey = mkKey(t, s, "acme", apikey.ScopeLookup)
	b.allKey = mkKey(t, s, "acme", apikey.AllScopes...)
	b.otherAllKey = mkKey(t, s, "globex", apikey.AllScopes...)

	cfg := server.Config{Store: s}
	if configure != nil {
		configure(&cfg)
	}
	h, err := server.New(cfg)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.ReadHeaderTimeout = 5 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

func mkKey(t *testing.T, s *postgres.Store, tenant string, scopes ...string) string {
	t.Helper()
	ctx := context.Background()
	ten, err := s.EnsureTenant(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash, Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	return k.Secret
}

// h2cClient speaks HTTP/2 without TLS, as gRPC clients do.
func h2cClient() *http.Client {
	tr := &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func bearer(key string) connect.ClientInterceptor {
	return func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", "Bearer "+key)
			return next(ctx, spec)
		}
	}
}

// clients builds generated clients for one protocol.
func (b *bundle) classifier(key string, opts ...connecthttp.Option) toolfailurev1connect.ClassifierServiceClient {
	return toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(connecthttp.NewTransport(h2cClient(), b.url, opts...), bearer(key)))
}

func (b *bundle) failures(key string, opts ...connecthttp.Option) toolfailurev1connect.FailureServiceClient {
	return toolfailurev1connect.NewFailureServiceClient(connect.NewClient(connecthttp.NewTransport(h2cClient(), b.url, opts...), bearer(key)))
}
