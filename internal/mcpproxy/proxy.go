package mcpproxy

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

// DefaultShutdownGrace is how long a Relay keeps the upstream running after
// the client stopped sending, so that calls already forwarded can still be
// answered. A client that closes its end of a pipe right after writing its
// last request (a script, a test harness) expects those answers.
const DefaultShutdownGrace = 5 * time.Second

// CodeConnectionClosed is the JSON-RPC error code of the answer a client gets
// for a call the upstream can no longer answer. It is the code the official
// TypeScript SDK uses for a closed connection (ErrorCode.ConnectionClosed), so
// clients built on it recognise the failure as a transport one.
const CodeConnectionClosed = -32000

// ErrUpstreamClosed is wrapped by the error Relay returns when the upstream
// ended the session first: the child process exited, or the HTTP session
// was lost.
var ErrUpstreamClosed = errors.New("upstream MCP server closed the connection")

// Config configures a Proxy.
type Config struct {
	// Classifier is the toolfailure service (ClassifierService.Classify).
	// mcpfailure.NewClassifierClient builds one. Nil means the proxy has no
	// service (no key was given, say): it relays every message unchanged,
	// which is what the client would see without it, and says once why it
	// is not annotating (see Unavailable). A proxy that refused to start
	// would take the MCP server down with it.
	Classifier mcpfailure.Classifier
	// Unavailable says why Classifier is nil, for that warning ("no API key:
	// set TOOLFAILURE_KEY"). Ignored when Classifier is set.
	Unavailable string
	// ServiceURL is where Classifier goes, for CheckService and for the
	// messages that name the service. Optional.
	ServiceURL string
	// Server is the label failures are reported under (ClassifyRequest.server).
	// Empty means the name the upstream gives in its initialize result
	// (serverInfo.name), which is what an operator knows the server by.
	Server string
	// Budget bounds the detour for one failure: looking up the tool's
	// annotations and the Classify call. Zero means mcpfailure.DefaultBudget.
	Budget time.Duration
	// ShutdownGrace bounds how long Relay waits for answers to calls in flight
	// after the client stopped sending. Zero means DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// MaxMessageBytes bounds one JSON-RPC message the proxy reads, from the
	// client or the upstream. A message over it fails alone: an answer
	// becomes an error answer to its call, a request is refused with an
	// error; the session goes on. Zero means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MetaKey is the _meta key the toolFailure object is written under, and
	// the name the proxy advertises the extension by in the server's
	// capabilities. Empty means mcpfailure.MetaKey, the proposal's name; a
	// deployment under a vendor prefix sets the same name in its clients.
	MetaKey string
	// MaxTasks bounds the tasks one session remembers (see task.go): for
	// each task a tools/call created, the tool and the call's trace
	// context, which classifying the task's failed result needs. Past it
	// the oldest is forgotten, and its failure goes out without the key.
	// Zero means DefaultMaxTasks.
	MaxTasks int
	// TaskExpiry is how long a session remembers a task after its
	// tools/call was answered. Zero means DefaultTaskExpiry.
	TaskExpiry time.Duration
	// Telemetry records each tools/call the proxy relays as an MCP server
	// span and in mcp.server.operation.duration, as the Go middleware does,
	// with the JSON-RPC request ID the middleware cannot see; a failure's
	// Classify call is the span's child. Nil means mcpfailure.NewTelemetry
	// on the global OpenTelemetry providers.
	Telemetry *mcpfailure.Telemetry
	// Logger receives misses, JSON-RPC tool errors and upstream failures. Nil
	// means slog.Default(). In stdio mode it must not write to stdout.
	Logger *slog.Logger
}

// Proxy relays MCP sessions and adds the toolFailure key to failed tool
// results on the way. It holds no per-session state; one Proxy serves any
// number of sessions at once.
type Proxy struct {
	cfg Config

	// warning, once set, is why the proxy does not (or cannot) annotate;
	// it is logged once and sent to each client session once.
	warnOnce sync.Once
	warning  atomic.Pointer[string]
}

// New checks cfg and returns a Proxy.
func New(cfg Config) (*Proxy, error) {
	if cfg.Budget < 0 {
		return nil, fmt.Errorf("mcpproxy: Config.Budget %v is negative", cfg.Budget)
	}
	if cfg.Budget == 0 {
		cfg.Budget = mcpfailure.DefaultBudget
	}
	if cfg.MaxMessageBytes < 0 {
		return nil, fmt.Errorf("mcpproxy: Config.MaxMessageBytes %d is negative", cfg.MaxMessageBytes)
	}
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.MetaKey == "" {
		cfg.MetaKey = mcpfailure.MetaKey
	}
	if cfg.MaxTasks < 0 || cfg.TaskExpiry < 0 {
		return nil, fmt.Errorf("mcpproxy: Config.MaxTasks %d or Config.TaskExpiry %v is negative", cfg.MaxTasks, cfg.TaskExpiry)
	}
	if cfg.MaxTasks == 0 {
		cfg.MaxTasks = DefaultMaxTasks
	}
	if cfg.TaskExpiry == 0 {
		cfg.TaskExpiry = DefaultTaskExpiry
	}
	if err := mcpfailure.CheckMetaKey(cfg.MetaKey); err != nil {
		return nil, fmt.Errorf("mcpproxy: Config.MetaKey: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Telemetry == nil {
		t, err := mcpfailure.NewTelemetry(mcpfailure.TelemetryConfig{})
		if err != nil {
			return nil, fmt.Errorf("mcpproxy: %w", err)
		}
		cfg.Telemetry = t
	}
	p := &Proxy{cfg: cfg}
	if cfg.Classifier == nil {
		p.warn(p.unavailable())
	}
	return p, nil
}

func (p *Proxy) unavailable() string {
	why := p.cfg.Unavailable
	if why == "" {
		why = "no toolfailure service is configured"
	}
	return why
}

// warn records why failed results will go out unannotated and says so, once
// per proxy, loudly: the relay goes on regardless, so nothing else would
// show that the proxy is not doing its job.
func (p *Proxy) warn(why string) {
	p.warnOnce.Do(func() {
		msg := "toolfailure proxy: NOT annotating failed tool results, relaying every message unchanged: " + why
		p.warning.Store(&msg)
		p.cfg.Logger.Error(msg)
	})
}

// Warning returns the warning the proxy gave about not annotating, or "".
func (p *Proxy) Warning() string {
	if w := p.warning.Load(); w != nil {
		return *w
	}
	return ""
}

// Relay connects client (the transport facing the MCP client, such as
// mcp.StdioTransport) and upstream (the MCP server, such as
// mcp.CommandTransport or HTTPUpstream) and relays one session between them
// until one side ends or ctx is done. Both connections are closed when it
// returns.
//
// When the client ends its input, calls already forwarded are still
// answered for up to Config.ShutdownGrace before the upstream is closed. It
// returns nil when the client ended the session or ctx was cancelled, and an
// error wrapping ErrUpstreamClosed when the upstream went away while the
// session still needed it; in that case every call the client was still
// waiting for has been answered with a JSON-RPC error (CodeConnectionClosed)
// that says why, before the client connection was closed.
func (p *Proxy) Relay(ctx context.Context, client, upstream mcp.Transport) error {
	up, err := p.withLimit(upstream).Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect to upstream MCP server: %w", err)
	}
	down, err := client.Connect(ctx)
	if err != nil {
		_ = up.Close()
		return fmt.Errorf("connect to MCP client: %w", err)
	}
	return p.relay(ctx, down, up)
}

func (p *Proxy) relay(parent context.Context, client, upstream mcp.Connection) error {
	return p.newSession(parent, client, upstream).run()
}

// pushConn is a connection that hands each message to the relay as it
// arrives, in the goroutine that received it, rather than queueing it for
// Read: the request handler of a POST, the reader of an upstream's response
// stream. Over HTTP every message would otherwise pass through one more
// channel and one more goroutine each way, which is much of what the proxy
// adds to a call (BenchmarkHTTPCall). Messages of one stream keep their
// order; those of concurrent streams have none to keep. Read then only
// reports the connection's end.
type pushConn interface {
	setSink(func(jsonrpc.Message) bool)
}

// newSession sets up the relay of one session. A pushConn's messages are
// taken from the moment it returns, so that none arrives before the relay
// is ready for it.
func (p *Proxy) newSession(parent context.Context, client, upstream mcp.Connection) *session {
	s := &session{
		p:            p,
		log:          p.cfg.Logger,
		client:       client,
		upstream:     upstream,
		ownPrefix:    "toolfailure-proxy-" + rand.Text()[:8] + "-",
		pending:      map[jsonrpc.ID]*call{},
		own:          map[jsonrpc.ID]chan *jsonrpc.Response{},
		tools:        map[string]*mcp.ToolAnnotations{},
		tasks:        newTaskTable(p.cfg.MaxTasks, p.cfg.TaskExpiry),
		upstreamGone: make(chan struct{}),
		drained:      make(chan struct{}, 1),
	}
	s.limitMessages(client, upstream)
	s.parent = parent
	s.ctx, s.cancel = context.WithCancel(parent)
	if pc, ok := upstream.(pushConn); ok {
		pc.setSink(func(m jsonrpc.Message) bool { return s.pushed(func() { s.upstreamMessage(s.ctx, m) }) })
		// The client's messages are pushed only to an upstream that pushes
		// too: a pushing client's goroutine also serves the stream its
		// answers go out on, and a write to a child's stdin that waits for
		// the child to read must not hold it (the child may be waiting for
		// that stream to take its output).
		if pc, ok := client.(pushConn); ok {
			pc.setSink(func(m jsonrpc.Message) bool { return s.pushed(func() { s.clientMessage(s.ctx, m) }) })
		}
	}
	return s
}

// pushed runs handle for a message a pushConn received, unless the relay is
// ending: then the message is dropped, as one left unread would be.
func (s *session) pushed(handle func()) bool {
	s.pushMu.RLock()
	defer s.pushMu.RUnlock()
	if s.pushClosed {
		return false
	}
	handle()
	return true
}

// closePushes waits for the messages being handled and refuses any more.
// The relay's context must be cancelled first, so that none waits for a
// write that cannot finish.
func (s *session) closePushes() {
	s.pushMu.Lock()
	s.pushClosed = true
	s.pushMu.Unlock()
}

func (s *session) run() error {
	parent, ctx, cancel := s.parent, s.ctx, s.cancel
	defer cancel()
	client, upstream := s.client, s.upstream

	fromClient := make(chan error, 1)
	fromUpstream := make(chan error, 1)
	go func() { fromClient <- s.fromClient(ctx) }()
	go func() {
		err := s.fromUpstream(ctx)
		close(s.upstreamGone)
		fromUpstream <- err
	}()

	var upErr error
	clientEnded, upstreamEnded := false, false
	select {
	case err := <-fromClient:
		clientEnded = true
		if parent.Err() == nil && !errors.Is(err, io.EOF) {
			s.log.Warn("toolfailure proxy: reading from the MCP client failed", slog.Any("error", err))
		}
		// Calls already forwarded may still be answered: the upstream stays
		// up until they are, the grace period ends, or ctx is cancelled.
		if parent.Err() == nil {
			upErr, upstreamEnded = s.drain(ctx, fromUpstream)
		}
	case upErr = <-fromUpstream:
		upstreamEnded = true
	}

	// For a child process, Close closes its stdin and waits for it to exit,
	// so closeErr carries the exit status.
	closeErr := upstream.Close()
	cancel()
	s.closePushes()
	if !upstreamEnded {
		<-fromUpstream // ended by our Close; its error says nothing new
	}
	// Results already read are being annotated; let them go out first.
	s.work.Wait()

	var err error
	if upstreamEnded && parent.Err() == nil {
		err = upstreamError(upErr, closeErr)
		s.log.Error("toolfailure proxy: the upstream MCP server is gone", slog.Any("error", err))
		// No client may wait forever for an answer that cannot come.
		s.failPending(ctx, "toolfailure proxy: "+err.Error())
	}
	_ = client.Close()
	if !clientEnded {
		<-fromClient
	}
	return err
}

// withLimit gives an HTTPUpstream without a message limit of its own the
// proxy's, on a copy: the caller's transport is not changed.
func (p *Proxy) withLimit(t mcp.Transport) mcp.Transport {
	if h, ok := t.(*HTTPUpstream); ok && h.MaxMessageBytes == 0 {
		c := *h
		c.MaxMessageBytes = p.cfg.MaxMessageBytes
		return &c
	}
	return t
}

// drain waits, after the client stopped sending, until no forwarded call is
// waiting for its answer, the grace period is over, or the upstream ends.
func (s *session) drain(ctx context.Context, fromUpstream chan error) (upErr error, upstreamEnded bool) {
	timer := time.NewTimer(s.p.cfg.ShutdownGrace)
	defer timer.Stop()
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 0 {
			s.work.Wait()
			return nil, false
		}
		select {
		case err := <-fromUpstream:
			return err, true
		case <-s.drained:
		case <-timer.C:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// upstreamError explains why the upstream ended: the read error, and what
// closing it said (for a child process, its exit status).
func upstreamError(readErr, closeErr error) error {
	// The read error first: it is what happened. Closing a connection that
	// already failed fails again (an HTTP upstream's DELETE, say), which says
	// nothing new; a child's exit status comes with a plain EOF.
	switch {
	case readErr != nil && readErr != io.EOF: // a wrapped EOF has more to say
		return fmt.Errorf("%w: %v", ErrUpstreamClosed, readErr)
	case closeErr != nil && !errors.Is(closeErr, io.EOF):
		return fmt.Errorf("%w (%v)", ErrUpstreamClosed, closeErr)
	default:
		return ErrUpstreamClosed
	}
}

// session is the state of one relayed MCP session.
type session struct {
	p        *Proxy
	log      *slog.Logger
	client   mcp.Connection
	upstream mcp.Connection
	// ownPrefix starts the IDs of the requests the proxy itself sends
	// upstream (tools/list, for annotations). Their answers are never
	// forwarded; the random part keeps them apart from any client's IDs.
	ownPrefix string

	// The relay's lifetime: parent is the caller's context, ctx is
	// cancelled when the relay ends.
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
	// pushMu lets the handling of pushed messages (see pushConn) finish
	// before the relay ends, and pushClosed refuses later ones.
	pushMu     sync.RWMutex
	pushClosed bool

	mu      sync.Mutex
	pending map[jsonrpc.ID]*call // client calls forwarded upstream, not yet answered
	own     map[jsonrpc.ID]chan *jsonrpc.Response
	ownSeq  int
	// tools holds the annotations of every tool seen in a tools/list answer
	// (nil for a tool without any). toolsComplete says a whole listing was
	// seen since the last list_changed, so a missing name is really missing.
	tools         map[string]*mcp.ToolAnnotations
	toolsComplete bool
	// tasks holds the tasks that tools/call answers created (task.go).
	tasks           *taskTable
	serverName      string
	protocolVersion string
	initialized     bool
	// logging says the upstream declared the logging capability, so the
	// client accepts notifications/message in this session; logLevel is
	// the level the client asked for with logging/setLevel, if any.
	logging  bool
	logLevel string
	warned   bool
	// strayUpstream and strayClient say a line that is not a JSON-RPC
	// message was logged at warn level already in this session.
	strayUpstream atomic.Bool
	strayClient   atomic.Bool

	annotatorOnce sync.Once
	annotator     *mcpfailure.Annotator
	annotatorErr  error

	// work counts goroutines that annotate a result or classify a JSON-RPC
	// error; the relay lets them finish before it closes the client.
	work         sync.WaitGroup
	upstreamGone chan struct{}
	drained      chan struct{} // poked when a pending call is answered
}

// call is a client request forwarded upstream and not answered yet.
type call struct {
	// id is the call's ID as the client wrote it, which its answer carries
	// back; the pending set is keyed by idKey(id).
	id     jsonrpc.ID
	method string
	tool   string         // tools/call: params.name
	meta   map[string]any // tools/call: params._meta
	cursor bool           // tools/list: a later page was asked for
	taskID string         // tasks/get, tasks/result: params.taskId
	// version is the protocol version the call was made under: the
	// session's, or the one its _meta (stateless protocol) or its
	// Mcp-Protocol-Version header names.
	version string
	// tools/call: its span, and a context that carries it
	op    *mcpfailure.Operation
	opCtx context.Context
	// start is when the call arrived, for the duration in the log line of a recorded failure.
	start time.Time
}

// end ends the call's span, if it has one.
func (c *call) end(out mcpfailure.Outcome) {
	if c != nil && c.op != nil {
		c.op.End(c.opCtx, out)
	}
}

// fromClient forwards everything the client sends to the upstream, noting
// the calls so that their answers can be recognised.
func (s *session) fromClient(ctx context.Context) error {
	for {
		msg, err := s.client.Read(ctx)
		if err != nil {
			return err
		}
		s.clientMessage(ctx, msg)
	}
}

// clientMessage forwards one message from the client.
func (s *session) clientMessage(ctx context.Context, msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.IsCall() {
			s.track(req)
			s.tellWarning(ctx, req)
		} else {
			s.observeClientNotification(req)
		}
	}
	if err := s.upstream.Write(ctx, msg); err != nil {
		req, ok := msg.(*jsonrpc.Request)
		if ok && req.IsCall() {
			// The call never reached the upstream: answer it here rather
			// than leave the client waiting.
			if s.untrack(req.ID) {
				s.replyError(ctx, req.ID, CodeConnectionClosed, "toolfailure proxy: could not forward the request to the upstream MCP server: "+err.Error())
			}
			return
		}
		s.log.Warn("toolfailure proxy: could not forward a message to the upstream MCP server", slog.String("message", describe(msg)), slog.Any("error", err))
	}
}

// fromUpstream forwards everything the upstream sends to the client. Failed
// tool results take a detour through the service; everything else goes out
// as it came.
func (s *session) fromUpstream(ctx context.Context) error {
	for {
		msg, err := s.upstream.Read(ctx)
		if err != nil {
			return err
		}
		s.upstreamMessage(ctx, msg)
	}
}

// upstreamMessage forwards one message from the upstream.
func (s *session) upstreamMessage(ctx context.Context, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if s.deliverOwn(m) {
			return
		}
		c := s.answered(m.ID)
		if c != nil && m.ID != c.id {
			// Matched by value (1.5 for the client's 1.50): the answer
			// carries the ID as the client wrote it.
			m = &jsonrpc.Response{ID: c.id, Result: m.Result, Error: m.Error, Extra: m.Extra}
			msg = m
		}
		if c != nil {
			switch c.method {
			case "initialize", "server/discover":
				s.learnServer(m.Result)
				if m.Error == nil {
					m = s.advertise(c, m)
					msg = m
				}
			case "tools/list":
				if m.Error == nil {
					s.learnTools(m.Result, !c.cursor)
				}
			case "tools/call":
				switch {
				case isProxyError(m.Error):
					// The proxy's own transport error: a protocol
					// error, not the tool's failure; nothing to record.
					c.end(mcpfailure.Outcome{Err: m.Error})
				case m.Error != nil:
					c.end(outcomeOfError(m.Error))
					if s.p.cfg.Classifier != nil && recordsProtocolError(m.Error) {
						s.work.Add(1)
						go s.recordAndSendError(ctx, c, m)
						return
					}
				case !isErrorResult(m.Result):
					// A task handle (the tool runs as a task) is a
					// success of the call; its result comes later.
					s.rememberTask(c, m.Result)
					c.end(mcpfailure.Outcome{})
				case s.p.cfg.Classifier == nil:
					c.end(mcpfailure.Outcome{ToolError: true}) // no service: relayed as it came
				default:
					s.work.Add(1)
					go s.annotateAndSend(ctx, c, m)
					return
				}
			case "tasks/result", "tasks/get":
				if s.taskAnswer(ctx, c, m) {
					return
				}
			}
		}
	case *jsonrpc.Request:
		if m.Method == "notifications/tools/list_changed" {
			s.forgetTools()
		}
		if s.taskNotification(ctx, m) {
			return
		}
	}
	s.toClient(ctx, msg)
}

// toClient writes msg to the client. A server-to-client request the client
// cannot be reached for is answered upstream with an error, so that the
// upstream does not wait for an answer that cannot come.
func (s *session) toClient(ctx context.Context, msg jsonrpc.Message) {
	err := s.client.Write(ctx, msg)
	if err == nil {
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		_ = s.upstream.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: "toolfailure proxy: the MCP client cannot be reached for this request: " + err.Error(),
		}})
		return
	}
	if ctx.Err() == nil {
		s.log.Warn("toolfailure proxy: could not forward a message to the MCP client", slog.String("message", describe(msg)), slog.Any("error", err))
	}
}

func (s *session) track(req *jsonrpc.Request) {
	c := &call{id: req.ID, method: req.Method}
	headers, _ := req.Extra.(*requestHeaders)
	if req.Method == "tools/call" || req.Method == "server/discover" {
		// What the result the proxy may write must carry depends on it.
		s.mu.Lock()
		c.version = s.protocolVersion
		s.mu.Unlock()
		if headers != nil && headers.protocolVersion != "" {
			c.version = headers.protocolVersion
		}
	}
	switch req.Method {
	case "tools/call":
		if headers != nil && headers.name != "" {
			// The client named the tool in Mcp-Name (2026-07-28), which
			// it must keep equal to params.name: the name is not decoded
			// again. _meta is still read, for the trace context and the
			// per-request protocol keys a failure's report needs.
			c.tool, c.meta = headers.name, toolCallMeta(req.Params)
		} else {
			c.tool, c.meta = toolCallParams(req.Params)
		}
		if v, ok := c.meta[mcp.MetaKeyProtocolVersion].(string); ok {
			c.version = v
		}
		c.start = time.Now()
		c.opCtx, c.op = s.p.cfg.Telemetry.Start(context.Background(), mcpfailure.OperationInfo{
			Method: req.Method, Tool: c.tool, RequestMeta: c.meta, RequestID: idValue(req.ID),
			ProtocolVersion: c.version, SessionID: s.client.SessionID(),
		})
	case "server/discover":
		if v := metaProtocolVersion(req.Params); v != "" {
			c.version = v
		}
	case "tools/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &p)
		c.cursor = p.Cursor != ""
	case "tasks/get", "tasks/result":
		c.taskID = taskParams(req.Params)
	case "logging/setLevel":
		var p struct {
			Level string `json:"level"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			s.mu.Lock()
			s.logLevel = p.Level
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	s.pending[idKey(req.ID)] = c
	s.mu.Unlock()
}

// isPending reports whether the client waits for an answer under id.
func (s *session) isPending(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending[idKey(id)]
	return ok
}

// untrack forgets a call that could not be forwarded and reports whether it
// was still pending.
func (s *session) untrack(id jsonrpc.ID) bool {
	key := idKey(id)
	s.mu.Lock()
	c, ok := s.pending[key]
	delete(s.pending, key)
	s.mu.Unlock()
	c.end(mcpfailure.Outcome{Err: ErrUpstreamClosed})
	return ok
}

// answered takes the call that resp answers out of the pending set; nil
// when resp answers nothing the client asked (which is then forwarded as is).
func (s *session) answered(id jsonrpc.ID) *call {
	key := idKey(id)
	s.mu.Lock()
	c := s.pending[key]
	delete(s.pending, key)
	s.mu.Unlock()
	if c != nil {
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
	return c
}

func (s *session) observeClientNotification(req *jsonrpc.Request) {
	switch req.Method {
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		id, err := decodeID(p.RequestID)
		if err != nil {
			return
		}
		id = idKey(id)
		// The client gave up on it. Nobody waits for the answer any more,
		// and the upstream should not send one; if it does, it is relayed
		// as it came: an error then is the cancellation's echo, not a tool
		// failure worth a record.
		s.mu.Lock()
		c := s.pending[id]
		delete(s.pending, id)
		s.mu.Unlock()
		c.end(mcpfailure.Outcome{Err: context.Canceled})
		select {
		case s.drained <- struct{}{}:
		default:
		}
	}
}

// outcomeOfError is a JSON-RPC error answer, for the call's span.
func outcomeOfError(err error) mcpfailure.Outcome {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return mcpfailure.Outcome{JSONRPCCode: werr.Code}
	}
	return mcpfailure.Outcome{Err: err}
}

// tellWarning sends the proxy's warning, if it has one, to the client as a
// log message, once per session. Only in a session whose server declared
// logging (the specification lets a server send log messages only then),
// once the handshake is over, and at a level the client did not filter out;
// on the stateless protocol, which has no handshake, with a request that
// asks for log messages (its _meta logLevel). It goes out just before a
// request of the client's is forwarded, so that over HTTP there is a stream
// open to carry it.
func (s *session) tellWarning(ctx context.Context, req *jsonrpc.Request) {
	w := s.p.Warning()
	if w == "" {
		return
	}
	var p struct {
		Meta struct {
			LogLevel string `json:"io.modelcontextprotocol/logLevel"`
		} `json:"_meta"`
	}
	s.mu.Lock()
	if s.warned || !s.logging {
		s.mu.Unlock()
		return
	}
	level, asked := s.logLevel, s.initialized
	s.mu.Unlock()
	if !asked {
		if json.Unmarshal(req.Params, &p) != nil || p.Meta.LogLevel == "" {
			return
		}
		level, asked = p.Meta.LogLevel, true
	}
	s.mu.Lock()
	tell := !s.warned && levelAllowsWarning(level)
	if tell {
		s.warned = true
	}
	s.mu.Unlock()
	if !tell {
		return
	}
	params, err := json.Marshal(map[string]any{"level": "warning", "logger": "toolfailure-proxy", "data": w})
	if err != nil {
		return
	}
	msg := &jsonrpc.Request{Method: "notifications/message", Params: params}
	if rw, ok := s.client.(relatedWriter); ok && req.IsCall() {
		if err := rw.WriteRelated(ctx, msg, req.ID); err != nil && ctx.Err() == nil {
			s.log.Warn("toolfailure proxy: could not forward a message to the MCP client", slog.String("message", describe(msg)), slog.Any("error", err))
		}
		return
	}
	s.toClient(ctx, msg)
}

// relatedWriter is a client connection that can send a message on the
// stream of one of the client's calls (the HTTP listener's sessions).
type relatedWriter interface {
	WriteRelated(ctx context.Context, msg jsonrpc.Message, id jsonrpc.ID) error
}

// levelAllowsWarning reports whether a client that asked for level (empty:
// did not ask) receives a message of level warning.
func levelAllowsWarning(level string) bool {
	switch level {
	case "error", "critical", "alert", "emergency":
		return false
	}
	return true
}

// failPending answers every call still waiting with a JSON-RPC error.
func (s *session) failPending(ctx context.Context, message string) {
	s.mu.Lock()
	calls := s.pending
	s.pending = map[jsonrpc.ID]*call{}
	s.mu.Unlock()
	for _, c := range calls {
		c.end(mcpfailure.Outcome{Err: ErrUpstreamClosed})
		s.replyError(ctx, c.id, CodeConnectionClosed, message)
	}
}

// replyError answers the client's call id with a JSON-RPC error. It uses a
// context of its own: it runs while the session is being torn down, and the
// answer is the one thing the client still needs.
func (s *session) replyError(ctx context.Context, id jsonrpc.ID, code int64, message string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.client.Write(wctx, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}}); err != nil {
		s.log.Debug("toolfailure proxy: could not send an error answer to the MCP client", slog.Any("error", err))
	}
}

// learnServer takes the upstream's name from its initialize result, or
// from the _meta of a server/discover result on the stateless protocol.
func (s *session) learnServer(result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Capabilities struct {
			Logging json.RawMessage `json:"logging"`
		} `json:"capabilities"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	s.mu.Lock()
	if l := r.Capabilities.Logging; len(l) > 0 && string(l) != "null" {
		s.logging = true
	}
	if r.ProtocolVersion != "" {
		s.protocolVersion = r.ProtocolVersion
	}
	s.mu.Unlock()
	name := r.ServerInfo.Name
	if name == "" {
		var info struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(r.Meta[mcp.MetaKeyServerInfo], &info) == nil {
			name = info.Name
		}
	}
	if name != "" {
		s.mu.Lock()
		s.serverName = name
		s.mu.Unlock()
	}
}

// learnTools records the annotations of the tools in a tools/list answer.
// A first page without a next cursor is the whole list and replaces what was
// known; other pages add to it.
func (s *session) learnTools(result json.RawMessage, firstPage bool) {
	var r struct {
		Tools []struct {
			Name        string               `json:"name"`
			Annotations *mcp.ToolAnnotations `json:"annotations"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if firstPage && r.NextCursor == "" {
		s.tools = map[string]*mcp.ToolAnnotations{}
		s.toolsComplete = true
	}
	for _, t := range r.Tools {
		if t.Name != "" {
			s.tools[t.Name] = t.Annotations
		}
	}
}

func (s *session) forgetTools() {
	s.mu.Lock()
	s.tools = map[string]*mcp.ToolAnnotations{}
	s.toolsComplete = false
	s.mu.Unlock()
}

// proxyError is a JSON-RPC error that the proxy wrote itself, about its own
// transport (an upstream that cannot be reached, a stream that broke). It is
// encoded like any JSON-RPC error, and never recorded as a tool's failure:
// only a tool's own answers are.
type proxyError struct{ wire *jsonrpc.Error }

func newProxyError(code int64, message string) error {
	return &proxyError{&jsonrpc.Error{Code: code, Message: message}}
}

func (e *proxyError) Error() string { return e.wire.Message }
func (e *proxyError) Unwrap() error { return e.wire }

func isProxyError(err error) bool {
	var pe *proxyError
	return errors.As(err, &pe)
}

// describe names a message for a log line without its payload, which may
// hold user data.
func describe(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			return fmt.Sprintf("request %v %s", idValue(m.ID), m.Method)
		}
		return "notification " + m.Method
	case *jsonrpc.Response:
		return fmt.Sprintf("response %v", idValue(m.ID))
	}
	return fmt.Sprintf("%T", msg)
}

// isOwnID reports whether id belongs to a request the proxy sent itself.
func (s *session) isOwnID(id jsonrpc.ID) bool {
	str, ok := idKey(id).Raw().(string)
	return ok && strings.HasPrefix(str, s.ownPrefix)
}
