package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPUpstream is a transport to an MCP server that speaks streamable HTTP.
//
// It uses the SDK's client transport for the POSTs and their event streams,
// and adds the two things that transport leaves to the SDK's client session,
// which a raw relay does not have: the Mcp-Protocol-Version header on every
// request after the handshake, and the standalone GET stream on which the
// server sends what does not belong to a request (list_changed, resource
// updates, log messages). Calls are posted concurrently, each in its own
// goroutine, because a server may hold a POST open until the tool finishes
// while it needs the client's answer to a sampling or elicitation request
// to finish it.
type HTTPUpstream struct {
	// Endpoint is the MCP endpoint, such as http://127.0.0.1:3000/mcp.
	Endpoint string
	// HTTPClient sends the requests; nil means one with no overall timeout,
	// which event streams need.
	HTTPClient *http.Client
	// Header is added to every request: an Authorization header the upstream
	// expects, for example.
	Header http.Header
	// Logger receives problems with the standalone stream. Nil means
	// slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes bounds one server-sent event. Zero means the Proxy's
	// Config.MaxMessageBytes when Relay or Handler connects it, else
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
}

// Connect implements mcp.Transport. It sends nothing; the session starts
// with the client's first message.
func (t *HTTPUpstream) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.Endpoint == "" {
		return nil, errors.New("mcpproxy: HTTPUpstream.Endpoint is empty")
	}
	base := t.HTTPClient
	if base == nil {
		base = &http.Client{Transport: upstreamTransport}
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
	c := &httpUpstreamConn{
		maxEvent: maxEvent,
		endpoint: t.Endpoint,
		log:      logger,
		ctx:      connCtx,
		cancel:   cancel,
		in:       make(chan jsonrpc.Message, 16),
		failed:   make(chan struct{}),
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc := *base
	hc.Transport = &upstreamHeaders{next: next, header: t.Header, conn: c}
	c.client = &hc
	inner, err := (&mcp.StreamableClientTransport{
		Endpoint:   t.Endpoint,
		HTTPClient: &hc,
		// The standalone stream is opened here, not by the SDK: its client
		// transport only does so when a client session tells it the
		// handshake is over, and there is no client session in a relay.
		DisableStandaloneSSE: true,
		MaxEventSize:         -1, // watchedBody enforces maxEvent, failing one call, not the session
	}).Connect(connCtx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("connect to %s: %w", t.Endpoint, err)
	}
	c.inner = inner
	go c.pump()
	return c, nil
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

type httpUpstreamConn struct {
	maxEvent int
	endpoint string
	client   *http.Client
	inner    mcp.Connection
	log      *slog.Logger
	ctx      context.Context // the connection's lifetime
	cancel   context.CancelFunc

	in      chan jsonrpc.Message
	failed  chan struct{}
	failErr error

	mu        sync.Mutex
	tooLarge  map[jsonrpc.ID]bool // calls whose answer was over the limit
	initID    jsonrpc.ID
	version   string // negotiated protocol version, once known
	listening bool
	closeOnce sync.Once
	closeErr  error
}

// upstreamHeaders adds the configured headers, and the negotiated protocol
// version to requests that do not carry one.
type upstreamHeaders struct {
	next   http.RoundTripper
	header http.Header
	conn   *httpUpstreamConn
}

func (u *upstreamHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range u.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if req.Header.Get("Mcp-Protocol-Version") == "" {
		if v := u.conn.negotiated(); v != "" {
			req.Header.Set("Mcp-Protocol-Version", v)
		}
	}
	resp, err := u.next.RoundTrip(req)
	if err != nil {
		if u.conn.live(req) {
			switch {
			case req.Method == http.MethodGet && req.Header.Get("Last-Event-ID") != "":
				// The SDK's transport is resuming a response stream that
				// broke, and the server cannot be reached: its retries,
				// with their backoff, would keep the calls on that stream
				// waiting for many seconds for an answer that cannot come.
				u.conn.fail(fmt.Errorf("cannot reach the upstream MCP server at %s to resume a broken response stream: %w", u.conn.endpoint, err))
			case !isDialError(err):
				// The request was sent and the connection broke before an
				// answer came: the server went away mid-request. (A server
				// that cannot be reached at all fails only the one call:
				// there is nothing in flight to tell.)
				u.conn.fail(fmt.Errorf("the connection to the upstream MCP server at %s broke: %w", u.conn.endpoint, err))
			}
		}
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &watchedBody{ReadCloser: resp.Body, conn: u.conn, req: req, events: mt == "text/event-stream"}
	return resp, nil
}

// errEventTooLarge ends a response stream whose current event is over the
// limit. The SDK's transport then answers the stream's call with an error
// of its own, which ownTransportError turns into one that says why.
var errEventTooLarge = errors.New("server-sent event over the proxy's message limit")

// watchedBody ends the session when a response stream from the upstream
// breaks (a connection reset, a body cut short): the server went away, and
// every call still waiting should hear so now. A stream the server ends on
// purpose ends with io.EOF and is left to the SDK's transport.
//
// It also enforces the message limit on event streams, in place of the
// SDK's, which fails the whole session: an event over the limit ends its
// stream alone.
type watchedBody struct {
	io.ReadCloser
	conn   *httpUpstreamConn
	req    *http.Request
	events bool // text/event-stream: count the bytes of each event
	size   int  // bytes of the current event so far
	eol    bool // the last byte ended a line, so a line ending now ends the event
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.events {
		b.count(p[:n])
		if b.size > b.conn.maxEvent {
			b.conn.eventTooLarge(b.req)
			return n, errEventTooLarge
		}
	}
	if err != nil && !errors.Is(err, io.EOF) && b.conn.live(b.req) {
		b.conn.fail(fmt.Errorf("the connection to the upstream MCP server at %s broke: %w", b.conn.endpoint, err))
	}
	return n, err
}

// count adds what was read to the size of the current event, which a blank
// line ends. It works a line at a time (IndexByte), not a byte at a time:
// answers of many megabytes go through it.
func (b *watchedBody) count(buf []byte) {
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) > 1 || buf[0] != '\r' { // a lone \r may be half of \r\n
				b.eol = false
			}
			b.size += len(buf)
			return
		}
		line := buf[:i]
		if blank := len(line) == 0 || (len(line) == 1 && line[0] == '\r'); blank && b.eol {
			b.size = 0
		} else {
			b.size += len(line)
		}
		b.eol = true
		buf = buf[i+1:]
	}
}

// live reports whether a failure of req says something about the upstream:
// neither the request nor the connection was cancelled on this side.
func (c *httpUpstreamConn) live(req *http.Request) bool {
	return c.ctx.Err() == nil && req.Context().Err() == nil
}

func (c *httpUpstreamConn) negotiated() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

func (c *httpUpstreamConn) SessionID() string { return c.inner.SessionID() }

// pump moves what the SDK's transport reads into the merged stream.
func (c *httpUpstreamConn) pump() {
	for {
		msg, err := c.inner.Read(c.ctx)
		if err != nil {
			c.fail(err)
			return
		}
		c.observe(msg)
		msg = c.ownTransportError(msg)
		select {
		case c.in <- msg:
		case <-c.ctx.Done():
			return
		}
	}
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

// ownTransportError replaces the answers the SDK's transport makes up for a
// call whose response stream ended without an answer. Their error is a bare
// Go error, which would go out as a JSON-RPC error with code 0; the client
// gets the proxy's CodeConnectionClosed instead, marked as the proxy's own so
// that it is not recorded as a failure of the tool.
func (c *httpUpstreamConn) ownTransportError(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	var werr *jsonrpc.Error
	if errors.As(resp.Error, &werr) {
		return msg
	}
	c.mu.Lock()
	tooLarge := c.tooLarge[resp.ID]
	delete(c.tooLarge, resp.ID)
	c.mu.Unlock()
	if tooLarge {
		return &jsonrpc.Response{ID: resp.ID, Error: newProxyError(jsonrpc.CodeInternalError, fmt.Sprintf(
			"toolfailure proxy: the upstream MCP server's answer is over the proxy's limit of %d bytes for one message (--max-message-bytes)", c.maxEvent))}
	}
	why := "the upstream MCP server at " + c.endpoint + " ended the response stream without answering the request (" + resp.Error.Error() + ")"
	select {
	case <-c.failed:
		why = c.failErr.Error() // the stream ended because the connection broke
	default:
	}
	return &jsonrpc.Response{ID: resp.ID, Error: newProxyError(CodeConnectionClosed, "toolfailure proxy: "+why)}
}

// eventTooLarge notes the call whose response stream carried an event over
// the limit, from the request's own body (which the SDK keeps for retries).
func (c *httpUpstreamConn) eventTooLarge(req *http.Request) {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return
	}
	msg, err := decodeMessage(b)
	if r, ok := msg.(*jsonrpc.Request); err == nil && ok && r.IsCall() {
		c.mu.Lock()
		if c.tooLarge == nil {
			c.tooLarge = map[jsonrpc.ID]bool{}
		}
		c.tooLarge[r.ID] = true
		c.mu.Unlock()
	}
}

func (c *httpUpstreamConn) observe(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initID.IsValid() || resp.ID != c.initID {
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
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && req.IsCall() {
		if req.Method == "initialize" {
			c.mu.Lock()
			c.initID = req.ID
			c.mu.Unlock()
		}
		go func() {
			if err := c.inner.Write(ctx, msg); err != nil && ctx.Err() == nil {
				c.deliver(errorAnswer(req.ID, c.endpoint, err))
			}
		}()
		return nil
	}
	if err := c.inner.Write(ctx, msg); err != nil {
		return err
	}
	if isReq && req.Method == "notifications/initialized" {
		c.startListening()
	}
	return nil
}

// errorAnswer turns a failed POST of a call into the answer the client gets.
// An upstream that refused the call with a JSON-RPC error in the HTTP body
// is quoted exactly; any other failure is the proxy's CodeConnectionClosed.
func errorAnswer(id jsonrpc.ID, endpoint string, err error) *jsonrpc.Response {
	if werr := upstreamWireError(err); werr != nil {
		return &jsonrpc.Response{ID: id, Error: werr}
	}
	what := "the connection to the upstream MCP server at " + endpoint + " broke before it answered: "
	if isDialError(err) {
		what = "cannot reach the upstream MCP server at " + endpoint + ": "
	}
	return &jsonrpc.Response{ID: id, Error: newProxyError(CodeConnectionClosed, "toolfailure proxy: "+what+err.Error())}
}

// upstreamWireError finds the JSON-RPC error the upstream answered with in
// err's tree. The SDK's transport wraps every failed POST in a JSON-RPC
// error of its own ("rejected by transport", -32005), which says nothing
// about the upstream and is skipped.
func upstreamWireError(err error) *jsonrpc.Error {
	var walk func(error) *jsonrpc.Error
	walk = func(e error) *jsonrpc.Error {
		if e == nil {
			return nil
		}
		if we, ok := e.(*jsonrpc.Error); ok && !(we.Code == codeRejectedByTransport && we.Message == "rejected by transport") {
			return we
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			return walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				if we := walk(x); we != nil {
					return we
				}
			}
		}
		return nil
	}
	return walk(err)
}

const codeRejectedByTransport = -32005

// isDialError reports whether err is a failure to connect at all, as opposed
// to a connection that broke.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (c *httpUpstreamConn) deliver(msg jsonrpc.Message) {
	select {
	case c.in <- msg:
	case <-c.ctx.Done():
	}
}

func (c *httpUpstreamConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.inner.Close() // ends the session upstream (DELETE)
		c.cancel()
		select {
		case <-c.failed:
			// The upstream is already gone; that the DELETE failed too is
			// no news, and would hide the reason it went.
			c.closeErr = nil
		default:
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
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.endpoint, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if sid := c.inner.SessionID(); sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if *lastEventID != "" {
		req.Header.Set("Last-Event-ID", *lastEventID)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
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
			return fmt.Errorf("standalone stream: %w", err)
		}
		progressed = true
		c.deliver(msg)
		return nil
	})
	if err == nil {
		err = io.EOF
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

// scanEvents reads a text/event-stream body and calls fn for every event,
// following the parsing rules of the HTML standard: data lines are joined
// with newlines, lines starting with a colon are comments, an empty line
// ends an event.
func scanEvents(r io.Reader, maxLine int, fn func(event) error) error {
	br := newLineReader(r, maxLine)
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
		}
	}
}
