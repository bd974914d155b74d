package ui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
)

// TestFailurePageSameCall: the page of either record of a call answered with two IDs across an
// outage (store.Failure.SameCallAs) links the other's page; an unlinked record's page says
// nothing of it, and another tenant's record that names the same ID does not show.
func TestFailurePageSameCall(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	a := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Class: "capability", Code: "invalid_input", IdempotencyKey: "send-42"})
	aID := uitest.MustParse(t, a)
	linked := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Class: "capability", Code: "invalid_input", SameCallAs: aID})
	theirs := b.Insert(t, b.Globex, store.Failure{Tool: "send_email", Class: "capability", Code: "invalid_input", SameCallAs: aID})
	plain := b.Insert(t, b.Acme, store.Failure{Tool: "read_file", Class: "capability", Code: "resource_not_found"})

	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)
	for _, c := range []struct{ id, other string }{{a, linked}, {linked, a}} {
		res := br.Get("/ui/failures/" + c.id)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: status %d", c.id, res.Status)
		}
		if !strings.Contains(res.Body, "Same call as") || !strings.Contains(res.Body, `<a href="/ui/failures/`+c.other+`">`) {
			t.Errorf("the page of %s does not link %s:\n%s", c.id, c.other, res.Body)
		}
		if strings.Contains(res.Body, theirs) {
			t.Errorf("the page of %s shows tenant globex's record %s", c.id, theirs)
		}
	}
	if res := br.Get("/ui/failures/" + plain); res.Status != http.StatusOK || strings.Contains(res.Body, "Same call as") {
		t.Errorf("an unlinked record's page: status %d, mentions a same call: %v", res.Status, strings.Contains(res.Body, "Same call as"))
	}
}
