package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/auth"
)

// accessEntry is what the handlers below the access log tell it about a call: who made it and
// which correlation ID it issued or looked up. The interceptors further in the chain cannot
// return values to it, so it rides in the context and they fill it in.
type accessEntry struct {
	principal     auth.Principal
	authenticated bool
	correlationID correlation.ID
	hasID         bool
}

type accessEntryKey struct{}

// accessLogInterceptor writes one line per RPC at info: the procedure, the Connect code, the
// tenant and key ID once authenticated, the correlation ID the call issued or looked up, and the
// duration. It never writes the request, the response, the Authorization header or an error's
// text: those may hold a caller's secret (redaction happens only on the way to the store).
func accessLogInterceptor(log *slog.Logger) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			if !log.Enabled(ctx, slog.LevelInfo) {
				return next(ctx, spec, stream)
			}
			start := time.Now()
			e := &accessEntry{}
			err := next(context.WithValue(ctx, accessEntryKey{}, e), spec, stream)
			code := "ok"
			if err != nil {
				code = connect.CodeOf(err).String()
			}
			attrs := make([]slog.Attr, 0, 8)
			attrs = append(attrs, slog.String("procedure", spec.Procedure), slog.String("code", code))
			if info, ok := connect.CallInfoForServerContext(ctx); ok && info.Protocol != "" {
				attrs = append(attrs, slog.String("protocol", info.Protocol))
			}
			if e.authenticated {
				attrs = append(attrs, slog.Int64("tenant", e.principal.TenantID),
					slog.String("tenantName", e.principal.TenantName), slog.String("keyId", e.principal.KeyID))
			}
			if e.hasID {
				attrs = append(attrs, slog.String("correlationId", e.correlationID.String()))
			}
			attrs = append(attrs, durationMs(time.Since(start)))
			log.LogAttrs(ctx, slog.LevelInfo, "rpc", attrs...)
			return err
		}
	}
}

// noteAuthenticated tells the access log who the call acts for.
func noteAuthenticated(ctx context.Context, p auth.Principal) {
	if e, ok := ctx.Value(accessEntryKey{}).(*accessEntry); ok {
		e.principal, e.authenticated = p, true
	}
}

// noteCorrelationID tells the access log the correlation ID that the call issued or looked up,
// the one a user will quote to support.
func noteCorrelationID(ctx context.Context, id correlation.ID) {
	if e, ok := ctx.Value(accessEntryKey{}).(*accessEntry); ok {
		e.correlationID, e.hasID = id, true
	}
}

// durationMs is a call's duration in milliseconds, a number in both log formats (slog's own
// duration is text in one and nanoseconds in the other).
func durationMs(d time.Duration) slog.Attr {
	return slog.Float64("durationMs", float64(d.Microseconds())/1000)
}

// LogProbes logs each request to h at debug level only: health checks and metric scrapes come
// every few seconds from machines, and at info they would drown the lines about real calls.
func LogProbes(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !log.Enabled(r.Context(), slog.LevelDebug) {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		log.LogAttrs(r.Context(), slog.LevelDebug, "probe",
			slog.String("path", r.URL.Path), slog.Int("status", sw.status), durationMs(time.Since(start)))
	})
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes flushes on: gRPC health checks (connect v1) refuse a writer that cannot flush.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection's own writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
