// Package uitest starts the service and the support UI together, as the binary mounts them, on a
// fresh store with keys for two tenants, for the UI's tests and its browser test (a module of its
// own, so that chromedp stays out of the service's module).
package uitest

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
	"github.com/omcp/toolfailure/store/storetest"
)

// Backend is a real store: the embedded SQLite one or PostgreSQL.
type Backend interface {
	store.Store
}

// Bundle is what one test gets: the service and the UI mounted together as
// the binary mounts them, over real HTTP, on a fresh store, with keys for two
// tenants.
type Bundle struct {
	URL   string
	Store Backend
	Clock *Clock

	Acme, Globex store.Tenant
	// Keys of tenant acme by scope set, and of tenant globex.
	ReportKey, LookupKey, ReportOnlyKey, RulesKey, GlobexKey string
}

// Clock is the UI's clock, which tests move to expire sessions.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the time the UI sees.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the UI's time on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// Options choose the store and what the UI is given.
type Options struct {
	// Postgres puts the service on a PostgreSQL schema of its own instead of a SQLite file.
	Postgres bool
	Rules    ui.RuleSource
	// StoreRules shows tenant rules from the store itself (ui.StoreRules).
	StoreRules bool
	// MaxListBytes is ui.Config.MaxListBytes (0: the default).
	MaxListBytes int
}

// TraceTemplate is the trace link the UI is configured with.
const TraceTemplate = "https://traces.example.test/trace/{trace_id}?span={span_id}"

// Setup starts the service and the UI over real HTTP on a fresh store, with keys for two tenants.
func Setup(t *testing.T, opts Options) *Bundle {
	t.Helper()
	ctx := context.Background()
	var s Backend
	if opts.Postgres {
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
	b := &Bundle{Store: s, Clock: &Clock{}}
	b.Acme, b.ReportKey = MkKey(t, s, "acme", apikey.ScopeReport, apikey.ScopeLookup)
	_, b.LookupKey = MkKey(t, s, "acme", apikey.ScopeLookup)
	_, b.ReportOnlyKey = MkKey(t, s, "acme", apikey.ScopeReport)
	_, b.RulesKey = MkKey(t, s, "acme", apikey.ScopeLookup, apikey.ScopeRules)
	b.Globex, b.GlobexKey = MkKey(t, s, "globex", apikey.AllScopes...)

	api, err := server.New(server.Config{Store: s})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	traceURL, err := telemetry.ParseTraceURLTemplate(TraceTemplate)
	if err != nil {
		t.Fatal(err)
	}
	rules := opts.Rules
	if opts.StoreRules {
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
	h, err := ui.New(ui.Config{Store: s, TraceURL: traceURL, Now: b.Clock.Now, Rules: rules, Suggest: suggest, MaxListBytes: opts.MaxListBytes})
	if err != nil {
		t.Fatalf("ui.New: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle("/ui/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.URL = srv.URL
	return b
}

// MkKey makes tenant (if needed) and a key with scopes for it, and returns the tenant and the key.
func MkKey(t *testing.T, s Backend, tenant string, scopes ...string) (store.Tenant, string) {
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

// Classify reports a failure through the real API, so that the record is
// exactly what the service stores (redacted, with trace context).
func (b *Bundle) Classify(t *testing.T, key string, req *v1.ClassifyRequest) string {
	t.Helper()
	auth := func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", "Bearer "+key)
			return next(ctx, spec)
		}
	}
	c := toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(connecthttp.NewTransport(http.DefaultClient, b.URL), auth))
	res, err := c.Classify(context.Background(), req)
	if err != nil {
		t.Fatalf("Classify: %v", err)
	}
	return res.GetToolFailure().GetCorrelationId()
}

// Insert stores a record directly, for tests that need many records or
// records at chosen times.
func (b *Bundle) Insert(t *testing.T, tenant store.Tenant, f store.Failure) string {
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
	if _, _, err := storetest.Insert(context.Background(), b.Store, f); err != nil {
		t.Fatalf("insert: %v", err)
	}
	return id.String()
}

// Browser is an HTTP client with a cookie jar that does not follow
// redirects, so that tests see them.
type Browser struct {
	t    *testing.T
	base string
	// Client is the HTTP client, whose cookie jar tests may read and set.
	Client *http.Client
}

// NewBrowser returns a client of the UI with a cookie jar of its own.
func (b *Bundle) NewBrowser(t *testing.T) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: t, base: b.URL, Client: &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Response is what a Browser got.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Do sends req and reads the answer whole.
func (br *Browser) Do(req *http.Request) Response {
	br.t.Helper()
	res, err := br.Client.Do(req)
	if err != nil {
		br.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(body)}
}

// Get fetches path.
func (br *Browser) Get(path string) Response {
	br.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, br.base+path, nil)
	return br.Do(req)
}

// Post sends form to path, with header added.
func (br *Browser) Post(path string, form url.Values, header http.Header) Response {
	br.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, br.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	return br.Do(req)
}

// SignIn signs in with key and fails the test unless it worked.
func (br *Browser) SignIn(key string) {
	br.t.Helper()
	res := br.Post("/ui/signin", url.Values{"key": {key}}, nil)
	if res.Status != http.StatusSeeOther {
		br.t.Fatalf("sign in: status %d, body %s", res.Status, res.Body)
	}
}

// ReportProblems reports a handful of problems through the API: one that no rule knows (three
// times), one that the baseline decides, and one of another tenant.
func (b *Bundle) ReportProblems(t *testing.T) (unknownID, knownID string) {
	t.Helper()
	for _, m := range []string{"parcel 12 stuck at depot 'Berlin'", "parcel 345 stuck at depot 'Lyon'", "Parcel 6789 stuck at depot 'Oslo'"} {
		unknownID = b.Classify(t, b.ReportKey, &v1.ClassifyRequest{Tool: "ship_parcel", Error: &v1.RawError{Message: m}})
	}
	status := int32(503)
	knownID = b.Classify(t, b.ReportKey, &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Message: "upstream returned 503", HttpStatus: &status}})
	b.Classify(t, b.GlobexKey, &v1.ClassifyRequest{Tool: "globex_secret_tool", Error: &v1.RawError{Message: "globex only"}})
	return unknownID, knownID
}

// MustParse parses a correlation ID, failing t if it is not one.
func MustParse(t *testing.T, id string) [16]byte {
	t.Helper()
	c, err := correlation.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
