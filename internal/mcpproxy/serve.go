package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultIdleTimeout is how long an HTTP session may go without a request
// and without an open stream before the Handler ends it. Each session holds
// an upstream (for a command, a child process), and a client that vanishes
// without DELETE must not keep one running forever.
const DefaultIdleTimeout = 30 * time.Minute

// DefaultMaxSessions bounds the sessions a Handler keeps open at once when
// HandlerOptions.MaxSessions is zero. Each session holds an upstream, for a
// command a child process, and clients that never send DELETE (the
// conformance suite opens one session per scenario) would otherwise start
// children without end until the idle timeout reaps them.
const DefaultMaxSessions = 64

// HandlerOptions configure a Handler. The zero value is ready to use.
type HandlerOptions struct {
	// IdleTimeout: see DefaultIdleTimeout, used when zero.
	IdleTimeout time.Duration
	// MaxSessions bounds the sessions open at once; an initialize past it
	// is refused with 503 and a JSON-RPC error that says so. Zero means
	// DefaultMaxSessions.
	MaxSessions int
	// BearerToken, when set, must come with every request as
	// "Authorization: Bearer TOKEN"; other requests get 401. Without it the
	// listener relies on the Origin and Host checks alone, which keep web
	// pages out but not other local programs.
	BearerToken string
}

// Handler serves MCP over streamable HTTP and relays each session (protocol
// versions up to 2025-11-25, with the Mcp-Session-Id header) to an upstream
// of its own, and the requests of the stateless protocol (2026-07-28 on)
// to one upstream they share (see serveStateless).
//
// The SDK's StreamableHTTPHandler needs an *mcp.Server to dispatch to, and
// a relay has none, so the server side of the transport is implemented
// here, keeping to what a relay can know. What a JSON-RPC message relates to
// is decided the way the specification asks: an answer goes on the stream of
// the POST that carried its request; a progress notification goes on the
// stream of the request that set its progressToken; anything else from the
// upstream (sampling and elicitation requests, log messages, list_changed)
// goes, in a session, on the standalone GET stream when the client holds one open, and
// otherwise on the most recent request stream still open, since over stdio
// the upstream gives no sign of which call it belongs to and a server asking
// for input mid-call is the common case. A server-to-client request with
// nowhere to go is refused at once, so that the upstream does not wait for
// an answer that cannot come. Streams carry no event IDs, so a broken
// stream cannot be resumed; the client sees the call fail and may retry.
type Handler struct {
	p           *Proxy
	newUpstream func() (mcp.Transport, error)
	idle        time.Duration
	maxSessions int
	token       string
	log         *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*httpSession
	starting int // sessions counted against the cap while their upstream starts
	wg       sync.WaitGroup

	statelessMu sync.Mutex   // held while the shared session starts
	stateless   *httpSession // the session stateless clients share (see serveStateless)
}

// Handler returns an http.Handler that serves MCP over streamable HTTP.
// newUpstream is called once per session, when a client's initialize
// arrives; for a command, each session gets its own child process, because
// an MCP session over stdio is the life of the process.
func (p *Proxy) Handler(newUpstream func() (mcp.Transport, error), opts *HandlerOptions) *Handler {
	if opts == nil {
		opts = &HandlerOptions{}
	}
	h := &Handler{
		p:           p,
		newUpstream: newUpstream,
		idle:        opts.IdleTimeout,
		maxSessions: opts.MaxSessions,
		token:       opts.BearerToken,
		log:         p.cfg.Logger,
		sessions:    map[string]*httpSession{},
	}
	if h.idle <= 0 {
		h.idle = DefaultIdleTimeout
	}
	if h.maxSessions <= 0 {
		h.maxSessions = DefaultMaxSessions
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.wg.Add(1)
	go h.reap()
	return h
}

// Close ends every session, stops their upstreams, and waits for them.
func (h *Handler) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg, ok := h.checkHost(r); !ok {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolfailure proxy"`)
		writeJSONRPCError(w, http.StatusUnauthorized, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Unauthorized: this proxy wants Authorization: Bearer with its token")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// checkHost refuses requests that a web page on another site could have
// made: a foreign Origin, or, on a loopback listener, a Host that is not a
// loopback name (DNS rebinding). Without a bearer token the proxy has no
// authentication of its own, so a local listener must only be reachable
// from local programs; with one, the checks stay, as the specification asks.
func (h *Handler) checkHost(r *http.Request) (string, bool) {
	host := hostname(r.Host)
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ta, ok := la.(*net.TCPAddr); ok && ta.IP.IsLoopback() && !isLoopbackName(host) {
			return "Forbidden: Host is not a loopback name", false
		}
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "", true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return "Forbidden: malformed Origin", false
	}
	if strings.EqualFold(u.Host, r.Host) || (isLoopbackName(u.Hostname()) && isLoopbackName(host)) {
		return "", true
	}
	return "Forbidden: cross-origin request", false
}

// authorized checks the bearer token, when the listener has one, in
// constant time.
func (h *Handler) authorized(r *http.Request) bool {
	if h.token == "" {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(h.token)) == 1
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	// One POST is one message or a batch; the limit on one message bounds
	// it, and refuses this request alone.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.p.cfg.MaxMessageBytes)))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSONRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"toolfailure proxy: the request is over the proxy's limit of %d bytes for one message (--max-message-bytes)", h.p.cfg.MaxMessageBytes))
			return
		}
		http.Error(w, "cannot read the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	msgs, bad := decodeBody(body)
	if bad != nil {
		// As over stdio: -32700 for what is not JSON, -32600 with the ID
		// when one can be read for JSON that is not a valid message.
		if bad.parse {
			writeJSONRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "Parse error: "+bad.err.Error())
		} else {
			writeJSONRPCError(w, http.StatusBadRequest, bad.id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+bad.err.Error())
		}
		return
	}
	var calls []*jsonrpc.Request
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			calls = append(calls, req)
		}
	}
	if len(msgs) == 1 && len(calls) == 1 {
		// The standard headers describe a POST's one message.
		if rh := headersOf(r.Header, calls[0].Method); rh != nil {
			calls[0].Extra = rh
		}
	}

	sid := r.Header.Get("Mcp-Session-Id")
	var sess *httpSession
	created := false
	if sid == "" {
		if len(msgs) != 1 || len(calls) != 1 || calls[0].Method != "initialize" {
			if statelessPOST(r, calls) {
				h.serveStateless(w, r, calls)
				return
			}
			id := jsonrpc.ID{}
			if len(calls) == 1 {
				id = calls[0].ID
			}
			writeJSONRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
				"Bad Request: no Mcp-Session-Id header; a session starts with initialize (protocol versions before "+statelessVersion+" have sessions; from it on, each request names its version)")
			return
		}
		sess, err = h.newSession(false)
		if !h.sessionStarted(w, calls[0].ID, err) {
			return
		}
		created = true
	} else if sess = h.lookup(sid); sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	sess.touch()

	if len(calls) == 0 {
		for _, m := range msgs {
			if !sess.push(m) {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	st := sess.openStream(calls)
	defer sess.closeStream(st)
	if created {
		w.Header().Set("Mcp-Session-Id", sess.id)
	}
	sess.answer(w, r, st, msgs)
}

// answer sends a POST's messages upstream and writes what comes back for
// them on st, as an event stream, until the last answer.
func (s *httpSession) answer(w http.ResponseWriter, r *http.Request, st *stream, msgs []jsonrpc.Message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	// The headers go out with the first event, as the SDK's server sends
	// them: a flush of its own would cost every call a write and a wake-up
	// of the client.
	w.WriteHeader(http.StatusOK)
	for _, m := range msgs {
		if !s.push(m) {
			return
		}
	}
	st.serve(r.Context(), w, s.done)
	s.touch()
}

// sessionStarted answers the client when a session could not be started
// (err, for the call id), and reports whether it was.
func (h *Handler) sessionStarted(w http.ResponseWriter, id jsonrpc.ID, err error) bool {
	if errors.Is(err, errTooManySessions) {
		h.log.Warn("toolfailure proxy: session refused", slog.Any("error", err))
		w.Header().Set("Retry-After", "60")
		writeJSONRPCError(w, http.StatusServiceUnavailable, id, CodeConnectionClosed, "toolfailure proxy: "+err.Error())
		return false
	}
	if err != nil {
		h.log.Error("toolfailure proxy: cannot start the upstream MCP server", slog.Any("error", err))
		writeJSONRPCError(w, http.StatusBadGateway, id, CodeConnectionClosed, "toolfailure proxy: cannot start the upstream MCP server: "+err.Error())
		return false
	}
	return true
}

// statelessPOST reports whether a POST without a session is a request of
// the stateless protocol (2026-07-28 and later): every call names such a
// version, in the Mcp-Protocol-Version header or in its _meta.
func statelessPOST(r *http.Request, calls []*jsonrpc.Request) bool {
	if len(calls) == 0 {
		return r.Header.Get(headerProtocolVersion) >= statelessVersion
	}
	for _, c := range calls {
		v := metaProtocolVersion(c.Params)
		if v == "" {
			v = r.Header.Get(headerProtocolVersion)
		}
		if v < statelessVersion {
			return false
		}
	}
	return true
}

// serveStateless serves a POST of the stateless protocol. Its calls go to
// one upstream that every stateless client shares (for a command, one child
// process: a server of that protocol keeps no state between requests, and a
// process per request would cost a start-up each), under IDs of the
// proxy's own, so that the IDs of two clients never meet upstream; each
// answer goes back under the ID its client gave. When the client goes away
// before an answer, the upstream is told to cancel the call.
//
// Notifications and answers POSTed without a session are accepted and
// dropped: on this protocol nothing ties them to one client's call on the
// shared upstream.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, calls []*jsonrpc.Request) {
	if len(calls) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	sess, err := h.statelessSession()
	if !h.sessionStarted(w, calls[0].ID, err) {
		return
	}
	sess.touch()
	st := sess.openStream(calls)
	defer func() {
		for _, id := range sess.closeStream(st) {
			params, _ := json.Marshal(map[string]any{"requestId": idJSON(id), "reason": "the client went away"})
			sess.push(&jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		}
	}()
	msgs := make([]jsonrpc.Message, len(calls))
	for i, c := range calls {
		msgs[i] = c
	}
	sess.answer(w, r, st, msgs)
}

// statelessSession returns the session that stateless clients share,
// starting it (and its upstream) when there is none or the last one ended.
// It counts against MaxSessions like any other, and ends like any other
// when idle.
func (h *Handler) statelessSession() (*httpSession, error) {
	h.statelessMu.Lock()
	defer h.statelessMu.Unlock()
	if s := h.stateless; s != nil {
		h.mu.Lock()
		alive := h.sessions[s.id] == s
		h.mu.Unlock()
		if alive {
			return s, nil
		}
	}
	s, err := h.newSession(true)
	if err != nil {
		return nil, err
	}
	h.stateless = s
	return s, nil
}

func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		http.Error(w, "Not Acceptable: the standalone stream is text/event-stream", http.StatusNotAcceptable)
		return
	}
	sess := h.lookup(r.Header.Get("Mcp-Session-Id"))
	if sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	st, ok := sess.openStandalone()
	if !ok {
		http.Error(w, "Conflict: the session already has a standalone stream", http.StatusConflict)
		return
	}
	defer sess.closeStream(st)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	// A comment, so that the headers leave now even through a buffering
	// proxy; the stream may stay quiet for a long time.
	_, _ = io.WriteString(w, ": ok\n\n")
	_ = http.NewResponseController(w).Flush()
	st.serve(r.Context(), w, sess.done)
	sess.touch()
}

func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sess := h.lookup(r.Header.Get("Mcp-Session-Id"))
	if sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	h.end(sess)
	w.WriteHeader(http.StatusNoContent)
}

func accepts(r *http.Request, mediaType string) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil && (mt == mediaType || mt == "*/*" || mt == "text/*") {
				return true
			}
		}
	}
	return false
}

// decodeBody reads one JSON-RPC message or a batch (a JSON array of them).
// When one of them is not a message, the whole body is refused, with what
// that one is.
func decodeBody(body []byte) ([]jsonrpc.Message, *badMessage) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, &badMessage{text: body, err: errors.New("empty body"), parse: true}
	}
	var out []jsonrpc.Message
	for _, it := range decodeLine(body) {
		if it.bad != nil {
			return nil, it.bad
		}
		out = append(out, it.msg)
	}
	return out, nil
}

func writeJSONRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, message string) {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", idJSON(id), wireError{code, message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

var errTooManySessions = errors.New("too many sessions")

func (h *Handler) newSession(shared bool) (*httpSession, error) {
	h.mu.Lock()
	if n := len(h.sessions) + h.starting; n >= h.maxSessions {
		h.mu.Unlock()
		return nil, fmt.Errorf("%w: %d are open, the limit (--max-sessions); end one with DELETE, or wait for an idle one to time out", errTooManySessions, n)
	}
	h.starting++
	h.mu.Unlock()
	started := false
	defer func() {
		if !started {
			h.mu.Lock()
			h.starting--
			h.mu.Unlock()
		}
	}()
	t, err := h.newUpstream()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(h.ctx)
	up, err := h.p.withLimit(t).Connect(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	sess := &httpSession{
		id:         rand.Text(),
		log:        h.log,
		incoming:   make(chan jsonrpc.Message, 16),
		done:       make(chan struct{}),
		cancel:     cancel,
		calls:      map[jsonrpc.ID]*stream{},
		progress:   map[string]jsonrpc.ID{},
		lastActive: time.Now(),
		shared:     shared,
	}
	h.mu.Lock()
	h.sessions[sess.id] = sess
	h.starting--
	started = true
	h.mu.Unlock()
	rs := h.p.newSession(ctx, sess, up)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if err := rs.run(); err != nil {
			h.log.Warn("toolfailure proxy: session ended", slog.String("session", sess.id), slog.Any("error", err))
		}
		h.forget(sess)
		cancel()
	}()
	return sess, nil
}

func (h *Handler) lookup(id string) *httpSession {
	if id == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[id]; s != nil && !s.shared {
		return s
	}
	// The shared session is nobody's to address, end or listen on.
	return nil
}

func (h *Handler) forget(sess *httpSession) {
	h.mu.Lock()
	if h.sessions[sess.id] == sess {
		delete(h.sessions, sess.id)
	}
	h.mu.Unlock()
}

// end stops a session: its upstream is closed and its streams end.
func (h *Handler) end(sess *httpSession) {
	h.forget(sess)
	sess.cancel()
}

// reap ends sessions that have been idle too long.
func (h *Handler) reap() {
	defer h.wg.Done()
	tick := time.NewTicker(min(h.idle/4, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		h.mu.Lock()
		var idle []*httpSession
		for _, s := range h.sessions {
			if s.idleSince(h.idle) {
				idle = append(idle, s)
			}
		}
		h.mu.Unlock()
		for _, s := range idle {
			h.log.Info("toolfailure proxy: ending an idle session", slog.String("session", s.id))
			h.end(s)
		}
	}
}

// httpSession is the client side of one relayed session: an mcp.Connection
// whose reads are the messages POSTed by the client and whose writes are
// routed to the client's open streams.
type httpSession struct {
	id       string
	log      *slog.Logger
	incoming chan jsonrpc.Message
	done     chan struct{}
	cancel   context.CancelFunc

	// sink, once the relay set it, takes the client's messages in the
	// request handler's goroutine (see pushConn).
	sink atomic.Pointer[func(jsonrpc.Message) bool]

	// shared marks the session of stateless clients (serveStateless):
	// calls travel under IDs of the proxy's own (nextID), and what the
	// upstream sends that is not an answer or a progress notification
	// goes to no one, since the open streams are different clients'.
	shared bool
	nextID atomic.Int64

	mu         sync.Mutex
	closed     bool
	calls      map[jsonrpc.ID]*stream // client call → the stream its answer goes on
	progress   map[string]jsonrpc.ID  // progressToken (as JSON) → client call
	standalone *stream
	open       []*stream // request streams, oldest first
	lastActive time.Time
}

// stream is one open SSE response.
type stream struct {
	out     chan streamItem
	gone    chan struct{}
	pending int // answers still owed on this stream
	// orig maps the proxy's IDs of a shared session's calls to the IDs
	// their client gave, and origTokens the proxy's progress tokens (as
	// progressToken spells them) to the tokens the client gave.
	orig       map[jsonrpc.ID]jsonrpc.ID
	origTokens map[string]json.RawMessage
}

type streamItem struct {
	data []byte
	last bool // the stream's final answer: end the response after it
}

func newStream() *stream {
	return &stream{out: make(chan streamItem, 32), gone: make(chan struct{})}
}

func (s *httpSession) SessionID() string { return s.id }

func (s *httpSession) touch() {
	s.mu.Lock()
	s.lastActive = time.Now()
	s.mu.Unlock()
}

func (s *httpSession) idleSince(d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalone == nil && len(s.open) == 0 && time.Since(s.lastActive) > d
}

func (s *httpSession) setSink(f func(jsonrpc.Message) bool) { s.sink.Store(&f) }

func (s *httpSession) push(m jsonrpc.Message) bool {
	if sink := s.sink.Load(); sink != nil {
		select {
		case <-s.done:
			return false
		default:
		}
		return (*sink)(m)
	}
	select {
	case s.incoming <- m:
		return true
	case <-s.done:
		return false
	}
}

func (s *httpSession) openStream(calls []*jsonrpc.Request) *stream {
	st := newStream()
	if s.shared {
		// Calls and their progress travel under IDs and tokens of the
		// proxy's own, so that two clients' never meet upstream.
		st.orig = make(map[jsonrpc.ID]jsonrpc.ID, len(calls))
		for _, c := range calls {
			n := s.nextID.Add(1)
			own := stringID(fmt.Sprintf("toolfailure-proxy-%d", n))
			st.orig[own] = c.ID
			c.ID = own
			if tok, ok := rawProgressToken(c.Params, "_meta"); ok {
				ownTok := json.RawMessage(fmt.Sprintf(`"toolfailure-proxy-%d"`, n))
				if params, err := withMember(c.Params, "_meta", "progressToken", ownTok); err == nil {
					c.Params = params
					if st.origTokens == nil {
						st.origTokens = map[string]json.RawMessage{}
					}
					st.origTokens[string(ownTok)] = tok
				}
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range calls {
		key := idKey(c.ID)
		s.calls[key] = st
		st.pending++
		if tok, ok := progressToken(c.Params); ok {
			s.progress[tok] = key
		}
	}
	s.open = append(s.open, st)
	return st
}

func (s *httpSession) openStandalone() (*stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone != nil || s.closed {
		return nil, false
	}
	s.standalone = newStream()
	return s.standalone, true
}

// closeStream forgets a stream whose HTTP response ended. Answers still
// owed on it have no way to the client any more and are dropped; it
// returns the IDs of those calls.
func (s *httpSession) closeStream(st *stream) (unanswered []jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(st.gone)
	if s.standalone == st {
		s.standalone = nil
	}
	for i, o := range s.open {
		if o == st {
			s.open = append(s.open[:i], s.open[i+1:]...)
			break
		}
	}
	for id, o := range s.calls {
		if o == st {
			delete(s.calls, id)
			unanswered = append(unanswered, id)
		}
	}
	return unanswered
}

// serve writes the stream's messages as server-sent events until its last
// answer is out, the client goes away, or the session ends (after what was
// already queued, such as the errors owed for calls the upstream will never
// answer).
func (st *stream) serve(ctx context.Context, w http.ResponseWriter, sessionDone <-chan struct{}) {
	rc := http.NewResponseController(w)
	write := func(it streamItem) bool {
		_, _ = io.WriteString(w, "event: message\ndata: ")
		_, _ = w.Write(it.data)
		if _, err := io.WriteString(w, "\n\n"); err != nil {
			return false
		}
		if it.last {
			// The response ends now, and net/http writes the last event
			// and the end of the body in one go.
			return false
		}
		_ = rc.Flush()
		return true
	}
	for {
		select {
		case it := <-st.out:
			if !write(it) {
				return
			}
		case <-ctx.Done():
			return
		case <-sessionDone:
			for {
				select {
				case it := <-st.out:
					if !write(it) {
						return
					}
				default:
					return
				}
			}
		}
	}
}

func (s *httpSession) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-s.incoming:
		return m, nil
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var errNoClientStream = errors.New("the client has no open stream to receive it on")

// Write routes a message from the upstream to one of the client's streams;
// see Handler for the rules.
func (s *httpSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	return s.write(ctx, msg, nil)
}

// WriteRelated sends a message of the proxy's own that belongs to the
// client's call id (such as the proxy's warning, which goes out as the call
// is forwarded) on the stream of that call.
func (s *httpSession) WriteRelated(ctx context.Context, msg jsonrpc.Message, id jsonrpc.ID) error {
	return s.write(ctx, msg, &id)
}

func (s *httpSession) write(ctx context.Context, msg jsonrpc.Message, related *jsonrpc.ID) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return mcp.ErrConnectionClosed
	}
	var st *stream
	last := false
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key := idKey(m.ID)
		st = s.calls[key]
		delete(s.calls, key)
		for tok, id := range s.progress {
			if id == key {
				delete(s.progress, tok)
			}
		}
		if st == nil {
			s.mu.Unlock()
			s.log.Debug("toolfailure proxy: answer for a request whose stream is closed; dropped", slog.Any("id", idValue(m.ID)))
			return nil
		}
		st.pending--
		last = st.pending == 0
		if orig, ok := st.orig[key]; ok {
			back := *m
			back.ID = orig
			msg = &back
		}
	case *jsonrpc.Request:
		if related != nil {
			st = s.calls[idKey(*related)]
		}
		if m.Method == "notifications/progress" {
			if tok, ok := progressToken(m.Params); ok {
				st = s.calls[s.progress[tok]]
				if orig, ok := st.tokenOf(tok); ok {
					// The client's own token back.
					if params, err := withMember(m.Params, "", "progressToken", orig); err == nil {
						back := *m
						back.Params = params
						msg = &back
					}
				}
			}
		}
		if st == nil && s.shared {
			// A notification of a subscriptions/listen stream names the
			// call that opened it, under the proxy's ID: it goes to that
			// call's client, with the ID that client gave.
			if sub, ok := subscriptionOf(m.Params); ok {
				key := idKey(sub)
				if st = s.calls[key]; st != nil {
					if orig, ok := st.orig[key]; ok {
						if params, err := withMember(m.Params, "_meta", metaKeySubscriptionID, idJSON(orig)); err == nil {
							back := *m
							back.Params = params
							msg = &back
						}
					}
				}
			}
		}
		if st == nil && !s.shared {
			st = s.standalone
			if st == nil && len(s.open) > 0 {
				st = s.open[len(s.open)-1]
			}
		}
		if st == nil {
			s.mu.Unlock()
			if m.IsCall() {
				return fmt.Errorf("%s: %w", m.Method, errNoClientStream)
			}
			return nil // a notification nobody can receive
		}
	}
	s.mu.Unlock()
	data, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	select {
	case st.out <- streamItem{data: data, last: last}:
		return nil
	case <-st.gone:
		return errNoClientStream
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *httpSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	return nil
}

// metaKeySubscriptionID is the _meta key that ties a notification to the
// subscriptions/listen request whose stream carries it (MCP 2026-07-28).
const metaKeySubscriptionID = "io.modelcontextprotocol/subscriptionId"

// subscriptionOf reads params._meta's subscription ID.
func subscriptionOf(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}, false
	}
	raw, ok := p.Meta[metaKeySubscriptionID]
	if !ok {
		return jsonrpc.ID{}, false
	}
	id, err := decodeID(raw)
	return id, err == nil
}

// withMember is params with member name set to value, in its object
// member in (its _meta), or at the top when in is empty; every other
// member kept.
func withMember(params json.RawMessage, in, name string, value json.RawMessage) (json.RawMessage, error) {
	if in == "" {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		p[name] = value
		return json.Marshal(p)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	inner, err := withMember(p[in], "", name, value)
	if err != nil {
		return nil, err
	}
	p[in] = inner
	return json.Marshal(p)
}

// tokenOf returns the client's progress token for the proxy's own token
// tok (as progressToken spells it), when the stream's call had one.
func (st *stream) tokenOf(tok string) (json.RawMessage, bool) {
	if st == nil {
		return nil, false
	}
	orig, ok := st.origTokens[tok]
	return orig, ok
}

// rawProgressToken reads the progress token of params' member in (its
// _meta) as it was written.
func rawProgressToken(params json.RawMessage, in string) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	var inner struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(p[in], &inner) != nil || len(inner.ProgressToken) == 0 || string(inner.ProgressToken) == "null" {
		return nil, false
	}
	return inner.ProgressToken, true
}

// progressToken reads params._meta.progressToken (or, for a progress
// notification, params.progressToken) as canonical JSON, so that 1 and 1.0
// and "1" stay distinct as the specification wants.
func progressToken(params json.RawMessage) (string, bool) {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Meta          struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	tok := p.ProgressToken
	if len(tok) == 0 {
		tok = p.Meta.ProgressToken
	}
	if len(tok) == 0 || string(tok) == "null" {
		return "", false
	}
	var v any
	if json.Unmarshal(tok, &v) != nil {
		return "", false
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

// lineReader reads lines of at most max bytes, without the line ending
// (\n, \r\n or \r, as event streams allow).
type lineReader struct {
	r      *bufio.Reader
	max    int
	skipLF bool // the last line ended with \r: a \n right after it belongs to it
}

func newLineReader(r io.Reader, max int) *lineReader {
	br := lineBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{r: br, max: max}
}

// lineBuffers keeps the read buffers of finished event streams for the next
// ones: every call over HTTP reads one stream.
var lineBuffers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// release returns the buffer; the lineReader is not used again.
func (l *lineReader) release() {
	l.r.Reset(nil)
	lineBuffers.Put(l.r)
	l.r = nil
}

func (l *lineReader) readLine() (string, error) {
	var line []byte
	for {
		// Whatever is buffered is searched for the line's end at once; a
		// byte at a time is slow for answers of many megabytes.
		if _, err := l.r.Peek(1); err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return string(line), nil
			}
			return "", err
		}
		buf, _ := l.r.Peek(l.r.Buffered())
		if l.skipLF {
			l.skipLF = false
			if buf[0] == '\n' {
				_, _ = l.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			line = append(line, buf...)
			_, _ = l.r.Discard(len(buf))
		} else {
			line = append(line, buf[:i]...)
			// Not peeking for a \n after a \r: on a live stream the next
			// byte may be a long time coming, and the event must not wait
			// for it.
			l.skipLF = buf[i] == '\r'
			_, _ = l.r.Discard(i + 1)
		}
		if len(line) > l.max {
			return "", fmt.Errorf("%w: a line longer than %d bytes", errEventTooLarge, l.max)
		}
		if i >= 0 {
			return string(line), nil
		}
	}
}
