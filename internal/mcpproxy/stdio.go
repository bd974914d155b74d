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
// SDK's CommandTransport, which this replaces, ends the whole session.
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
// with an error for that request alone, and w is never closed.
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
		msgs, err := decodeLine(line)
		if err != nil {
			send(readResult{err: err})
			return
		}
		for _, m := range msgs {
			if !send(readResult{msg: m}) {
				return
			}
		}
	}
}

// decodeLine decodes one line: a message, or a batch of them (protocol
// 2025-03-26), which is relayed as separate messages.
func decodeLine(line []byte) ([]jsonrpc.Message, error) {
	if line[0] != '[' {
		m, err := decodeMessage(line)
		if err != nil {
			return nil, fmt.Errorf("malformed JSON-RPC message: %w", err)
		}
		return []jsonrpc.Message{m}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, fmt.Errorf("malformed JSON-RPC batch: %w", err)
	}
	out := make([]jsonrpc.Message, 0, len(raws))
	for _, raw := range raws {
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("malformed JSON-RPC message in a batch: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
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
				v, err := dec.Token()
				if err != nil {
					break
				}
				if id, err := jsonrpc.MakeID(v); err == nil && id.IsValid() {
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
	if m := tailID.FindSubmatch(tail); m != nil {
		var v any
		if json.Unmarshal(m[1], &v) == nil {
			if id, err := jsonrpc.MakeID(v); err == nil {
				return id
			}
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
	}
}
