package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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
	`{"jsonrpc":"2.0","\u0069d":3,"method":"x","params":{"a":"}{]["}}`,
	`{"jsonrpc":"2.0","id":-0,"method":"t\u00e9st","params":[ 1 , {"\"":"\\"} ]}`,
	`{"jsonrpc":"2.0","id":1e400,"result":{}}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	`{"jsonrpc":"2.0","id":"\ud83d\ude00","result":"<&>\u2028"}`,
	`{"jsonrpc":"2.0","id":"x","method":"a","method":"b","params":null}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	"\t{\"jsonrpc\" :\n\"2.0\", \"id\" : [1], \"result\":{}}\n",
	`{"jsonrpc":"2.0","id":{},"result":{}}`,
	`{"jsonrpc":2,"id":1,"result":{}}`,
	`[]`, `null`, `"x"`, `{`, ``, ` `,
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
	if wantErr != nil && gotErr == nil && sdkID(messageID(got)) == nil {
		// An ID that is a number past float64 (1e400): the SDK refuses
		// the message, the proxy keeps the ID as it was written.
		return
	}
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
// by their fields, IDs by what the SDK's decoder makes of them (the proxy
// keeps them as they were written: see id.go).
func normalize(m jsonrpc.Message) any {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return [3]any{sdkID(m.ID), m.Method, string(m.Params)}
	case *jsonrpc.Response:
		var e any
		if m.Error != nil {
			we := m.Error.(*jsonrpc.Error)
			e = [3]any{we.Code, we.Message, string(we.Data)}
		}
		return [3]any{sdkID(m.ID), string(m.Result), e}
	}
	return m
}

func messageID(m jsonrpc.Message) jsonrpc.ID {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return m.ID
	case *jsonrpc.Response:
		return m.ID
	}
	return jsonrpc.ID{}
}

// sdkID is the ID the SDK's decoder makes of the ID as written: an int64 by
// way of a float64, a string unescaped; nil for a number past float64.
func sdkID(id jsonrpc.ID) any {
	text, ok := rawIDText(id)
	if !ok {
		return id
	}
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return nil
	}
	sdk, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil
	}
	return sdk
}

// TestIDsKeepTheirText: an ID is written out exactly as it was read, in a
// message and in an error answer, and IDs of one value have one key.
func TestIDsKeepTheirText(t *testing.T) {
	t.Parallel()
	keys := map[string][]string{}
	for _, id := range []string{
		`1`, `-1`, `0`, `-0`, `0.0`, `0e5`, `1.5`, `1.50`, `15e-1`, `1e3`, `1000`, `1E+3`, `10.00e2`,
		`9007199254740992`, `9007199254740993`, `9.007199254740993e15`, `9223372036854775807`, `-9223372036854775808`,
		`18446744073709551615`, `1e400`, `-1e-400`, `1e999999999999999999999`,
		`"a"`, `"\u0061"`, `"caf\u00e9"`, `"café"`, `"\ud800"`, `"a\/b"`, `"a/b"`, `"\u2028"`, `"<&>"`, `""`,
	} {
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		m, err := decodeMessage([]byte(line))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		out, err := encodeMessage(m)
		if err != nil || string(out) != line {
			t.Errorf("id %s: encoded as %s (%v)", id, out, err)
		}
		answer, err := encodeMessage(&jsonrpc.Response{ID: messageID(m), Error: &jsonrpc.Error{Code: -32000, Message: "x"}})
		if want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"x"}}`; err != nil || string(answer) != want {
			t.Errorf("id %s: error answer encoded as %s (%v), want %s", id, answer, err, want)
		}
		k := fmt.Sprintf("%#v", idKey(messageID(m)))
		keys[k] = append(keys[k], id)
	}
	for _, same := range [][]string{
		{`0`, `-0`, `0.0`, `0e5`}, {`1.5`, `1.50`, `15e-1`}, {`1e3`, `1000`, `1E+3`, `10.00e2`},
		{`9007199254740993`, `9.007199254740993e15`}, {`"a"`, `"\u0061"`}, {`"caf\u00e9"`, `"café"`}, {`"a\/b"`, `"a/b"`},
	} {
		k := fmt.Sprintf("%#v", idKey(mustID(t, same[0])))
		if got := keys[k]; !slices.Equal(got, same) {
			t.Errorf("key of %s is shared by %v, want %v", same[0], got, same)
		}
	}
	if answer, _ := encodeMessage(&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "Parse error"}}); string(answer) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("an error answer without an ID: %s, want id null", answer)
	}
	// A string ID that looks like one held as its text is itself kept as
	// its text, and written back the same.
	forged, _ := json.Marshal(rawIDPrefix + "1}")
	m, err := decodeMessage([]byte(`{"jsonrpc":"2.0","id":` + string(forged) + `,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := encodeMessage(m); !bytes.Contains(out, forged) {
		t.Errorf("a forged ID came out as %s", out)
	}
}

func mustID(t *testing.T, text string) jsonrpc.ID {
	t.Helper()
	id, err := decodeID([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return id
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

// BenchmarkDecodeMessage compares the SDK's decoder, a decoder into a map
// of members (what the proxy did before), and the proxy's on a typical
// tools/call answer.
func BenchmarkDecodeMessage(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"fine"}],"structuredContent":{"rows":[1,2,3]}}}`)
	for name, decode := range map[string]func([]byte) (jsonrpc.Message, error){"sdk": jsonrpc.DecodeMessage, "map": decodeViaMap, "proxy": decodeMessage} {
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

// decodeViaMap is the proxy's former decoder, into a map of members, for
// BenchmarkDecodeMessage.
func decodeViaMap(data []byte) (jsonrpc.Message, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	var version, method string
	var rawID any
	if err := json.Unmarshal(members["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, errInvalidRequest
	}
	if v, ok := members["id"]; ok {
		if err := json.Unmarshal(v, &rawID); err != nil {
			return nil, err
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if m, ok := members["method"]; ok {
		if err := json.Unmarshal(m, &method); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: members["params"]}, nil
	}
	return &jsonrpc.Response{ID: id, Result: members["result"]}, nil
}

// encodeSeeds are messages whose encoding could go wrong: IDs and methods
// that need escaping, bodies with whitespace, HTML characters, line
// separators, and an error answer.
func encodeSeeds(t testing.TB) []jsonrpc.Message {
	id := func(v any) jsonrpc.ID {
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	return []jsonrpc.Message{
		&jsonrpc.Request{ID: id(float64(1)), Method: "tools/call", Params: json.RawMessage("{ \"name\" : \"x\",\n\t\"arguments\": {\"q\": \"<a & b>\\u2028\u2028\"} }")},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Request{ID: id("a\"b\\c\u00e9\x01\u2028\xff"), Method: "m\té<"},
		&jsonrpc.Request{ID: id(float64(-7)), Method: ""},
		&jsonrpc.Response{ID: id(float64(9007199254740993)), Result: json.RawMessage(`{"content":[{"type":"text","text":"fine"}]}`)},
		&jsonrpc.Response{ID: id("x"), Result: nil},
		&jsonrpc.Response{ID: id("x"), Result: json.RawMessage(`not json`)},
		&jsonrpc.Response{ID: id(float64(2)), Error: &jsonrpc.Error{Code: -32601, Message: "no <such> method", Data: json.RawMessage(`{"x": 1}`)}},
	}
}

// TestEncodeMessageAsSDK: the proxy's encoder writes what the SDK's does,
// byte for byte, and refuses what it refuses.
func TestEncodeMessageAsSDK(t *testing.T) {
	t.Parallel()
	msgs := encodeSeeds(t)
	for _, s := range messageSeeds {
		if m, err := jsonrpc.DecodeMessage([]byte(s)); err == nil {
			msgs = append(msgs, m)
		}
	}
	for _, m := range msgs {
		checkEncodesAsSDK(t, m)
	}
}

// FuzzEncodeMessage: for any message the SDK decodes, the proxy's encoder
// agrees with the SDK's.
func FuzzEncodeMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := jsonrpc.DecodeMessage(data); err == nil {
			checkEncodesAsSDK(t, m)
		}
	})
}

func checkEncodesAsSDK(t *testing.T, m jsonrpc.Message) {
	t.Helper()
	want, wantErr := jsonrpc.EncodeMessage(m)
	got, gotErr := encodeMessage(m)
	if (wantErr == nil) != (gotErr == nil) || string(got) != string(want) {
		t.Fatalf("%#v:\n SDK   %s (%v)\n proxy %s (%v)", m, want, wantErr, got, gotErr)
	}
}

// BenchmarkEncodeMessage compares the SDK's encoder with the proxy's on a
// typical tools/call answer.
func BenchmarkEncodeMessage(b *testing.B) {
	m, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"fine"}],"structuredContent":{"rows":[1,2,3]}}}`))
	if err != nil {
		b.Fatal(err)
	}
	for name, encode := range map[string]func(jsonrpc.Message) ([]byte, error){"sdk": jsonrpc.EncodeMessage, "proxy": encodeMessage} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encode(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestToolCallParams(t *testing.T) {
	t.Parallel()
	for params, want := range map[string]struct {
		name string
		meta string
	}{
		`{"name":"send","arguments":{"name":"not this","_meta":{"x":1}},"_meta":{"progressToken":7}}`: {"send", `{"progressToken":7}`},
		` { "_meta" : null , "\u006eame" : "s\u00e9nd" } `:                                            {"sénd", `null`},
		`{"Name":"send","_META":{"x":1}}`:                                                             {"", `null`},
		`{"name":7,"_meta":{"traceparent":"00-1-2-01"}}`:                                              {"", `{"traceparent":"00-1-2-01"}`},
		`["name","send"]`: {"", `null`},
		`null`:            {"", `null`},
		`{"name":"send"`:  {"", `null`},
	} {
		name, meta := toolCallParams(json.RawMessage(params))
		b, _ := json.Marshal(meta)
		if name != want.name || string(b) != want.meta {
			t.Errorf("toolCallParams(%s) = %q, %s; want %q, %s", params, name, b, want.name, want.meta)
		}
	}
}
