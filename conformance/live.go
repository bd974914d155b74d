package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LiveTarget names a running MCP server and the tool call to make on it.
// Exactly one of Command and URL is set.
type LiveTarget struct {
	// Command starts a server that speaks MCP over stdio: the program and
	// its arguments. The server is stopped when the check ends.
	Command []string
	// URL is a streamable HTTP endpoint, such as http://127.0.0.1:3000/mcp.
	URL string
	// Header is added to every HTTP request (an Authorization header, for
	// example). Only with URL.
	Header http.Header
	// HTTPClient carries the HTTP requests; nil means http.DefaultClient.
	HTTPClient *http.Client

	// Tool is the tool to call, and Arguments its arguments (a JSON object;
	// nil means {}). Pick a call that fails: the proposal's rules are about
	// error results, and a successful result only tells that the key is
	// absent where it must be.
	Tool      string
	Arguments map[string]any
}

// CheckLive checks a live server with a zero Checker; see Checker.CheckLive.
func CheckLive(ctx context.Context, target LiveTarget) (doc []byte, vs []Violation, err error) {
	return new(Checker).CheckLive(ctx, target)
}

// CheckLive connects to target with the official Go SDK's client, calls the
// tool once, and checks what came back as CheckResult does, under the
// protocol version the session negotiated unless c.ProtocolVersion is set. It returns the
// checked document too, so that a caller can save it next to the findings.
//
// The document is the result exactly as it crossed the wire, captured below
// the SDK rather than re-encoded from the SDK's types: decoding and encoding
// again would drop unknown fields and normalise values, and could hide the
// very mistakes a conformance check exists to find. When the call ends in a
// JSON-RPC error, the whole error response is the document, which
// CheckResult reports as not being a tool result.
//
// The error is non-nil when the server could not be started or reached, the
// session could not be set up, or no answer arrived; ctx bounds all of it.
func (c *Checker) CheckLive(ctx context.Context, target LiveTarget) (doc []byte, vs []Violation, err error) {
	if target.Tool == "" {
		return nil, nil, errors.New("conformance: live check: no tool to call")
	}
	rec := &wireRecorder{}
	var transport mcp.Transport
	switch {
	case len(target.Command) > 0 && target.URL != "":
		return nil, nil, errors.New("conformance: live check: set a command or a URL, not both")
	case len(target.Command) > 0:
		transport, err = rec.commandTransport(target.Command)
	case target.URL != "":
		transport = rec.httpTransport(target.URL, target.HTTPClient, target.Header)
	default:
		return nil, nil, errors.New("conformance: live check: no server: set a command or a URL")
	}
	if err != nil {
		return nil, nil, err
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "toolfailure-conform", Version: "v1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("conformance: live check: connect to %s: %w", target.where(), err)
	}
	defer session.Close()

	args := target.Arguments
	if args == nil {
		args = map[string]any{}
	}
	res, callErr := session.CallTool(ctx, &mcp.CallToolParams{Name: target.Tool, Arguments: args})
	doc = rec.toolCallAnswer()
	if doc == nil {
		if callErr != nil && res == nil {
			return nil, nil, fmt.Errorf("conformance: live check: call %q on %s: %w", target.Tool, target.where(), callErr)
		}
		// Nothing recognisable was captured (a transport that frames
		// messages in a way this recorder does not know); the decoded
		// result is the next best thing.
		if doc, err = json.Marshal(res); err != nil {
			return nil, nil, fmt.Errorf("conformance: live check: encode result of %q: %w", target.Tool, err)
		}
	}
	// The session says which version the result was sent under, and so
	// whether it must carry resultType; a version the caller set wins.
	checker := c
	if (c == nil || c.ProtocolVersion == "") && session.InitializeResult() != nil {
		var cc Checker
		if c != nil {
			cc = *c
		}
		cc.ProtocolVersion = session.InitializeResult().ProtocolVersion
		checker = &cc
	}
	vs, err = checker.CheckResult(doc)
	return doc, vs, err
}

func (t LiveTarget) where() string {
	if t.URL != "" {
		return t.URL
	}
	return strings.Join(t.Command, " ")
}

// wireRecorder keeps every JSON-RPC message that crossed the connection,
// as raw bytes, in both directions. Capture happens beneath the SDK, on the
// byte streams (stdio) or HTTP bodies (streamable HTTP), because the SDK's
// Connection wrappers rely on unexported interfaces and cannot be wrapped.
type wireRecorder struct {
	mu       sync.Mutex
	sent     []byte // newline-separated frames
	received []byte // newline-separated frames
}

func (r *wireRecorder) addSent(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(append(r.sent, b...), '\n')
}

func (r *wireRecorder) addReceived(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.received = append(append(r.received, b...), '\n')
}

// toolCallAnswer finds the response to the tools/call request among the
// captured messages: its result, raw, or the whole response when it is an
// error. Nil when there is none.
func (r *wireRecorder) toolCallAnswer() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var callID []byte
	for _, frame := range bytes.Split(r.sent, []byte("\n")) {
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(frame, &req) == nil && req.Method == "tools/call" && len(req.ID) > 0 {
			callID = compactJSON(req.ID)
		}
	}
	if callID == nil {
		return nil
	}
	for _, frame := range bytes.Split(r.received, []byte("\n")) {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(frame, &resp) != nil || !bytes.Equal(compactJSON(resp.ID), callID) {
			continue
		}
		if len(resp.Error) > 0 {
			return bytes.Clone(frame)
		}
		if len(resp.Result) > 0 {
			return bytes.Clone(resp.Result)
		}
	}
	return nil
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// lineTee copies newline-delimited frames to a recorder as they stream by.
type lineTee struct {
	add     func([]byte)
	pending []byte
}

func (t *lineTee) Write(p []byte) (int, error) {
	t.pending = append(t.pending, p...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimSpace(t.pending[:i]); len(line) > 0 {
			t.add(bytes.Clone(line))
		}
		t.pending = t.pending[i+1:]
	}
}

// commandTransport starts nothing yet: like mcp.CommandTransport, it starts
// the server on Connect, but reads and writes through recording tees.
func (r *wireRecorder) commandTransport(argv []string) (mcp.Transport, error) {
	if argv[0] == "" {
		return nil, errors.New("conformance: live check: empty command")
	}
	return &recordingCommand{rec: r, argv: argv}, nil
}

type recordingCommand struct {
	rec  *wireRecorder
	argv []string
}

func (c *recordingCommand) Connect(ctx context.Context) (mcp.Connection, error) {
	// Not exec.CommandContext: the session's Close stops the server in an
	// orderly way (stdin closed, then a bounded wait, then a kill), and ctx
	// covers only the connection set-up.
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("conformance: live check: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("conformance: live check: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("conformance: live check: start %s: %w", c.argv[0], err)
	}
	p := &process{cmd: cmd, stdin: stdin}
	t := &mcp.IOTransport{
		Reader: readCloser{Reader: io.TeeReader(stdout, &lineTee{add: c.rec.addReceived}), close: func() error { return nil }},
		Writer: writeCloser{Writer: io.MultiWriter(stdin, &lineTee{add: c.rec.addSent}), close: p.stop},
	}
	return t.Connect(ctx)
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

type writeCloser struct {
	io.Writer
	close func() error
}

func (w writeCloser) Close() error { return w.close() }

// process stops a stdio server the way the MCP specification asks: close
// its input, wait a little, then kill it.
type process struct {
	cmd   *exec.Cmd
	stdin io.Closer
	once  sync.Once
	err   error
}

func (p *process) stop() error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case p.err = <-done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
			p.err = errors.New("conformance: live check: server did not exit after its input closed; killed")
		}
	})
	return p.err
}

// httpTransport is the SDK's streamable client over an http.Client whose
// round trips record request and response bodies. The standalone SSE stream
// is off: a check needs only the answers to its own requests.
func (r *wireRecorder) httpTransport(url string, client *http.Client, header http.Header) mcp.Transport {
	if client == nil {
		client = http.DefaultClient
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	recording := *client
	recording.Transport = &recordingRoundTripper{rec: r, base: base, header: header}
	return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &recording, DisableStandaloneSSE: true, MaxRetries: -1}
}

type recordingRoundTripper struct {
	rec    *wireRecorder
	base   http.RoundTripper
	header http.Header
}

func (t *recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		t.rec.addSent(compactJSON(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "text/event-stream":
		resp.Body = teeBody(resp.Body, &sseTee{add: t.rec.addReceived})
	case "application/json":
		resp.Body = teeBody(resp.Body, &wholeTee{add: t.rec.addReceived})
	}
	return resp, nil
}

// teeBody copies a response body to w as the SDK reads it, and closes w at
// the end of the body, not only on Close: the SDK may act on a message
// before it closes the body, and the recording must be complete by then.
func teeBody(body io.ReadCloser, w io.WriteCloser) io.ReadCloser {
	return &recordingBody{body: body, w: w}
}

type recordingBody struct {
	body io.ReadCloser
	w    io.WriteCloser
	once sync.Once
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		_, _ = b.w.Write(p[:n])
	}
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *recordingBody) finish() { b.once.Do(func() { _ = b.w.Close() }) }

func (b *recordingBody) Close() error {
	b.finish()
	return b.body.Close()
}

// wholeTee records a JSON body as one frame when the body is closed.
type wholeTee struct {
	add func([]byte)
	buf bytes.Buffer
}

func (w *wholeTee) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *wholeTee) Close() error {
	if b := bytes.TrimSpace(w.buf.Bytes()); len(b) > 0 {
		w.add(compactJSON(b))
	}
	return nil
}

// sseTee records the data of each server-sent event as one frame, as the
// events stream by (the stream may stay open after the answer arrived).
type sseTee struct {
	add     func([]byte)
	pending []byte
	data    [][]byte
}

func (s *sseTee) Write(p []byte) (int, error) {
	s.pending = append(s.pending, p...)
	consumed := 0
	for {
		i := bytes.IndexByte(s.pending[consumed:], '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimRight(s.pending[consumed:consumed+i], "\r")
		consumed += i + 1
		switch {
		case len(line) == 0:
			s.flush()
		case bytes.HasPrefix(line, []byte("data:")):
			s.data = append(s.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
		}
	}
	s.pending = append(s.pending[:0], s.pending[consumed:]...)
	return len(p), nil
}

func (s *sseTee) flush() {
	if len(s.data) > 0 {
		s.add(compactJSON(bytes.Join(s.data, []byte("\n"))))
		s.data = nil
	}
}

func (s *sseTee) Close() error {
	s.flush()
	return nil
}
