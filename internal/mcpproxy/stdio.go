package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message that the proxy reads,
// from either side, when Config.MaxMessageBytes is zero. It is four times
// the SDK's own default, because a proxy must not be the reason a large
// result (a file, an image) that works directly fails: the official
// TypeScript SDK reads messages of any size.
const DefaultMaxMessageBytes = 64 << 20

// Command returns a transport that starts argv as a child process and speaks
// MCP with it over its stdin and stdout, one JSON-RPC message per line. The
// child's stderr goes to stderr (its logs stay visible), and its environment
// is the proxy's.
//
// Closing the connection closes the child's stdin, which is how the stdio
// transport asks a server to exit, and then waits for it: two seconds, then
// SIGTERM, then SIGKILL. The exit status is what Relay reports when the
// child goes away on its own.
//
// A line longer than Config.MaxMessageBytes fails only the call it answers
// (a JSON-RPC error that gives its size and the limit), not the session: the
// SDK's CommandTransport, which this replaces, ends the whole session. So
// does a line that is not JSON-RPC (a banner, a log line on stdout) for the
// SDK; here it is skipped and logged (see the package documentation).
func Command(argv []string, stderr io.Writer) (mcp.Transport, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("mcpproxy: no command to start")
	}
	return &commandTransport{argv: argv, stderr: stderr, terminate: 2 * time.Second}, nil
}

type commandTransport struct {
	argv      []string
	stderr    io.Writer
	terminate time.Duration
}

func (t *commandTransport) Connect(context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Stderr = t.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", t.argv[0], err)
	}
	return newLineConn(stdout, stdin, func() error { return stop(cmd, stdin, t.terminate) }), nil
}

// stop closes the child's stdin and waits for it to exit, escalating to
// SIGTERM and SIGKILL, as the specification's stdio shutdown asks.
func stop(cmd *exec.Cmd, stdin io.Closer, grace time.Duration) error {
	_ = stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	_ = cmd.Process.Kill()
	return <-exited
}

// Stdio returns a transport for the client side over r and w (the proxy's
// own stdin and stdout), one JSON-RPC message per line. Unlike the SDK's
// IOTransport, a request longer than Config.MaxMessageBytes is answered
// with an error for that request alone, a line that is not a valid request
// is answered with -32700 or -32600 (the session goes on), IDs are kept as
// they were written, and w is never closed.
func Stdio(r io.Reader, w io.Writer) mcp.Transport { return &stdioTransport{r, w} }

type stdioTransport struct {
	r io.Reader
	w io.Writer
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	return newLineConn(t.r, t.w, nil), nil
}

// lineConn is newline-delimited JSON-RPC over a reader and a writer. Relay
// sets its limit and what an oversized line becomes before the first Read.
type lineConn struct {
	r     *bufio.Reader
	w     io.Writer
	close func() error

	max int
	// oversized turns a line over max into the message Read returns in its
	// place, or nil to skip it. id is the line's JSON-RPC ID when one could
	// be found in what was kept of it.
	oversized func(id jsonrpc.ID, size int) jsonrpc.Message
	// malformed does the same for a line, or an element of a batch, that is
	// not a JSON-RPC message. Nil skips it. Either way the connection reads
	// on: one bad line is not the end of the session.
	malformed func(bad badMessage) jsonrpc.Message

	start     sync.Once
	msgs      chan readResult
	done      chan struct{}
	wmu       sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newLineConn(r io.Reader, w io.Writer, closeFn func() error) *lineConn {
	return &lineConn{
		r:     bufio.NewReaderSize(r, 64<<10),
		w:     w,
		close: closeFn,
		max:   DefaultMaxMessageBytes,
		msgs:  make(chan readResult),
		done:  make(chan struct{}),
	}
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.start.Do(func() { go c.readLoop() })
	select {
	case r := <-c.msgs:
		return r.msg, r.err
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) readLoop() {
	send := func(r readResult) bool {
		select {
		case c.msgs <- r:
			return true
		case <-c.done:
			return false
		}
	}
	for {
		line, size, id, err := c.readLine()
		if err != nil {
			send(readResult{err: err})
			return
		}
		if line == nil {
			if c.oversized != nil {
				if m := c.oversized(id, size); m != nil && !send(readResult{msg: m}) {
					return
				}
			}
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		for _, it := range decodeLine(line) {
			m := it.msg
			if it.bad != nil {
				if c.malformed == nil {
					continue
				}
				if m = c.malformed(*it.bad); m == nil {
					continue
				}
			}
			if !send(readResult{msg: m}) {
				return
			}
		}
	}
}

// lineItem is a message of a line, or what stands in a message's place.
type lineItem struct {
	msg jsonrpc.Message
	bad *badMessage
}

// decodeLine decodes one line: a message, or a batch of them (protocol
// 2025-03-26), which is relayed as separate messages. What is not a message
// (the line, or an element of the batch) comes back as a badMessage, for
// the connection's owner to answer or skip: the SDKs' stdio transports
// differ here (the Go SDK's ends the session on the first such line, the
// TypeScript SDK's reports it and reads on), and a relay must do the latter.
func decodeLine(line []byte) []lineItem {
	if line[0] != '[' {
		m, err := decodeMessage(line)
		if err != nil {
			b := diagnose(line, fmt.Errorf("malformed JSON-RPC message: %w", err))
			return []lineItem{{bad: &b}}
		}
		return []lineItem{{msg: m}}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		b := diagnose(line, fmt.Errorf("malformed JSON-RPC batch: %w", err))
		return []lineItem{{bad: &b}}
	}
	if len(raws) == 0 {
		return []lineItem{{bad: &badMessage{text: line, err: errors.New("empty JSON-RPC batch")}}}
	}
	out := make([]lineItem, 0, len(raws))
	for _, raw := range raws {
		m, err := decodeMessage(raw)
		if err != nil {
			b := diagnose(raw, fmt.Errorf("malformed JSON-RPC message in a batch: %w", err))
			out = append(out, lineItem{bad: &b})
			continue
		}
		out = append(out, lineItem{msg: m})
	}
	return out
}

// Of a line over the limit, the first and last bytes are kept: the ID is
// there, before the result (the Go and Python SDKs) or after it (the
// TypeScript SDK).
const (
	keepHead = 4 << 10
	keepTail = 512
)

// readLine returns the next line, or, for a line over the limit, nil with
// the line's size and the ID found in its ends.
func (c *lineConn) readLine() (line []byte, size int, id jsonrpc.ID, err error) {
	var head, tail []byte
	over := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		size += len(chunk)
		if !over && len(line)+len(chunk) > c.max && c.max > 0 {
			over = true
			head = append(line, chunk...)
			head = head[:min(len(head), keepHead)]
			line = nil
		} else if !over {
			line = append(line, chunk...)
		}
		if over {
			tail = append(tail, chunk...)
			if len(tail) > keepTail {
				tail = append(tail[:0], tail[len(tail)-keepTail:]...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (!errors.Is(err, io.EOF) || size == 0):
			return nil, 0, jsonrpc.ID{}, err
		}
		// A line, or the last one without a newline.
		if over {
			return nil, size, lineID(head, tail), nil
		}
		if line == nil {
			line = []byte{}
		}
		return line, size, jsonrpc.ID{}, nil
	}
}

var tailID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

// lineID finds the ID of a message from its first and last bytes: a
// top-level "id" member before the first member too long to keep, or an
// "id" that closes the message.
func lineID(head, tail []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				break
			}
			if key == "id" {
				var v json.RawMessage
				if dec.Decode(&v) != nil {
					break
				}
				if id, err := decodeID(v); err == nil && id.IsValid() {
					return id
				}
				break
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break // the long member: the rest was not kept
			}
		}
	}
	if m := tailID.FindSubmatch(tail); m != nil && json.Valid(m[1]) {
		if id, err := decodeID(m[1]); err == nil {
			return id
		}
	}
	return jsonrpc.ID{}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err = c.w.Write(data)
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		if c.close != nil {
			c.closeErr = c.close()
		}
	})
	return c.closeErr
}

// limitMessages applies the proxy's message limit to the connections it
// reads from. An answer from the upstream that is too long becomes an error
// answer to its call; a request from the client that is too long is answered
// with an error at once and not forwarded. Other oversized messages
// (notifications, or a line whose ID could not be found) are dropped and
// logged.
func (s *session) limitMessages(client, upstream mcp.Connection) {
	limit := s.p.cfg.MaxMessageBytes
	if lc, ok := upstream.(*lineConn); ok {
		lc.max = limit
		lc.oversized = func(id jsonrpc.ID, size int) jsonrpc.Message {
			if !id.IsValid() {
				s.log.Warn("toolfailure proxy: dropped a message from the upstream MCP server over the size limit",
					slog.Int("bytes", size), slog.Int("limit", limit))
				return nil
			}
			return &jsonrpc.Response{ID: id, Error: newProxyError(jsonrpc.CodeInternalError, fmt.Sprintf(
				"toolfailure proxy: the upstream MCP server's answer is %d bytes, over the proxy's limit of %d bytes for one message (--max-message-bytes)", size, limit))}
		}
		lc.malformed = s.upstreamMalformed
	}
	if lc, ok := client.(*lineConn); ok {
		lc.max = limit
		lc.oversized = func(id jsonrpc.ID, size int) jsonrpc.Message {
			if !id.IsValid() {
				s.log.Warn("toolfailure proxy: dropped a message from the MCP client over the size limit",
					slog.Int("bytes", size), slog.Int("limit", limit))
				return nil
			}
			s.replyError(context.Background(), id, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"toolfailure proxy: the request is %d bytes, over the proxy's limit of %d bytes for one message (--max-message-bytes)", size, limit))
			return nil
		}
		lc.malformed = s.clientMalformed
	}
}

// upstreamMalformed handles a line from the upstream that is not a JSON-RPC
// message: a banner ("Server listening on port 3000"), a log line written
// to stdout by mistake, "{}". It is skipped, as the TypeScript SDK's stdio
// client does (it reports such a line to onerror and reads on; the Go SDK's
// ends the session, go-sdk issue #1209), and logged: at warn the first time
// in a session, at debug after that, so that a chatty server does not flood
// the log. An answer to a call the client is waiting for that is not a
// valid message ({"id":2,"result":…} without "jsonrpc") fails that call at
// once, with an error of the proxy's own, instead of leaving the client to
// wait for an answer that came and was dropped.
func (s *session) upstreamMalformed(b badMessage) jsonrpc.Message {
	level := slog.LevelDebug
	if s.strayUpstream.CompareAndSwap(false, true) {
		level = slog.LevelWarn
	}
	s.log.Log(context.Background(), level, "toolfailure proxy: skipped a line from the upstream MCP server that is not a JSON-RPC message (later ones are logged at debug level)",
		slog.String("line", b.logText()), slog.Any("error", b.err))
	if b.answer && b.id.IsValid() && s.isPending(b.id) {
		return &jsonrpc.Response{ID: b.id, Error: newProxyError(jsonrpc.CodeInternalError,
			"toolfailure proxy: the upstream MCP server's answer is not a valid JSON-RPC message: "+b.err.Error())}
	}
	return nil
}

// clientMalformed answers a line from the client that is not a JSON-RPC
// message as JSON-RPC 2.0 asks: -32700 (parse error) with id null for one
// that is not JSON, -32600 (invalid request) for JSON that is not a valid
// request, with its id when one can be read. A line that looks like an
// answer (to a request of the upstream's) is not answered, since its ID is
// one of the upstream's, not the client's: it is dropped and logged. Either
// way the session goes on.
func (s *session) clientMalformed(b badMessage) jsonrpc.Message {
	level := slog.LevelDebug
	if s.strayClient.CompareAndSwap(false, true) {
		level = slog.LevelWarn
	}
	what := "answered it with an error"
	if b.answer {
		what = "dropped it"
	}
	s.log.Log(context.Background(), level, "toolfailure proxy: a line from the MCP client is not a JSON-RPC message; "+what,
		slog.String("line", b.logText()), slog.Any("error", b.err))
	switch {
	case b.answer:
	case b.parse:
		s.replyError(context.Background(), jsonrpc.ID{}, jsonrpc.CodeParseError, "Parse error: "+b.err.Error())
	default:
		s.replyError(context.Background(), b.id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+b.err.Error())
	}
	return nil
}
