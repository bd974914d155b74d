package ui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
)

func TestProblemsPages(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	unknownID, _ := b.ReportProblems(t)
	br := b.NewBrowser(t)
	br.SignIn(b.RulesKey)

	list := br.Get("/ui/problems")
	if list.Status != http.StatusOK {
		t.Fatalf("problems: %d %s", list.Status, list.Body)
	}
	parcel, mail := strings.Index(list.Body, "ship_parcel"), strings.Index(list.Body, "send_email")
	if parcel < 0 || mail < 0 || strings.Contains(list.Body, "globex_secret_tool") {
		t.Fatalf("problems page lists the wrong problems:\n%s", list.Body)
	}
	if !strings.Contains(strings.ToLower(list.Body), "parcel &lt;num&gt; stuck at depot &lt;str&gt;") || !strings.Contains(list.Body, `<svg class="spark"`) {
		t.Fatalf("problems page lacks the template or the sparkline:\n%s", list.Body)
	}

	// The failure page links to its problem; the problem page shows it.
	failure := br.Get("/ui/failures/" + unknownID)
	i := strings.Index(failure.Body, `href="/ui/problems/`)
	if i < 0 {
		t.Fatalf("failure page has no link to its problem:\n%s", failure.Body)
	}
	link := failure.Body[i+len(`href="`):]
	link = link[:strings.IndexByte(link, '"')]
	page := br.Get(link)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, unknownID) || !strings.Contains(page.Body, "3 failures in 24 hours") {
		t.Fatalf("problem page %s: %d\n%s", link, page.Status, page.Body)
	}
	if strings.Contains(page.Body, "Shadow rules") {
		t.Fatalf("problem page shows shadow evidence before any shadow rule matched:\n%s", page.Body)
	}
	// A failure of the problem that a shadow rule matched: the page shows what the rule would
	// have decided and how many failures it would have changed.
	fp := link[strings.LastIndexByte(link, '/')+1:]
	b.Insert(t, b.Acme, store.Failure{Tool: "ship_parcel", Fingerprint: fp, Class: store.ClassReliability, Code: "retryable_transient_error",
		Error:  []byte(`{"message":"parcel 1 stuck at depot 'Graz'"}`),
		Shadow: store.EncodeShadow([]store.ShadowOutcome{{RuleID: "parcels-stuck", Class: store.ClassCapability, Code: "resource_unavailable"}})})
	page = br.Get(link)
	for _, want := range []string{"Shadow rules", "<code>parcels-stuck</code>", "resource_unavailable", `<td data-label="Matched">1</td>`, `<td data-label="Would change">1</td>`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("problem page lacks %q:\n%s", want, page.Body)
		}
	}
	sug := br.Get(link + "?suggest=1")
	for _, want := range []string{"mode: shadow", "messageMatches:", "matches all 4 records"} {
		if !strings.Contains(sug.Body, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, sug.Body)
		}
	}

	// Without the rules scope there is no suggestion, only the command.
	lookup := b.NewBrowser(t)
	lookup.SignIn(b.LookupKey)
	if res := lookup.Get(link + "?suggest=1"); strings.Contains(res.Body, "mode: shadow") || !strings.Contains(res.Body, "toolfailure rules suggest") {
		t.Errorf("a lookup-only key got a suggestion:\n%s", res.Body)
	}
	// Another tenant's problem is not found, like an unknown one; a malformed one is refused.
	other := b.NewBrowser(t)
	other.SignIn(b.GlobexKey)
	for path, want := range map[string]int{link: http.StatusNotFound, "/ui/problems/0123456789abcdef": http.StatusNotFound, "/ui/problems/nothex": http.StatusBadRequest} {
		if res := other.Get(path); res.Status != want {
			t.Errorf("GET %s as globex: %d, want %d", path, res.Status, want)
		}
	}
}
