package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
)

// fuzzPaths are the RPCs a fuzzed body is sent to, by the fuzzer's choice.
var fuzzPaths = []string{classifyPath, explainPath, getPath, listPath}

// FuzzRPC sends arbitrary bodies, JSON or binary protobuf, through the real
// handler (authentication, decoding, validation, classification, the
// embedded store): whatever comes in, the answer is never a 5xx, a
// Classify that succeeds carries a toolFailure object that keeps the
// proposal, and the service keeps serving.
func FuzzRPC(f *testing.F) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, f.TempDir()+"/toolfailure.db")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		f.Fatal(err)
	}
	ten, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		f.Fatal(err)
	}
	k, err := apikey.New()
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: ten.ID, Hash: k.Hash, Scopes: apikey.AllScopes}); err != nil {
		f.Fatal(err)
	}
	h, err := server.New(server.Config{Store: s})
	if err != nil {
		f.Fatal(err)
	}

	for _, seed := range []string{
		`{"tool": "send_email", "error": {"message": "550 5.1.1 user unknown", "httpStatus": 400}}`,
		`{"tool": "t", "error": {"type": "ECONNRESET", "grpcCode": 14, "jsonrpcCode": -32001, "retryAfter": "30",
		  "details": {"a": [1, {"b": null}]}, "attributes": {"db.response.status_code": "40001"}},
		  "toolAnnotations": {"idempotentHint": true}, "idempotencyKey": "k1", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`,
		`{"tool": "t", "error": {}}`,
		`{"tool": "", "error": {"message": "x"}}`,
		`{"correlationId": "tf_01M8N3YJHAFJPBR162ETPFRX5AD"}`,
		`{"filter": {"tool": "t", "class": "governance", "since": "2026-01-01T00:00:00Z"}, "pageSize": 1000, "pageToken": "AQ"}`,
		`{"tool": "t", "error": {"message": "\u0000", "details": "x"}, "unknown": 1}`,
		`[]`, `null`, `{"tool": 1}`,
	} {
		f.Add([]byte(seed), uint8(0), false)
		f.Add([]byte(seed), uint8(1), false)
	}
	f.Add([]byte("\x0a\x04send\x12\x05\x0a\x03bad"), uint8(0), true) // tool "send", error.message "bad"
	f.Add([]byte("\x0a\x1etf_01M8N3YJHAFJPBR162ETPFRX5AD"), uint8(2), true)
	f.Add([]byte("\xff\xff\xff\xff"), uint8(3), true)

	f.Fuzz(func(t *testing.T, body []byte, which uint8, binary bool) {
		path := fuzzPaths[int(which)%len(fuzzPaths)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+k.Secret)
		if binary {
			req.Header.Set("Content-Type", "application/proto")
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, rec.Code, rec.Body.Bytes())
		}
		if rec.Code != http.StatusOK || binary || path != classifyPath {
			return
		}
		var res struct {
			Meta map[string]json.RawMessage `json:"meta"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatalf("Classify answered 200 with a body that is not JSON: %q", rec.Body.Bytes())
		}
		var tf any
		if err := json.Unmarshal(res.Meta["io.modelcontextprotocol/toolFailure"], &tf); err != nil {
			t.Fatalf("Classify answered 200 without the toolFailure object: %s", rec.Body.Bytes())
		}
		if vs := conformance.CheckToolFailure(tf); !conformance.Conforms(vs) {
			t.Fatalf("Classify(%q) broke the proposal: %v", body, vs)
		}
	})
}
