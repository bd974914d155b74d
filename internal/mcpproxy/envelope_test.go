package mcpproxy_test

import (
	"testing"
	"time"
)

// TestWhatIsKept pins down what docs/proxy.md promises about bytes: params and
// result keep their bytes and order (only the whitespace between tokens
// goes), an error is written code, message, data; the envelope is written
// anew in JSON-RPC's order, without members JSON-RPC does not define, IDs
// keeping their value and type.
func TestWhatIsKept(t *testing.T) {
	t.Parallel()
	p := newProxy(t, refusingClassifier{t}, 0)
	client, upstream, _ := relay(t, p)
	handshake(t, client, upstream, "raw-upstream")

	for _, tc := range []struct{ sent, want string }{
		{
			`{"result": { "z" : 1, "a" : [ 1.50, "\u00e9" ] }, "id": "x", "jsonrpc": "2.0", "vendor": true}`,
			`{"jsonrpc":"2.0","id":"x","result":{"z":1,"a":[1.50,"\u00e9"]}}`,
		},
		{
			`{"id": 7, "jsonrpc": "2.0", "error": {"message": "nope", "code": -32601}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope"}}`,
		},
	} {
		id := `"x"`
		if tc.want[18] == '7' {
			id = `7`
		}
		client.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"file:///x"}}`)
		upstream.recv(5 * time.Second)
		upstream.send(tc.sent)
		if got := client.recv(5 * time.Second); got != tc.want {
			t.Errorf("sent %s\n got %s\nwant %s", tc.sent, got, tc.want)
		}
	}
}
