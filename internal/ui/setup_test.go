package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/internal/ui"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/sqlite"
)

// backend is a real store: the embedded SQLite one or PostgreSQL.
type backend interface {
	store.Store
}

// bundle is what one test gets: the service and the UI mounted together as
// the binary mounts them, over real HTTP, on a fresh store, with keys for two
// tenants.
type bundle struct {
	url   string
	store backend
	clock *clock

	acme, globex store.Tenant
	// Keys of tenant acme by scope set, and of tenant globex.
	reportKey, lookupKey, reportOnlyKey, rulesKey, globexKey string
}

// clock is the UI's clock, which tests move to expire sessions.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

type setupOptions struct {
	postgres bool
	rules    ui.RuleSource
	// storeRules shows tenant rules from the store itself (ui.StoreRules).
	storeRules bool
	// maxListBytes is ui.Config.MaxListBytes (0: the default).
	maxListBytes int
}

const traceTemplate = "https://traces.example.test/trace/{trace_id}?span={span_id}"

func setup(t *testing.T, opts setupOptions) *bundle {
	t.Helper()
	ctx := context.Background()
	var s backend
	if opts.postgres {
		ps, err := postgres.Open(ctx, pgtest.URL(t))
		if err != nil {
			t.Fatalf("open postgres: %v", err)
		}
		s = ps
	} else {
		ss, err := sqlite.Open(ctx, t.TempDir()+"/toolfailure.db")
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		s = ss
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	b := &bundle{store: s, clock: &clock{}}
	b.acme, b.reportKey = mkKey(t, s, "acme", apikey.ScopeReport, apikey.ScopeLookup)
	_, b.lookupKey = mkKey(t, s, "acme", apikey.ScopeLookup)
	_, b.reportOnlyKey = mkKey(t, s, "acme", apikey.ScopeReport)
	_, b.rulesKey = mkKey(t, s, "acme", apikey.ScopeLookup, apikey.ScopeRules)
	b.globex, b.globexKey = mkKey(t, s, "globex", apikey.AllScopes...)

	api, err := server.New(server.Config{Store: s})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	traceURL, err := telemetry.ParseTraceURLTemplate(traceTemplate)
	if err != nil {
		t.Fatal(err)
	}
	rules := opts.rules
	if opts.storeRules {
		rules = ui.StoreRules(s.(ui.RuleGetter))
	}
	suggest := func(ctx context.Context, tenantID int64, fp string) (string, string, error) {
		rule, explanation, err := server.SuggestRule(ctx, s, tenantID, fp, time.Now())
		if err != nil {
			return "", "", err
		}
		yaml, err := ruleset.FormatFile([]ruleset.Rule{rule})
		return string(yaml), explanation, err
	}
	h, err := ui.New(ui.Config{Store: s, TraceURL: traceURL, Now: b.clock.now, Rules: rules, Suggest: suggest, MaxListBytes: opts.maxListBytes})
	if err != nil {
		t.Fatalf("ui.New: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle("/ui/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

func mkKey(t *testing.T, s backend, tenant string, scopes ...string) (store.Tenant, string) {
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
	return ten, k.Secret
}

// classify reports a failure through the real API, so that the record is
// exactly what the service stores (redacted, with trace context).
func (b *bundle) classify(t *testing.T, key string, req *v1.ClassifyRequest) string {
	t.Helper()
	auth := func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", "Bearer "+key)
			return next(ctx, spec)
		}
	}
	c := toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(connecthttp.NewTransport(http.DefaultClient, b.url), auth))
	res, err := c.Classify(context.Background(), req)
	if err != nil {
		t.Fatalf("Classify: %v", err)
	}
	return res.GetToolFailure().GetCorrelationId()
}

// insert stores a record directly, for tests that need many records or
// records at chosen times.
func (b *bundle) insert(t *testing.T, tenant store.Tenant, f store.Failure) string {
	t.Helper()
	if f.CreatedAt.IsZero() {
		f.CreatedAt = time.Now()
	}
	id, err := correlation.New(f.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	f.ID, f.TenantID = id, tenant.ID
	if f.Error == nil {
		f.Error = []byte(`{"message":"boom"}`)
	}
	if _, _, err := b.store.InsertFailure(context.Background(), f); err != nil {
		t.Fatalf("insert: %v", err)
	}
	return id.String()
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, so that tests see them.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (b *bundle) newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: b.url, c: &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (br *browser) do(req *http.Request) response {
	br.t.Helper()
	res, err := br.c.Do(req)
	if err != nil {
		br.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

func (br *browser) get(path string) response {
	br.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, br.base+path, nil)
	return br.do(req)
}

func (br *browser) post(path string, form url.Values, header http.Header) response {
	br.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, br.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	return br.do(req)
}

// signIn signs in with key and fails the test unless it worked.
func (br *browser) signIn(key string) {
	br.t.Helper()
	res := br.post("/ui/signin", url.Values{"key": {key}}, nil)
	if res.status != http.StatusSeeOther {
		br.t.Fatalf("sign in: status %d, body %s", res.status, res.body)
	}
}

func structValue(v any) (*structpb.Value, error) { return structpb.NewValue(v) }
