package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
)

const (
	listGroupsPath = "/toolfailure.v1.FailureService/ListGroups"
	listRulesPath  = "/toolfailure.v1.RuleService/ListRules"
)

// TestGetFailureForgivesPastedIDs: GetFailure reads an ID as the CLI and the web page do (the
// contract's "Correlation IDs"): any case, spaces or dashes, no tf_, and the one tf_ token of a
// pasted text: quotes, brackets, a trailing period, "correlationId: …", a JSON fragment from _meta.
func TestGetFailureForgivesPastedIDs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, res := b.post(t, classifyPath, b.allKey, `{"tool": "t", "error": {"httpStatus": 401}}`)
	id := metaOf(t, res)["correlationId"].(string)
	_, res = b.post(t, classifyPath, b.allKey, `{"tool": "t", "error": {"httpStatus": 403}}`)
	other := metaOf(t, res)["correlationId"].(string)
	body := id[3:]
	for _, pasted := range []string{
		id,
		strings.ToLower(id),
		body,
		strings.ToLower(body),
		"  " + id + "\n",
		body[:9] + " " + body[9:18] + " " + body[18:],
		"tf-" + body[:9] + "-" + body[9:18] + "-" + body[18:],
		`"` + id + `"`,
		"(" + id + ").",
		"[" + id + "]",
		"correlationId: " + id,
		`"correlationId": "` + id + `",`,
		`{"correlationId":"` + strings.ToLower(id) + `"}`,
		id + " " + strings.ToLower(id), // the same ID twice is one ID (the request allows 64 bytes)
	} {
		status, got := b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, pasted))
		f, _ := got["failure"].(map[string]any)
		if status != http.StatusOK || f["correlationId"] != id {
			t.Errorf("GetFailure(%q): %d %v", pasted, status, got)
		}
	}
	// Still refused: two different IDs, a typo, a missing check character, no ID at all.
	for pasted, want := range map[string]string{
		id + " or " + other:                       "more than one",
		id[:len(id)-1] + flipCheck(id[len(id)-1]): "mistyped",
		`"` + id[:len(id)-1] + `"`:                "check character is missing",
		"correlationId: nothing here":             "not a correlation ID",
	} {
		_, got := b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, pasted))
		if got["code"] != "invalid_argument" || !strings.Contains(got["message"].(string), want) {
			t.Errorf("GetFailure(%q) = %v, want invalid_argument saying %q", pasted, got, want)
		}
	}
}

func flipCheck(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

// rawPost sends a Connect unary JSON request with the Authorization header and any other headers
// given as they are, and returns the status and the decoded body.
func (b *bundle) rawPost(t *testing.T, path, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: status %d, body not JSON: %q", path, res.StatusCode, raw)
	}
	return res.StatusCode, out
}

// TestBearerSchemeIsCaseInsensitive: RFC 9110 makes the authentication scheme case-insensitive;
// BEARER, bearer and bEaReR (and a tab after it) are the same scheme as Bearer.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, scheme := range []string{"Bearer ", "BEARER ", "bearer ", "bEaReR ", "Bearer\t", "BEARER   "} {
		status, res := b.rawPost(t, classifyPath, `{"tool": "t", "error": {"httpStatus": 401}}`,
			map[string]string{"Authorization": scheme + b.allKey})
		if status != http.StatusOK {
			t.Errorf("Authorization: %q + key: %d %v", scheme, status, res)
		}
	}
	for _, h := range []string{"Basic " + b.allKey, "Bearer", "BEARER ", "Bearerx " + b.allKey, b.allKey} {
		_, res := b.rawPost(t, classifyPath, `{"tool": "t", "error": {"httpStatus": 401}}`, map[string]string{"Authorization": h})
		if res["code"] != "unauthenticated" {
			t.Errorf("Authorization: %q: %v, want unauthenticated", h, res)
		}
	}
}

// TestForgedGroupPageTokens: a ListGroups page token that ListGroups did not write (bad base64,
// bad JSON, a window longer than 90 days, times outside years 1 to 9999, a count below one, a
// last-seen time outside the window) is invalid_argument naming pageToken: never unavailable, and
// never a message with the store's words or the tenant's internal number.
func TestForgedGroupPageTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	classifyMany(t, b, "get_order", nil, "order 1 not found", "order 2 not found", "invoice 3 missing", "parcel 4 late")
	// A genuine token still works.
	status, res := b.post(t, listGroupsPath, b.lookupKey, `{"pageSize": 1}`)
	genuine, _ := res["nextPageToken"].(string)
	if status != http.StatusOK || genuine == "" {
		t.Fatalf("first page: %d %v", status, res)
	}
	if status, res := b.post(t, listGroupsPath, b.lookupKey, fmt.Sprintf(`{"pageSize": 1, "pageToken": %q}`, genuine)); status != http.StatusOK || len(res["groups"].([]any)) != 1 {
		t.Fatalf("second page: %d %v", status, res)
	}

	now := time.Now().UnixMicro()
	const day = int64(24 * time.Hour / time.Microsecond)
	forge := func(fields map[string]any) string {
		tok := map[string]any{"v": 1, "o": "count", "s": now - day, "u": now, "c": 1, "l": now - 1, "f": "0123456789abcdef"}
		for k, v := range fields {
			tok[k] = v
		}
		j, _ := json.Marshal(tok)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	const farPast = int64(-9_000_000_000_000_000_000)
	for name, tok := range map[string]string{
		"not base64":            "!!!",
		"not json":              base64.RawURLEncoding.EncodeToString([]byte("{not json")),
		"wrong version":         forge(map[string]any{"v": 9}),
		"window of 100 days":    forge(map[string]any{"s": now - 100*day}),
		"reversed window":       forge(map[string]any{"s": now, "u": now - day}),
		"before year 1":         forge(map[string]any{"s": farPast, "u": farPast + day, "l": farPast + 1}),
		"after year 9999":       forge(map[string]any{"s": int64(9e18) - day, "u": int64(9e18), "l": int64(9e18) - 1}),
		"zero count":            forge(map[string]any{"c": 0}),
		"negative count":        forge(map[string]any{"c": -5}),
		"last seen after until": forge(map[string]any{"l": now + day}),
		"last seen far away":    forge(map[string]any{"l": farPast}),
		"bad fingerprint":       forge(map[string]any{"f": "zz"}),
		"float count":           forge(map[string]any{"c": 1e30}),
	} {
		status, res := b.post(t, listGroupsPath, b.lookupKey, fmt.Sprintf(`{"pageToken": %q}`, tok))
		msg, _ := res["message"].(string)
		if status >= 500 || res["code"] != "invalid_argument" || !strings.Contains(msg, "pageToken") ||
			strings.Contains(msg, "tenant") || strings.Contains(msg, "invalid record") {
			t.Errorf("%s: %d %v; want invalid_argument naming pageToken and nothing internal", name, status, res)
		}
	}
}

// TestListFailuresTimestampRange: the binary protocol can carry a timestamp that JSON cannot
// (outside years 1 to 9999, or nanos out of range); ListFailures refuses it as invalid_argument
// naming the field instead of answering unavailable or listing nothing.
func TestListFailuresTimestampRange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	fc := b.failures(b.lookupKey) // the generated client speaks the binary Connect protocol
	ctx := context.Background()
	for name, c := range map[string]struct {
		filter *v1.FailureFilter
		field  string
	}{
		"since -1e15 s": {&v1.FailureFilter{Since: &timestamppb.Timestamp{Seconds: -1e15}}, "filter.since"},
		"since +1e15 s": {&v1.FailureFilter{Since: &timestamppb.Timestamp{Seconds: 1e15}}, "filter.since"},
		"until +1e15 s": {&v1.FailureFilter{Until: &timestamppb.Timestamp{Seconds: 1e15}}, "filter.until"},
		"until -1e15 s": {&v1.FailureFilter{Until: &timestamppb.Timestamp{Seconds: -1e15}}, "filter.until"},
		"until nanos":   {&v1.FailureFilter{Until: &timestamppb.Timestamp{Seconds: 1, Nanos: -1}}, "filter.until"},
	} {
		_, err := fc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: c.filter})
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v, want invalid_argument naming %s", name, err, c.field)
		}
	}
	if _, err := fc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: &v1.FailureFilter{
		Since: timestamppb.New(time.Now().Add(-time.Hour)), Until: timestamppb.New(time.Now())}}); err != nil {
		t.Fatalf("a valid window: %v", err)
	}
}

// lockedBuffer collects log output from concurrent handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// grpcCall sends one gRPC unary call with a grpc-timeout header and returns its grpc-status.
func (b *bundle) grpcCall(t *testing.T, path, key, timeout string, msg proto.Message) string {
	t.Helper()
	payload, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(payload)))
	frame = append(frame, payload...)
	req, err := http.NewRequest(http.MethodPost, b.url+path, bytes.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	req.Header.Set("grpc-timeout", timeout)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := h2cClient().Do(req)
	if err != nil {
		t.Fatalf("gRPC %s: %v", path, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if s := res.Header.Get("Grpc-Status"); s != "" {
		return s // a trailers-only response
	}
	return res.Trailer.Get("Grpc-Status")
}

// TestCallerDeadlineIsNotAnOutage: a call whose own deadline has passed (Connect-Timeout-Ms: 0,
// grpc-timeout: 1n) answers deadline_exceeded, not unavailable "retry shortly", and logs no error:
// it is the caller's doing, whether its key is valid, unknown or still to be looked up.
func TestCallerDeadlineIsNotAnOutage(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	b := setupWith(t, func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	unknown, err := apikey.New() // the shape of a key, stored nowhere: the store is asked
	if err != nil {
		t.Fatal(err)
	}
	fresh := mkKey(t, b.store, "acme", apikey.AllScopes...) // valid, not yet in the key cache
	_, res := b.post(t, classifyPath, b.allKey, `{"tool": "t", "error": {"httpStatus": 401}}`)
	id := metaOf(t, res)["correlationId"].(string)
	// The cached key reaches the handlers, whose store calls meet the expired deadline.
	for _, key := range []string{unknown.Secret, fresh, b.allKey} {
		for path, body := range map[string]string{
			getPath:        fmt.Sprintf(`{"correlationId": %q}`, id),
			listPath:       `{}`,
			listGroupsPath: `{}`,
			listRulesPath:  `{}`,
			classifyPath:   `{"tool": "t", "error": {"message": "deadline test"}}`,
		} {
			status, res := b.rawPost(t, path, body, map[string]string{"Authorization": "Bearer " + key, "Connect-Timeout-Ms": "0"})
			if res["code"] != "deadline_exceeded" {
				t.Errorf("%s with Connect-Timeout-Ms: 0 (key %.8s…): %d %v, want deadline_exceeded", path, key, status, res)
			}
		}
		if got := b.grpcCall(t, getPath, key, "1n", &v1.GetFailureRequest{CorrelationId: id}); got != "4" {
			t.Errorf("GetFailure with grpc-timeout: 1n (key %.8s…): grpc-status %s, want 4 (DEADLINE_EXCEEDED)", key, got)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the callers' deadlines were logged as errors:\n%s", logs.String())
	}
	// And a call with time to spare still works.
	if status, res := b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, id)); status != http.StatusOK {
		t.Fatalf("GetFailure without a deadline: %d %v", status, res)
	}
}
