package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// decodeMessage decodes one JSON-RPC message as jsonrpc.DecodeMessage does:
// the same checks, the same values, keys matched exactly (the SDK's decoder
// is case-sensitive, unlike encoding/json's structs), the last of a
// duplicated key winning. It exists because the SDK's decoder allocates a
// large buffer for every message, which for a relay, that decodes every
// message it passes on, is most of its garbage and so most of its CPU.
//
// The message is checked with segmentio's Valid (encoding/json's verdicts,
// faster; store.FuzzValidAgrees) (or, when more follows it, its
// first value with a json.Decoder) and then split into its top-level
// members by a scanner that may trust the syntax; only the members JSON-RPC
// defines are looked at, and their common forms (a plain string, a number)
// are read without encoding/json. That leaves one allocation for the bytes
// and one for the message, where decoding into a map made a map, a copy of
// every member and an interface per value. BenchmarkDecodeMessage compares
// the three.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	if !segjson.Valid(data) {
		// The SDK decodes the first value and ignores what follows it.
		var first json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&first); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		data = first
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		var m map[string]json.RawMessage
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", json.Unmarshal(data, &m))
	}
	// One copy that params, result and error point into: callers may reuse
	// data once this returns.
	data = bytes.Clone(data)
	var version, id, method, params, result, errMember []byte
	var hasMethod bool
	err := eachMember(data[i:], func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			id = value
		case "method":
			method, hasMethod = value, true
		case "params":
			params = value
		case "result":
			result = value
		case "error":
			errMember = value
		}
	})
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}

	var v string
	if version != nil {
		var err error
		if v, err = decodeString(version); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	if v != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", v, "2.0")
	}
	// The ID as it was written, not as the SDK's decoder would hold it:
	// see id.go.
	msgID, err := decodeID(id)
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	// A method member, even "" or null, makes a request, as for the SDK.
	if hasMethod {
		m, err := decodeString(method)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: m, ID: msgID, Params: params}, nil
	}
	if !msgID.IsValid() {
		return nil, errInvalidRequest
	}
	resp := &jsonrpc.Response{ID: msgID, Result: result}
	if errMember != nil && !isNull(errMember) {
		werr, err := decodeError(errMember)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		resp.Error = werr
	}
	return resp, nil
}

// eachMember calls fn with the name and the value of each member of the
// object obj, in valid JSON, in order. The name is unescaped; the value is
// the member's bytes, without the whitespace around them.
func eachMember(obj []byte, fn func(name, value []byte)) error {
	for i := skipSpace(obj, 1); obj[i] != '}'; {
		nameStart, nameEnd := i, skipString(obj, i)
		name := obj[nameStart+1 : nameEnd-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			var n string
			if err := json.Unmarshal(obj[nameStart:nameEnd], &n); err != nil {
				return err
			}
			name = []byte(n)
		}
		i = skipSpace(obj, nameEnd)
		i = skipSpace(obj, i+1) // past the colon
		end := skipValue(obj, i)
		fn(name, obj[i:end:end])
		i = skipSpace(obj, end)
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}

// decodeError decodes the error member of an answer, its member names
// matched exactly as the SDK's decoder does (encoding/json would take
// "Code" for "code").
func decodeError(v []byte) (*jsonrpc.Error, error) {
	var werr jsonrpc.Error
	if v[0] != '{' {
		// Not an object: let encoding/json say why it cannot be one.
		err := json.Unmarshal(v, &werr)
		return &werr, err
	}
	var err error
	_ = eachMember(v, func(name, value []byte) {
		if err != nil {
			return
		}
		switch string(name) {
		case "code":
			err = json.Unmarshal(value, &werr.Code)
		case "message":
			if !isNull(value) {
				werr.Message, err = decodeString(value)
			}
		case "data":
			werr.Data = json.RawMessage(value)
		}
	})
	return &werr, err
}

// decodeString decodes a JSON value into a string as json.Unmarshal does
// (null is ""), without it when the value is a string with nothing to
// unescape or replace.
func decodeString(v []byte) (string, error) {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1]), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that starts at i, in
// JSON already known to be valid.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value that starts at i, in
// JSON already known to be valid.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// encodeMessage encodes msg exactly as jsonrpc.EncodeMessage does (the
// members in the SDK's order, params and result compacted, no HTML
// escaping), without encoding/json's reflection over the SDK's wire struct
// and its interface-typed ID: the relay encodes every message it passes on.
// An error answer, which the relay rarely sends, is left to the SDK.
// TestEncodeMessageAsSDK and FuzzEncodeMessage hold the two to the same
// bytes; BenchmarkEncodeMessage compares them.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	var id jsonrpc.ID
	var method string
	var body []byte
	var bodyName string
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id, method, body, bodyName = m.ID, m.Method, m.Params, `,"params":`
	case *jsonrpc.Response:
		if m.Error != nil {
			return encodeErrorAnswer(m)
		}
		id, body, bodyName = m.ID, m.Result, `,"result":`
	default:
		return jsonrpc.EncodeMessage(msg)
	}
	var buf bytes.Buffer
	buf.Grow(64 + len(method) + len(body))
	buf.WriteString(`{"jsonrpc":"2.0"`)
	if id.IsValid() {
		buf.WriteString(`,"id":`)
		if err := appendID(&buf, id); err != nil {
			return nil, err
		}
	}
	if method != "" {
		buf.WriteString(`,"method":`)
		if err := appendString(&buf, method); err != nil {
			return nil, err
		}
	}
	if len(body) > 0 {
		buf.WriteString(bodyName)
		if err := compact(&buf, body); err != nil {
			return nil, fmt.Errorf("marshaling jsonrpc message: %w", err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// compact appends body to buf without the whitespace between its tokens,
// as json.Compact does; but JSON nested deeper than encoding/json's limit
// of 10,000 levels, which the proxy's decoder took (segmentio's Valid has no
// such limit), is compacted too rather than refused: a message that was
// relayed in must be relayed out, or its call would wait forever.
func compact(buf *bytes.Buffer, body []byte) error {
	n := buf.Len()
	err := json.Compact(buf, body)
	if err == nil || !segjson.Valid(body) {
		return err
	}
	buf.Truncate(n)
	inString := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			buf.WriteByte(c)
			if c == '\\' && i+1 < len(body) {
				i++
				buf.WriteByte(body[i])
			} else if c == '"' {
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			buf.WriteByte(c)
			inString = c == '"'
		}
	}
	return nil
}

// encodeErrorAnswer encodes an error answer as the SDK does, but for its ID:
// one held as its text is written as that text (see id.go), and an answer
// without an ID (to a line that could not be read) has "id":null, as
// JSON-RPC asks, where the SDK would leave the member out.
func encodeErrorAnswer(m *jsonrpc.Response) ([]byte, error) {
	if _, raw := rawIDText(m.ID); !raw && m.ID.IsValid() {
		return jsonrpc.EncodeMessage(m)
	}
	const head = `{"jsonrpc":"2.0","id":"x"`
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: stringID("x"), Error: m.Error})
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte(head)) {
		return nil, fmt.Errorf("marshaling jsonrpc message: unexpected encoding %.40q", data)
	}
	var buf bytes.Buffer
	buf.Grow(len(data) + 16)
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	if err := appendID(&buf, m.ID); err != nil {
		return nil, err
	}
	buf.Write(data[len(head):])
	return buf.Bytes(), nil
}

// appendString writes s as a JSON string, as encoding/json without HTML
// escaping does; printable ASCII with nothing to escape, which method
// names and IDs are, is written as it is.
func appendString(buf *bytes.Buffer, s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b, err := marshalJSON(s)
			if err != nil {
				return fmt.Errorf("marshaling jsonrpc message: %w", err)
			}
			buf.Write(b)
			return nil
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
	return nil
}

// toolCallParams reads the tool's name and the _meta of tools/call params,
// member names matched exactly, as the SDK's decoder does. The arguments,
// most of the bytes, are skipped over rather than decoded into a struct
// field that is thrown away: every call the relay forwards goes through
// here.
func toolCallParams(params json.RawMessage) (name string, meta map[string]any) {
	i := skipSpace(params, 0)
	if i == len(params) || params[i] != '{' || !segjson.Valid(params) {
		return "", nil // not an object: the upstream will say so
	}
	_ = eachMember(params[i:], func(k, v []byte) {
		switch string(k) {
		case "name":
			name, _ = decodeString(v)
		case "_meta":
			meta = nil
			_ = json.Unmarshal(v, &meta)
		}
	})
	return name, meta
}

// errInvalidRequest is the SDK's answer to a message that is neither a
// request nor a response (no method, no ID).
var errInvalidRequest = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// isErrorResult reports whether a tools/call result has isError set. A
// result whose bytes do not hold the key at all, neither spelt out nor
// escaped, is a success without being decoded: that is every successful
// result but a few, and a large one would otherwise be scanned twice. The
// members are found by the proxy's own scanner, which has no depth limit:
// encoding/json stops at 10,000 levels, and a failed result nested deeper
// (in its structuredContent, say) would pass for a success.
func isErrorResult(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte("isError")) && !bytes.Contains(result, []byte(`\u`)) {
		return false
	}
	i := skipSpace(result, 0)
	if i == len(result) || result[i] != '{' || !segjson.Valid(result) {
		return false
	}
	isError := false
	_ = eachMember(result[i:], func(name, value []byte) {
		if string(name) == "isError" {
			isError = string(value) == "true" // the last one wins, as for encoding/json
		}
	})
	return isError
}

// eachElement calls fn with each element of the array arr, in valid JSON,
// in order, without the whitespace around it.
func eachElement(arr []byte, fn func(value []byte)) {
	for i := skipSpace(arr, 1); i < len(arr) && arr[i] != ']'; {
		end := skipValue(arr, i)
		fn(arr[i:end:end])
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
}

// badMessage is a line, or an element of a batch, that is not a JSON-RPC
// message, with what could be read of it.
type badMessage struct {
	text []byte // as read, for the log
	err  error  // why it is not a message
	// parse says it is not JSON at all (JSON-RPC's -32700); otherwise it is
	// JSON but not a valid message (-32600).
	parse bool
	// answer says it looks like an answer (result or error, no method),
	// which is never answered in turn.
	answer bool
	// id is its ID, when it has one that could be read.
	id jsonrpc.ID
}

// diagnose says what a line that decodeMessage refused is: not JSON, or
// JSON but not a message, and its ID when one can be read.
func diagnose(text []byte, err error) badMessage {
	b := badMessage{text: text, err: err}
	v := text
	if !segjson.Valid(v) {
		// As decodeMessage: the first value, whatever follows it.
		var first json.RawMessage
		if json.NewDecoder(bytes.NewReader(text)).Decode(&first) != nil {
			b.parse = true
			return b
		}
		v = first
	}
	i := skipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return b
	}
	hasMethod, hasBody := false, false
	_ = eachMember(v[i:], func(name, value []byte) {
		switch string(name) {
		case "id":
			b.id, _ = decodeID(value) // the invalid ID when it cannot be one
		case "method":
			hasMethod = true
		case "result", "error":
			hasBody = true
		}
	})
	b.answer = hasBody && !hasMethod
	return b
}

// logText is the start of a line that is not a message, quoted, for a log
// line: enough to recognise a server's banner or log line by.
func (b badMessage) logText() string {
	const max = 120
	t := b.text
	if len(t) > max {
		return strconv.Quote(strings.ToValidUTF8(string(t[:max]), "")) + "…"
	}
	return strconv.Quote(string(t))
}
