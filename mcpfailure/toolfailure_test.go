package mcpfailure_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omcp/toolfailure/mcpfailure"
)

func TestParse(t *testing.T) {
	t.Parallel()
	const id = "tf_01M8N3YJHAFJPBR162ETPFRX5AD"
	cases := []struct {
		name    string
		meta    mcp.Meta
		present bool
		wantErr bool
		want    mcpfailure.ToolFailure
	}{
		{name: "no meta"},
		{name: "other keys only", meta: mcp.Meta{"com.example/x": 1}},
		{name: "reliability", present: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "reliability", "code": "retryable_transient_error",
				"retryable": true, "retryNotBefore": float64(1764460030000), "correlationId": id, "agentGuidance": "wait"}},
			want: mcpfailure.ToolFailure{Class: mcpfailure.ClassReliability, Code: "retryable_transient_error", Retryable: true,
				RetryNotBefore: time.UnixMilli(1764460030000), CorrelationID: id, AgentGuidance: "wait"}},
		{name: "typed empty map", present: true,
			meta:    mcp.Meta{mcpfailure.MetaKey: map[string]json.Number{}},
			wantErr: true},
		{name: "retryable ignored outside reliability", present: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "governance", "code": "auth_required",
				"retryable": true, "retryNotBefore": float64(1764460030000), "correlationId": id}},
			want: mcpfailure.ToolFailure{Class: mcpfailure.ClassGovernance, Code: "auth_required", CorrelationID: id}},
		{name: "unknown class", present: true, wantErr: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "transient", "code": "x", "correlationId": id}}},
		{name: "no correlationId", present: true, wantErr: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "capability", "code": "invalid_input"}}},
		{name: "retryNotBefore as string", present: true, wantErr: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "reliability", "code": "c", "retryable": true,
				"retryNotBefore": "1764460030000", "correlationId": id}}},
		{name: "retryNotBefore fractional", present: true, wantErr: true,
			meta: mcp.Meta{mcpfailure.MetaKey: map[string]any{"class": "reliability", "code": "c", "retryable": true,
				"retryNotBefore": 1.5, "correlationId": id}}},
		{name: "not an object", present: true, wantErr: true, meta: mcp.Meta{mcpfailure.MetaKey: "reliability"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, present, err := mcpfailure.Parse(&mcp.CallToolResult{Meta: c.meta, IsError: true})
			if present != c.present || (err != nil) != c.wantErr {
				t.Fatalf("present %v err %v, want present %v, error %v", present, err, c.present, c.wantErr)
			}
			if !c.wantErr && !got.RetryNotBefore.Equal(c.want.RetryNotBefore) {
				t.Errorf("RetryNotBefore %v, want %v", got.RetryNotBefore, c.want.RetryNotBefore)
			}
			got.RetryNotBefore, c.want.RetryNotBefore = time.Time{}, time.Time{}
			if !c.wantErr && got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestParseWireResult parses the object as it arrives through the SDK's
// decoder, from JSON text.
func TestParseWireResult(t *testing.T) {
	t.Parallel()
	var res mcp.CallToolResult
	doc := `{"content":[{"type":"text","text":"busy"}],"isError":true,"_meta":{"io.modelcontextprotocol/toolFailure":
		{"class":"reliability","code":"retryable_transient_error","retryable":true,"retryNotBefore":1764460030000,
		 "correlationId":"tf_01M8N3YJHAFJPBR162ETPFRX5AD"}}}`
	if err := json.Unmarshal([]byte(doc), &res); err != nil {
		t.Fatal(err)
	}
	tf, present, err := mcpfailure.Parse(&res)
	if !present || err != nil || !tf.Retryable || tf.RetryNotBefore.UnixMilli() != 1764460030000 {
		t.Fatalf("got %+v, present %v, err %v", tf, present, err)
	}
}

func TestProtocolFailure(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	data := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	cases := []struct {
		name  string
		err   *jsonrpc.Error
		ok    bool
		class mcpfailure.Class
		code  string
		delay time.Duration
	}{
		{name: "method not found", err: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}, ok: true,
			class: mcpfailure.ClassCapability, code: mcpfailure.CodeCapabilityUnsupported},
		{name: "invalid params", err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}, ok: true,
			class: mcpfailure.ClassCapability, code: mcpfailure.CodeInvalidInput},
		{name: "unknown tool", err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `unknown tool "x"`}, ok: true,
			class: mcpfailure.ClassCapability, code: mcpfailure.CodeCapabilityUnsupported},
		{name: "retryAfter seconds", err: &jsonrpc.Error{Code: -32029, Data: data(map[string]any{"retryAfter": 30})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: 30 * time.Second},
		{name: "retryAfter string", err: &jsonrpc.Error{Code: -32001, Data: data(map[string]any{"retryAfter": "2.5"})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: 2500 * time.Millisecond},
		{name: "retryAfter HTTP-date", err: &jsonrpc.Error{Code: -32001,
			Data: data(map[string]any{"retryAfter": now.Add(time.Minute).Format(http.TimeFormat)})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: time.Minute},
		{name: "retryAfterMs", err: &jsonrpc.Error{Code: -32001, Data: data(map[string]any{"retryAfterMs": 1500})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: 1500 * time.Millisecond},
		{name: "retry_after", err: &jsonrpc.Error{Code: -32603, Data: data(map[string]any{"retry_after": 7})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: 7 * time.Second},
		{name: "retryNotBefore", err: &jsonrpc.Error{Code: -32001, Data: data(map[string]any{"retryNotBefore": now.Add(4 * time.Second).UnixMilli()})}, ok: true,
			class: mcpfailure.ClassReliability, code: mcpfailure.CodeRetryableTransientError, delay: 4 * time.Second},
		{name: "internal error without a hint", err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "boom"}},
		{name: "server error with junk data", err: &jsonrpc.Error{Code: -32000, Data: json.RawMessage(`"slow down"`)}},
		{name: "negative delay", err: &jsonrpc.Error{Code: -32000, Data: data(map[string]any{"retryAfter": -5})}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tf, ok := mcpfailure.ProtocolFailure(c.err, now)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, tf)
			}
			if !ok {
				return
			}
			if tf.Class != c.class || tf.Code != c.code || tf.CorrelationID != "" {
				t.Errorf("got %+v", tf)
			}
			if tf.Retryable != (c.class == mcpfailure.ClassReliability) {
				t.Errorf("retryable = %v", tf.Retryable)
			}
			if c.delay > 0 && !tf.RetryNotBefore.Equal(now.Add(c.delay)) {
				t.Errorf("retryNotBefore = %v, want now + %v", tf.RetryNotBefore, c.delay)
			}
		})
	}
}
