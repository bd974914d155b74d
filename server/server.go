package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"buf.build/go/protovalidate"
	connectv1 "connectrpc.com/connect"
	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"connectrpc.com/connect/v2/connectproto"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect/v2"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/rulecache"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/store"
)

// Store is what the handlers need of a storage backend. Both store/postgres
// and store/sqlite satisfy it.
type Store interface {
	auth.KeyLookup
	RuleStore
	InsertFailure(ctx context.Context, f store.Prepared) (store.Failure, bool, error)
	GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error)
	ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error)
	GroupStore
	// Ping tells /healthz and gRPC health whether the store answers.
	Ping(ctx context.Context) error
}

// Limits bound what one request may cost. The zero value means the defaults
// below, which are documented in docs/reference.md.
type Limits struct {
	// MaxRequestBytes caps one request message (default 1 MiB).
	MaxRequestBytes int
	// MaxRuleRequestBytes caps one RuleService message (default 16 MiB).
	MaxRuleRequestBytes int
	// MaxDetailsBytes caps error.details once re-encoded as JSON (default 256 KiB).
	MaxDetailsBytes int
	// MaxDetailsDepth caps the nesting of error.details (default 32).
	MaxDetailsDepth int
	// MaxListBytes caps one ListFailures page by the size of its records (store.RecordSize;
	// default 2 MiB): a page that would grow past it ends early, with a nextPageToken, and holds
	// at least one record whatever its size. Half of gRPC's usual 4 MiB receive limit leaves room
	// for the binary form of details, which can be larger than their JSON.
	MaxListBytes int
	// RuleConcurrency caps how many of one tenant's Classify and Explain
	// requests are decoded and evaluated at once (default half the
	// processors, at least one), so that one tenant cannot take every
	// processor from the others; the others wait, parked (tenantgate.go).
	RuleConcurrency int
	// TenantInFlight caps how many calls of one tenant a replica holds at
	// once, waiting ones included (default 64); one more is refused with
	// resource_exhausted before its body is read.
	TenantInFlight int
}

// DefaultMaxListBytes is Limits.MaxListBytes when unset.
const DefaultMaxListBytes = 2 << 20

func (l Limits) withDefaults() Limits {
	if l.MaxRequestBytes <= 0 {
		l.MaxRequestBytes = 1 << 20
	}
	if l.MaxRuleRequestBytes <= 0 {
		l.MaxRuleRequestBytes = 16 << 20
	}
	if l.MaxDetailsBytes <= 0 {
		l.MaxDetailsBytes = 256 << 10
	}
	if l.MaxDetailsDepth <= 0 {
		l.MaxDetailsDepth = 32
	}
	if l.MaxListBytes <= 0 {
		l.MaxListBytes = DefaultMaxListBytes
	}
	if l.RuleConcurrency <= 0 {
		l.RuleConcurrency = defaultRuleConcurrency()
	}
	if l.TenantInFlight <= 0 {
		l.TenantInFlight = defaultTenantInFlight
	}
	return l
}

// Config wires a Handler.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests set it to pin time.
	Now    func() time.Time
	Limits Limits
	// Telemetry traces and measures every RPC and Classify call; nil
	// records nothing.
	Telemetry *telemetry.Instruments
	// TraceURL builds Failure.traceUrl from the stored trace ID; nil leaves
	// it empty.
	TraceURL *telemetry.TraceURLTemplate
	// Rules caches each tenant's compiled rule set; nil makes one over
	// Store. Run its Run method to follow changes made on other replicas.
	Rules *rulecache.Cache
	// RateLimit limits calls per tenant; the zero value limits nothing.
	RateLimit RateLimit
	// Draining reports whether the replica is shutting down; while it
	// does, grpc.health.v1 answers NOT_SERVING, as /readyz answers 503 in
	// serve's drain, so that gRPC-probing balancers take the replica out of
	// rotation too. nil: never draining.
	Draining func() bool
}

// New returns the service's HTTP handler: every RPC on Connect, gRPC and
// gRPC-Web, plus GET /readyz (and its alias /healthz), grpc.health.v1 and
// server reflection.
func New(cfg Config) (http.Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: Config.Store is required")
	}
	if err := ruleset.LoadBaseline(); err != nil {
		return nil, fmt.Errorf("server: baseline: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Rules == nil {
		cfg.Rules = NewRuleCache(cfg.Store, cfg.Logger)
	}
	validator, err := protovalidate.New()
	if err != nil {
		return nil, fmt.Errorf("server: build validator: %w", err)
	}

	authn := auth.New(cfg.Store, auth.Options{CacheTTL: KeyCacheTTL, Now: cfg.Now})
	gate := newTenantGate(cfg.Limits)
	rpc := connect.NewServer(
		// First, so that refused calls and recovered panics are traced too.
		cfg.Telemetry.Interceptor(),
		// Outside everything that can refuse a call, so that refused calls get their line too.
		accessLogInterceptor(cfg.Logger),
		// Inside the access log and outside everything else that can refuse a call (errors.go).
		errorInterceptor(cfg.Logger),
		recoverInterceptor(cfg.Logger),
		authInterceptor(authn),
		NewRateLimiter(cfg.RateLimit, cfg.Now).Interceptor(),
		// After authentication, which names the tenant, and before anything reads the body.
		gate.Interceptor(),
		validateInterceptor(validator),
	)
	toolfailurev1connect.RegisterClassifierServiceHandler(rpc, &classifierService{cfg: cfg, slots: gate.slots})
	toolfailurev1connect.RegisterFailureServiceHandler(rpc, &failureService{cfg: cfg})
	toolfailurev1connect.RegisterRuleServiceHandler(rpc, &ruleService{store: cfg.Store, cache: cfg.Rules, log: cfg.Logger, groups: cfg.Store, now: cfg.Now})

	// Reflection describes the schema only, which is public, so it lives on
	// its own connect.Server without the auth interceptor.
	reflection := connect.NewServer(accessLogInterceptor(cfg.Logger))
	grpcreflect.Register(reflection, grpcreflect.WithNamer(grpcreflect.NamerFunc(func() []string {
		return []string{toolfailurev1connect.ClassifierServiceName, toolfailurev1connect.FailureServiceName, toolfailurev1connect.RuleServiceName}
	})))

	health := &healthCheck{store: cfg.Store, now: cfg.Now, draining: cfg.Draining}
	mux := http.NewServeMux()
	// Unknown JSON fields are refused rather than dropped: most callers write
	// JSON by hand (curl, Python), and a misspelled "httpstatus" silently
	// ignored would lose exactly the signal that classifies the error.
	strictJSON := connectproto.NewJSONCodec()
	strictJSON.UnmarshalOptions.DiscardUnknown = false
	httpOpts := []connecthttp.Option{
		connecthttp.WithReadMaxBytes(cfg.Limits.MaxRequestBytes),
		connecthttp.WithHTTPGet(),
		// Both codecs refuse a Classify or Explain body whose error.details or
		// error.attributes are certainly over their limits before decoding it
		// (bodylimits.go): refusing must cost less than accepting.
		connecthttp.WithCodecs(limitedBinaryCodec{connectproto.NewBinaryCodec(), newBodyLimits(cfg.Limits)},
			limitedJSONCodec{strictJSON, newBodyLimits(cfg.Limits)}),
		// A whole rule set (up to 10,000 rules) arrives in one ReplaceRules
		// call, so rule management gets a larger message limit than the
		// hot path.
		connecthttp.WithConditionalOptions(func(spec connect.Spec) []connecthttp.Option {
			if serviceOf(spec.Procedure) == toolfailurev1connect.RuleServiceName {
				return []connecthttp.Option{connecthttp.WithReadMaxBytes(cfg.Limits.MaxRuleRequestBytes)}
			}
			return nil
		}),
	}
	connecthttp.Mount(prefetchMux{mux}, rpc, httpOpts...)
	connecthttp.Mount(mux, reflection)
	healthPath, healthHandler := grpchealth.NewHandler(health)
	mux.Handle(healthPath, LogProbes(cfg.Logger, healthHandler))
	ready := func(w http.ResponseWriter, r *http.Request) {
		if err := health.ping(r.Context()); err != nil {
			if errors.Is(err, store.ErrCorrupt) {
				// Waiting will not help: say why, so that the operator restores the store rather
				// than restarts the service.
				http.Error(w, "store failed its integrity check: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		// A store that is journaling through an outage still serves, and
		// says so, so that probes stay green while operators can see why.
		if d, ok := cfg.Store.(interface{ HealthDetail() string }); ok {
			if detail := d.HealthDetail(); detail != "" {
				_, _ = w.Write([]byte("ok, " + detail + "\n"))
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	}
	mux.Handle("GET /readyz", LogProbes(cfg.Logger, http.HandlerFunc(ready)))
	mux.Handle("GET /healthz", LogProbes(cfg.Logger, http.HandlerFunc(ready)))
	// Liveness never asks the store: a database outage must not make an
	// orchestrator restart replicas that are serving from their journal.
	mux.Handle("GET /livez", LogProbes(cfg.Logger, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})))
	return mux, nil
}

// healthCheck answers /healthz and grpc.health.v1 from one cached probe of
// the store, so that aggressive probing cannot load the database.
type healthCheck struct {
	store    Store
	now      func() time.Time
	draining func() bool // nil: never

	mu      sync.Mutex
	checked time.Time
	last    error
}

func (h *healthCheck) ping(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if now := h.now(); now.Sub(h.checked) > time.Second {
		// The probe's answer is shared by every caller for a second, so one caller's own
		// deadline (grpc-timeout: 1n) or disconnect must not cut it short and report the
		// store down to all the others.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		h.last = h.store.Ping(ctx)
		h.checked = now
	}
	return h.last
}

func (h *healthCheck) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	switch req.Service {
	case "", toolfailurev1connect.ClassifierServiceName, toolfailurev1connect.FailureServiceName, toolfailurev1connect.RuleServiceName:
	default:
		return nil, connectv1.NewError(connectv1.CodeNotFound, errors.New("unknown service"))
	}
	if h.draining != nil && h.draining() {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	if err := h.ping(ctx); err != nil {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}

// NewHTTPServer wraps h in the http.Server settings the service runs with:
// HTTP/1.1 and h2c (gRPC clients without TLS) on one port, and timeouts on
// every phase so that a slow or stalled client cannot hold a connection
// forever. The benchmark's zero-work handler uses the same settings, so that
// the two compare like with like.
func NewHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Handler:           h,
		Protocols:         protocols,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
