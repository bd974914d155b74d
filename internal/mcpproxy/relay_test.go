package mcpproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// These tests drive the proxy with raw JSON-RPC lines on both sides, so that
// they can check bytes, not just what an SDK makes of them.

func compact(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatalf("compact %s: %v", s, err)
	}
	return buf.String()
}

// TestSuccessPassesThroughByteForByte sends results and notifications whose
// bytes an encoder would change (key order, escapes, number forms, HTML
// characters) and checks that the client gets them exactly, apart from the
// insignificant whitespace that newline-delimited framing removes.
func TestSuccessPassesThroughByteForByte(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	result := `{ "zeta":1, "content":[{"type":"text","text":"caf\u00e9 <b>&amp;</b> \"q\" \ud83d\ude00"}],
		"structuredContent":{"n":1.50,"big":123456789012345678901234567890,"exp":1e3,"neg":-0.0},
		"_meta":{"com.example/b":true,"com.example/a":[3,2,1]}, "isError": false, "vendorField":{"x":null} }`
	client.send(`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"odd","arguments":{"k":"v"}}}`)
	fwd := decode(t, upstream.recv(5*time.Second))
	if fwd.Method != "tools/call" || string(fwd.ID) != `"call-1"` {
		t.Fatalf("upstream got %s %s, want tools/call \"call-1\"", fwd.Method, fwd.ID)
	}
	if got, want := string(fwd.Params), `{"name":"odd","arguments":{"k":"v"}}`; got != want {
		t.Errorf("params reached the upstream as %s, want %s", got, want)
	}
	upstream.send(`{"jsonrpc":"2.0","id":"call-1","result":` + strings.ReplaceAll(result, "\n", " ") + `}`)
	got := decode(t, client.recv(5*time.Second))
	if string(got.Result) != compact(t, result) {
		t.Errorf("result changed on the way:\n got %s\nwant %s", got.Result, compact(t, result))
	}

	// A notification from the upstream, and one from the client.
	note := `{"progressToken":"p\u00e9","progress":0.5,"total":1,"message":"<half>"}`
	upstream.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":` + note + `}`)
	if got := decode(t, client.recv(5*time.Second)); got.Method != "notifications/progress" || string(got.Params) != note {
		t.Errorf("progress notification changed: %s %s", got.Method, got.Params)
	}
	client.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"x":"\u00e9"}}}`)
	if got := decode(t, upstream.recv(5*time.Second)); string(got.Params) != `{"_meta":{"x":"\u00e9"}}` {
		t.Errorf("client notification changed: %s", got.Params)
	}

	// A request from the upstream to the client and its answer, IDs untouched.
	upstream.send(`{"jsonrpc":"2.0","id":77,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[]}}`)
	if got := decode(t, client.recv(5*time.Second)); got.Method != "sampling/createMessage" || string(got.ID) != "77" {
		t.Errorf("server request arrived as %s %s", got.Method, got.ID)
	}
	client.send(`{"jsonrpc":"2.0","id":77,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`)
	if got := decode(t, upstream.recv(5*time.Second)); string(got.ID) != "77" || string(got.Result) != `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}` {
		t.Errorf("client answer arrived as %s %s", got.ID, got.Result)
	}
}

// TestFailedResultGetsTheKey checks that a failed result gains the key and
// loses nothing: every other member of the result and of its _meta keeps its
// bytes and place, the result conforms, and the ID can be looked up.
func TestFailedResultGetsTheKey(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	listTools(t, client, upstream, `[{"name":"send","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}]`)

	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	client.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send","arguments":{},"_meta":{"traceparent":"` + tp + `"}}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"upstream returned HTTP 503 Service Unavailable; Retry-After: 3"}],` +
		`"structuredContent":{"status":503,"note":"<x>"},"isError":true,"_meta":{"com.example/z":{"deep":[1,2.50]},"com.example/a":"\u00e9"}}}`)
	got := decode(t, client.recv(10*time.Second))

	members := orderedKeys(t, got.Result)
	if want := []string{"content", "structuredContent", "isError", "_meta"}; strings.Join(members, ",") != strings.Join(want, ",") {
		t.Errorf("result members %v, want %v (order kept)", members, want)
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(got.Result, &res)
	if string(res["structuredContent"]) != `{"status":503,"note":"<x>"}` {
		t.Errorf("structuredContent changed: %s", res["structuredContent"])
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(res["_meta"], &meta)
	if string(meta["com.example/z"]) != `{"deep":[1,2.50]}` || string(meta["com.example/a"]) != `"\u00e9"` {
		t.Errorf("other _meta keys changed: %s", res["_meta"])
	}
	if keys := orderedKeys(t, res["_meta"]); strings.Join(keys, ",") != "com.example/z,com.example/a,"+mcpfailure.MetaKey {
		t.Errorf("_meta keys %v: the key goes after the server's own", keys)
	}
	checkConforms(t, "failed result", got.Result)
	tf := toolFailure(t, got.Result)
	if tf["class"] != "reliability" || tf["retryable"] != true {
		t.Errorf("a 503 of an idempotent tool: got %v", tf)
	}

	rec, err := svc.failures().GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: tf["correlationId"].(string)})
	if err != nil {
		t.Fatalf("GetFailure: %v", err)
	}
	f := rec.GetFailure()
	if f.GetTool() != "send" || f.GetServer() != "raw-upstream" || f.GetTraceId() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("record: tool %q server %q trace %q", f.GetTool(), f.GetServer(), f.GetTraceId())
	}
	if !strings.Contains(f.GetError().GetMessage(), "503") {
		t.Errorf("record error message %q", f.GetError().GetMessage())
	}
}

// listTools relays a client's tools/list and the upstream's answer.
func listTools(t *testing.T, client, upstream *rawPeer, tools string) {
	t.Helper()
	client.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":"list","result":{"tools":` + tools + `}}`)
	client.recv(5 * time.Second)
}

func orderedKeys(t *testing.T, obj json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestAlreadyTaggedIsUntouched: a server that classified its own failure
// keeps its correlation ID; the proxy does not call the service.
func TestAlreadyTaggedIsUntouched(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")
	result := `{"content":[{"type":"text","text":"busy"}],"isError":true,"_meta":{"io.modelcontextprotocol/toolFailure":{"class":"reliability","code":"retryable_transient_error","retryable":true,"retryNotBefore":1764460030000,"correlationId":"tf_SERVERS_OWN"}}}`
	client.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":5,"result":` + result + `}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.Result) != result {
		t.Errorf("tagged result changed:\n got %s\nwant %s", got.Result, result)
	}
}

// refusingClassifier fails the test when called.
type refusingClassifier struct{ t *testing.T }

func (r refusingClassifier) Classify(context.Context, *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	r.t.Error("the service was called")
	return nil, errors.New("refused")
}

// TestServiceDownStillRelays: with a service that never answers, a failed
// result goes out unchanged once the budget is spent, and the session goes
// on; other messages are not held up behind the waiting failure.
func TestServiceDownStillRelays(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) }) // runs first: lets the handlers return
	const budget = 300 * time.Millisecond
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, hang.URL, "tfk_unused"), budget)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")
	listTools(t, client, upstream, `[{"name":"t","inputSchema":{"type":"object"}}]`)

	failed := `{"content":[{"type":"text","text":"boom"}],"isError":true}`
	client.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
	client.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	upstream.recv(5 * time.Second)
	upstream.recv(5 * time.Second)
	start := time.Now()
	upstream.send(`{"jsonrpc":"2.0","id":1,"result":` + failed + `}`)
	upstream.send(`{"jsonrpc":"2.0","id":2,"result":{}}`)

	first := decode(t, client.recv(5*time.Second))
	if string(first.ID) != "2" {
		t.Errorf("first answer is %s: the ping waited behind the failure", first.ID)
	}
	second := decode(t, client.recv(5*time.Second))
	elapsed := time.Since(start)
	if string(second.ID) != "1" || string(second.Result) != failed {
		t.Errorf("failed result: %s %s, want it unchanged", second.ID, second.Result)
	}
	if elapsed < budget-50*time.Millisecond || elapsed > budget+2*time.Second {
		t.Errorf("the failed result took %v; the budget is %v", elapsed, budget)
	}
}

// TestAnnotationsFromOwnToolsList: a client that calls a tool without
// listing tools first; the proxy asks the upstream itself, and its request's
// answer never reaches the client.
func TestAnnotationsFromOwnToolsList(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	client.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get"}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}}`)

	// Page 1 of the proxy's own listing.
	own := decode(t, upstream.recv(5*time.Second))
	if own.Method != "tools/list" || !strings.HasPrefix(string(own.ID), `"toolfailure-proxy-`) {
		t.Fatalf("upstream got %s %s, want the proxy's own tools/list", own.Method, own.ID)
	}
	upstream.send(`{"jsonrpc":"2.0","id":` + string(own.ID) + `,"result":{"tools":[{"name":"other","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}`)
	own2 := decode(t, upstream.recv(5*time.Second))
	if own2.Method != "tools/list" || !strings.Contains(string(own2.Params), `"cursor":"p2"`) {
		t.Fatalf("upstream got %s %s, want page 2", own2.Method, own2.Params)
	}
	upstream.send(`{"jsonrpc":"2.0","id":` + string(own2.ID) + `,"result":{"tools":[{"name":"get","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true,"readOnlyHint":true}}]}}`)

	got := decode(t, client.recv(10*time.Second))
	if string(got.ID) != "9" {
		t.Fatalf("client got %s (%s %s): the proxy's own answer leaked", got.ID, got.Method, got.Result)
	}
	tf := toolFailure(t, got.Result)
	if tf["retryable"] != true {
		t.Errorf("idempotent tool from the proxy's own listing should be retryable: %v", tf)
	}

	// Known now: a second failure needs no listing.
	client.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"get"}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}}`)
	if got := decode(t, client.recv(10*time.Second)); string(got.ID) != "10" {
		t.Fatalf("client got %s %s", got.ID, got.Method)
	}
}

// TestProtocolErrorPassedOnAndRecorded: a JSON-RPC error answer to a tool
// call is recorded, and reaches the client with error.data.correlationId
// added and every other byte as it came: code, message and the upstream's
// data members in their order. The record is durable before the answer
// goes out, so the ID can be looked up at once.
func TestProtocolErrorPassedOnAndRecorded(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")
	listTools(t, client, upstream, `[{"name":"limited","inputSchema":{"type":"object"}},{"name":"broken","inputSchema":{"type":"object"}},{"name":"opaque","inputSchema":{"type":"object"}}]`)

	for i, c := range []struct {
		tool, answer, want string // want: the answer, or its start up to the added ID
		code               int32
	}{
		{"limited", `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"rate limited","data":{"code":"rate_limited","retryAfter":30}}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"rate limited","data":{"code":"rate_limited","retryAfter":30,"correlationId":"`, -32001},
		{"broken", `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error: database connection reset"}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error: database connection reset","data":{"correlationId":"`, -32603},
		// Data that is not an object cannot carry the ID without changing
		// what the upstream said: it goes out as it came.
		{"opaque", `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"boom","data":"stack trace here"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"boom","data":"stack trace here"}}`, -32603},
	} {
		client.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i+3, c.tool))
		upstream.recv(5 * time.Second)
		upstream.send(c.answer)
		got := client.recv(10 * time.Second)
		if !strings.HasPrefix(got, c.want) {
			t.Fatalf("%s: JSON-RPC error:\n got %s\nwant %s…", c.tool, got, c.want)
		}
		list, err := svc.failures().ListFailures(t.Context(), &toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: c.tool}})
		if err != nil {
			t.Fatalf("ListFailures: %v", err)
		}
		if len(list.GetFailures()) != 1 {
			t.Fatalf("%s: %d records, want 1", c.tool, len(list.GetFailures()))
		}
		f := list.GetFailures()[0]
		if f.GetError().GetJsonrpcCode() != c.code || f.GetServer() != "raw-upstream" {
			t.Errorf("%s: record: jsonrpcCode %d server %q", c.tool, f.GetError().GetJsonrpcCode(), f.GetServer())
		}
		if got == c.want {
			continue // unchanged: nothing more to check
		}
		var resp struct {
			Error struct {
				Data map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &resp); err != nil {
			t.Fatalf("%s: %v: %s", c.tool, err, got)
		}
		if id := resp.Error.Data["correlationId"]; id != f.GetCorrelationId() {
			t.Errorf("%s: error.data.correlationId %v, want the record's %s", c.tool, id, f.GetCorrelationId())
		}
	}
}

// TestUpstreamGoneAnswersPendingCalls: when the upstream goes away with a
// call in flight, the client gets a JSON-RPC error for it at once, and Relay
// reports the upstream, not a hang.
func TestUpstreamGoneAnswersPendingCalls(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, done := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	client.send(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"slow"}}`)
	client.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"slow"}}`)
	upstream.recv(5 * time.Second)
	upstream.recv(5 * time.Second)
	_ = upstream.w.Close() // the upstream's output ends: it exited

	ids := map[string]bool{}
	for range 2 {
		got := decode(t, client.recv(5*time.Second))
		if got.Error == nil || got.Error.Code != mcpproxy.CodeConnectionClosed || !strings.Contains(got.Error.Message, "closed the connection") {
			t.Fatalf("answer %s: want a connection-closed error, got %+v %s", got.ID, got.Error, got.Result)
		}
		ids[string(got.ID)] = true
	}
	if !ids[`"a"`] || !ids[`"b"`] {
		t.Errorf("answered %v, want both calls", ids)
	}
	select {
	case err := <-done:
		if !errors.Is(err, mcpproxy.ErrUpstreamClosed) {
			t.Errorf("Relay returned %v, want ErrUpstreamClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Relay did not return after the upstream went away")
	}
	if _, err := client.recvErr(5 * time.Second); err == nil {
		t.Error("the client connection stayed open after the upstream went away")
	}
}

// TestClientEndWaitsForAnswers: a client that closes its input right after
// its last request still gets the answer.
func TestClientEndWaitsForAnswers(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, done := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	client.send(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///x"}}`)
	_ = client.w.Close()
	upstream.recv(5 * time.Second)
	time.Sleep(100 * time.Millisecond)
	upstream.send(`{"jsonrpc":"2.0","id":4,"result":{"contents":[]}}`)
	if got := decode(t, client.recv(5*time.Second)); string(got.ID) != "4" {
		t.Errorf("got %s, want the answer to 4", got.ID)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Relay: %v, want nil after the client ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Relay did not return after the client ended")
	}
}
