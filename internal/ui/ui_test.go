package ui_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/ui"
	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestSignIn(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})

	t.Run("pages need a session", func(t *testing.T) {
		br := b.NewBrowser(t)
		res := br.Get("/ui/failures?tool=x")
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/ui/signin?next=%2Fui%2Ffailures%3Ftool%3Dx" {
			t.Fatalf("status %d, Location %q", res.Status, res.Header.Get("Location"))
		}
	})

	t.Run("a lookup key signs in", func(t *testing.T) {
		br := b.NewBrowser(t)
		res := br.Post("/ui/signin", url.Values{"key": {"  " + b.LookupKey + "\n"}, "next": {"/ui/failures?tool=x"}}, nil)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/ui/failures?tool=x" {
			t.Fatalf("status %d, Location %q", res.Status, res.Header.Get("Location"))
		}
		setCookie := res.Header.Get("Set-Cookie")
		for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/ui/", "Max-Age=28800"} {
			if !strings.Contains(setCookie, attr) {
				t.Errorf("Set-Cookie %q lacks %s", setCookie, attr)
			}
		}
		// The browser never holds the key, nor anything that reveals it.
		hash := apikey.Hash(b.LookupKey)
		for _, secret := range []string{b.LookupKey, hex.EncodeToString(hash), base64.RawURLEncoding.EncodeToString(hash), base64.StdEncoding.EncodeToString(hash)} {
			if strings.Contains(setCookie, secret) {
				t.Errorf("the cookie contains the key or its hash")
			}
		}
		if page := br.Get("/ui/"); page.Status != http.StatusOK || !strings.Contains(page.Body, "Tenant <strong>acme</strong>") {
			t.Errorf("overview after sign-in: %d", page.Status)
		}
	})

	for _, tc := range []struct {
		name, key string
		status    int
		message   string
	}{
		{"malformed key", "sk-not-ours", http.StatusUnauthorized, "That is not a toolfailure API key"},
		{"unknown key", "tfk_AAAAAAAA_" + strings.Repeat("A", 43), http.StatusUnauthorized, "Unknown API key"},
		{"key without lookup scope", "", http.StatusForbidden, "lacks the lookup scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := tc.key
			if key == "" {
				key = b.ReportOnlyKey
			}
			br := b.NewBrowser(t)
			res := br.Post("/ui/signin", url.Values{"key": {key}}, nil)
			if res.Status != tc.status || !strings.Contains(res.Body, tc.message) {
				t.Errorf("status %d, want %d with %q; body: %s", res.Status, tc.status, tc.message, res.Body)
			}
			if res.Header.Get("Set-Cookie") != "" {
				t.Errorf("a refused sign-in set a cookie")
			}
			if strings.Contains(res.Body, key) {
				t.Errorf("the refused key is echoed in the page")
			}
		})
	}

	t.Run("cross-site sign-in is refused", func(t *testing.T) {
		br := b.NewBrowser(t)
		res := br.Post("/ui/signin", url.Values{"key": {b.LookupKey}}, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
		if res.Status != http.StatusForbidden || res.Header.Get("Set-Cookie") != "" {
			t.Errorf("status %d, Set-Cookie %q", res.Status, res.Header.Get("Set-Cookie"))
		}
	})

	t.Run("open redirects are refused", func(t *testing.T) {
		for _, next := range []string{"https://evil.example/", "//evil.example/ui/", "/api", "/ui/\\evil"} {
			br := b.NewBrowser(t)
			res := br.Post("/ui/signin", url.Values{"key": {b.LookupKey}, "next": {next}}, nil)
			if loc := res.Header.Get("Location"); loc != "/ui/" {
				t.Errorf("next=%q redirected to %q", next, loc)
			}
		}
	})

	t.Run("sessions expire and sign out", func(t *testing.T) {
		br := b.NewBrowser(t)
		br.SignIn(b.LookupKey)
		res := br.Post("/ui/signout", nil, nil)
		if res.Status != http.StatusSeeOther || !strings.Contains(res.Header.Get("Set-Cookie"), "Max-Age=0") {
			t.Errorf("sign out: %d %q", res.Status, res.Header.Get("Set-Cookie"))
		}
		if res := br.Get("/ui/"); res.Status != http.StatusSeeOther {
			t.Errorf("after sign-out: %d", res.Status)
		}
	})

	t.Run("forged and foreign cookies are refused", func(t *testing.T) {
		br := b.NewBrowser(t)
		br.SignIn(b.LookupKey)
		u, _ := url.Parse(b.URL + "/ui/")
		cookies := br.Client.Jar.Cookies(u)
		if len(cookies) != 1 {
			t.Fatalf("%d cookies", len(cookies))
		}
		v := []byte(cookies[0].Value)
		v[len(v)/2] ^= 1
		br.Client.Jar.SetCookies(u, []*http.Cookie{{Name: cookies[0].Name, Value: string(v), Path: "/ui/"}})
		if res := br.Get("/ui/"); res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "session has expired") {
			t.Errorf("tampered cookie: %d", res.Status)
		}

		// A cookie sealed by another deployment's secret.
		other := uitest.Setup(t, uitest.Options{})
		br2 := other.NewBrowser(t)
		br2.SignIn(other.LookupKey)
		u2, _ := url.Parse(other.URL + "/ui/")
		br.Client.Jar.SetCookies(u, br2.Client.Jar.Cookies(u2))
		if res := br.Get("/ui/"); res.Status != http.StatusUnauthorized {
			t.Errorf("foreign cookie: %d", res.Status)
		}
	})
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)
	b.Clock.Advance(8*time.Hour + time.Second)
	if res := br.Get("/ui/"); res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "Sign in again") {
		t.Errorf("expired session: %d", res.Status)
	}
}

func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	for _, pg := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[pg], func(t *testing.T) {
			t.Parallel()
			b := uitest.Setup(t, uitest.Options{Postgres: pg})
			status := int32(503)
			mine := b.Classify(t, b.ReportKey, &v1.ClassifyRequest{Tool: "acme_tool", Error: &v1.RawError{Message: "acme down", HttpStatus: &status}})
			theirs := b.Classify(t, b.GlobexKey, &v1.ClassifyRequest{Tool: "globex_secret_tool", Error: &v1.RawError{Message: "globex down", HttpStatus: &status}})

			br := b.NewBrowser(t)
			br.SignIn(b.LookupKey)
			if res := br.Get("/ui/failures/" + mine); res.Status != http.StatusOK || !strings.Contains(res.Body, "acme_tool") {
				t.Errorf("own failure: %d", res.Status)
			}
			res := br.Get("/ui/failures/" + theirs)
			if res.Status != http.StatusNotFound || strings.Contains(res.Body, "globex_secret_tool") || strings.Contains(res.Body, "globex down") {
				t.Errorf("other tenant's failure: status %d (want 404 and nothing of it)", res.Status)
			}
			for _, path := range []string{"/ui/failures", "/ui/", "/ui/?range=30d"} {
				if res := br.Get(path); strings.Contains(res.Body, "globex") || strings.Contains(res.Body, theirs) {
					t.Errorf("%s shows the other tenant's data", path)
				}
			}
			if res := br.Get("/ui/failures?tool=globex_secret_tool"); strings.Contains(res.Body, theirs) || !strings.Contains(res.Body, "No failures match") {
				t.Errorf("filtering by the other tenant's tool finds its failures")
			}
			// The same holds the other way round.
			br2 := b.NewBrowser(t)
			br2.SignIn(b.GlobexKey)
			if res := br2.Get("/ui/failures/" + mine); res.Status != http.StatusNotFound {
				t.Errorf("globex sees acme's failure: %d", res.Status)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	status := int32(429)
	id := b.Classify(t, b.ReportKey, &v1.ClassifyRequest{Tool: "search", Error: &v1.RawError{Message: "slow down", HttpStatus: &status}})
	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)

	body := id[3:]
	for _, pasted := range []string{
		id,
		"  " + id + "\n",
		strings.ToLower(id),
		body,
		strings.ToLower(body),
		body[:9] + " " + body[9:18] + "-" + body[18:],
	} {
		res := br.Get("/ui/lookup?id=" + url.QueryEscape(pasted))
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/ui/failures/"+id {
			t.Errorf("lookup %q: %d → %q", pasted, res.Status, res.Header.Get("Location"))
		}
	}
	// A non-canonical path is redirected to the canonical one.
	if res := br.Get("/ui/failures/" + strings.ToLower(body)); res.Header.Get("Location") != "/ui/failures/"+id {
		t.Errorf("lower-case path: %d %q", res.Status, res.Header.Get("Location"))
	}

	// One wrong character: the check character catches it, and says so.
	typo := []byte(id)
	i := len(typo) - 5
	typo[i] = map[bool]byte{true: '1', false: '2'}[typo[i] != '1']
	res := br.Get("/ui/lookup?id=" + string(typo))
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "Check character does not match") || !strings.Contains(res.Body, `aria-invalid="true"`) {
		t.Errorf("typo: status %d; body: %s", res.Status, res.Body)
	}
	if !strings.Contains(res.Body, string(typo)) {
		t.Errorf("the mistyped ID is not shown back for comparison")
	}
	res = br.Get("/ui/lookup?id=" + url.QueryEscape("tf_hello<b>"))
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "Not a correlation ID") || strings.Contains(res.Body, "<b>") {
		t.Errorf("garbage: status %d", res.Status)
	}
	if res := br.Get("/ui/failures/" + string(typo)); res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "check character") {
		t.Errorf("typo in the path: %d", res.Status)
	}
	// A paste that lost its last character is told so.
	res = br.Get("/ui/lookup?id=" + id[:len(id)-1])
	if res.Status != http.StatusBadRequest || !strings.Contains(res.Body, "Check character missing") {
		t.Errorf("ID without its check character: status %d; body: %s", res.Status, res.Body)
	}
}

func TestFailurePage(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	status := int32(503)
	const (
		trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		span  = "00f067aa0ba902b7"
		// Secrets the redaction removes before the record is stored.
		bearer   = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
		password = "hunter2-correct-horse"
		apiKey   = "sk-live-0123456789abcdefghijklmnop"
	)
	xss := `<script>alert(1)</script><img src=x onerror="alert(2)">`
	details, _ := structpb.NewValue(map[string]any{
		"structuredContent": map[string]any{"reason_code": "quota", "note": xss},
		"password":          password,
	})
	idem := true
	id := b.Classify(t, b.ReportKey, &v1.ClassifyRequest{
		Tool: "send_email", Server: "mail-mcp",
		Error: &v1.RawError{
			Message:    "POST https://api.mail.test failed: 503 " + xss + " Authorization: Bearer " + bearer + " url=postgres://app:" + password + "@db:5432/app",
			Type:       "UpstreamError",
			HttpStatus: &status,
			RetryAfter: "30",
			Details:    details,
			Attributes: map[string]string{"api_key": apiKey, "http.route": "/send"},
		},
		ToolAnnotations: &v1.ToolAnnotations{IdempotentHint: &idem},
		Traceparent:     "00-" + trace + "-" + span + "-01",
	})
	// Others of the same tool and code, one outside the window, one of
	// another code, and one from another MCP server (whose send_email is
	// another tool).
	f, err := b.Store.GetFailure(context.Background(), b.Acme.ID, uitest.MustParse(t, id))
	if err != nil {
		t.Fatal(err)
	}
	near := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "mail-mcp", Class: f.Class, Code: f.Code, CreatedAt: f.CreatedAt.Add(-20 * time.Minute)})
	far := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "mail-mcp", Class: f.Class, Code: f.Code, CreatedAt: f.CreatedAt.Add(-3 * time.Hour)})
	other := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "mail-mcp", Class: "capability", Code: "invalid_input", CreatedAt: f.CreatedAt.Add(-time.Minute)})
	elsewhere := b.Insert(t, b.Acme, store.Failure{Tool: "send_email", Server: "bulk-mail-mcp", Class: f.Class, Code: f.Code, CreatedAt: f.CreatedAt.Add(-time.Minute)})

	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)
	res := br.Get("/ui/failures/" + id)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); csp != "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'" {
		t.Errorf("CSP = %q", csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Frame-Options": "DENY"} {
		if res.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, res.Header.Get(k), v)
		}
	}
	page := res.Body
	for _, want := range []string{
		`<span class="badge ` + f.Class + `">`,
		`<span class="code"><span class="visually-hidden">Code: </span>` + f.Code + `</span>`,
		"mail-mcp",
		`href="https://traces.example.test/trace/` + trace + `?span=` + span + `"`,
		`href="/ui/failures?trace=` + trace + `"`,
		"[REDACTED:",
		"UpstreamError",
		"503 Service Unavailable",
		"idempotentHint",
		`href="/ui/failures/` + near + `"`,
		"server=mail-mcp", // the link to the whole list keeps the server
		`href="/ui/rules/baseline/`,
		"&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("failure page lacks %q", want)
		}
	}
	for _, leak := range []string{bearer, password, apiKey, "<script>", "<img src=x", "onerror=\""} {
		if strings.Contains(page, leak) {
			t.Errorf("failure page contains %q", leak)
		}
	}
	for _, absent := range []string{far, other, elsewhere} {
		if strings.Contains(page, absent) {
			t.Errorf("nearby list shows %s, which is not the same server, code and hour", absent)
		}
	}
	if regexp.MustCompile(`<script|javascript:|style="`).MatchString(page) {
		t.Errorf("page has script, javascript: URLs or inline styles, which the CSP would block")
	}

	// The rule link works.
	rule := regexp.MustCompile(`href="(/ui/rules/[^"]+)"`).FindStringSubmatch(page)
	if rule == nil {
		t.Fatal("no rule link")
	}
	if res := br.Get(rule[1]); res.Status != http.StatusOK || !strings.Contains(res.Body, "built-in") {
		t.Errorf("rule page %s: %d", rule[1], res.Status)
	}
}

func TestListPage(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	now := time.Now()
	var ids []string
	for i := range 60 {
		class, code, tool := "reliability", "retryable_transient_error", "search"
		if i%3 == 0 {
			class, code, tool = "governance", "auth_required", "send_email"
		}
		ids = append(ids, b.Insert(t, b.Acme, store.Failure{Tool: tool, Class: class, Code: code, CreatedAt: now.Add(-time.Duration(60-i) * time.Minute)}))
	}
	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)

	res := br.Get("/ui/failures")
	if got := strings.Count(res.Body, `<tr>`) - 1; got != 50 {
		t.Fatalf("first page has %d rows, want 50", got)
	}
	if !strings.Contains(res.Body, ids[59]) || strings.Contains(res.Body, ids[0]) {
		t.Errorf("first page is not the newest 50")
	}
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(res.Body)
	if next == nil {
		t.Fatal("no link to the next page")
	}
	res = br.Get(strings.ReplaceAll(next[1], "&amp;", "&"))
	if got := strings.Count(res.Body, `<tr>`) - 1; got != 10 || !strings.Contains(res.Body, ids[0]) || strings.Contains(res.Body, `rel="next"`) {
		t.Errorf("second page: %d rows", got)
	}

	q := url.Values{"class": {"governance"}, "tool": {"send_email"}, "code": {"auth_required"},
		"since": {now.Add(-30 * time.Minute).UTC().Format("2006-01-02T15:04")}}
	res = br.Get("/ui/failures?" + q.Encode())
	if got := strings.Count(res.Body, `<tr>`) - 1; got < 9 || got > 10 {
		t.Errorf("filtered list: %d rows, want the 9 or 10 governance failures of the last 30 minutes", got)
	}
	if strings.Contains(res.Body, "retryable_transient_error</td>") {
		t.Errorf("filtered list shows another class")
	}
	if !strings.Contains(res.Body, `<option value="governance" selected>`) || !strings.Contains(res.Body, `value="send_email"`) {
		t.Errorf("the form does not keep the filters")
	}

	res = br.Get("/ui/failures?class=bogus&trace=xyz&since=yesterday")
	if res.Status != http.StatusBadRequest || strings.Count(res.Body, `aria-invalid="true"`) != 3 {
		t.Errorf("invalid filters: status %d, %d invalid fields", res.Status, strings.Count(res.Body, `aria-invalid="true"`))
	}
}

func TestOverview(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	now := time.Now()
	for i := range 12 {
		class, code := []string{"capability", "reliability", "governance"}[i%3], []string{"invalid_input", "retryable_transient_error", "policy_blocked"}[i%3]
		b.Insert(t, b.Acme, store.Failure{Tool: fmt.Sprintf("tool_%d", i%2), Class: class, Code: code, CreatedAt: now.Add(-time.Duration(i) * time.Hour)})
	}
	b.Insert(t, b.Acme, store.Failure{Tool: "old", Class: "capability", Code: "invalid_input", CreatedAt: now.Add(-48 * time.Hour)})
	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)
	res := br.Get("/ui/")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d", res.Status)
	}
	page := res.Body
	if !strings.Contains(page, "<strong>12</strong> failures") {
		t.Errorf("total is not 12 (the 48-hour-old one is outside the range)")
	}
	if got := strings.Count(page, `<rect class="seg `); got != 12 {
		t.Errorf("%d bar segments, want 12 (one per failure, each hour its own bar)", got)
	}
	for _, want := range []string{`<svg viewBox="0 0 720 240" role="img"`, `<title id="chart-title">`, `class="seg governance"`, "Top codes", "tool_0", "Chart data as a table"} {
		if !strings.Contains(page, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if res := br.Get("/ui/?range=7d"); !strings.Contains(res.Body, "<strong>13</strong> failures") {
		t.Errorf("7-day overview does not count 13")
	}
}

func TestRulePage(t *testing.T) {
	t.Parallel()
	rules := func(_ context.Context, tenantID int64, name string) (ui.Rule, error) {
		if name != "mail-needs-confirmation" {
			return ui.Rule{}, fmt.Errorf("rule %q: %w", name, store.ErrNotFound)
		}
		return ui.Rule{Name: name, Mode: "enforce", Priority: 100, Definition: "tool: \"send_*\"\nwhen: 'error.details.x == \"<b>\"'"}, nil
	}
	b := uitest.Setup(t, uitest.Options{Rules: rules})
	lookupOnly := b.NewBrowser(t)
	lookupOnly.SignIn(b.LookupKey)
	withRules := b.NewBrowser(t)
	withRules.SignIn(b.RulesKey)

	if res := lookupOnly.Get("/ui/rules/baseline/default"); res.Status != http.StatusOK || !strings.Contains(res.Body, "documented default") {
		t.Errorf("default rule: %d", res.Status)
	}
	if res := lookupOnly.Get("/ui/rules/baseline/no-such-rule"); res.Status != http.StatusNotFound {
		t.Errorf("unknown baseline rule: %d", res.Status)
	}
	res := lookupOnly.Get("/ui/rules/mail-needs-confirmation")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "needs the <code>rules</code> scope") || strings.Contains(res.Body, "send_*") {
		t.Errorf("tenant rule to a lookup-only key: %d", res.Status)
	}
	res = withRules.Get("/ui/rules/mail-needs-confirmation")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "tool: &#34;send_*&#34;") || strings.Contains(res.Body, "<b>") {
		t.Errorf("tenant rule to a rules key: %d; %s", res.Status, res.Body)
	}
	if res := withRules.Get("/ui/rules/gone"); res.Status != http.StatusNotFound {
		t.Errorf("unknown tenant rule: %d", res.Status)
	}
}

func TestRulePageFromStore(t *testing.T) {
	t.Parallel()
	for _, pg := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[pg], func(t *testing.T) {
			t.Parallel()
			b := uitest.Setup(t, uitest.Options{Postgres: pg, StoreRules: true})
			rs, ok := b.Store.(interface {
				CreateRule(context.Context, store.Rule) (store.Rule, error)
			})
			if !ok {
				t.Skip("this store has no rules")
			}
			spec := `{"name":"mail-needs-confirmation","priority":100,"mode":"shadow","tool":"send_*","then":{"class":"governance","code":"user_action_required"}}`
			if _, err := rs.CreateRule(context.Background(), store.Rule{TenantID: b.Acme.ID, Name: "mail-needs-confirmation", Priority: 100, Spec: []byte(spec)}); err != nil {
				t.Fatalf("CreateRule: %v", err)
			}
			br := b.NewBrowser(t)
			br.SignIn(b.RulesKey)
			res := br.Get("/ui/rules/mail-needs-confirmation")
			if res.Status != http.StatusOK || !strings.Contains(res.Body, "<dd>shadow</dd>") || !strings.Contains(res.Body, "&#34;tool&#34;: &#34;send_*&#34;") {
				t.Errorf("rule page: %d; %s", res.Status, res.Body)
			}
			// Another tenant's rule of the same name does not exist for it.
			br2 := b.NewBrowser(t)
			br2.SignIn(b.GlobexKey)
			if res := br2.Get("/ui/rules/mail-needs-confirmation"); res.Status != http.StatusNotFound {
				t.Errorf("globex sees acme's rule: %d", res.Status)
			}
		})
	}
}
