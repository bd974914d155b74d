package mcpproxy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2.50]}}}`,
	`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"ok"}]}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":7,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"x"}`,
	`{"jsonrpc":"2.0","method":null}`,
	`{"jsonrpc":"2.0","method":""}`,
	`{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":null,"id":1,"result":{}}`,
	`{"JSONRPC":"2.0","ID":1,"Method":"x"}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"jsonrpc":"2.0"}`,
	` { "result" : { "z" : 1 } , "id" : "x" , "jsonrpc" : "2.0" , "vendor" : true } `,
	`[]`, `null`, `"x"`, `{`, ``,
}

// TestDecodeMessageAsSDK: the proxy's decoder yields what the SDK's does,
// and refuses what it refuses.
func TestDecodeMessageAsSDK(t *testing.T) {
	t.Parallel()
	for _, s := range messageSeeds {
		checkDecodesAsSDK(t, []byte(s))
	}
}

// FuzzDecodeMessage: for any input, the proxy's decoder agrees with the
// SDK's.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodesAsSDK(t, data)
	})
}

func checkDecodesAsSDK(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(data)
	got, gotErr := decodeMessage(data)
	if (wantErr == nil) != (gotErr == nil) {
		// The two JSON parsers disagree on a few malformed inputs (invalid
		// UTF-8, nesting beyond the SDK's limit); neither yields a message
		// then that the other would decode differently.
		if wantErr != nil && !json.Valid(data) {
			return
		}
		if wantErr != nil && bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) > 1000 {
			return
		}
		t.Fatalf("%q: SDK error %v, proxy error %v", data, wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(normalize(want), normalize(got)) {
		t.Fatalf("%q:\n SDK   %#v\n proxy %#v", data, want, got)
	}
}

// normalize makes messages comparable: RawMessages by their bytes, errors
// by their fields.
func normalize(m jsonrpc.Message) any {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return [3]any{m.ID, m.Method, string(m.Params)}
	case *jsonrpc.Response:
		var e any
		if m.Error != nil {
			we := m.Error.(*jsonrpc.Error)
			e = [3]any{we.Code, we.Message, string(we.Data)}
		}
		return [3]any{m.ID, string(m.Result), e}
	}
	return m
}

func TestIsErrorResult(t *testing.T) {
	t.Parallel()
	for result, want := range map[string]bool{
		`{"content":[],"isError":true}`:                  true,
		`{"content":[], "isError" : true }`:              true,
		`{"is\u0045rror":true}`:                          true,
		`{"isError":false}`:                              false,
		`{"content":[{"type":"text","text":"isError"}]}`: false,
		`{"IsError":true}`:                               false,
		`{"content":[{"type":"text","text":"\u00e9"}]}`:  false,
		`{"structuredContent":{"isError":true}}`:         false,
		`not json "isError":true`:                        false,
		`{"content":[]}`:                                 false,
	} {
		if got := isErrorResult(json.RawMessage(result)); got != want {
			t.Errorf("isErrorResult(%s) = %v, want %v", result, got, want)
		}
	}
}

// BenchmarkDecodeMessage compares the SDK's decoder with the proxy's on a
// typical tools/call answer.
func BenchmarkDecodeMessage(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"fine"}],"structuredContent":{"rows":[1,2,3]}}}`)
	for name, decode := range map[string]func([]byte) (jsonrpc.Message, error){"sdk": jsonrpc.DecodeMessage, "proxy": decodeMessage} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
