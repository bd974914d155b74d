package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// PgxTracer traces pgx queries, batches and connection set-up as CLIENT
// spans under the caller's span (or linked to the callers of a group commit,
// see WithStoreBatch), and records db.client.operation.duration and batch
// sizes, following the database semantic conventions
// (db.system.name "postgresql", db.query.text, db.operation.name,
// db.namespace, server.address, db.response.status_code).
//
// Set it as pgx.ConnConfig.Tracer (pgxpool.Config.ConnConfig.Tracer for a
// pool). Query text is recorded because every statement of the service is a
// constant with placeholders; arguments never are, since they hold tenant
// data and redacted-but-still-private error text.
type PgxTracer struct {
	i *Instruments
}

var (
	_ pgx.QueryTracer   = (*PgxTracer)(nil)
	_ pgx.BatchTracer   = (*PgxTracer)(nil)
	_ pgx.ConnectTracer = (*PgxTracer)(nil)
)

// PgxTracer returns the tracer for pgx connections. A nil *Instruments
// gives a tracer that does nothing.
func (i *Instruments) PgxTracer() *PgxTracer { return &PgxTracer{i: i} }

// connAttrsKey is where a connection's fixed attributes are kept, in pgx's
// per-connection CustomData, so that each query does not copy the config.
const connAttrsKey = "toolfailure/telemetry.attrs"

type pgxStartKey struct{}

type pgxCall struct {
	start time.Time
	attrs []attribute.KeyValue // bounded: for the metric
}

func (t *PgxTracer) off() bool { return t == nil || t.i == nil }

// TraceConnectStart implements pgx.ConnectTracer.
func (t *PgxTracer) TraceConnectStart(ctx context.Context, data pgx.TraceConnectStartData) context.Context {
	if t.off() {
		return ctx
	}
	attrs := configAttributes(data.ConnConfig)
	ctx, _ = t.i.tracer.Start(ctx, "connect", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

// TraceConnectEnd implements pgx.ConnectTracer.
func (t *PgxTracer) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	if t.off() {
		return
	}
	span := trace.SpanFromContext(ctx)
	if data.Err != nil {
		recordDBError(span, data.Err)
	}
	span.End()
	if data.Conn != nil {
		data.Conn.PgConn().CustomData()[connAttrsKey] = configAttributes(data.Conn.Config())
	}
}

// storeBatch is a group commit in progress; see WithStoreBatch.
type storeBatch struct {
	links    []trace.Link
	size     int
	recorded atomic.Bool
}

type storeBatchKey struct{}

// maxBatchLinks bounds the links of one statement; the SDK's default span
// limit is 128 links, and a batch larger than that is still counted whole.
const maxBatchLinks = 128

// WithStoreBatch marks ctx as the context of one group-commit write that
// serves the callers whose contexts are given. A group commit runs on its
// own goroutine with its own context, so its statements cannot be children
// of the callers' spans: the statements traced with this context instead
// carry a link to each caller's span (the OpenTelemetry way to show one
// operation serving many), and the batch's size is recorded once in
// toolfailure.store.batch.size.
//
//	ctx = telemetry.WithStoreBatch(ctx, callerContexts)
//	pool.QueryRow(ctx, insertBatch, …)
func WithStoreBatch(ctx context.Context, callers []context.Context) context.Context {
	sb := &storeBatch{size: len(callers)}
	for _, c := range callers {
		if len(sb.links) == maxBatchLinks {
			break
		}
		if sc := trace.SpanContextFromContext(c); sc.IsValid() {
			sb.links = append(sb.links, trace.Link{SpanContext: sc})
		}
	}
	return context.WithValue(ctx, storeBatchKey{}, sb)
}

// TraceQueryStart implements pgx.QueryTracer.
func (t *PgxTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if t.off() {
		return ctx
	}
	op := operationName(data.SQL)
	base := connAttributes(conn)
	attrs := append(base[:len(base):len(base)], attribute.String("db.operation.name", op))
	spanAttrs := append(attrs[:len(attrs):len(attrs)], attribute.String("db.query.text", data.SQL))
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
	if sb, ok := ctx.Value(storeBatchKey{}).(*storeBatch); ok {
		opts = append(opts, trace.WithLinks(sb.links...))
		spanAttrs = append(spanAttrs, attribute.Int("toolfailure.store.batch.rows", sb.size))
		if sb.recorded.CompareAndSwap(false, true) {
			t.i.batchSize.Record(ctx, int64(sb.size), metric.WithAttributeSet(attribute.NewSet(base...)))
		}
	}
	ctx, _ = t.i.tracer.Start(ctx, op, append(opts, trace.WithAttributes(spanAttrs...))...)
	return context.WithValue(ctx, pgxStartKey{}, &pgxCall{start: time.Now(), attrs: attrs})
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t *PgxTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	if t.off() {
		return
	}
	t.end(ctx, data.Err)
}

// TraceBatchStart implements pgx.BatchTracer.
func (t *PgxTracer) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if t.off() {
		return ctx
	}
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	base := connAttributes(conn)
	attrs := append(base[:len(base):len(base)], attribute.String("db.operation.name", "BATCH"))
	spanAttrs := append(attrs[:len(attrs):len(attrs)], attribute.Int("db.operation.batch.size", n))
	ctx, _ = t.i.tracer.Start(ctx, "BATCH", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(spanAttrs...))
	t.i.batchSize.Record(ctx, int64(n), metric.WithAttributeSet(attribute.NewSet(base...)))
	return context.WithValue(ctx, pgxStartKey{}, &pgxCall{start: time.Now(), attrs: attrs})
}

// TraceBatchQuery implements pgx.BatchTracer: each statement of a batch is
// an event on the batch span rather than a span of its own, because the
// statements share one round trip.
func (t *PgxTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if t.off() {
		return
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("db.query.text", data.SQL)}
	if data.Err != nil {
		attrs = append(attrs, AttrErrorType.String(dbErrorType(data.Err)))
	}
	span.AddEvent("query", trace.WithAttributes(attrs...))
}

// TraceBatchEnd implements pgx.BatchTracer.
func (t *PgxTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	if t.off() {
		return
	}
	t.end(ctx, data.Err)
}

func (t *PgxTracer) end(ctx context.Context, err error) {
	span := trace.SpanFromContext(ctx)
	call, _ := ctx.Value(pgxStartKey{}).(*pgxCall)
	attrs := []attribute.KeyValue(nil)
	if call != nil {
		attrs = call.attrs
	}
	if err != nil {
		errAttrs := recordDBError(span, err)
		attrs = append(attrs[:len(attrs):len(attrs)], errAttrs...)
	}
	span.End()
	if call != nil {
		t.i.dbDuration.Record(ctx, time.Since(call.start).Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
	}
}

// recordDBError marks span as failed and returns the bounded attributes
// that describe err: the SQLSTATE when the server answered, else the kind of
// failure. pgx.ErrNoRows is not an error of the database: a lookup that
// finds nothing is an answer.
func recordDBError(span trace.Span, err error) []attribute.KeyValue {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	attrs := []attribute.KeyValue{AttrErrorType.String(dbErrorType(err))}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		attrs = append(attrs, attribute.String("db.response.status_code", pgErr.Code))
	}
	span.SetAttributes(attrs...)
	// The message of a PostgreSQL error may quote the data that caused it;
	// the status carries the SQLSTATE and condition only.
	span.SetStatus(codes.Error, dbErrorType(err))
	return attrs
}

func dbErrorType(err error) string {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		return pgErr.Code
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case pgconn.Timeout(err):
		return "timeout"
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return "connect_error"
	}
	return "_OTHER"
}

func connAttributes(conn *pgx.Conn) []attribute.KeyValue {
	if conn != nil {
		if a, ok := conn.PgConn().CustomData()[connAttrsKey].([]attribute.KeyValue); ok {
			return a
		}
	}
	return []attribute.KeyValue{attribute.String("db.system.name", "postgresql")}
}

func configAttributes(cfg *pgx.ConnConfig) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String("db.system.name", "postgresql")}
	if cfg == nil {
		return attrs
	}
	if cfg.Database != "" {
		ns := cfg.Database
		if sp := cfg.RuntimeParams["search_path"]; sp != "" {
			// The conventions' namespace for PostgreSQL is
			// "database|schema"; the schema matters here because tests and
			// shared deployments put the tables in their own schema.
			ns += "|" + strings.TrimSpace(strings.Split(sp, ",")[0])
		}
		attrs = append(attrs, attribute.String("db.namespace", ns))
	}
	if cfg.Host != "" {
		attrs = append(attrs, attribute.String("server.address", cfg.Host))
		if cfg.Port != 0 && cfg.Port != 5432 {
			attrs = append(attrs, attribute.Int("server.port", int(cfg.Port)))
		}
	}
	return attrs
}

// operationName is the statement's first keyword, upper-cased (SELECT,
// INSERT, …), or SQL for anything unexpected, so that span names and the
// metric attribute stay a small fixed set.
func operationName(sql string) string {
	s := strings.TrimLeftFunc(sql, unicode.IsSpace)
	for strings.HasPrefix(s, "--") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = strings.TrimLeftFunc(s[i+1:], unicode.IsSpace)
		} else {
			return "SQL"
		}
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(s)
	}
	word := strings.ToUpper(s[:end])
	switch word {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "BEGIN", "COMMIT", "ROLLBACK", "LISTEN", "NOTIFY",
		"UNLISTEN", "SET", "SHOW", "CREATE", "DROP", "ALTER", "TRUNCATE", "COPY", "VALUES", "CALL", "LOCK":
		return word
	}
	return "SQL"
}
