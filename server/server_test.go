package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/conformance"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

const (
	classifyPath = "/toolfailure.v1.ClassifierService/Classify"
	explainPath  = "/toolfailure.v1.ClassifierService/Explain"
	getPath      = "/toolfailure.v1.FailureService/GetFailure"
	listPath     = "/toolfailure.v1.FailureService/ListFailures"
	metaKey      = "io.modelcontextprotocol/toolFailure"
)

var idPattern = regexp.MustCompile(`^tf_[0-9A-HJKMNP-TV-Z]{27}$`)

// post sends a Connect unary JSON request the way curl does, over HTTP/1.1.
func (b *bundle) post(t *testing.T, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("POST %s: status %d, body not JSON: %q", path, res.StatusCode, raw)
	}
	return res.StatusCode, out
}

func metaOf(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	meta, _ := res["meta"].(map[string]any)
	tf, ok := meta[metaKey].(map[string]any)
	if !ok {
		t.Fatalf("response has no meta[%q]: %v", metaKey, res)
	}
	return tf
}

func TestClassifyOverCurlShapedJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	status, res := b.post(t, classifyPath, b.reportKey, `{
		"tool": "send_email", "server": "mail-mcp",
		"error": {"message": "upstream unavailable", "type": "ECONNRESET", "httpStatus": 503, "retryAfter": "30",
		          "details": {"provider": "smtp"}, "attributes": {"net.peer.name": "smtp.example"}},
		"toolAnnotations": {"idempotentHint": true},
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, res)
	}
	tf := metaOf(t, res)
	if tf["class"] != "reliability" || tf["code"] != "retryable_transient_error" || tf["retryable"] != true {
		t.Fatalf("meta = %v", tf)
	}
	// Numbers must be JSON numbers (integers), not strings.
	rnb, ok := tf["retryNotBefore"].(json.Number)
	if !ok {
		t.Fatalf("retryNotBefore is %T, want a JSON number", tf["retryNotBefore"])
	}
	ms, err := rnb.Int64()
	if err != nil {
		t.Fatalf("retryNotBefore %q is not an integer", rnb)
	}
	if d := time.Until(time.UnixMilli(ms)); d < 25*time.Second || d > 35*time.Second {
		t.Errorf("retryNotBefore is %v from now, want about 30 s", d)
	}
	cid, _ := tf["correlationId"].(string)
	if !idPattern.MatchString(cid) {
		t.Fatalf("correlationId %q does not match the contract's format", cid)
	}
	if vs := conformance.CheckToolFailure(tf); len(vs) > 0 {
		t.Fatalf("meta violates the proposal: %v", vs)
	}
	typed, _ := res["toolFailure"].(map[string]any)
	if typed["class"] != "CLASS_RELIABILITY" || typed["correlationId"] != cid {
		t.Fatalf("typed toolFailure = %v", typed)
	}
	if res["ruleId"] == "" || res["ruleId"] == nil {
		t.Error("ruleId missing")
	}

	// The support engineer's lookup, lowercase as users type it.
	status, got := b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, strings.ToLower(cid)))
	if status != http.StatusOK {
		t.Fatalf("GetFailure status %d: %v", status, got)
	}
	f := got["failure"].(map[string]any)
	for k, want := range map[string]any{
		"correlationId": cid, "tool": "send_email", "server": "mail-mcp", "class": "CLASS_RELIABILITY",
		"code": "retryable_transient_error", "retryable": true,
		"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7",
	} {
		if f[k] != want {
			t.Errorf("failure.%s = %v, want %v", k, f[k], want)
		}
	}
	for _, k := range []string{"createdAt", "occurredAt", "retryNotBefore", "agentGuidance", "ruleId", "error", "toolAnnotations"} {
		if f[k] == nil || f[k] == "" {
			t.Errorf("failure.%s missing", k)
		}
	}
	e := f["error"].(map[string]any)
	if e["message"] != "upstream unavailable" || e["httpStatus"] != json.Number("503") || e["retryAfter"] != "30" {
		t.Errorf("failure.error = %v", e)
	}
}

// TestProtocols classifies over Connect (binary and JSON), gRPC and gRPC-Web
// with the generated client, each over h2c.
func TestProtocols(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for name, opts := range map[string][]connecthttp.Option{
		"connect-proto": nil,
		"connect-json":  {connecthttp.WithProtoJSON()},
		"grpc":          {connecthttp.WithGRPC()},
		"grpc-web":      {connecthttp.WithGRPCWeb()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			status := int32(404)
			res, err := b.classifier(b.allKey, opts...).Classify(context.Background(), &v1.ClassifyRequest{
				Tool:  "get_repo",
				Error: &v1.RawError{Message: "Not Found", HttpStatus: &status},
			})
			if err != nil {
				t.Fatalf("Classify: %v", err)
			}
			if res.GetToolFailure().GetClass() != v1.Class_CLASS_CAPABILITY || res.GetToolFailure().GetCode() != "resource_not_found" {
				t.Fatalf("outcome = %v", res.GetToolFailure())
			}
			got, err := b.failures(b.allKey, opts...).GetFailure(context.Background(), &v1.GetFailureRequest{CorrelationId: res.GetToolFailure().GetCorrelationId()})
			if err != nil {
				t.Fatalf("GetFailure: %v", err)
			}
			if got.GetFailure().GetTool() != "get_repo" {
				t.Fatalf("failure = %v", got.GetFailure())
			}
		})
	}
}

func TestAuthAndIsolation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := `{"tool": "t", "error": {"message": "boom"}}`
	status, res := b.post(t, classifyPath, "", body)
	if status != http.StatusUnauthorized || res["code"] != "unauthenticated" {
		t.Errorf("no key: %d %v", status, res)
	}
	status, res = b.post(t, classifyPath, "tfk_AAAAAAAA_"+strings.Repeat("A", 43), body)
	if status != http.StatusUnauthorized || res["code"] != "unauthenticated" {
		t.Errorf("unknown key: %d %v", status, res)
	}
	status, res = b.post(t, classifyPath, b.lookupKey, body)
	if status != http.StatusForbidden || res["code"] != "permission_denied" {
		t.Errorf("lookup key on Classify: %d %v", status, res)
	}
	_, res = b.post(t, classifyPath, b.reportKey, body)
	cid := metaOf(t, res)["correlationId"].(string)
	status, res = b.post(t, getPath, b.reportKey, fmt.Sprintf(`{"correlationId": %q}`, cid))
	if status != http.StatusForbidden || res["code"] != "permission_denied" {
		t.Errorf("report key on GetFailure: %d %v", status, res)
	}

	// Another tenant's ID answers exactly like an unknown ID.
	_, other := b.post(t, getPath, b.otherAllKey, fmt.Sprintf(`{"correlationId": %q}`, cid))
	_, other2 := b.post(t, classifyPath, b.otherAllKey, body)
	unknown := metaOf(t, other2)["correlationId"].(string)
	_, mine := b.post(t, getPath, b.allKey, fmt.Sprintf(`{"correlationId": %q}`, unknown))
	if other["code"] != "not_found" || mine["code"] != "not_found" || other["message"] != mine["message"] {
		t.Errorf("cross-tenant lookup %v differs from unknown-ID lookup %v", other, mine)
	}
	_, list := b.post(t, listPath, b.otherAllKey, `{}`)
	for _, f := range list["failures"].([]any) {
		if f.(map[string]any)["correlationId"] == cid {
			t.Error("ListFailures shows another tenant's record")
		}
	}
}

// TestIdempotency races 20 identical reports: one record, one ID.
func TestIdempotency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := `{"tool": "charge_card", "idempotencyKey": "order-42", "error": {"message": "timeout", "type": "ETIMEDOUT"}}`
	ids := make([]string, 20)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			status, res := b.post(t, classifyPath, b.allKey, body)
			if status != http.StatusOK {
				t.Errorf("status %d: %v", status, res)
				return
			}
			ids[i] = metaOf(t, res)["correlationId"].(string)
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("duplicates got different IDs: %v", ids)
		}
	}
	var n int
	conn := dbConn(t, b)
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM failures WHERE idempotency_key = 'order-42'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d records stored for one idempotency key", n)
	}
	// The same key in another tenant is another record.
	_, res := b.post(t, classifyPath, b.otherAllKey, body)
	if metaOf(t, res)["correlationId"] == ids[0] {
		t.Fatal("two tenants share a record through an idempotency key")
	}
}

func dbConn(t *testing.T, b *bundle) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), b.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// TestDurableBeforeResponse reads the record through a separate database
// connection the moment Classify answers: it must already be committed.
func TestDurableBeforeResponse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	conn := dbConn(t, b)
	for range 20 {
		_, res := b.post(t, classifyPath, b.reportKey, `{"tool": "t", "error": {"httpStatus": 429}}`)
		cid := metaOf(t, res)["correlationId"].(string)
		var code string
		err := conn.QueryRow(context.Background(), `SELECT code FROM failures f JOIN tenants t ON t.id = f.tenant_id
			WHERE t.name = 'acme' ORDER BY f.id DESC LIMIT 1`).Scan(&code)
		if err != nil {
			t.Fatalf("record for %s not visible after the response: %v", cid, err)
		}
		if code != metaOf(t, res)["code"] {
			t.Fatalf("latest stored code %q, answered %q", code, metaOf(t, res)["code"])
		}
	}
}

func TestRedactionBeforeStorage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	secrets := []string{
		"ghp_0123456789abcdefghijABCDEFGHIJ012345",
		"sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
		"hunter2-very-secret",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	body := fmt.Sprintf(`{"tool": "t", "error": {
		"message": "auth failed for token %s at postgres://app:%s@db.internal/app",
		"details": {"password": "%s", "nested": {"api_key": "%s"}, "note": "Authorization: Bearer %s"},
		"attributes": {"http.request.header.authorization": "Bearer %s"}}}`,
		secrets[0], secrets[2], secrets[2], secrets[1], secrets[3], secrets[3])
	status, res := b.post(t, classifyPath, b.allKey, body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, res)
	}
	cid := metaOf(t, res)["correlationId"].(string)
	_, got := b.post(t, getPath, b.allKey, fmt.Sprintf(`{"correlationId": %q}`, cid))
	blob, _ := json.Marshal(got)
	var row string
	if err := dbConn(t, b).QueryRow(context.Background(), `SELECT error::text FROM failures`).Scan(&row); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(blob), s) || strings.Contains(row, s) {
			t.Errorf("secret %q survived (response %s; row %s)", s, blob, row)
		}
	}
	if !strings.Contains(row, "REDACTED") {
		t.Errorf("no redaction marker in the stored row: %s", row)
	}
}

func TestListFailuresPagingAndFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var want []string
	for i := range 7 {
		tool, status := "alpha", 503
		if i%2 == 1 {
			tool, status = "beta", 404
		}
		server := "mail-mcp"
		if i >= 3 {
			server = "fs-mcp"
		}
		_, res := b.post(t, classifyPath, b.reportKey, fmt.Sprintf(`{"tool": %q, "server": %q, "error": {"httpStatus": %d}}`, tool, server, status))
		want = append([]string{metaOf(t, res)["correlationId"].(string)}, want...) // newest first
		// IDs order by millisecond; within one they are random (74 random
		// bits, by the contract), so keep the records a millisecond apart.
		time.Sleep(2 * time.Millisecond)
	}
	var got []string
	token := ""
	for page := 0; ; page++ {
		_, res := b.post(t, listPath, b.lookupKey, fmt.Sprintf(`{"pageSize": 3, "pageToken": %q}`, token))
		for _, f := range res["failures"].([]any) {
			got = append(got, f.(map[string]any)["correlationId"].(string))
		}
		token, _ = res["nextPageToken"].(string)
		if token == "" {
			break
		}
		if page > 5 {
			t.Fatal("paging does not end")
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paged list\n got %v\nwant %v", got, want)
	}
	for filter, n := range map[string]int{
		`{"tool": "beta"}`:                               3,
		`{"class": "capability"}`:                        3,
		`{"class": "CLASS_RELIABILITY"}`:                 4,
		`{"code": "resource_not_found", "tool": "beta"}`: 3,
		`{"since": "2000-01-01T00:00:00Z"}`:              7,
		`{"until": "2000-01-01T00:00:00Z"}`:              0,
		`{"server": "mail-mcp"}`:                         3,
		`{"server": "fs-mcp", "tool": "beta"}`:           2,
		`{"server": "nope-mcp"}`:                         0,
	} {
		_, res := b.post(t, listPath, b.lookupKey, `{"filter": `+filter+`}`)
		fs, _ := res["failures"].([]any)
		if len(fs) != n {
			t.Errorf("filter %s: %d records, want %d", filter, len(fs), n)
		}
	}
}

// TestBadInput sends malformed requests: each gets a clear Connect error,
// never a 5xx, and the service keeps serving.
func TestBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	deep := strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)
	var attrs []string
	for i := range 1000 {
		attrs = append(attrs, fmt.Sprintf(`"k%d": "v"`, i))
	}
	cases := []struct {
		name, path, body, code, mention string
	}{
		{"not json", classifyPath, `this is not json`, "invalid_argument", ""},
		{"wrong type", classifyPath, `{"tool": 5, "error": {"message": "x"}}`, "invalid_argument", "tool"},
		{"missing tool", classifyPath, `{"error": {"message": "x"}}`, "invalid_argument", "tool"},
		{"missing error", classifyPath, `{"tool": "t"}`, "invalid_argument", "error"},
		{"empty error", classifyPath, `{"tool": "t", "error": {}}`, "invalid_argument", "error"},
		{"message too long", classifyPath, `{"tool": "t", "error": {"message": "` + strings.Repeat("x", 70000) + `"}}`, "invalid_argument", "error.message"},
		{"deep details", classifyPath, `{"tool": "t", "error": {"details": ` + deep + `}}`, "invalid_argument", "error.details"},
		{"huge details", classifyPath, `{"tool": "t", "error": {"details": {"body": "` + strings.Repeat("x", 300<<10) + `"}}}`, "invalid_argument", "error.details: larger than"},
		{"invalid utf8", classifyPath, "{\"tool\": \"t\xff\xfe\", \"error\": {\"message\": \"x\"}}", "invalid_argument", ""},
		{"huge attributes", classifyPath, `{"tool": "t", "error": {"attributes": {` + strings.Join(attrs, ",") + `}}}`, "invalid_argument", "error.attributes"},
		{"bad http status", classifyPath, `{"tool": "t", "error": {"httpStatus": 1000}}`, "invalid_argument", "error.httpStatus"},
		{"unknown field", classifyPath, `{"tool": "t", "error": {"message": "x"}, "bogus": 1}`, "invalid_argument", ""},
		{"bad traceparent", classifyPath, `{"tool": "t", "error": {"message": "x"}, "traceparent": "nope"}`, "invalid_argument", "traceparent"},
		{"id bad check char", getPath, `{"correlationId": "tf_` + strings.Repeat("0", 26) + `1"}`, "invalid_argument", "correlationId"},
		{"id garbage", getPath, `{"correlationId": "hello"}`, "invalid_argument", "correlationId"},
		{"id empty", getPath, `{}`, "invalid_argument", "correlationId"},
		{"page size", listPath, `{"pageSize": 5000}`, "invalid_argument", "pageSize"},
		{"page token", listPath, `{"pageToken": "!!"}`, "invalid_argument", "pageToken"},
		{"filter class", listPath, `{"filter": {"class": "bogus"}}`, "invalid_argument", "filter.class"},
		{"filter server", listPath, `{"filter": {"server": "` + strings.Repeat("s", 257) + `"}}`, "invalid_argument", "filter.server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, res := b.post(t, c.path, b.allKey, c.body)
			if status >= 500 {
				t.Fatalf("status %d: %v", status, res)
			}
			if res["code"] != c.code {
				t.Fatalf("code %v, want %s (message %v)", res["code"], c.code, res["message"])
			}
			if msg, _ := res["message"].(string); c.mention != "" && !strings.Contains(msg, c.mention) {
				t.Fatalf("message %q does not name %s", msg, c.mention)
			}
		})
	}
	t.Cleanup(func() {
		// Still serving after all of that.
		status, res := b.post(t, classifyPath, b.allKey, `{"tool": "t", "error": {"httpStatus": 401}}`)
		if status != http.StatusOK {
			t.Errorf("service stopped serving: %d %v", status, res)
		}
	})
	// A wrong check character is called a typo, not "not found".
	_, res := b.post(t, classifyPath, b.allKey, `{"tool": "t", "error": {"message": "x"}}`)
	cid := []byte(metaOf(t, res)["correlationId"].(string))
	if cid[len(cid)-1] == '0' {
		cid[len(cid)-1] = '1'
	} else {
		cid[len(cid)-1] = '0'
	}
	_, res = b.post(t, getPath, b.allKey, fmt.Sprintf(`{"correlationId": %q}`, cid))
	if res["code"] != "invalid_argument" || !strings.Contains(res["message"].(string), "mistyped") {
		t.Errorf("typo in the check character: %v", res)
	}
	// A paste that lost the last character says so.
	_, res = b.post(t, getPath, b.allKey, fmt.Sprintf(`{"correlationId": %q}`, cid[:len(cid)-1]))
	if res["code"] != "invalid_argument" || !strings.Contains(res["message"].(string), "check character is missing") {
		t.Errorf("ID without its check character: %v", res)
	}
}

func TestHealthAndExplain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, path := range []string{"/healthz", "/readyz", "/livez"} {
		res, err := http.Get(b.url + path)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", path, res, err)
		}
		res.Body.Close()
	}
	// gRPC health over h2c, with the gRPC protocol.
	hreq, _ := http.NewRequest(http.MethodPost, b.url+"/grpc.health.v1.Health/Check", bytes.NewReader([]byte{0, 0, 0, 0, 0}))
	hreq.Header.Set("Content-Type", "application/grpc")
	hreq.Header.Set("TE", "trailers")
	hres, err := h2cClient().Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	// A serving response is the message {status: SERVING} = field 1 varint 1.
	if hres.Trailer.Get("Grpc-Status") != "0" || !bytes.Contains(body, []byte{0x08, 0x01}) {
		t.Errorf("grpc health: trailer %v body %x", hres.Trailer, body)
	}

	status, ex := b.post(t, explainPath, b.reportKey, `{"tool": "t", "error": {"httpStatus": 403, "message": "Forbidden"}}`)
	if status != http.StatusOK {
		t.Fatalf("Explain: %d %v", status, ex)
	}
	if evs, _ := ex["evaluations"].([]any); len(evs) == 0 || ex["ruleId"] == "" {
		t.Errorf("Explain = %v", ex)
	}
	// Explain stores nothing.
	_, list := b.post(t, listPath, b.lookupKey, `{}`)
	if fs, _ := list["failures"].([]any); len(fs) != 0 {
		t.Errorf("Explain stored %d records", len(fs))
	}
	_ = connect.CodeOf
}
