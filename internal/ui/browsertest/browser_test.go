// Package browsertest drives Debian's Chromium through the support UI. It is a module of its own,
// so that chromedp stays out of the service's module; scripts/test runs it with the other nested
// modules.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
)

// chromiumPath finds Debian's chromium (or what TOOLFAILURE_CHROMIUM names).
func chromiumPath() string {
	if p := os.Getenv("TOOLFAILURE_CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
	}
	return ""
}

// screenshotDir is where the browser test saves its screenshots:
// TOOLFAILURE_SCREENSHOTS, or artifacts/screenshots at the repository root.
// chromium returns the browser to run and the directory for its screenshots, or skips t when there
// is no browser (fails it under TOOLFAILURE_REQUIRE_BROWSER, as CI sets).
func chromium(t *testing.T) (bin, dir string) {
	t.Helper()
	if bin = chromiumPath(); bin == "" {
		if os.Getenv("TOOLFAILURE_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium not found and TOOLFAILURE_REQUIRE_BROWSER is set: install Debian's chromium package (apt-get install chromium) or set TOOLFAILURE_CHROMIUM")
		}
		t.Skip("chromium not found: install Debian's chromium package (apt-get install chromium) to run the browser test; TOOLFAILURE_REQUIRE_BROWSER=1 makes this a failure")
	}
	return bin, screenshotDir(t)
}

func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TOOLFAILURE_SCREENSHOTS")
	if dir == "" {
		root, err := filepath.Abs(filepath.Join("..", "..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			t.Fatalf("repository root not found above internal/ui/browsertest: %v", err)
		}
		dir = filepath.Join(root, "artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot directory: %v", err)
	}
	return dir
}

// TestBrowser walks the support pages in a real headless Chromium the way a
// support engineer would: sign in, paste an ID from a ticket, read the
// failure, follow the rule link, filter the list, mistype an ID, and do it
// again at phone width. It saves a screenshot of every page and fails on any
// console error, which is where a Content-Security-Policy violation shows.
func TestBrowser(t *testing.T) {
	t.Parallel()
	bin, dir := chromium(t)
	b := uitest.Setup(t, uitest.Options{})

	// A realistic day: history for the chart, and the failure a user reports.
	now := time.Now()
	for i := range 40 {
		class, code, tool := "reliability", "retryable_transient_error", "search_docs"
		switch i % 5 {
		case 0:
			class, code, tool = "governance", "user_action_required", "send_email"
		case 1:
			class, code, tool = "capability", "invalid_input", "create_ticket"
		}
		b.Insert(t, b.Acme, store.Failure{Tool: tool, Class: class, Code: code, Server: "support-mcp",
			AgentGuidance: "Retry later.", CreatedAt: now.Add(-time.Duration(i*37) * time.Minute)})
	}
	status := int32(503)
	idem := true
	details, _ := structpb.NewValue(map[string]any{"provider": map[string]any{"status": "overloaded", "region": "eu-west-1"}, "xss": `<img src=x onerror="window.__xss=1">`})
	id := b.Classify(t, b.ReportKey, &v1.ClassifyRequest{
		Tool: "send_email", Server: "mail-mcp",
		Error: &v1.RawError{
			Message:    `upstream mail API answered 503 <script>window.__xss=1</script> Authorization: Bearer sk-live-0123456789abcdefghijklmnop`,
			Type:       "ECONNRESET",
			HttpStatus: &status,
			RetryAfter: "30",
			Details:    details,
			Attributes: map[string]string{"http.request.method": "POST"},
		},
		ToolAnnotations: &v1.ToolAnnotations{IdempotentHint: &idem},
		Traceparent:     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	})
	b.Classify(t, b.ReportKey, &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Message: "upstream mail API answered 503", HttpStatus: &status}})
	// The same tool and code minutes earlier, from mail-mcp and from another MCP server whose
	// send_email is another tool: the failure page shows only the first beside the reported one.
	reported, err := b.Store.GetFailure(context.Background(), b.Acme.ID, uitest.MustParse(t, id))
	if err != nil {
		t.Fatal(err)
	}
	sibling := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "mail-mcp", Class: reported.Class, Code: reported.Code, CreatedAt: reported.CreatedAt.Add(-5 * time.Minute)})
	stranger := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "bulk-mail-mcp", Class: reported.Class, Code: reported.Code, CreatedAt: reported.CreatedAt.Add(-4 * time.Minute)})

	ctx, do, eval, shot := openBrowser(t, bin, dir)

	// Checks that every page must pass, for people with assistive
	// technology and for phones.
	accessible := func(page string) {
		t.Helper()
		problems := eval(`(() => {
			const p = [];
			if (!document.documentElement.lang) p.push("no lang on <html>");
			if (!document.title) p.push("no <title>");
			if (document.querySelectorAll("h1").length !== 1) p.push("not exactly one <h1>");
			if (!document.querySelector("main")) p.push("no <main> landmark");
			for (const e of document.querySelectorAll("input:not([type=hidden]), select, textarea"))
				if (!e.labels || e.labels.length === 0) p.push("unlabelled field " + (e.name || e.id));
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

	var mu sync.Mutex
	var consoleErrors []string
	messages := chromedp.Console(ctx)
	do("start the browser", chromedp.EmulateViewport(1280, 900))
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// The typo page answers 400 on purpose, which the browser
			// logs; any other failed load (a stylesheet, the icon) is a
			// bug.
			expected := strings.Contains(m.URL, "/ui/lookup?") && strings.Contains(m.Text, "status of 400")
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !expected {
				mu.Lock()
				consoleErrors = append(consoleErrors, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()

	// Sign in.
	do("open the UI", chromedp.Navigate(b.URL+"/ui/"), chromedp.WaitVisible(chromedp.ID("key")))
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "/ui/signin") {
		t.Errorf("unsigned visit landed on %s, want the sign-in page", loc)
	}
	accessible("sign-in")
	shot("01-signin.png")
	do("sign in",
		chromedp.SendKeys(chromedp.ID("key"), b.LookupKey),
		chromedp.Submit(chromedp.ID("key")),
		chromedp.WaitVisible(chromedp.ID("ov-h")),
	)
	if c := eval(`document.cookie`); c != "" {
		t.Errorf("script can read the session cookie: %q", c)
	}
	accessible("overview")
	if n := eval(`String(document.querySelectorAll("svg rect.seg").length)`); n == "0" {
		t.Error("the overview chart has no bars")
	}
	shot("02-overview.png")

	// Paste the ID the way it arrives in a ticket: lower case, no prefix,
	// with spaces.
	pasted := " " + strings.ToLower(id[3:12]) + " " + strings.ToLower(id[12:]) + " "
	do("look up",
		chromedp.SendKeys(chromedp.ID("lookup-id"), pasted),
		chromedp.Submit(chromedp.ID("lookup-id")),
		chromedp.WaitVisible(chromedp.ID("failure-h")),
	)
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/ui/failures/"+id) {
		t.Errorf("lookup landed on %s", loc)
	}
	accessible("failure")
	if got := eval(`document.querySelector(".verdict .badge").textContent.trim()`); !strings.Contains(got, "reliability") {
		t.Errorf("class badge reads %q", got)
	}
	if href := eval(`(document.querySelector('a[href^="https://traces.example.test/"]') || {}).href || ""`); href != "https://traces.example.test/trace/4bf92f3577b34da6a3ce929d0e0e4736?span=00f067aa0ba902b7" {
		t.Errorf("trace link = %q", href)
	}
	if got := eval(`String(window.__xss)`); got != "undefined" {
		t.Errorf("markup in the error text ran: window.__xss = %s", got)
	}
	if got := eval(`document.querySelector("pre.message").textContent`); !strings.Contains(got, "<script>window.__xss=1</script>") || strings.Contains(got, "sk-live-0123456789") {
		t.Errorf("error message shown as %q: want the markup as text and the key redacted", got)
	}
	nearby := eval(`Array.from(document.querySelectorAll('section[aria-labelledby="nearby-h"] li')).map(li => li.textContent).join(" | ")`)
	if !strings.Contains(nearby, sibling) || !strings.Contains(nearby, "mail-mcp") || strings.Contains(nearby, stranger) {
		t.Errorf("same tool and code within the hour lists %q: want %s of mail-mcp and not %s of bulk-mail-mcp", nearby, sibling, stranger)
	}
	shot("03-failure.png")

	// Follow the rule link.
	do("open the rule", chromedp.Click(chromedp.CSS(`a[href^="/ui/rules/"]`)), chromedp.WaitVisible(chromedp.ID("rule-h")))
	accessible("rule")
	shot("04-rule.png")

	// The list, filtered.
	do("open the list", chromedp.Navigate(b.URL+"/ui/failures?class=reliability"), chromedp.WaitVisible(chromedp.ID("list-h")))
	accessible("list")
	if n := eval(`String(document.querySelectorAll("table.list tbody tr").length)`); n == "0" {
		t.Error("the filtered list is empty")
	}
	shot("05-list.png")

	// The list names each failure's MCP server, and filters by it.
	do("open the whole list", chromedp.Navigate(b.URL+"/ui/failures"), chromedp.WaitVisible(chromedp.ID("list-h")))
	if heads := eval(`Array.from(document.querySelectorAll("table.list thead th")).map(th => th.textContent).join("|")`); !strings.Contains(heads, "MCP server") {
		t.Errorf("the list's columns are %q: no MCP server", heads)
	}
	serversShown := `Array.from(document.querySelectorAll('table.list td[data-label="MCP server"]')).map(td => td.textContent.trim()).join("|")`
	if shown := eval(serversShown); !strings.Contains(shown, "support-mcp") || !strings.Contains(shown, "bulk-mail-mcp") {
		t.Errorf("the list's servers read %q", shown)
	}
	if eval(`String(!!document.getElementById("f-server"))`) != "true" {
		t.Fatal("the list's form has no MCP server field")
	}
	do("filter by MCP server",
		chromedp.SetValue(chromedp.ID("f-server"), "mail-mcp"),
		chromedp.Submit(chromedp.ID("f-server")),
		// The attribute, unlike the property that SetValue changed, is only there once the
		// filtered page has loaded.
		chromedp.WaitVisible(chromedp.CSS(`#f-server[value="mail-mcp"]`)),
	)
	accessible("list by server")
	if shown := eval(serversShown); shown != "mail-mcp|mail-mcp" {
		t.Errorf("filtered by mail-mcp, the list's servers read %q, want the reported failure and its sibling", shown)
	}
	if ids := eval(`document.querySelector("table.list tbody").textContent`); !strings.Contains(ids, id) || !strings.Contains(ids, sibling) {
		t.Errorf("filtered by mail-mcp, the list lacks %s or %s", id, sibling)
	}
	shot("05b-list-by-server.png")

	// A typo.
	typo := id[:len(id)-4] + flip(id[len(id)-4]) + id[len(id)-3:]
	do("mistype an ID",
		chromedp.SetValue(chromedp.ID("lookup-id"), typo),
		chromedp.Submit(chromedp.ID("lookup-id")),
		chromedp.WaitVisible(chromedp.ID("err-h")),
	)
	if h := eval(`document.getElementById("err-h").textContent`); h != "Check character does not match" {
		t.Errorf("typo heading = %q", h)
	}
	accessible("typo")
	shot("06-lookup-typo.png")

	// Phone width.
	do("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	for _, p := range []struct{ path, wait, name string }{
		{"/ui/failures/" + id, "failure-h", "07-failure-phone.png"},
		{"/ui/failures", "list-h", "08-list-phone.png"},
		{"/ui/", "ov-h", "09-overview-phone.png"},
	} {
		do("open "+p.path+" on a phone", chromedp.Navigate(b.URL+p.path), chromedp.WaitVisible(chromedp.ID(p.wait)))
		accessible(p.name)
		shot(p.name)
	}

	// Sign out, and the pages are closed again.
	do("sign out", chromedp.Click(chromedp.CSS(`form[action="/ui/signout"] button`)), chromedp.WaitVisible(chromedp.ID("key")))
	do("reopen", chromedp.Navigate(b.URL+"/ui/failures/"+id), chromedp.WaitVisible(chromedp.ID("key")))

	time.Sleep(200 * time.Millisecond) // let the last console events arrive
	mu.Lock()
	defer mu.Unlock()
	for _, e := range consoleErrors {
		t.Errorf("console: %s", e)
	}
	t.Logf("screenshots in %s", dir)
}

// flip changes one character of an ID into another valid one.
func flip(c byte) string {
	if c == '7' {
		return "8"
	}
	return "7"
}

type (
	browserDo   = func(what string, steps ...chromedp.Action[chromedp.Void])
	browserEval = func(expr string) string
	browserShot = func(name string)
)

// openBrowser starts a headless Chromium for one test and returns its tab's
// context and the three steps the browser tests are written in: do (fail
// the test on an error), eval (a JavaScript expression's string value) and
// shot (a full-page screenshot saved under dir).
func openBrowser(t *testing.T, bin, dir string) (context.Context, browserDo, browserEval, browserShot) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Without these the browser reaches for the network, which is
		// closed here, and stalls or logs errors.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTimeout)

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatalf("save screenshot: %v", err)
		}
	}
	return ctx, do, eval, shot
}

// TestBrowserProblems walks the Problems view, a problem and its suggested rule in Chromium, with
// the accessibility checks of TestBrowser, and saves screenshots.
func TestBrowserProblems(t *testing.T) {
	t.Parallel()
	bin, dir := chromium(t)
	b := uitest.Setup(t, uitest.Options{})
	unknownID, _ := b.ReportProblems(t)

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

	do("sign in", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(b.URL+"/ui/signin"), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), b.RulesKey), chromedp.Submit(chromedp.ID("key")), chromedp.WaitVisible(chromedp.ID("ov-h")))
	do("open problems", chromedp.Click(chromedp.CSS(`nav a[href="/ui/problems"]`)), chromedp.WaitVisible(chromedp.ID("problems-h")))
	accessible("problems")
	if first := eval(`document.querySelector("table.problems tbody tr").className`); first != "unclassified" {
		t.Errorf("the first problem is not an unclassified one (class %q)", first)
	}
	if n := eval(`String(document.querySelectorAll("svg.spark rect").length)`); n == "0" {
		t.Error("the sparklines have no bars")
	}
	shot("10-problems.png")

	do("open a failure", chromedp.Navigate(b.URL+"/ui/failures/"+unknownID), chromedp.WaitVisible(chromedp.ID("failure-h")))
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
	do("problems on a phone", chromedp.Navigate(b.URL+"/ui/problems"), chromedp.WaitVisible(chromedp.ID("problems-h")))
	accessible("problems-phone")
	shot("13-problems-phone.png")
	t.Logf("screenshots in %s", dir)
}
