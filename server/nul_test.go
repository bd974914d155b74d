package server_test

import (
	"fmt"
	"net/http"
	"testing"
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
