package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Command returns a transport that starts argv as a child process and speaks
// MCP with it over its stdin and stdout. The child's stderr goes to stderr
// (its logs stay visible), and its environment is the proxy's.
//
// Closing the connection closes the child's stdin, which is how the stdio
// transport asks a server to exit, and then waits for it: two seconds, then
// SIGTERM, then SIGKILL. The exit status is what Relay reports when the
// child goes away on its own.
func Command(argv []string, stderr io.Writer) (mcp.Transport, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("mcpproxy: no command to start")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

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
}

// Connect implements mcp.Transport. It sends nothing; the session starts
// with the client's first message.
func (t *HTTPUpstream) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.Endpoint == "" {
		return nil, errors.New("mcpproxy: HTTPUpstream.Endpoint is empty")
	}
	base := t.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &httpUpstreamConn{
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
	}).Connect(connCtx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("connect to %s: %w", t.Endpoint, err)
	}
	c.inner = inner
	go c.pump()
	return c, nil
}

type httpUpstreamConn struct {
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
	resp.Body = &watchedBody{ReadCloser: resp.Body, conn: u.conn, req: req}
	return resp, nil
}

// watchedBody ends the session when a response stream from the upstream
// breaks (a connection reset, a body cut short): the server went away, and
// every call still waiting should hear so now. A stream the server ends on
// purpose ends with io.EOF and is left to the SDK's transport.
type watchedBody struct {
	io.ReadCloser
	conn *httpUpstreamConn
	req  *http.Request
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && b.conn.live(b.req) {
		b.conn.fail(fmt.Errorf("the connection to the upstream MCP server at %s broke: %w", b.conn.endpoint, err))
	}
	return n, err
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
	why := "the upstream MCP server at " + c.endpoint + " ended the response stream without answering the request (" + resp.Error.Error() + ")"
	select {
	case <-c.failed:
		why = c.failErr.Error() // the stream ended because the connection broke
	default:
	}
	return &jsonrpc.Response{ID: resp.ID, Error: newProxyError(CodeConnectionClosed, "toolfailure proxy: "+why)}
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
	err = scanEvents(resp.Body, func(ev event) error {
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
		msg, err := jsonrpc.DecodeMessage(ev.data)
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

// maxEventBytes bounds one event, as the SDK's own transports do.
const maxEventBytes = 16 << 20

// scanEvents reads a text/event-stream body and calls fn for every event,
// following the parsing rules of the HTML standard: data lines are joined
// with newlines, lines starting with a colon are comments, an empty line
// ends an event.
func scanEvents(r io.Reader, fn func(event) error) error {
	br := newLineReader(r, maxEventBytes)
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
