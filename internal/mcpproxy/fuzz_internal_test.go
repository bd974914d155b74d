package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzLineFraming feeds the proxy's newline-delimited JSON-RPC framing
// arbitrary bytes under an arbitrary size limit: it never panics or hangs,
// every message it yields encodes again, a line over the limit becomes the
// oversized answer (never a partial message), a line that is not a message
// is handed to malformed and reading goes on, and reading ends with io.EOF
// at the end of the input.
func FuzzLineFraming(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`+"\n"), uint16(0))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`+"\n\n  \n"), uint16(0))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"`+string(bytes.Repeat([]byte("x"), 300))+`"}]}}`), uint16(64))
	f.Add([]byte(`{"jsonrpc":"2.0","result":{"big":"`+string(bytes.Repeat([]byte("y"), 200))+`"},"id":7}`+"\n"), uint16(32))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1}\r\n[]\n[1]\n"), uint16(0))
	f.Add([]byte("\xff\xfe\x00\n"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		c := newLineConn(bytes.NewReader(data), io.Discard, nil)
		if limit > 0 {
			c.max = int(limit)
		}
		oversized := 0
		c.oversized = func(id jsonrpc.ID, size int) jsonrpc.Message {
			oversized++
			if size <= c.max {
				t.Fatalf("a line of %d bytes under the limit %d was called oversized", size, c.max)
			}
			if !id.IsValid() {
				return nil
			}
			return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32603, Message: "too large"}}
		}
		c.malformed = func(b badMessage) jsonrpc.Message {
			if b.parse && json.Valid(b.text) {
				t.Fatalf("valid JSON %q called unparseable", b.text)
			}
			return &jsonrpc.Response{ID: b.id, Error: &jsonrpc.Error{Code: -32600, Message: "bad"}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		defer c.Close()
		for n := 0; ; n++ {
			if n > len(data)+1 {
				t.Fatalf("more messages (%d) than bytes of input (%d)", n, len(data))
			}
			m, err := c.Read(ctx)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatal("reading hung")
				}
				if !errors.Is(err, io.EOF) {
					t.Fatalf("reading ended with %v, want io.EOF", err)
				}
				return
			}
			if _, err := encodeMessage(m); err != nil {
				t.Fatalf("a message read does not encode again: %v", err)
			}
		}
	})
}

// FuzzLineID: finding the ID in the kept ends of an oversized line never
// panics, whatever those ends hold.
func FuzzLineID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":12,"result":{"x":"`), []byte(`"}}`))
	f.Add([]byte(`{"result":{"x":"`), []byte(`aaa"},"id":"k\"1","jsonrpc":"2.0"}`))
	f.Add([]byte(`[`), []byte(`"id":-0}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		_ = lineID(head, tail)
	})
}
