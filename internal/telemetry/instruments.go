package telemetry

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of everything this package emits,
// so that a backend can tell the service's own spans and metrics from those
// of the libraries it uses.
const ScopeName = "github.com/omcp/toolfailure/internal/telemetry"

// Attribute keys of the service's own domain. The OpenTelemetry conventions
// have no words for a tool failure's class or code, so they live in a
// toolfailure.* namespace; where a convention does exist (gen_ai.tool.name,
// error.type, rpc.*, db.*) it is used instead.
const (
	AttrCorrelationID = attribute.Key("toolfailure.correlation_id")
	AttrClass         = attribute.Key("toolfailure.class")
	AttrCode          = attribute.Key("toolfailure.code")
	AttrRetryable     = attribute.Key("toolfailure.retryable")
	AttrRuleID        = attribute.Key("toolfailure.rule.id")
	AttrReplay        = attribute.Key("toolfailure.idempotent_replay")
	AttrTenantID      = attribute.Key("toolfailure.tenant.id")
	AttrTenantName    = attribute.Key("toolfailure.tenant.name")
	AttrAPIKeyID      = attribute.Key("toolfailure.api_key.id")
	AttrServerLabel   = attribute.Key("toolfailure.server")
	AttrOutcome       = attribute.Key("toolfailure.outcome")

	// AttrGenAIToolName is the tool's name, as the MCP and GenAI conventions
	// spell it.
	AttrGenAIToolName = attribute.Key("gen_ai.tool.name")
	// AttrErrorType is the stable error.type of the error conventions.
	AttrErrorType = attribute.Key("error.type")
)

// Config says where an Instruments sends its telemetry. Zero fields mean the
// global providers and propagator, which Setup installs; tests pass their
// own so that they can run in parallel.
type Config struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagator     propagation.TextMapPropagator
	// SemconvOptIn overrides OTEL_SEMCONV_STABILITY_OPT_IN for the RPC
	// conventions (see the package documentation); empty reads the variable.
	SemconvOptIn string
}

// Instruments holds the service's tracer and metric instruments. One value
// is shared by the Connect interceptor, the Classify handler and the pgx
// tracer; it is safe for concurrent use. A nil *Instruments is valid and
// records nothing, so code paths need no "is telemetry on" checks.
type Instruments struct {
	tracer     trace.Tracer
	meter      metric.Meter
	propagator propagation.TextMapPropagator
	rpc        rpcConventions

	classifications  metric.Int64Counter
	classifyDuration metric.Float64Histogram
	rpcDurationOld   metric.Float64Histogram // rpc.server.duration, ms
	rpcDurationNew   metric.Float64Histogram // rpc.server.call.duration, s
	dbDuration       metric.Float64Histogram
	batchSize        metric.Int64Histogram
	ruleCacheVersion metric.Int64ObservableGauge
}

// secondsBuckets are the bucket boundaries the conventions recommend for
// durations in seconds; the SDK's default boundaries are meant for
// milliseconds and would put every call in the first bucket.
var secondsBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// New creates the instruments. It fails only if the meter provider refuses
// an instrument, which the SDK does for invalid names: a programming error.
func New(cfg Config) (*Instruments, error) {
	if cfg.TracerProvider == nil {
		cfg.TracerProvider = otel.GetTracerProvider()
	}
	if cfg.MeterProvider == nil {
		cfg.MeterProvider = otel.GetMeterProvider()
	}
	if cfg.Propagator == nil {
		cfg.Propagator = otel.GetTextMapPropagator()
	}
	optIn := cfg.SemconvOptIn
	if optIn == "" {
		optIn = os.Getenv("OTEL_SEMCONV_STABILITY_OPT_IN")
	}
	i := &Instruments{
		tracer:     cfg.TracerProvider.Tracer(ScopeName, trace.WithInstrumentationVersion(version())),
		meter:      cfg.MeterProvider.Meter(ScopeName, metric.WithInstrumentationVersion(version())),
		propagator: cfg.Propagator,
		rpc:        rpcConventionsFor(optIn),
	}
	var err error
	fail := func(name string, e error) error { return fmt.Errorf("telemetry: create instrument %s: %w", name, e) }
	if i.classifications, err = i.meter.Int64Counter("toolfailure.classifications",
		metric.WithUnit("{classification}"),
		metric.WithDescription("Tool failures classified, by tenant, class and code (codes outside the baseline vocabulary are counted as \"other\")."),
	); err != nil {
		return nil, fail("toolfailure.classifications", err)
	}
	if i.classifyDuration, err = i.meter.Float64Histogram("toolfailure.classify.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Time to classify a tool failure and store its record durably."),
		metric.WithExplicitBucketBoundaries(secondsBuckets...),
	); err != nil {
		return nil, fail("toolfailure.classify.duration", err)
	}
	if i.rpc.old {
		if i.rpcDurationOld, err = i.meter.Float64Histogram("rpc.server.duration",
			metric.WithUnit("ms"),
			metric.WithDescription("Measures the duration of inbound RPC."),
		); err != nil {
			return nil, fail("rpc.server.duration", err)
		}
	}
	if i.rpc.current {
		if i.rpcDurationNew, err = i.meter.Float64Histogram("rpc.server.call.duration",
			metric.WithUnit("s"),
			metric.WithDescription("Measures the duration of an incoming Remote Procedure Call (RPC)."),
			metric.WithExplicitBucketBoundaries(secondsBuckets...),
		); err != nil {
			return nil, fail("rpc.server.call.duration", err)
		}
	}
	if i.dbDuration, err = i.meter.Float64Histogram("db.client.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of database client operations."),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10),
	); err != nil {
		return nil, fail("db.client.operation.duration", err)
	}
	if i.batchSize, err = i.meter.Int64Histogram("toolfailure.store.batch.size",
		metric.WithUnit("{query}"),
		metric.WithDescription("Statements sent to the database in one batch."),
		metric.WithExplicitBucketBoundaries(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
	); err != nil {
		return nil, fail("toolfailure.store.batch.size", err)
	}
	if i.ruleCacheVersion, err = i.meter.Int64ObservableGauge("toolfailure.rules.cache.version",
		metric.WithUnit("{version}"),
		metric.WithDescription("Version of each tenant's rule set held in this replica's rule cache; replicas that disagree for long have missed an invalidation."),
	); err != nil {
		return nil, fail("toolfailure.rules.cache.version", err)
	}
	return i, nil
}

// ObserveRuleCache reports the rule cache's versions on every metric
// collection: versions yields (tenant ID, rule-set version) for each tenant
// whose rules the cache holds. It is called from the SDK's collection
// goroutine, so it must be safe to call concurrently with cache updates and
// must not block. Unregister the returned registration when the cache goes
// away; a replaced cache would otherwise be reported twice.
func (i *Instruments) ObserveRuleCache(versions iter.Seq2[int64, int64]) (metric.Registration, error) {
	if i == nil {
		return noRegistration{}, nil
	}
	reg, err := i.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for tenant, v := range versions {
			o.ObserveInt64(i.ruleCacheVersion, v, metric.WithAttributes(AttrTenantID.Int64(tenant)))
		}
		return nil
	}, i.ruleCacheVersion)
	if err != nil {
		return nil, fmt.Errorf("telemetry: observe rule cache: %w", err)
	}
	return reg, nil
}

type noRegistration struct{ metric.Registration }

func (noRegistration) Unregister() error { return nil }

// SetPrincipal annotates the current span (the RPC server span, when called
// from an interceptor after authentication) with the tenant and the public
// ID of the API key, so that traces can be filtered by tenant. The secret
// key is never an attribute.
func SetPrincipal(ctx context.Context, tenantID int64, tenantName, keyID string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(AttrTenantID.Int64(tenantID), AttrTenantName.String(tenantName), AttrAPIKeyID.String(keyID))
}

// rpcConventions selects which generation of the RPC semantic conventions
// the interceptor emits. See the package documentation.
type rpcConventions struct {
	old, current bool
}

// rpcConventionsFor reads an OTEL_SEMCONV_STABILITY_OPT_IN value the way
// OpenTelemetry instrumentations do during a conventions migration: "rpc"
// switches to the current conventions, "rpc/dup" emits both, anything else
// keeps the established ones.
func rpcConventionsFor(optIn string) rpcConventions {
	c := rpcConventions{old: true}
	for v := range strings.SplitSeq(optIn, ",") {
		switch strings.TrimSpace(v) {
		case "rpc/dup":
			return rpcConventions{old: true, current: true}
		case "rpc":
			c = rpcConventions{current: true}
		}
	}
	return c
}
