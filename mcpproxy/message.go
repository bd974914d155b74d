package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage decodes one JSON-RPC message as jsonrpc.DecodeMessage does:
// the same checks, the same values, keys matched exactly (the SDK's decoder
// is case-sensitive, unlike encoding/json's structs). It exists because the
// SDK's decoder allocates a large buffer for every message, which for a
// relay, that decodes every message it passes on, is most of its garbage and
// so most of its CPU; BenchmarkDecodeMessage compares the two.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	var version string
	if v, ok := members["jsonrpc"]; ok {
		if err := json.Unmarshal(v, &version); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	if version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
	}
	var rawID any
	if v, ok := members["id"]; ok {
		if err := json.Unmarshal(v, &rawID); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	// A method member, even "" or null, makes a request, as for the SDK.
	if m, ok := members["method"]; ok {
		var method string
		if err := json.Unmarshal(m, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: members["params"]}, nil
	}
	if !id.IsValid() {
		return nil, errInvalidRequest
	}
	resp := &jsonrpc.Response{ID: id, Result: members["result"]}
	if e, ok := members["error"]; ok && !isNull(e) {
		var werr jsonrpc.Error
		if err := json.Unmarshal(e, &werr); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		resp.Error = &werr
	}
	return resp, nil
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
// result but a few, and a large one would otherwise be scanned twice.
func isErrorResult(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte("isError")) && !bytes.Contains(result, []byte(`\u`)) {
		return false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil {
		return false
	}
	return string(bytes.TrimSpace(members["isError"])) == "true"
}
