package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/server"
)

// heldBody is larger than a body decoded without a work slot, so that the held call would hold
// its tenant's slot if it took it before its body had arrived.
var heldBody = `{"tool": "held_upload", "error": {"httpStatus": 503, "message": "` + strings.Repeat("upstream down ", 512) + `"}}`

// heldCall is a Classify whose body is still being uploaded: the service has admitted it (it
// asked for the body with 100 Continue, which it does only once the call is past the gate) and
// is reading the body, which arrives when finish is called.
type heldCall struct {
	body *io.PipeWriter
	done chan heldResult
}

type heldResult struct {
	status int
	body   string
	err    error
}

// holdClassify starts a Classify of key's tenant over HTTP/1.1 with Expect: 100-continue and
// returns once the service has started to read its body.
func holdClassify(t *testing.T, url, key string) *heldCall {
	t.Helper()
	pr, pw := io.Pipe()
	h := &heldCall{body: pw, done: make(chan heldResult, 1)}
	reading := make(chan struct{})
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(reading) }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+classifyPath, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Expect", "100-continue")
	// The client waits for the service's 100 Continue however long it takes; it is the signal.
	c := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Hour}}
	go func() {
		res, err := c.Do(req)
		if err != nil {
			h.done <- heldResult{err: err}
			return
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		h.done <- heldResult{status: res.StatusCode, body: string(raw), err: err}
	}()
	select {
	case <-reading:
	case r := <-h.done:
		t.Fatalf("the held call ended before its body was read: %d %s %v", r.status, r.body, r.err)
	}
	t.Cleanup(func() { _ = pw.CloseWithError(errors.New("test over")) })
	return h
}

// finish sends the rest of the body and returns the answer.
func (h *heldCall) finish(t *testing.T) heldResult {
	t.Helper()
	if _, err := io.WriteString(h.body, heldBody); err != nil {
		t.Fatalf("write the held body: %v", err)
	}
	_ = h.body.Close()
	return <-h.done
}

func classifyReq(tool string) *v1.ClassifyRequest {
	return &v1.ClassifyRequest{Tool: tool, Error: &v1.RawError{HttpStatus: ptr(int32(503))}}
}

// TestTenantInFlightLimit: a tenant with as many calls in flight as it may has the next one
// refused before its body is read, with resource_exhausted, Retry-After and a RetryInfo, on every
// protocol, while another tenant is served; once the call in flight ends, the tenant is served
// again.
func TestTenantInFlightLimit(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(c *server.Config) { c.Limits.TenantInFlight = 1 })
	held := holdClassify(t, b.url, b.reportKey)

	for name, opts := range map[string][]connecthttp.Option{
		"connect":  nil,
		"grpc":     {connecthttp.WithGRPC()},
		"grpc-web": {connecthttp.WithGRPCWeb()},
	} {
		_, err := b.classifier(b.reportKey, opts...).Classify(t.Context(), classifyReq("refused"))
		if got := connect.CodeOf(err); got != connect.CodeResourceExhausted {
			t.Fatalf("%s: a second call of a tenant at its in-flight limit: %v, want resource_exhausted", name, err)
		}
		if !strings.Contains(err.Error(), "in flight") {
			t.Errorf("%s: the refusal does not say why: %v", name, err)
		}
		if d := server.RetryDelay(err); d != time.Second {
			t.Errorf("%s: RetryInfo delay %v, want 1s", name, d)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, b.url+classifyPath, strings.NewReader(heldBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+b.reportKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
		t.Errorf("over the in-flight limit: HTTP %d, Retry-After %q; want 429 and 1", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if _, err := b.classifier(b.otherAllKey).Classify(t.Context(), classifyReq("neighbour")); err != nil {
		t.Fatalf("another tenant, while the first is at its limit: %v", err)
	}

	if r := held.finish(t); r.err != nil || r.status != http.StatusOK {
		t.Fatalf("the call in flight: %d %s %v", r.status, r.body, r.err)
	}
	if _, err := b.classifier(b.reportKey).Classify(t.Context(), classifyReq("after")); err != nil {
		t.Fatalf("the tenant once its call in flight ended: %v", err)
	}
}

// TestTenantWorkSlotNotHeldByUpload: a Classify whose large body is slow to arrive does not hold
// its tenant's work slot, so the tenant's other callers, with large bodies too, are served
// meanwhile, even with one slot.
func TestTenantWorkSlotNotHeldByUpload(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(c *server.Config) { c.Limits.RuleConcurrency = 1 })
	held := holdClassify(t, b.url, b.reportKey)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	large := strings.Repeat("upstream down ", 512)
	for i := range 3 {
		req := classifyReq("beside_upload")
		req.Error.Message = large
		if _, err := b.classifier(b.reportKey).Classify(ctx, req); err != nil {
			t.Fatalf("call %d of the tenant beside its slow upload: %v", i, err)
		}
	}
	explain := &v1.ExplainRequest{Tool: "beside_upload", Error: &v1.RawError{HttpStatus: ptr(int32(503)), Message: large}}
	if _, err := b.classifier(b.reportKey).Explain(ctx, explain); err != nil {
		t.Fatalf("Explain beside the slow upload: %v", err)
	}
	if r := held.finish(t); r.err != nil || r.status != http.StatusOK {
		t.Fatalf("the slow upload: %d %s %v", r.status, r.body, r.err)
	}
}
