package mcpproxy_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/omcp/toolfailure/internal/mcpproxy"
)

// stdioClient runs p between a raw client peer on mcpproxy.Stdio and a
// child started with mcpproxy.Command.
func stdioClient(t *testing.T, p *mcpproxy.Proxy, argv ...string) *rawPeer {
	t.Helper()
	toProxyR, toProxyW := io.Pipe()
	fromProxyR, fromProxyW := io.Pipe()
	client := &rawPeer{t: t, w: toProxyW, r: bufio.NewReaderSize(fromProxyR, 1<<20)}
	up, err := mcpproxy.Command(argv, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Relay(ctx, mcpproxy.Stdio(toProxyR, fromProxyW), up); err != nil {
			t.Logf("Relay: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = toProxyW.Close()
		_ = fromProxyR.Close()
		<-done
	})
	return client
}

// bigAnswerScript is a stdio "server" that answers initialize, then answers
// each tools/call it reads with the next answer from its arguments: "big N
// go|ts" is a text result of N bytes with the ID before the result (as the
// Go and Python SDKs write it) or after it (as the TypeScript SDK does),
// "small" a short one. The ID is the line number of the call.
const bigAnswerScript = `
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}}'
read -r line
id=1
for answer in "$@"; do
  read -r line || exit 0
  set -- $answer
  if [ "$1" = big ]; then
    text=$(head -c "$2" /dev/zero | tr '\0' a)
    if [ "$3" = ts ]; then
      printf '{"result":{"content":[{"type":"text","text":"%s"}]},"jsonrpc":"2.0","id":%d}\n' "$text" "$id"
    else
      printf '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$id" "$text"
    fi
  else
    printf '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"small"}]}}\n' "$id"
  fi
  id=$((id+1))
done
read -r line
`

func sendInit(t *testing.T, client *rawPeer) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := decode(t, client.recv(10*time.Second)); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func callN(client *rawPeer, id int) {
	client.send(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"read"}}`)
}

// TestLargeAnswerPassesThrough: a 17 MiB answer from a stdio child, over the
// SDK's 16 MiB line limit, reaches the client whole under the default limit.
func TestLargeAnswerPassesThrough(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	const size = 17 << 20
	client := stdioClient(t, p, "sh", "-c", bigAnswerScript, "sh", "big 17825792 ts")
	sendInit(t, client)
	callN(client, 1)
	got := decode(t, client.recv(2*time.Minute))
	if got.Error != nil || string(got.ID) != "1" || len(got.Result) < size {
		t.Fatalf("answer %s: error %+v, %d result bytes; want the whole %d-byte result", got.ID, got.Error, len(got.Result), size)
	}
}

// TestOverLimitFailsOneCall: past the limit, an answer fails its own call
// with an error that gives the size and the limit, wherever its ID is; a
// request over the limit is refused without reaching the upstream; and the
// session goes on.
func TestOverLimitFailsOneCall(t *testing.T) {
	t.Parallel()
	p := newProxyConfig(t, mcpproxy.Config{Classifier: refusingClassifier{t}, MaxMessageBytes: 1 << 20})
	client := stdioClient(t, p, "sh", "-c", bigAnswerScript, "sh", "big 2097152 ts", "big 2097152 go", "small", "small")
	sendInit(t, client)
	for id := 1; id <= 2; id++ {
		callN(client, id)
		got := decode(t, client.recv(2*time.Minute))
		if string(got.ID) != string(rune('0'+id)) || got.Error == nil || got.Error.Code != jsonrpc.CodeInternalError ||
			!strings.Contains(got.Error.Message, "over the proxy's limit of 1048576 bytes") {
			t.Fatalf("answer %s: %+v, want an error for call %d naming the limit", got.ID, got.Error, id)
		}
	}

	// A request over the limit: refused here, and the next one goes on.
	client.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write","arguments":{"text":"` + strings.Repeat("b", 2<<20) + `"}}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "9" || got.Error == nil || got.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("oversized request: %s %+v, want an invalid-request error", got.ID, got.Error)
	}
	callN(client, 3)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "3" || got.Error != nil || !strings.Contains(string(got.Result), "small") {
		t.Fatalf("after the oversized messages: %s %+v %s, want the answer to call 3", got.ID, got.Error, got.Result)
	}
}
