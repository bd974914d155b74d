package ui_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/store"
)

// problemsFixture reports a handful of problems through the API: one that no rule knows (three
// times), one that the baseline decides, and one of another tenant.
func problemsFixture(t *testing.T, b *bundle) (unknownID, knownID string) {
	t.Helper()
	for _, m := range []string{"parcel 12 stuck at depot 'Berlin'", "parcel 345 stuck at depot 'Lyon'", "Parcel 6789 stuck at depot 'Oslo'"} {
		unknownID = b.classify(t, b.reportKey, &v1.ClassifyRequest{Tool: "ship_parcel", Error: &v1.RawError{Message: m}})
	}
	status := int32(503)
	knownID = b.classify(t, b.reportKey, &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Message: "upstream returned 503", HttpStatus: &status}})
	b.classify(t, b.globexKey, &v1.ClassifyRequest{Tool: "globex_secret_tool", Error: &v1.RawError{Message: "globex only"}})
	return unknownID, knownID
}

func TestProblemsPages(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOptions{})
	unknownID, _ := problemsFixture(t, b)
	br := b.newBrowser(t)
	br.signIn(b.rulesKey)

	list := br.get("/ui/problems")
	if list.status != http.StatusOK {
		t.Fatalf("problems: %d %s", list.status, list.body)
	}
	parcel, mail := strings.Index(list.body, "ship_parcel"), strings.Index(list.body, "send_email")
	if parcel < 0 || mail < 0 || strings.Contains(list.body, "globex_secret_tool") {
		t.Fatalf("problems page lists the wrong problems:\n%s", list.body)
	}
	if !strings.Contains(strings.ToLower(list.body), "parcel &lt;num&gt; stuck at depot &lt;str&gt;") || !strings.Contains(list.body, `<svg class="spark"`) {
		t.Fatalf("problems page lacks the template or the sparkline:\n%s", list.body)
	}

	// The failure page links to its problem; the problem page shows it.
	failure := br.get("/ui/failures/" + unknownID)
	i := strings.Index(failure.body, `href="/ui/problems/`)
	if i < 0 {
		t.Fatalf("failure page has no link to its problem:\n%s", failure.body)
	}
	link := failure.body[i+len(`href="`):]
	link = link[:strings.IndexByte(link, '"')]
	page := br.get(link)
	if page.status != http.StatusOK || !strings.Contains(page.body, unknownID) || !strings.Contains(page.body, "3 failures in 24 hours") {
		t.Fatalf("problem page %s: %d\n%s", link, page.status, page.body)
	}
	if strings.Contains(page.body, "Shadow rules") {
		t.Fatalf("problem page shows shadow evidence before any shadow rule matched:\n%s", page.body)
	}
	// A failure of the problem that a shadow rule matched: the page shows what the rule would
	// have decided and how many failures it would have changed.
	fp := link[strings.LastIndexByte(link, '/')+1:]
	b.insert(t, b.acme, store.Failure{Tool: "ship_parcel", Fingerprint: fp, Class: store.ClassReliability, Code: "retryable_transient_error",
		Error:  []byte(`{"message":"parcel 1 stuck at depot 'Graz'"}`),
		Shadow: store.EncodeShadow([]store.ShadowOutcome{{RuleID: "parcels-stuck", Class: store.ClassCapability, Code: "resource_unavailable"}})})
	page = br.get(link)
	for _, want := range []string{"Shadow rules", "<code>parcels-stuck</code>", "resource_unavailable", `<td data-label="Matched">1</td>`, `<td data-label="Would change">1</td>`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("problem page lacks %q:\n%s", want, page.body)
		}
	}
	sug := br.get(link + "?suggest=1")
	for _, want := range []string{"mode: shadow", "messageMatches:", "matches all 4 records"} {
		if !strings.Contains(sug.body, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, sug.body)
		}
	}

	// Without the rules scope there is no suggestion, only the command.
	lookup := b.newBrowser(t)
	lookup.signIn(b.lookupKey)
	if res := lookup.get(link + "?suggest=1"); strings.Contains(res.body, "mode: shadow") || !strings.Contains(res.body, "toolfailure rules suggest") {
		t.Errorf("a lookup-only key got a suggestion:\n%s", res.body)
	}
	// Another tenant's problem is not found, like an unknown one; a malformed one is refused.
	other := b.newBrowser(t)
	other.signIn(b.globexKey)
	for path, want := range map[string]int{link: http.StatusNotFound, "/ui/problems/0123456789abcdef": http.StatusNotFound, "/ui/problems/nothex": http.StatusBadRequest} {
		if res := other.get(path); res.status != want {
			t.Errorf("GET %s as globex: %d, want %d", path, res.status, want)
		}
	}
}

// TestBrowserProblems walks the Problems view, a problem and its suggested rule in Chromium, with
// the accessibility checks of TestBrowser, and saves screenshots.
func TestBrowserProblems(t *testing.T) {
	t.Parallel()
	bin := chromiumPath()
	if bin == "" {
		if os.Getenv("TOOLFAILURE_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium not found and TOOLFAILURE_REQUIRE_BROWSER is set")
		}
		t.Skip("chromium not found: install Debian's chromium package to run the browser test")
	}
	dir := screenshotDir(t)
	b := setup(t, setupOptions{})
	unknownID, _ := problemsFixture(t, b)

	_, do, eval, shot := openBrowser(t, bin, dir)
	accessible := func(page string) {
		t.Helper()
		problems := eval(`(() => {
			const p = [];
			if (document.querySelectorAll("h1").length !== 1) p.push("not exactly one <h1>");
			for (const e of document.querySelectorAll("svg"))
				if (!e.getAttribute("aria-labelledby") && e.getAttribute("aria-hidden") !== "true") p.push("svg without a label");
			for (const e of document.querySelectorAll("a"))
				if (!e.textContent.trim()) p.push("link without text: " + e.href);
			if (document.documentElement.scrollWidth > window.innerWidth + 1)
				p.push("scrolls sideways: " + document.documentElement.scrollWidth + " > " + window.innerWidth);
			return p.join("; ");
		})()`)
		if problems != "" {
			t.Errorf("%s: %s", page, problems)
		}
	}

	do("sign in", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(b.url+"/ui/signin"), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), b.rulesKey), chromedp.Submit(chromedp.ID("key")), chromedp.WaitVisible(chromedp.ID("ov-h")))
	do("open problems", chromedp.Click(chromedp.CSS(`nav a[href="/ui/problems"]`)), chromedp.WaitVisible(chromedp.ID("problems-h")))
	accessible("problems")
	if first := eval(`document.querySelector("table.problems tbody tr").className`); first != "unclassified" {
		t.Errorf("the first problem is not an unclassified one (class %q)", first)
	}
	if n := eval(`String(document.querySelectorAll("svg.spark rect").length)`); n == "0" {
		t.Error("the sparklines have no bars")
	}
	shot("10-problems.png")

	do("open a failure", chromedp.Navigate(b.url+"/ui/failures/"+unknownID), chromedp.WaitVisible(chromedp.ID("failure-h")))
	do("follow it to its problem", chromedp.Click(chromedp.CSS(`a[href^="/ui/problems/"]`)), chromedp.WaitVisible(chromedp.ID("problem-h")))
	accessible("problem")
	shot("11-problem.png")
	do("suggest a rule", chromedp.Click(chromedp.CSS(`a.button`)), chromedp.WaitVisible(chromedp.CSS(`pre.yaml`)))
	if y := eval(`document.querySelector("pre.yaml").textContent`); !strings.Contains(y, "mode: shadow") {
		t.Errorf("suggested YAML: %q", y)
	}
	accessible("suggestion")
	shot("12-problem-suggestion.png")

	do("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	do("problems on a phone", chromedp.Navigate(b.url+"/ui/problems"), chromedp.WaitVisible(chromedp.ID("problems-h")))
	accessible("problems-phone")
	shot("13-problems-phone.png")
	t.Logf("screenshots in %s", dir)
}
