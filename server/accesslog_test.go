package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/server"
)

const (
	classifyProcedure = "/toolfailure.v1.ClassifierService/Classify"
	getProcedure      = "/toolfailure.v1.FailureService/GetFailure"
)

// TestAccessLog: every RPC gets one line at info with its procedure, Connect code, tenant,
// correlation ID and duration, and no line holds the key, the body or an error's text, even
// when the caller put a secret in them.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	sink := servicetest.NewLogSink()
	b := setupWith(t, func(c *server.Config) { c.Logger = slog.New(slog.NewJSONHandler(sink, nil)) })
	const inMessage = "hunter2-in-the-message"
	const inField = "sk_live_51H8xYzAbCdEfGhIjKlMnOpQr" // a field name ends up in the error's text

	status, res := b.post(t, classifyPath, b.reportKey, `{"tool": "send_email", "error": {"message": "SMTP login failed: password=`+inMessage+`"}}`)
	if status != http.StatusOK {
		t.Fatalf("Classify: %d %v", status, res)
	}
	cid := metaOf(t, res)["correlationId"].(string)
	line := sink.WaitFor(t, "Classify", func(m map[string]any) bool { return m["procedure"] == classifyProcedure })
	for k, want := range map[string]any{"level": "INFO", "msg": "rpc", "code": "ok", "correlationId": cid, "tenantName": "acme", "protocol": "connect"} {
		if line[k] != want {
			t.Errorf("Classify's line: %s = %v, want %v\n%v", k, line[k], want, line)
		}
	}
	if _, ok := line["tenant"].(float64); !ok {
		t.Errorf("Classify's line has no tenant ID: %v", line)
	}
	if id, _ := line["keyId"].(string); len(id) != 8 || !strings.HasPrefix(b.reportKey, "tfk_"+id+"_") {
		t.Errorf("Classify's line: keyId %v is not the key's public ID", line["keyId"])
	}
	if d, ok := line["durationMs"].(float64); !ok || d < 0 {
		t.Errorf("Classify's line: durationMs %v is not a number", line["durationMs"])
	}

	// A lookup logs the ID it looked up, found or not.
	if status, res := b.post(t, getPath, b.lookupKey, `{"correlationId": "`+cid+`"}`); status != http.StatusOK {
		t.Fatalf("GetFailure: %d %v", status, res)
	}
	sink.WaitFor(t, "GetFailure", func(m map[string]any) bool {
		return m["procedure"] == getProcedure && m["code"] == "ok" && m["correlationId"] == cid
	})

	// An error whose text holds the secret: the line has the code, never the text.
	status, res = b.post(t, classifyPath, b.reportKey, `{"tool": "t", "error": {"message": "x"}, "`+inField+`": 1}`)
	if status == http.StatusOK || !strings.Contains(res["message"].(string), inField) {
		t.Fatalf("the premise: an unknown field is refused with its name in the error's text; got %d %v", status, res)
	}
	line = sink.WaitFor(t, "the refused Classify", func(m map[string]any) bool { return m["code"] == "invalid_argument" })
	if line["tenantName"] != "acme" || line["correlationId"] != nil {
		t.Errorf("refused Classify's line: %v", line)
	}

	// A key of the right shape that nobody issued: unauthenticated, and no tenant.
	unknownKey := "tfk_AbCdEfGh_" + strings.Repeat("Zq9", 14) + "x"
	if status, _ := b.post(t, classifyPath, unknownKey, `{"tool": "t", "error": {"httpStatus": 503}}`); status != http.StatusUnauthorized {
		t.Fatalf("unknown key: %d", status)
	}
	line = sink.WaitFor(t, "the unknown key", func(m map[string]any) bool { return m["code"] == "unauthenticated" })
	if _, ok := line["tenant"]; ok {
		t.Errorf("unauthenticated call's line names a tenant: %v", line)
	}

	// Probes log at debug only: none of them reaches an info logger. Their lines would be
	// written before their answers, so there is nothing to wait for.
	for _, path := range []string{"/livez", "/readyz", "/healthz"} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
	}
	if strings.Contains(sink.Text(), `"probe"`) || strings.Contains(sink.Text(), "livez") {
		t.Errorf("a probe was logged at info:\n%s", sink.Text())
	}

	logged := sink.Text()
	for _, secret := range []string{inMessage, inField, unknownKey, unknownKey[13:], b.reportKey, b.reportKey[13:], b.lookupKey[13:], "Bearer", "SMTP"} {
		if strings.Contains(logged, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logged)
		}
	}
}

// TestProbesLogAtDebug: /livez, /readyz and gRPC health each get a line at debug, with the
// path and status, for an operator who asks for them.
func TestProbesLogAtDebug(t *testing.T) {
	t.Parallel()
	sink := servicetest.NewLogSink()
	b := setupWith(t, func(c *server.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	for _, path := range []string{"/livez", "/readyz"} {
		res, err := http.Get(b.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		line := sink.WaitFor(t, path, func(m map[string]any) bool { return m["path"] == path })
		if line["level"] != "DEBUG" || line["msg"] != "probe" || line["status"] != float64(http.StatusOK) {
			t.Errorf("%s: %v", path, line)
		}
	}
	// gRPC health over Connect's JSON: the same debug line, not an RPC line at info.
	req, _ := http.NewRequest(http.MethodPost, b.url+"/grpc.health.v1.Health/Check", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	line := sink.WaitFor(t, "gRPC health", func(m map[string]any) bool { return m["path"] == "/grpc.health.v1.Health/Check" })
	if line["level"] != "DEBUG" || res.StatusCode != http.StatusOK {
		t.Errorf("gRPC health: status %d, line %v", res.StatusCode, line)
	}
}
