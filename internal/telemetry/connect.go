package telemetry

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Interceptor returns a connect-go v2 server interceptor that traces every
// call and records its duration, following the RPC semantic conventions.
//
// It exists because otelconnect has no release for connect-go v2. It covers
// what the service needs: one SERVER span per call whose parent is taken
// from the request headers (W3C traceparent/tracestate and baggage, through
// the configured propagator, on Connect, gRPC and gRPC-Web alike), the
// status mapping of the conventions, and a duration histogram whose
// attributes are bounded (method and status code, never the peer).
//
// Put it first in connect.NewServer's list, so that it also sees calls that
// authentication refuses and panics that the recover interceptor turns into
// internal errors.
func (i *Instruments) Interceptor() connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		if i == nil {
			return next
		}
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			start := time.Now()
			info, hasInfo := connect.CallInfoForServerContext(ctx)
			if hasInfo {
				ctx = i.propagator.Extract(ctx, headerCarrier{info.RequestHeader()})
			}
			m := parseProcedure(spec)
			attrs := i.rpc.attributes(m)
			spanAttrs := attrs
			if hasInfo {
				spanAttrs = append(spanAttrs[:len(spanAttrs):len(spanAttrs)], peerAttributes(info.PeerAddr)...)
				if info.Protocol != "" {
					spanAttrs = append(spanAttrs, attribute.String("rpc.connect_rpc.protocol", info.Protocol))
				}
			}
			ctx, span := i.tracer.Start(ctx, m.spanName(),
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithTimestamp(start),
				trace.WithAttributes(spanAttrs...))
			err := next(ctx, spec, stream)

			var statusAttrs []attribute.KeyValue
			if err != nil {
				code := connect.CodeOf(err)
				statusAttrs = i.rpc.errorAttributes(code)
				span.SetAttributes(statusAttrs...)
				if serverFault(code) {
					// The message is the public one: a cause wrapped
					// with WithCause may hold details not meant to leave
					// the process, so only the public text is recorded.
					span.SetStatus(codes.Error, publicMessage(err))
				}
			}
			end := time.Now()
			span.End(trace.WithTimestamp(end))

			elapsed := end.Sub(start)
			all := append(attrs[:len(attrs):len(attrs)], statusAttrs...)
			set := metric.WithAttributeSet(attribute.NewSet(all...))
			if i.rpcDurationOld != nil {
				i.rpcDurationOld.Record(ctx, float64(elapsed)/float64(time.Millisecond), set)
			}
			if i.rpcDurationNew != nil {
				i.rpcDurationNew.Record(ctx, elapsed.Seconds(), set)
			}
			return err
		}
	}
}

// method is a procedure split the way the conventions name its parts.
type method struct {
	service, name string
	// known is false for a procedure the server did not register (the
	// conventions then ask for "_OTHER" so that probing cannot explode
	// cardinality), and for malformed procedure paths.
	known    bool
	original string
}

func parseProcedure(spec connect.Spec) method {
	p := strings.TrimPrefix(spec.Procedure, "/")
	svc, name, ok := strings.Cut(p, "/")
	return method{service: svc, name: name, known: ok && spec.Schema != nil && svc != "" && name != "", original: p}
}

// spanName is "package.Service/Method", which both generations of the
// conventions prescribe.
func (m method) spanName() string {
	if !m.known {
		return "_OTHER"
	}
	return m.service + "/" + m.name
}

func (c rpcConventions) attributes(m method) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 5)
	if c.old {
		attrs = append(attrs, attribute.String("rpc.system", "connect_rpc"))
		if m.known {
			attrs = append(attrs, attribute.String("rpc.service", m.service))
			if !c.current {
				// rpc.method means the bare method name here, and the
				// fully qualified one in the current conventions; when
				// both are emitted the current meaning wins.
				attrs = append(attrs, attribute.String("rpc.method", m.name))
			}
		}
	}
	if c.current {
		attrs = append(attrs, attribute.String("rpc.system.name", "connectrpc"))
		if m.known {
			attrs = append(attrs, attribute.String("rpc.method", m.service+"/"+m.name))
		} else {
			attrs = append(attrs, attribute.String("rpc.method", "_OTHER"))
		}
	}
	return attrs
}

func (c rpcConventions) errorAttributes(code connect.Code) []attribute.KeyValue {
	s := code.String()
	attrs := []attribute.KeyValue{AttrErrorType.String(s)}
	if c.old {
		attrs = append(attrs, attribute.String("rpc.connect_rpc.error_code", s))
	}
	if c.current {
		attrs = append(attrs, attribute.String("rpc.response.status_code", s))
	}
	return attrs
}

// serverFault reports whether a code means the server failed, which is
// when the conventions set a server span's status to Error. Codes that blame
// the caller (invalid_argument, not_found, unauthenticated, …) leave it
// unset: they are the service working as designed.
func serverFault(c connect.Code) bool {
	switch c {
	case connect.CodeUnknown, connect.CodeDeadlineExceeded, connect.CodeUnimplemented,
		connect.CodeInternal, connect.CodeUnavailable, connect.CodeDataLoss:
		return true
	}
	return false
}

func publicMessage(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Message()
	}
	return connect.CodeOf(err).String()
}

func peerAttributes(addr string) []attribute.KeyValue {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []attribute.KeyValue{attribute.String("network.peer.address", addr)}
	}
	attrs := []attribute.KeyValue{attribute.String("network.peer.address", host)}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("network.peer.port", p))
	}
	return attrs
}

// headerCarrier adapts connect's header type to the propagation API.
type headerCarrier struct{ h *connect.Header }

var _ propagation.TextMapCarrier = headerCarrier{}

func (c headerCarrier) Get(key string) string { return c.h.Get(key) }
func (c headerCarrier) Set(key, value string) { c.h.Set(key, value) }
func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, c.h.Len())
	for k := range c.h.All() {
		keys = append(keys, k)
	}
	return keys
}
