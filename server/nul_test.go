package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// TestNULInErrorIsStored: a message or attribute with U+0000 used to answer
// 503 "retry shortly" on PostgreSQL, and the record was never stored, so a
// retry could not help. It is classified and stored like any other error,
// with U+2400 where the NUL was, and looked up as such.
func TestNULInErrorIsStored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	status, res := b.post(t, classifyPath, b.allKey,
		`{"tool": "read\u0000file", "error": {"message": "no such file\u0000 or directory", "type": "E\u0000NOENT",
		  "details": {"path\u0000": "/tmp/a\u0000b"}, "attributes": {"db.response.status_code": "4\u00000"}}}`)
	if status != http.StatusOK {
		t.Fatalf("Classify with NUL: %d %v", status, res)
	}
	id := metaOf(t, res)["correlationId"].(string)
	status, res = b.post(t, getPath, b.lookupKey, fmt.Sprintf(`{"correlationId": %q}`, id))
	if status != http.StatusOK {
		t.Fatalf("GetFailure: %d %v", status, res)
	}
	f := res["failure"].(map[string]any)
	e := f["error"].(map[string]any)
	if f["tool"] != "read\u2400file" || e["message"] != "no such file\u2400 or directory" || e["type"] != "E\u2400NOENT" {
		t.Errorf("stored as tool %q, message %q, type %q; want U+2400 where the NUL was", f["tool"], e["message"], e["type"])
	}
	if d, _ := e["details"].(map[string]any); d["path\u2400"] != "/tmp/a\u2400b" {
		t.Errorf("details stored as %v", e["details"])
	}
	if a, _ := e["attributes"].(map[string]any); a["db.response.status_code"] != "4\u24000" {
		t.Errorf("attributes stored as %v", e["attributes"])
	}
}

// TestSuggestRuleMatchesNUL: a group whose tool, error type and message held NUL characters is
// stored with U+2400 in their place, but rules are evaluated on the error as it is sent, NUL and
// all. The draft SuggestRule writes from the stored records matches the errors as sent: enforced
// unchanged (but for the mode), it decides the group's next error, which a draft copied from the
// stand-in never did.
func TestSuggestRuleMatchesNUL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	send := func(n int) string {
		t.Helper()
		status, res := b.post(t, classifyPath, b.allKey, fmt.Sprintf(
			`{"tool": "read\u0000file", "error": {"message": "short read\u0000 at block %d of volume", "type": "E\u0000IO"}}`, n))
		if status != http.StatusOK {
			t.Fatalf("Classify: %d %v", status, res)
		}
		return metaOf(t, res)["correlationId"].(string)
	}
	first := send(17)
	send(4242)
	send(9)
	got, err := b.failures(b.lookupKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: first})
	if err != nil {
		t.Fatal(err)
	}
	fp := got.GetFailure().GetFingerprint()
	rules := b.rules(b.allKey)
	res, err := rules.SuggestRule(ctx, &v1.SuggestRuleRequest{Fingerprint: fp})
	if err != nil {
		t.Fatalf("SuggestRule: %v", err)
	}
	if !strings.Contains(res.GetExplanation(), "matches all 3 records") {
		t.Errorf("explanation:\n%s", res.GetExplanation())
	}
	r := res.GetRule()
	r.Mode = "enforce"
	if _, err := rules.CreateRule(ctx, &v1.CreateRuleRequest{Rule: r}); err != nil {
		t.Fatalf("CreateRule(the draft, enforced): %v", err)
	}
	next := send(31337)
	rec, err := b.failures(b.lookupKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: next})
	if err != nil {
		t.Fatal(err)
	}
	if rec.GetFailure().GetRuleId() != r.GetName() {
		t.Fatalf("the group's next error was decided by %q, not the draft %q (tool %q, when %q, messageMatches %q)",
			rec.GetFailure().GetRuleId(), r.GetName(), r.GetTool(), r.GetWhen(), r.GetMessageMatches())
	}
	// The draft stays narrow: the same text without the NULs is another error.
	status, out := b.post(t, explainPath, b.allKey, `{"tool": "readfile", "error": {"message": "short read at block 1 of volume", "type": "EIO"}}`)
	if status != http.StatusOK || out["ruleId"] == r.GetName() {
		t.Fatalf("Explain of the text without NULs: %d %v", status, out)
	}
}
