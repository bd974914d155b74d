package mcpproxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// These tests feed the proxy what real peers do (issue 31, item 6): a
// server that prints a banner or a log line on stdout, a client that sends
// a broken line, failed results too deep or too large for the service, and
// IDs that do not fit the SDK's int64.

// linePipes runs p between a client and an upstream that the test drives
// by hand, both on the proxy's own newline-delimited transport
// (mcpproxy.Stdio) over OS pipes: unlike the SDK's IOTransport, which the
// relay helper uses, nothing reads the lines before the proxy does.
func linePipes(t *testing.T, p *mcpproxy.Proxy) (client, upstream *rawPeer) {
	t.Helper()
	pipe := func() (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return r, w
	}
	clientIn, clientW := pipe()  // client → proxy
	clientR, clientOut := pipe() // proxy → client
	upIn, upW := pipe()          // upstream → proxy
	upR, upOut := pipe()         // proxy → upstream
	client = &rawPeer{t: t, w: clientW, r: bufio.NewReaderSize(clientR, 1<<20)}
	upstream = &rawPeer{t: t, w: upW, r: bufio.NewReaderSize(upR, 1<<20)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Relay(ctx, mcpproxy.Stdio(clientIn, clientOut), mcpproxy.Stdio(upIn, upOut)); err != nil {
			t.Logf("Relay: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		for _, f := range []*os.File{clientW, upW, clientR, upR} {
			_ = f.Close()
		}
		<-done
		for _, f := range []*os.File{clientIn, clientOut, upIn, upOut} {
			_ = f.Close()
		}
	})
	return client, upstream
}

// countingHandler counts the proxy's log records by level and message, and
// passes them to the test's log.
type countingHandler struct {
	slog.Handler
	mu     *sync.Mutex
	counts map[string]int
}

func newCountingLogger(t *testing.T) (*slog.Logger, func(level slog.Level, prefix string) int) {
	h := countingHandler{
		Handler: slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}),
		mu:      &sync.Mutex{},
		counts:  map[string]int{},
	}
	count := func(level slog.Level, prefix string) int {
		h.mu.Lock()
		defer h.mu.Unlock()
		n := 0
		for k, v := range h.counts {
			if strings.HasPrefix(k, level.String()+" "+prefix) {
				n += v
			}
		}
		return n
	}
	return slog.New(h), count
}

func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	h.counts[r.Level.String()+" "+r.Message]++
	h.mu.Unlock()
	return h.Handler.Handle(ctx, r)
}

func (h countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return countingHandler{h.Handler.WithAttrs(as), h.mu, h.counts}
}

func (h countingHandler) WithGroup(g string) slog.Handler {
	return countingHandler{h.Handler.WithGroup(g), h.mu, h.counts}
}

// strayLinesScript is a stdio server that writes what real servers write on
// stdout besides MCP: a banner before anything else, an empty object, a
// JSON log line, a bare word, an empty batch, null. Between them it answers
// initialize, tools/call 1 with a result, tools/call 2 with an answer that
// lacks "jsonrpc" (not a JSON-RPC message either), and ping 3.
const strayLinesScript = `
echo 'Server listening on port 3000'
echo '{}'
read -r line
echo '[]'
echo 'null'
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"chatty","version":"1"}}}'
read -r line
read -r line
echo 'DEBUG handling tools/call'
printf '%s\n' '{"level":30,"time":1764460000000,"msg":"calling read"}'
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"read ok"}]}}'
read -r line
printf '%s\n' '{"id":2,"result":{"content":[{"type":"text","text":"no version tag"}]}}'
read -r line
echo 42
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{}}'
read -r line
`

// TestUpstreamStrayLinesAreSkipped: lines on the upstream's stdout that are
// not JSON-RPC messages are skipped, as the TypeScript SDK's stdio client
// does (it reports them to onerror and reads on), and the session goes on;
// the proxy says so once at warn and then at debug. An answer to a pending
// call that is not a JSON-RPC message fails that call alone, at once,
// rather than leave the client waiting.
func TestUpstreamStrayLinesAreSkipped(t *testing.T) {
	t.Parallel()
	logger, count := newCountingLogger(t)
	p, err := mcpproxy.New(mcpproxy.Config{Classifier: refusingClassifier{t}, Budget: 10 * time.Second, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	client := stdioClient(t, p, "sh", "-c", strayLinesScript)
	sendInit(t, client)

	client.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read"}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "1" || got.Error != nil || !strings.Contains(string(got.Result), "read ok") {
		t.Fatalf("call 1: %s %+v %s, want its result", got.ID, got.Error, got.Result)
	}
	client.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read"}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "2" || got.Error == nil || got.Error.Code != jsonrpc.CodeInternalError ||
		!strings.Contains(got.Error.Message, "not a valid JSON-RPC message") {
		t.Fatalf("call 2: %s %+v %s, want an internal error saying the answer was not JSON-RPC", got.ID, got.Error, got.Result)
	}
	client.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "3" || got.Error != nil {
		t.Fatalf("ping 3: %s %+v, want its answer", got.ID, got.Error)
	}
	const skipped = "toolfailure proxy: skipped a line from the upstream MCP server"
	if n := count(slog.LevelWarn, skipped); n != 1 {
		t.Errorf("%d warnings about skipped lines, want 1 (then debug)", n)
	}
	if n := count(slog.LevelDebug, skipped); n < 6 {
		t.Errorf("%d debug lines about skipped lines, want one for each of the other stray lines", n)
	}
}

// echoScript is a stdio server that answers every request it reads with
// {"echo":true} under the request's ID, copied as text: whatever ID the
// proxy writes, the answer carries back.
const echoScript = `
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([^,]*\),"method".*/\1/p')
  [ -n "$id" ] && printf '{"jsonrpc":"2.0","id":%s,"result":{"echo":true}}\n' "$id"
done
`

// TestClientMalformedLinesAreAnswered: a line from the client that is not
// JSON is answered with -32700 and id null, a JSON value that is not a valid
// request with -32600 and its id when one can be read, as JSON-RPC 2.0 asks;
// a batch answers each bad element; the proxy keeps serving.
func TestClientMalformedLinesAreAnswered(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client := stdioClient(t, p, "sh", "-c", echoScript)
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "0" || got.Error != nil {
		t.Fatalf("initialize: %s %+v", got.ID, got.Error)
	}
	for _, tc := range []struct {
		line string
		code int64
		id   string
	}{
		{`{not json`, jsonrpc.CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":"s","method":"ping"`, jsonrpc.CodeParseError, "null"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{"id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7"},
		{`{"jsonrpc":"1.0","id":"v1","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"v1"`},
		{`{"jsonrpc":"2.0","id":8,"method":5}`, jsonrpc.CodeInvalidRequest, "8"},
		{`{"jsonrpc":"2.0"}`, jsonrpc.CodeInvalidRequest, "null"},
		{`{}`, jsonrpc.CodeInvalidRequest, "null"},
		{`42`, jsonrpc.CodeInvalidRequest, "null"},
		{`"ping"`, jsonrpc.CodeInvalidRequest, "null"},
		{`null`, jsonrpc.CodeInvalidRequest, "null"},
		{`[]`, jsonrpc.CodeInvalidRequest, "null"},
	} {
		client.send(tc.line)
		got := decode(t, client.recv(10*time.Second))
		if got.Error == nil || got.Error.Code != tc.code || string(got.ID) != tc.id {
			t.Errorf("%s: answered id %s %+v %s, want id %s and code %d", tc.line, got.ID, got.Error, got.Result, tc.id, tc.code)
		}
	}
	// A batch with one bad element: the element gets its error, the good
	// request goes through.
	client.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"},5]`)
	answers := map[string]message{}
	for range 2 {
		got := decode(t, client.recv(10*time.Second))
		answers[string(got.ID)] = got
	}
	if a := answers["10"]; a.Error != nil || string(a.Result) != `{"echo":true}` {
		t.Errorf("the good request of the batch: %+v %s", a.Error, a.Result)
	}
	if a := answers["null"]; a.Error == nil || a.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("the bad element of the batch: %+v", a.Error)
	}
	// Still serving.
	client.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "11" || got.Error != nil {
		t.Fatalf("after the malformed lines: %s %+v, want the answer to 11", got.ID, got.Error)
	}
}

// TestIDsRelayedUnchanged: an ID reaches the other side, and its answer
// comes back, exactly as the sender wrote it, although the SDK's ID type
// holds only an int64 or a string: integers past 2^53 and past int64,
// fractions, exponents, -0, and strings with escapes. An answer is matched
// to its call by value, so an upstream that writes 1.5 for 1.50 still
// answers the call, and the client gets its own 1.50 back; a failed tool
// result under such an ID is still annotated.
func TestIDsRelayedUnchanged(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream := linePipes(t, p)
	handshakeIDs(t, client, upstream)

	ids := []string{
		"9007199254740993", "18446744073709551615", "-9223372036854775809", "1.5", "-0", "1e3", "1.0",
		`"caf\u00e9"`, `"\ud800"`, `"a\/b"`, "9223372036854775807", "-9223372036854775808",
	}
	for _, id := range ids {
		client.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		fwd := decode(t, upstream.recv(5*time.Second))
		if string(fwd.ID) != id {
			t.Errorf("request id %s reached the upstream as %s", id, fwd.ID)
		}
		upstream.send(`{"jsonrpc":"2.0","id":` + string(fwd.ID) + `,"result":{}}`)
		if got := decode(t, client.recv(5*time.Second)); string(got.ID) != id {
			t.Errorf("answer to id %s reached the client as %s", id, got.ID)
		}
	}

	// Matched by value: the upstream writes the ID its own way.
	client.send(`{"jsonrpc":"2.0","id":1.50,"method":"tools/call","params":{"name":"t"}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":1.5,"result":{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}}`)
	got := decode(t, client.recv(10*time.Second))
	if string(got.ID) != "1.50" {
		t.Errorf("the failed result reached the client under id %s, want 1.50", got.ID)
	}
	toolFailure(t, got.Result)

	// The other way: a request from the upstream and the client's answer.
	upstream.send(`{"jsonrpc":"2.0","id":18446744073709551615,"method":"roots/list"}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.ID) != "18446744073709551615" {
		t.Errorf("the upstream's request reached the client as id %s", got.ID)
	}
	client.send(`{"jsonrpc":"2.0","id":18446744073709551615,"result":{"roots":[]}}`)
	if got := decode(t, upstream.recv(5*time.Second)); string(got.ID) != "18446744073709551615" {
		t.Errorf("the client's answer reached the upstream as id %s", got.ID)
	}
}

// handshakeIDs runs initialize through line pipes.
func handshakeIDs(t *testing.T, client, upstream *rawPeer) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw-upstream","version":"1"}}}`)
	client.recv(5 * time.Second)
	client.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	upstream.recv(5 * time.Second)
	client.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":"list","result":{"tools":[{"name":"t","inputSchema":{"type":"object"}},{"name":"send","inputSchema":{"type":"object"}}]}}`)
	client.recv(5 * time.Second)
}

// nested returns a JSON object nested depth levels deep around inner.
func nested(depth int, inner string) string {
	return strings.Repeat(`{"next":`, depth) + inner + strings.Repeat("}", depth)
}

// TestOversizedFailureStillGetsTheKey: a failed result whose
// structuredContent the service would refuse (nested deeper than 32 levels,
// deeper than Go's decoder goes, larger than 256 KiB) or whose tool name is
// longer than the service takes still goes out with the toolFailure key: the
// proxy sends the service a summary (deep parts and long lists cut, with a
// note) that keeps what the classification reads, and a tool name it
// accepts.
func TestOversizedFailureStillGetsTheKey(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream := linePipes(t, p)
	handshakeIDs(t, client, upstream)

	confirm := `"reason_code":"explicit_production_confirmation_required","execution":{"status":"awaiting_confirmation"}`
	lost := false
	rows := strings.TrimSuffix(strings.Repeat(`{"row":"`+strings.Repeat("x", 200)+`"},`, 1500), ",")
	for i, tc := range []struct {
		name, tool, structured string
		// wantClass is what the summary must still let the service decide.
		wantClass string
	}{
		{"40 levels", "send", `{` + confirm + `,"trace":` + nested(40, `"bottom"`) + `}`, "governance"},
		{"300 KiB", "send", `{` + confirm + `,"rows":[` + rows + `]}`, "governance"},
		{"300 KiB first", "send", `{"rows":[` + rows + `],` + confirm + `}`, "governance"},
		{"long tool name", strings.Repeat("t", 300), `{` + confirm + `}`, "governance"},
		{"20000 levels", "send", `{` + confirm + `,"trace":` + nested(20000, `"bottom"`) + `}`, "governance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if lost {
				t.Skip("an earlier answer never came: the client's pipe is out of step")
			}
			id := 100 + i
			idText, _ := json.Marshal(id)
			client.send(`{"jsonrpc":"2.0","id":` + string(idText) + `,"method":"tools/call","params":{"name":"` + tc.tool + `"}}`)
			upstream.recv(5 * time.Second)
			result := `{"content":[{"type":"text","text":"the request could not be completed"}],"structuredContent":` + tc.structured + `,"isError":true}`
			upstream.send(`{"jsonrpc":"2.0","id":` + string(idText) + `,"result":` + result + `}`)
			// Read by its bytes: past encoding/json's depth limit, the
			// answer cannot be decoded whole.
			line, err := client.recvErr(30 * time.Second)
			if err != nil {
				lost = true
				t.Fatalf("%s: no answer: %v", tc.name, err)
			}
			if prefix := `{"jsonrpc":"2.0","id":` + string(idText) + `,"result":{"content":`; !strings.HasPrefix(line, prefix) {
				t.Fatalf("%s: answer %.200s, want the result of %s", tc.name, line, idText)
			}
			at := strings.LastIndex(line, `,"_meta":`)
			if at < 0 || !strings.HasSuffix(line, "}}") {
				t.Fatalf("%s: the failed result went out without _meta", tc.name)
			}
			meta := line[at+len(`,"_meta":`) : len(line)-2]
			tf := toolFailure(t, []byte(`{"_meta":`+meta+`}`))
			if tf["class"] != tc.wantClass {
				t.Errorf("%s: class %v, want %s (the summary lost what decides it): %v", tc.name, tf["class"], tc.wantClass, tf)
			}
			rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
			if err != nil {
				t.Fatalf("%s: GetFailure: %v", tc.name, err)
			}
			if !strings.Contains(rec.GetFailure().GetError().GetMessage(), "could not be completed") {
				t.Errorf("%s: record message %q", tc.name, rec.GetFailure().GetError().GetMessage())
			}
		})
	}
}
