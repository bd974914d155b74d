package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/auth"
)

// The tenant gate keeps one tenant's load from taking the replica from the others, in two steps
// that both come after authentication and before the request body is read:
//
//   - In flight: a tenant has at most Limits.TenantInFlight calls admitted at once; one more is
//     refused at once with resource_exhausted (and Retry-After), its body never read. This bounds
//     what a tenant holds (goroutines, bodies of up to 1 MiB) however many callers it has, and
//     however many of them hang up without waiting for the answer, which costs them nothing and
//     the service the whole call.
//   - Work: a Classify or Explain is read into memory first (up to prefetchBytes: an ordinary
//     request whole), without a slot, so that a slow uploader holds nobody up. A body larger
//     than an ordinary error report (smallBody), or a compressed one, then waits for one of its
//     tenant's Limits.RuleConcurrency slots before it is scanned, decoded, validated and
//     classified, and gives the slot back before the record is written, so that the tenant's
//     calls still share the store's group commit. A waiting call is parked, not runnable: a
//     tenant with oversized, deeply nested or long requests competes for the processors with
//     that many goroutines, not with every caller it has, and the other tenants' calls are not
//     queued behind its own. A small body costs little to decode and takes a slot only for its
//     tenant's rules, as evalSlot does: queueing a tenant's cheap calls one behind another would
//     make each wait for whichever of them the machine runs last.
//
// A call whose caller has gone while it waited stops there.

// smallBody is the largest body decoded without a work slot: several times an ordinary error
// report, a small fraction of what the request limit lets a body cost.
const smallBody = 4 << 10

// prefetchBytes is how much of a body is read before its call waits for a work slot: a message
// of the largest size error.message may have, whole; the rest of a larger body is read under the
// slot. It bounds the memory a tenant's waiting calls hold to this much each.
const prefetchBytes = 64 << 10

// defaultTenantInFlight is Limits.TenantInFlight when unset: twice the callers of the throughput
// benchmark (`toolfailure bench --callers`), more than one tenant needs to keep a replica busy
// (its calls take milliseconds), and few enough that a tenant's waiting calls, with up to
// prefetchBytes of body each, hold little memory.
const defaultTenantInFlight = 64

// inFlightRetryAfter is the delay a refused caller is given: calls in flight end within
// milliseconds to seconds, so a second is long enough for room to have been made.
const inFlightRetryAfter = time.Second

// tenantGate counts each tenant's calls in flight and holds its work slots.
type tenantGate struct {
	maxInFlight int
	slots       *evalSlots

	mu       sync.Mutex
	inFlight map[int64]int
}

func newTenantGate(l Limits) *tenantGate {
	return &tenantGate{
		maxInFlight: l.TenantInFlight,
		slots:       newEvalSlots(l.RuleConcurrency),
		inFlight:    map[int64]int{},
	}
}

// enter admits one call of the tenant, or reports that it has as many in flight as it may.
func (g *tenantGate) enter(tenantID int64) (leave func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inFlight[tenantID] >= g.maxInFlight {
		return nil, false
	}
	g.inFlight[tenantID]++
	return func() {
		g.mu.Lock()
		if g.inFlight[tenantID]--; g.inFlight[tenantID] <= 0 {
			delete(g.inFlight, tenantID)
		}
		g.mu.Unlock()
	}, true
}

// refusal is the answer to a call over the tenant's in-flight limit: resource_exhausted with the
// delay, as the rate limit answers.
func (g *tenantGate) refusal(p auth.Principal) error {
	return exhausted(fmt.Sprintf(
		"tenant %q has %d calls in flight on this replica, the most it may; retry in %s", p.TenantName, g.maxInFlight, inFlightRetryAfter), inFlightRetryAfter)
}

// Interceptor admits every authenticated call through the gate. It must come after the
// authentication interceptor; a call without a principal is passed on, for the handler to
// refuse.
func (g *tenantGate) Interceptor() connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			p, ok := auth.FromContext(ctx)
			if !ok {
				return next(ctx, spec, stream)
			}
			leave, ok := g.enter(p.TenantID)
			if !ok {
				return g.refusal(p)
			}
			defer leave()
			if !worked(spec.Procedure) {
				return next(ctx, spec, stream)
			}
			held := &workSlot{}
			defer held.release()
			ctx = context.WithValue(ctx, workSlotKey{}, held)
			return next(ctx, spec, &gatedStream{ServerStream: stream, ctx: ctx, gate: g, tenantID: p.TenantID, held: held})
		}
	}
}

// worked reports whether a procedure's requests take a work slot: those whose bodies are
// scanned and whose rules are evaluated.
func worked(procedure string) bool {
	return procedure == toolfailurev1connect.ClassifierServiceClassifyProcedure ||
		procedure == toolfailurev1connect.ClassifierServiceExplainProcedure
}

// gatedStream takes the call's work slot when its request is received.
type gatedStream struct {
	connect.ServerStream
	ctx      context.Context //nolint:containedctx // the call's own, for the slot's wait
	gate     *tenantGate
	tenantID int64
	held     *workSlot
}

func (s *gatedStream) Receive(msg any) error {
	if !s.held.taken() {
		pb, ok := s.ctx.Value(prefetchKey{}).(*prefetchBody)
		if ok {
			pb.load(prefetchBytes)
			if pb.small(smallBody) {
				return s.ServerStream.Receive(msg)
			}
		}
		release, err := s.gate.slots.acquire(s.ctx, s.tenantID)
		if err != nil {
			return evalStopped(s.ctx, err)
		}
		s.held.hold(release)
	}
	return s.ServerStream.Receive(msg)
}

type workSlotKey struct{}

// workSlot is the work slot a call holds, released once: by the handler when its work is done,
// else when the call ends.
type workSlot struct {
	mu   sync.Mutex
	rel  func()
	done bool
}

func (w *workSlot) hold(release func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		release()
		return
	}
	w.rel = release
}

func (w *workSlot) taken() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rel != nil || w.done
}

func (w *workSlot) release() {
	w.mu.Lock()
	rel := w.rel
	w.rel, w.done = nil, true
	w.mu.Unlock()
	if rel != nil {
		rel()
	}
}

// heldSlot reports whether the call in ctx holds a work slot already (taken when its request
// was received), and a function that gives it back.
func heldSlot(ctx context.Context) (release func(), ok bool) {
	w, ok := ctx.Value(workSlotKey{}).(*workSlot)
	if !ok {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rel == nil {
		return nil, false
	}
	return w.release, true
}

// prefetchKey marks a request whose body the gate reads into memory before taking a work slot.
type prefetchKey struct{}

// prefetchBody is a request body that can be read into memory ahead of its reader.
type prefetchBody struct {
	body       io.ReadCloser
	size       int64 // the Content-Length, or -1
	compressed bool  // its size says nothing of what decoding it costs
	buf        *bytes.Buffer
	keep       int   // the largest buffer worth pooling
	err        error // what ended the read ahead, other than io.EOF
	loaded     bool
}

var prefetchPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// load reads up to limit bytes of the body into memory; what is left, if any, is read from the
// connection as usual. The buffer is pooled, so that refusing an oversized body allocates no
// copy of it.
func (b *prefetchBody) load(limit int) {
	if b.loaded {
		return
	}
	b.loaded = true
	b.buf = prefetchPool.Get().(*bytes.Buffer)
	b.buf.Reset()
	b.keep = 2*limit + bytes.MinRead
	if b.size >= 0 {
		// Room for the whole read at once, and for ReadFrom's probe for the end.
		b.buf.Grow(int(min(b.size, int64(limit))) + bytes.MinRead)
	}
	_, err := b.buf.ReadFrom(io.LimitReader(b.body, int64(limit)))
	b.err = err
}

// small reports whether the whole body was read ahead and is at most n bytes, uncompressed.
func (b *prefetchBody) small(n int) bool {
	return b.buf != nil && b.err == nil && !b.compressed && b.buf.Len() <= n
}

func (b *prefetchBody) Read(p []byte) (int, error) {
	if b.buf != nil && b.buf.Len() > 0 {
		return b.buf.Read(p)
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.body.Read(p)
}

func (b *prefetchBody) Close() error { return b.body.Close() }

// free gives the buffer back once the call is over.
func (b *prefetchBody) free() {
	if b.buf != nil && b.buf.Cap() <= b.keep {
		prefetchPool.Put(b.buf)
	}
	b.buf = nil
}

// prefetchMux mounts the RPC handlers behind withPrefetch.
type prefetchMux struct{ *http.ServeMux }

func (m prefetchMux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, withPrefetch(h))
}

// withPrefetch lets the gate read Classify and Explain bodies into memory before they take a
// work slot (the interceptor has no other way to the body).
func withPrefetch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !worked(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		pb := &prefetchBody{body: r.Body, size: r.ContentLength, compressed: compressed(r.Header)}
		defer pb.free()
		r = r.WithContext(context.WithValue(r.Context(), prefetchKey{}, pb))
		r.Body = pb
		next.ServeHTTP(w, r)
	})
}

// compressed reports whether a request's message is compressed, in any of the protocols'
// spellings.
func compressed(h http.Header) bool {
	for _, k := range []string{"Content-Encoding", "Connect-Content-Encoding", "Grpc-Encoding"} {
		if v := h.Get(k); v != "" && v != "identity" {
			return true
		}
	}
	return false
}
