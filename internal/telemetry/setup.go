package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName is service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES says otherwise.
const DefaultServiceName = "toolfailure"

// SDK is what Setup installed: the providers and propagator, also set as
// the OpenTelemetry globals, and the means to flush them on exit.
type SDK struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagator     propagation.TextMapPropagator
	// Description says in one line where traces and metrics go, for the
	// start-up log, e.g. "traces: otlp; metrics: off".
	Description string
	// Enabled is false when neither traces nor metrics are exported, so
	// that callers can skip instrumentation entirely.
	Enabled bool

	shutdown []func(context.Context) error
}

// Config returns the Config that sends Instruments' telemetry through s.
func (s *SDK) Config() Config {
	return Config{TracerProvider: s.TracerProvider, MeterProvider: s.MeterProvider, Propagator: s.Propagator}
}

// Shutdown flushes buffered spans and metrics and stops the exporters. Call
// it once, on exit, with a deadline: an unreachable collector must not hold
// up the process for long.
func (s *SDK) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range s.shutdown {
		if err := f(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry: shutdown: %w", err)
	}
	return nil
}

// Setup configures OpenTelemetry from the standard OTEL_* environment
// variables and installs the result as the global providers.
//
// Both signals are off unless asked for: OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER name the exporter ("otlp", "console" for debugging,
// "none"; metrics also "prometheus"), which contrib's autoexport builds, so
// that OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf
// by default, or grpc), OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER,
// OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL and the rest mean what the
// specification says. The specification's default exporter is otlp; this
// service defaults to none instead, because a service that starts sending
// data to localhost:4318 unasked, and logs an export error every few seconds
// when nothing listens, is a worse default for a tool that is often run on a
// laptop. OTEL_SDK_DISABLED=true turns everything off.
//
// The W3C trace-context and baggage propagator is installed in every case,
// so that trace IDs reach the failure records even with no exporter.
//
// Options add to that: WithMetricReader (the Prometheus endpoint of serve
// --metrics-listen) turns metrics on whatever OTEL_METRICS_EXPORTER says.
func Setup(ctx context.Context, opts ...SetupOption) (*SDK, error) {
	var so setupOptions
	for _, o := range opts {
		o(&so)
	}
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	otel.SetTextMapPropagator(prop)
	s := &SDK{
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  metricnoop.NewMeterProvider(),
		Propagator:     prop,
	}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		s.Description = "off (OTEL_SDK_DISABLED)"
		return s, nil
	}
	tracesWanted := exporterWanted("OTEL_TRACES_EXPORTER")
	metricsWanted := exporterWanted("OTEL_METRICS_EXPORTER")
	if !tracesWanted && !metricsWanted && len(so.readers) == 0 {
		s.Description = "off (set OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER to otlp or console)"
		return s, nil
	}
	s.Enabled = true
	res, err := newResource(ctx)
	if err != nil {
		return nil, err
	}
	var desc []string
	if tracesWanted {
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry: traces exporter (OTEL_TRACES_EXPORTER=%s): %w", os.Getenv("OTEL_TRACES_EXPORTER"), err)
		}
		if autoexport.IsNoneSpanExporter(exp) {
			tracesWanted = false
		} else {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
			s.TracerProvider = tp
			s.shutdown = append(s.shutdown, tp.Shutdown)
			otel.SetTracerProvider(tp)
			desc = append(desc, "traces: "+os.Getenv("OTEL_TRACES_EXPORTER")+otlpDetail("TRACES"))
		}
	}
	if !tracesWanted {
		desc = append(desc, "traces: off")
	}
	readers := so.readers
	if metricsWanted {
		reader, err := autoexport.NewMetricReader(ctx)
		if err != nil {
			_ = s.Shutdown(ctx)
			return nil, fmt.Errorf("telemetry: metrics exporter (OTEL_METRICS_EXPORTER=%s): %w", os.Getenv("OTEL_METRICS_EXPORTER"), err)
		}
		if autoexport.IsNoneMetricReader(reader) {
			metricsWanted = false
		} else {
			readers = append(readers, reader)
			desc = append(desc, "metrics: "+os.Getenv("OTEL_METRICS_EXPORTER")+otlpDetail("METRICS"))
		}
	}
	for _, name := range so.readerNames {
		desc = append(desc, "metrics: "+name)
	}
	if len(readers) > 0 {
		mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		for _, r := range readers {
			mopts = append(mopts, sdkmetric.WithReader(r))
		}
		mp := sdkmetric.NewMeterProvider(mopts...)
		s.MeterProvider = mp
		s.shutdown = append(s.shutdown, mp.Shutdown)
		otel.SetMeterProvider(mp)
	} else {
		desc = append(desc, "metrics: off")
	}
	s.Description = strings.Join(desc, "; ")
	return s, nil
}

// SetupOption adds to what the environment asks Setup for.
type SetupOption func(*setupOptions)

type setupOptions struct {
	readers     []sdkmetric.Reader
	readerNames []string
}

// WithMetricReader adds a metric reader, for example the Prometheus exporter
// behind a /metrics endpoint, to the meter provider; name says in the
// start-up description where the metrics go.
func WithMetricReader(name string, r sdkmetric.Reader) SetupOption {
	return func(o *setupOptions) {
		o.readers = append(o.readers, r)
		o.readerNames = append(o.readerNames, name)
	}
}

// exporterWanted reports whether the variable names an exporter other than
// none. Unset means none here; see Setup.
func exporterWanted(env string) bool {
	v := strings.TrimSpace(os.Getenv(env))
	return v != "" && v != "none"
}

// otlpDetail names the OTLP endpoint in the description, because "where is
// my telemetry going" is the first question when none arrives.
func otlpDetail(signal string) string {
	if os.Getenv("OTEL_"+signal+"_EXPORTER") != "otlp" {
		return ""
	}
	endpoint := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT")
	if endpoint == "" {
		endpoint = os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	proto := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto == "" {
		proto = "http/protobuf"
	}
	if endpoint == "" {
		endpoint = "default endpoint"
	}
	return " (" + proto + ", " + endpoint + ")"
}

func newResource(ctx context.Context) (*resource.Resource, error) {
	// Later detectors win: the defaults come first so that
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override them.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithProcessPID(),
		resource.WithAttributes(
			attribute.String("service.name", DefaultServiceName),
			attribute.String("service.version", version()),
		),
		resource.WithFromEnv(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil
}

// version is the module version the binary was built from, "(devel)" for
// a build from a work tree.
var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	const module = "github.com/omcp/toolfailure"
	if info.Main.Path == module {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == module {
			return d.Version
		}
	}
	return "(devel)"
})
