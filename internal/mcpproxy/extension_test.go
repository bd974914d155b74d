package mcpproxy_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// The proxy advertises the extension in the upstream's capabilities, under
// the key's configured name, wherever the negotiated version carries them
// (initialize before 2026-07-28, server/discover from it on), keeping the
// upstream's own extensions; failures carry the key under the same name.
func TestProxyAdvertisesTheExtension(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	for _, key := range []string{mcpfailure.MetaKey, "com.example/toolFailure"} {
		p := newProxyConfig(t, mcpproxy.Config{Classifier: mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), MetaKey: key})
		for _, transport := range transports {
			t.Run(strings.NewReplacer("/", "-", "@", "-").Replace(key+" "+transport), func(t *testing.T) {
				u := newUpstreamServer(t)
				cs := setupSession(t, p, u, transport, nil)
				ext := cs.InitializeResult().Capabilities.Extensions
				if v, ok := ext[key].(map[string]any); !ok || v["version"] != mcpfailure.ExtensionVersion {
					t.Errorf("protocol %s: capabilities.extensions = %v, want %s with version %s", cs.InitializeResult().ProtocolVersion, ext, key, mcpfailure.ExtensionVersion)
				}
				if v, ok := ext["io.example/upstream"].(map[string]any); !ok || v["on"] != true {
					t.Errorf("the upstream's own extension is gone: %v", ext)
				}
				if cs.InitializeResult().Capabilities.Logging == nil || cs.InitializeResult().Capabilities.Tools == nil {
					t.Errorf("the upstream's capabilities are gone: %+v", cs.InitializeResult().Capabilities)
				}
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "unavailable"})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := res.Meta[key].(map[string]any); !ok {
					t.Errorf("_meta = %v, want the object under %s", res.Meta, key)
				}
				if key != mcpfailure.MetaKey && res.Meta[mcpfailure.MetaKey] != nil {
					t.Errorf("the proposal's name appears beside the configured one: %v", res.Meta)
				}
			})
		}
	}
}

// The raw forms: the extension is spliced into the upstream's bytes, every
// other member kept in its place; a discover result on 2026-07-28 that the
// proxy rewrites carries resultType; an upstream that advertises the key
// itself is left exactly as it is.
func TestExtensionSplicedIntoTheUpstreamsBytes(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, _ := relay(t, p)
	ext := `{"version":"` + mcpfailure.ExtensionVersion + `"}`

	client.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"extensions":{"io.example/x":{"a":1}}},"serverInfo":{"name":"s","version":"1"},"instructions":"hi"}}`)
	want := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"extensions":{"io.example/x":{"a":1},"io.modelcontextprotocol/toolFailure":` + ext + `}},"serverInfo":{"name":"s","version":"1"},"instructions":"hi"}}`
	if got := client.recv(5 * time.Second); got != want {
		t.Errorf("initialize:\n got %s\nwant %s", got, want)
	}

	client.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	upstream.recv(5 * time.Second)
	upstream.send(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`)
	want = `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/toolFailure":` + ext + `}},"resultType":"complete"}}`
	if got := client.recv(5 * time.Second); got != want {
		t.Errorf("server/discover:\n got %s\nwant %s", got, want)
	}

	client.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	upstream.recv(5 * time.Second)
	own := `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","capabilities":{"extensions":{"io.modelcontextprotocol/toolFailure":{"version":"vendor-1"}}}}}`
	upstream.send(own)
	if got := client.recv(5 * time.Second); got != own {
		t.Errorf("an upstream that advertises the key itself:\n got %s\nwant %s", got, own)
	}
}

// A failed result the proxy annotates carries resultType when the call was
// made under 2026-07-28 (its _meta names the version), whatever the
// upstream wrote; under an earlier version it is written as before.
func TestAnnotatedResultCarriesResultTypeWhereTheVersionNeedsIt(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")
	listTools(t, client, upstream, `[{"name":"get","inputSchema":{"type":"object"}}]`)
	for i, c := range []struct {
		meta string
		want bool
	}{{``, false}, {`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, true}} {
		id := string(rune('5' + i))
		client.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"get"` + c.meta + `}}`)
		upstream.recv(5 * time.Second)
		upstream.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"503 Service Unavailable"}],"isError":true}}`)
		got := decode(t, client.recv(10*time.Second))
		toolFailure(t, got.Result)
		var r struct {
			ResultType *string `json:"resultType"`
		}
		if err := json.Unmarshal(got.Result, &r); err != nil {
			t.Fatal(err)
		}
		if has := r.ResultType != nil && *r.ResultType == "complete"; has != c.want {
			t.Errorf("params%s: resultType present %v, want %v: %s", c.meta, has, c.want, got.Result)
		}
	}
}

// Over HTTP the proxy takes the tool's name from the Mcp-Name header
// (2026-07-28) when the client sends it, rather than from the body. A
// client that breaks the rule that the two agree shows which one is read:
// the failure is recorded under the header's name.
func TestMcpNameHeaderNamesTheTool(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	p := newProxy(t, mcpfailure.NewClassifierClient(nil, svc.url, svc.reportKey), 0)
	u := newUpstreamServer(t)
	url, _ := listenOn(t, p, func() *mcp.Server { return u.Server }, nil)

	post := func(sid, body string, header map[string]string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("no session: %s", resp.Status)
	}
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	for _, c := range []struct{ header, recorded string }{
		{"inventory.lookup", "inventory.lookup"},
		{"=?base64?bGFnZXItc8O4Zw==?=", "lager-søg"}, // not ASCII: encoded as the specification asks
	} {
		_, body := post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"unavailable"}}`,
			map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": c.header})
		if !bytes.Contains([]byte(body), []byte(mcpfailure.MetaKey)) {
			t.Fatalf("Mcp-Name %s: the failure was not annotated: %s", c.header, body)
		}
		list, err := svc.failures().ListFailures(t.Context(), &toolfailurev1.ListFailuresRequest{Filter: &toolfailurev1.FailureFilter{Tool: c.recorded}})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.GetFailures()) != 1 {
			t.Errorf("Mcp-Name %s: %d records of tool %q, want 1", c.header, len(list.GetFailures()), c.recorded)
		}
	}
}
