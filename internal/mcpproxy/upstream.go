package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

// HTTPUpstream is a transport to an MCP server that speaks streamable HTTP.
//
// It is a client of the transport written for a relay, not the SDK's
// client transport: that one decodes every message it reads, and the _meta
// of every request it sends, with the SDK's decoder, which allocates a large
// buffer per message and made the relay over HTTP cost more than the server
// behind it (BenchmarkHTTPCall). It speaks the session protocol the relay
// needs: the Mcp-Session-Id the server gives, the Mcp-Protocol-Version of the
// handshake (or of the request's _meta) on every request after it, the
// standard Mcp-Method and Mcp-Name headers from 2026-07-28 on, the
// standalone GET stream on which the server sends what does not belong to a
// request (list_changed, resource updates, log messages), resumption of a
// response stream that the server ends early with Last-Event-ID, and DELETE
// at the end. Calls are posted concurrently, each in its own goroutine,
// because a server may hold a POST open until the tool finishes while it
// needs the client's answer to a sampling or elicitation request to finish
// it.
type HTTPUpstream struct {
	// Endpoint is the MCP endpoint, such as http://127.0.0.1:3000/mcp.
	Endpoint string
	// HTTPClient sends the requests; nil means one with no overall timeout,
	// which event streams need, on a transport shared by the upstreams that
	// keeps connections open for concurrent calls.
	HTTPClient *http.Client
	// Header is added to every request: an Authorization header the upstream
	// expects, for example.
	Header http.Header
	// Logger receives problems with the standalone stream. Nil means
	// slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes bounds one message the upstream sends, a server-sent
	// event or a JSON body. Zero means the Proxy's Config.MaxMessageBytes
	// when Relay or Handler connects it, else DefaultMaxMessageBytes.
	MaxMessageBytes int
}

// Connect implements mcp.Transport. It sends nothing; the session starts
// with the client's first message.
func (t *HTTPUpstream) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.Endpoint == "" {
		return nil, errors.New("mcpproxy: HTTPUpstream.Endpoint is empty")
	}
	if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mcpproxy: HTTPUpstream.Endpoint %q is not an http or https URL", t.Endpoint)
	}
	client := t.HTTPClient
	if client == nil {
		client = upstreamClient
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	maxEvent := t.MaxMessageBytes
	if maxEvent <= 0 {
		maxEvent = DefaultMaxMessageBytes
	}
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &httpUpstreamConn{
		maxEvent: maxEvent,
		endpoint: t.Endpoint,
		client:   client,
		header:   t.Header,
		log:      logger,
		ctx:      connCtx,
		cancel:   cancel,
		in:       make(chan jsonrpc.Message, 16),
		failed:   make(chan struct{}),
	}, nil
}

// upstreamTransport is shared by the HTTP upstreams without a client of
// their own. Calls are posted concurrently, one connection each while they
// run; http.DefaultTransport keeps only two idle connections per host, so
// under concurrent calls most would be dialled anew and closed again
// (proxybench's throughput over HTTP shows the difference).
var upstreamTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 128
	return t
}()

var upstreamClient = &http.Client{Transport: upstreamTransport}

type httpUpstreamConn struct {
	maxEvent int
	endpoint string
	client   *http.Client
	header   http.Header
	log      *slog.Logger
	ctx      context.Context // the connection's lifetime
	cancel   context.CancelFunc

	in      chan jsonrpc.Message // what was read, unless sink is set
	sink    atomic.Pointer[func(jsonrpc.Message) bool]
	failed  chan struct{}
	failErr error

	mu        sync.Mutex
	sessionID string
	initID    jsonrpc.ID
	version   string // negotiated protocol version, once known
	listening bool
	closeOnce sync.Once
	closeErr  error
}

// Mcp-* headers of the streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	// statelessVersion is the first protocol version without sessions and
	// with the standard Mcp-Method and Mcp-Name headers.
	statelessVersion = "2026-07-28"
)

// newRequest builds a request to the endpoint with the session's headers
// and, for msg, the protocol version and standard headers it calls for.
func (c *httpUpstreamConn) newRequest(ctx context.Context, method string, body []byte, msg jsonrpc.Message) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint, rd)
	if err != nil {
		return nil, err
	}
	h := req.Header
	for k, vs := range c.header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	c.mu.Lock()
	sid, version := c.sessionID, c.version
	c.mu.Unlock()
	if sid != "" {
		h.Set(headerSessionID, sid)
	}
	r, _ := msg.(*jsonrpc.Request)
	if r != nil {
		if v := metaProtocolVersion(r.Params); v != "" {
			version = v
		}
	}
	if version != "" {
		h.Set(headerProtocolVersion, version)
	}
	if r != nil && version >= statelessVersion {
		h.Set(headerMethod, r.Method)
		if name, ok := requestName(r); ok {
			h.Set(headerName, name)
		}
	}
	if method == http.MethodPost {
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	}
	return req, nil
}

// metaProtocolVersion is params._meta's protocol version, which a request
// on the stateless protocol carries; it is looked for only when its key is
// in the bytes at all.
func metaProtocolVersion(params json.RawMessage) string {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(params, &p) == nil && json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &v) == nil {
		return v
	}
	return ""
}

// requestName is the Mcp-Name of a request: the tool, prompt or resource
// it names.
func requestName(r *jsonrpc.Request) (string, bool) {
	if rh, ok := r.Extra.(*requestHeaders); ok && rh.name != "" {
		return rh.name, true // the client's Mcp-Name, passed on undecoded
	}
	var p struct {
		Name *string `json:"name"`
		URI  *string `json:"uri"`
	}
	if json.Unmarshal(r.Params, &p) != nil {
		return "", false
	}
	switch {
	case (r.Method == "tools/call" || r.Method == "prompts/get") && p.Name != nil:
		return *p.Name, true
	case r.Method == "resources/read" && p.URI != nil:
		return *p.URI, true
	}
	return "", false
}

// noteSession keeps the session ID the server gives in its first answer.
func (c *httpUpstreamConn) noteSession(resp *http.Response) {
	if sid := resp.Header.Get(headerSessionID); sid != "" {
		c.mu.Lock()
		if c.sessionID == "" {
			c.sessionID = sid
		}
		c.mu.Unlock()
	}
}

func (c *httpUpstreamConn) hasSession() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID != ""
}

// live reports whether a failure of req says something about the upstream:
// neither the request nor the connection was cancelled on this side.
func (c *httpUpstreamConn) live(req *http.Request) bool {
	return c.ctx.Err() == nil && req.Context().Err() == nil
}

func (c *httpUpstreamConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

func (c *httpUpstreamConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.failed:
	default:
		c.failErr = err
		close(c.failed)
	}
}

// broke fails the connection: a request was sent, or a stream was open, and
// the connection broke before an answer came, so the server went away. (A
// server that cannot be reached at all fails only the one call: there is
// nothing in flight to tell.)
func (c *httpUpstreamConn) broke(err error) {
	c.fail(fmt.Errorf("the connection to the upstream MCP server at %s broke: %w", c.endpoint, err))
}

func (c *httpUpstreamConn) observe(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initID.IsValid() || idKey(resp.ID) != idKey(c.initID) {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil {
		c.version = r.ProtocolVersion
	}
}

func (c *httpUpstreamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	default:
	}
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.failed:
		// Deliver what was read before the failure first.
		select {
		case msg := <-c.in:
			return msg, nil
		default:
		}
		return nil, c.failErr
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, io.EOF
	}
}

func (c *httpUpstreamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.failed:
		return c.failErr
	default:
	}
	data, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && req.IsCall() {
		if req.Method == "initialize" {
			c.mu.Lock()
			c.initID = req.ID
			c.mu.Unlock()
		}
		go c.call(req, data)
		return nil
	}
	if err := c.send(ctx, msg, data); err != nil {
		return err
	}
	if isReq && req.Method == "notifications/initialized" {
		c.startListening()
	}
	return nil
}

// send posts a notification or an answer, which the server acknowledges
// with 202 and no body.
func (c *httpUpstreamConn) send(ctx context.Context, msg jsonrpc.Message, data []byte) error {
	req, err := c.newRequest(ctx, http.MethodPost, data, msg)
	if err != nil {
		return err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if !isDialError(err) && c.live(req) {
			c.broke(err)
		}
		return fmt.Errorf("post to the upstream MCP server at %s: %w", c.endpoint, err)
	}
	defer discard(resp.Body)
	c.noteSession(resp)
	if resp.StatusCode == http.StatusNotFound && c.hasSession() {
		err := c.sessionLost()
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return fmt.Errorf("the upstream MCP server at %s refused the message: %s", c.endpoint, resp.Status)
	}
	return nil
}

// sessionLost fails the connection on a 404 to a request in a session: the
// specification's sign that the server ended it.
func (c *httpUpstreamConn) sessionLost() error {
	err := fmt.Errorf("the upstream MCP server at %s no longer knows the session (404 Not Found)", c.endpoint)
	c.fail(err)
	return err
}

// discard reads a little of what is left of a body, so that its connection
// can be used again, and closes it.
func discard(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

// call posts a request and delivers what the server sends back on its
// response: the answer, and the requests and notifications before it.
func (c *httpUpstreamConn) call(r *jsonrpc.Request, data []byte) {
	req, err := c.newRequest(c.ctx, http.MethodPost, data, r)
	if err != nil {
		c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: "+err.Error()))
		return
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if !c.live(req) {
			return
		}
		if isDialError(err) {
			c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: cannot reach the upstream MCP server at "+c.endpoint+": "+err.Error()))
			return
		}
		c.broke(err)
		c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: the connection to the upstream MCP server at "+c.endpoint+" broke before it answered: "+err.Error()))
		return
	}
	defer discard(resp.Body)
	c.noteSession(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound && c.hasSession():
		_ = c.sessionLost() // the relay answers every call still waiting
		return
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		c.deliver(refusal(r.ID, c.endpoint, resp))
		return
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		c.readJSON(r, resp)
	case "text/event-stream":
		c.readStream(r, req, resp)
	default:
		c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, fmt.Sprintf(
			"toolfailure proxy: the upstream MCP server at %s answered the request with HTTP %d and Content-Type %q, not a JSON-RPC answer", c.endpoint, resp.StatusCode, mt)))
	}
}

// refusal is the answer to a call the server refused with an HTTP error.
// A JSON-RPC error in the body is quoted exactly; any other refusal is the
// proxy's CodeConnectionClosed, with the status.
func refusal(id jsonrpc.ID, endpoint string, resp *http.Response) *jsonrpc.Response {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if m, err := decodeMessage(bytes.TrimSpace(body)); err == nil {
		if e, ok := m.(*jsonrpc.Response); ok && e.Error != nil {
			return &jsonrpc.Response{ID: id, Error: e.Error}
		}
	}
	return proxyAnswer(id, CodeConnectionClosed, fmt.Sprintf("toolfailure proxy: the upstream MCP server at %s refused the request: %s", endpoint, resp.Status))
}

// proxyAnswer is an error answer of the proxy's own, marked so that it is
// not recorded as a failure of the tool.
func proxyAnswer(id jsonrpc.ID, code int64, message string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: newProxyError(code, message)}
}

func (c *httpUpstreamConn) tooLarge(id jsonrpc.ID) *jsonrpc.Response {
	return proxyAnswer(id, jsonrpc.CodeInternalError, fmt.Sprintf(
		"toolfailure proxy: the upstream MCP server's answer is over the proxy's limit of %d bytes for one message (--max-message-bytes)", c.maxEvent))
}

func (c *httpUpstreamConn) readJSON(r *jsonrpc.Request, resp *http.Response) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxEvent)+1))
	switch {
	case err != nil:
		if c.live(resp.Request) {
			c.broke(err)
		}
		return
	case len(body) > c.maxEvent:
		c.deliver(c.tooLarge(r.ID))
		return
	}
	msgs, bad := decodeBody(body)
	if bad != nil {
		c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: the upstream MCP server sent a malformed answer: "+bad.err.Error()))
		return
	}
	for _, m := range msgs {
		c.observe(m)
		c.deliver(m)
	}
}

// maxResumptions bounds how often in a row a response stream that the
// server ended before the answer is resumed with Last-Event-ID without an
// event coming on it. A server that polls (ends the stream every so often
// while a long tool runs) sends events in between, and is followed as long
// as it does.
const maxResumptions = 5

// readStream delivers the events of a call's response stream. A stream the
// server ends before the answer, after events with IDs, is resumed with a
// GET carrying Last-Event-ID, as the specification lets a server ask; one
// without IDs cannot be, and the call gets an error that says so.
func (c *httpUpstreamConn) readStream(r *jsonrpc.Request, req *http.Request, resp *http.Response) {
	answered := false
	lastID := ""
	var retry time.Duration
	body := resp.Body
	for idle := 0; ; idle++ {
		err := scanEvents(body, c.maxEvent, func(ev event) error {
			idle = 0
			if ev.id != "" {
				lastID = ev.id
			}
			if ev.retry > 0 {
				retry = ev.retry
			}
			if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
				return nil
			}
			msg, err := decodeMessage(ev.data)
			if err != nil {
				return fmt.Errorf("%w: %w", errMalformed, err)
			}
			if a, ok := msg.(*jsonrpc.Response); ok && idKey(a.ID) == idKey(r.ID) {
				answered = true
			}
			c.observe(msg)
			c.deliver(msg)
			return nil
		})
		if body != resp.Body {
			discard(body)
		}
		switch {
		case answered || !c.live(req):
			return
		case errors.Is(err, errEventTooLarge):
			c.deliver(c.tooLarge(r.ID))
			return
		case errors.Is(err, errMalformed):
			c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: the upstream MCP server sent a malformed message on the response stream: "+err.Error()))
			return
		case err != nil:
			c.broke(err)
			return
		case lastID == "" || idle == maxResumptions:
			c.deliver(proxyAnswer(r.ID, CodeConnectionClosed, "toolfailure proxy: the upstream MCP server at "+c.endpoint+" ended the response stream without answering the request"))
			return
		}
		if retry > 0 {
			select {
			case <-time.After(retry):
			case <-c.ctx.Done():
				return
			}
		}
		next, err := c.resume(lastID)
		if err != nil {
			if c.ctx.Err() == nil {
				c.fail(err)
			}
			return
		}
		body = next
	}
}

var errMalformed = errors.New("malformed JSON-RPC message")

// resume opens the GET that continues a response stream after lastID.
func (c *httpUpstreamConn) resume(lastID string) (io.ReadCloser, error) {
	req, err := c.newRequest(c.ctx, http.MethodGet, nil, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the upstream MCP server at %s to resume a broken response stream: %w", c.endpoint, err)
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		discard(resp.Body)
		return nil, fmt.Errorf("the upstream MCP server at %s did not resume a response stream: %s", c.endpoint, resp.Status)
	}
	return resp.Body, nil
}

// mediaType is the media type of a Content-Type value, lower case, without
// parameters. mime.ParseMediaType allocates a map of the parameters, which
// on every response of every call shows in the relay's profile; the type
// alone is all the relay looks at.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// isDialError reports whether err is a failure to connect at all, as opposed
// to a connection that broke.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (c *httpUpstreamConn) setSink(f func(jsonrpc.Message) bool) { c.sink.Store(&f) }

// deliver hands a message to the relay. Once the connection failed, nothing
// more is: the relay answers every call still waiting, and an answer after
// that would be a second one.
func (c *httpUpstreamConn) deliver(msg jsonrpc.Message) {
	if sink := c.sink.Load(); sink != nil {
		select {
		case <-c.failed:
		case <-c.ctx.Done():
		default:
			(*sink)(msg)
		}
		return
	}
	select {
	case c.in <- msg:
	case <-c.ctx.Done():
	}
}

// closeTimeout bounds the DELETE that ends the session upstream.
const closeTimeout = 5 * time.Second

func (c *httpUpstreamConn) Close() error {
	c.closeOnce.Do(func() {
		defer c.cancel()
		select {
		case <-c.failed:
			// The upstream is already gone; a DELETE would fail too, which
			// is no news, and would hide the reason it went.
			return
		default:
		}
		if !c.hasSession() {
			return
		}
		ctx, cancel := context.WithTimeout(c.ctx, closeTimeout)
		defer cancel()
		req, err := c.newRequest(ctx, http.MethodDelete, nil, nil)
		if err != nil {
			c.closeErr = err
			return
		}
		resp, err := c.client.Do(req)
		if err != nil {
			c.closeErr = fmt.Errorf("end the session at %s (DELETE): %w", c.endpoint, err)
			return
		}
		discard(resp.Body)
		// 405: the server does not let clients end sessions; 404: it
		// already ended it.
		if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
			c.closeErr = fmt.Errorf("end the session at %s (DELETE): %s", c.endpoint, resp.Status)
		}
	})
	return c.closeErr
}

// startListening opens the standalone stream once the handshake is over.
// The stateless protocol (2026-07-28) has none: there, a client subscribes
// with a request of its own, which is relayed like any other.
func (c *httpUpstreamConn) startListening() {
	c.mu.Lock()
	start := !c.listening && c.version != "" && c.version < "2026-07-28"
	c.listening = true
	c.mu.Unlock()
	if start {
		go c.listen()
	}
}

// listen keeps the standalone GET stream open for the life of the session,
// resuming after the last event when the server gave event IDs. A server
// that offers no stream (405) is fine: the specification makes it optional.
func (c *httpUpstreamConn) listen() {
	lastEventID := ""
	misses := 0
	for c.ctx.Err() == nil {
		progressed, retry, err := c.listenOnce(&lastEventID)
		if errors.Is(err, errNoStream) {
			return
		}
		if progressed {
			misses = 0
		} else {
			misses++
		}
		if misses > 5 {
			c.log.Warn("toolfailure proxy: giving up the upstream's standalone event stream; server-initiated messages outside requests will be missed",
				slog.String("upstream", c.endpoint), slog.Any("error", err))
			return
		}
		if retry <= 0 {
			retry = time.Duration(misses) * time.Second
		}
		select {
		case <-time.After(retry):
		case <-c.ctx.Done():
			return
		}
	}
}

var errNoStream = errors.New("the server offers no standalone stream")

func (c *httpUpstreamConn) listenOnce(lastEventID *string) (progressed bool, retry time.Duration, err error) {
	req, err := c.newRequest(c.ctx, http.MethodGet, nil, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if *lastEventID != "" {
		req.Header.Set("Last-Event-ID", *lastEventID)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	mt := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		return false, 0, errNoStream
	case resp.StatusCode == http.StatusNotFound:
		// The session is gone; the next POST will say so to the client.
		return false, 0, errNoStream
	case resp.StatusCode != http.StatusOK || mt != "text/event-stream":
		// Servers answer a GET they do not support in many ways (404, 400,
		// 200 with JSON); none of them is a stream.
		return false, 0, errNoStream
	}
	err = scanEvents(resp.Body, c.maxEvent, func(ev event) error {
		if ev.id != "" {
			*lastEventID = ev.id
			progressed = true
		}
		if ev.retry > 0 {
			retry = ev.retry
		}
		if len(ev.data) == 0 || (ev.name != "" && ev.name != "message") {
			return nil
		}
		msg, err := decodeMessage(ev.data)
		if err != nil {
			return fmt.Errorf("standalone stream: %w: %w", errMalformed, err)
		}
		progressed = true
		c.deliver(msg)
		return nil
	})
	switch {
	case err == nil:
		err = io.EOF
	case !errors.Is(err, errEventTooLarge) && !errors.Is(err, errMalformed) && c.live(req):
		// The connection broke under the stream: the server went away, and
		// every call still waiting should hear so now, not at its own
		// stream's end.
		c.broke(err)
	}
	return progressed, retry, err
}

// event is one server-sent event.
type event struct {
	name  string
	id    string
	data  []byte
	retry time.Duration
}

// errEventTooLarge ends a response stream whose current event is over the
// limit; the stream's call alone fails.
var errEventTooLarge = errors.New("server-sent event over the proxy's message limit")

// scanEvents reads a text/event-stream body and calls fn for every event,
// following the parsing rules of the HTML standard: data lines are joined
// with newlines, lines starting with a colon are comments, an empty line
// ends an event. An event whose data is over maxEvent bytes ends the scan
// with errEventTooLarge.
func scanEvents(r io.Reader, maxEvent int, fn func(event) error) error {
	br := newLineReader(r, maxEvent)
	defer br.release()
	var ev event
	var data []byte
	hasData := false
	for {
		line, err := br.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if line == "" {
			if hasData || ev.id != "" || ev.retry > 0 {
				ev.data = data
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev, data, hasData = event{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.name = value
		case "id":
			ev.id = value
		case "retry":
			var ms int
			if _, err := fmt.Sscanf(value, "%d", &ms); err == nil && ms >= 0 {
				ev.retry = time.Duration(ms) * time.Millisecond
			}
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > maxEvent {
				return errEventTooLarge
			}
		}
	}
}
