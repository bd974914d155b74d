package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/ruleset"
)

const rulesYAML = `rules:
  - name: mail-needs-confirmation
    priority: 100
    tool: "send_*"
    when: 'error.details.structuredContent.reason_code == "explicit_production_confirmation_required"'
    then:
      class: governance
      code: user_action_required
      agentGuidance: "Ask the user to confirm the production send, then call {{tool}} again."
  - name: quota
    priority: 50
    jsonrpcCode: [-32001]
    when: 'error.details.data.code == "QUOTA_EXCEEDED"'
    then:
      class: reliability
      code: retryable_transient_error
      retryable: true
      retryAfter: fromError
`

const confirmCase = `{"tool": "send_email", "error": {"message": "confirmation required",
  "details": {"structuredContent": {"reason_code": "explicit_production_confirmation_required"}}}}`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRulesTestOffline(t *testing.T) {
	t.Parallel()
	rules := writeFile(t, "rules.yaml", rulesYAML)
	plain := writeFile(t, "case.json", confirmCase)
	expect := writeFile(t, "expect.json", `{"request": {"tool": "search", "error": {"jsonrpcCode": -32001, "retryAfter": "30",
		"details": {"data": {"code": "QUOTA_EXCEEDED"}}}}, "expect": {"class": "reliability", "ruleId": "quota"}}`)
	code, out, errOut := runCmd(t, "rules", "test", "-f", rules, "--case", plain, "--case", expect)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"governance / user_action_required, decided by mail-needs-confirmation",
		"guidance: Ask the user to confirm the production send, then call send_email again.",
		"✓ mail-needs-confirmation [tenant, enforce]: matched",
		"reliability / retryable_transient_error, decided by quota",
		"expect.json: ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	wrong := writeFile(t, "wrong.json", `{"request": `+confirmCase+`, "expect": {"code": "policy_blocked"}}`)
	code, _, errOut = runCmd(t, "rules", "test", "-f", rules, "--case", wrong)
	if code != 1 || !strings.Contains(errOut, "FAIL: got governance/user_action_required by mail-needs-confirmation, expected (any)/policy_blocked") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}

	code, out, _ = runCmd(t, "rules", "test", "-f", rules, "--case", plain, "--json")
	if code != 0 || !strings.Contains(out, `"io.modelcontextprotocol/toolFailure"`) {
		t.Fatalf("exit %d, output %s", code, out)
	}
}

// An invalid file is refused before anything is sent, naming the file's
// line, the rule and the position inside the condition.
func TestRulesInvalidFile(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(rulesYAML, `error.details.data.code == "QUOTA_EXCEEDED"`, `error.details.data.code == QUOTA`, 1)
	bad = strings.Replace(bad, "retryable: true", "retryable: true\n      extra: 1", 1)
	rules := writeFile(t, "rules.yaml", bad)
	code, _, errOut := runCmd(t, "rules", "apply", "-f", rules, "--server", "http://127.0.0.1:1", "--key", "unused")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	if !strings.Contains(errOut, `rules.yaml:18:7: rules[1] "quota": then.extra: unknown field`) ||
		!strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("stderr = %s", errOut)
	}
	rules = writeFile(t, "rules.yaml", strings.Replace(rulesYAML, `error.details.data.code == "QUOTA_EXCEEDED"`, `error.details.data.code == QUOTA`, 1))
	code, _, errOut = runCmd(t, "rules", "test", "-f", rules, "--case", writeFile(t, "c.json", confirmCase))
	if code != 1 || !strings.Contains(errOut, `rules.yaml:13: rules[1] "quota": when: 1:28: undeclared reference to 'QUOTA'`) {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}

// serveProcess starts `toolfailure serve` as a separate process, as a
// replica runs, and returns its URL once it answers /healthz.
func serveProcess(t *testing.T, bin, dbURL string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, "serve", "--listen", addr, "--database-url", dbURL)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		if res, err := http.Get(base + "/healthz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Two server processes on one PostgreSQL: rules applied through one are
// in force on the other within a second, and export gives them back.
func TestRulesApplyAcrossReplicas(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	// Two real server processes, each with its own pool and its own
	// LISTEN connection, as two replicas would run.
	bin := filepath.Join(t.TempDir(), "toolfailure")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a := serveProcess(t, bin, dbURL)
	b := serveProcess(t, bin, dbURL)
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,rules", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]

	classifier := toolfailurev1connect.NewClassifierServiceClient(connect.NewClient(
		connecthttp.NewTransport(http.DefaultClient, b), bearerInterceptor(key)))
	details, _ := structpb.NewValue(map[string]any{"structuredContent": map[string]any{"reason_code": "explicit_production_confirmation_required"}})
	classify := func() string {
		res, err := classifier.Classify(t.Context(), &v1.ClassifyRequest{Tool: "send_email", Error: &v1.RawError{Details: details}})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetRuleId()
	}
	if got := classify(); got == "mail-needs-confirmation" {
		t.Fatal("rule in force before apply")
	}

	rules := writeFile(t, "rules.yaml", rulesYAML)
	code, out, errOut = runCmd(t, "rules", "apply", "-f", rules, "--server", a, "--key", key, "--dry-run")
	if code != 0 || !strings.Contains(out, "+ mail-needs-confirmation (added)") || !strings.Contains(out, "dry run: nothing applied") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "rules", "apply", "-f", rules, "--server", a, "--key", key)
	if code != 0 || !strings.Contains(out, "+ quota (added)") || !strings.Contains(out, "applied: the rule set is at version 1") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	applied := time.Now()
	for classify() != "mail-needs-confirmation" {
		if time.Since(applied) > time.Second {
			t.Fatal("the other replica did not apply the rules within a second")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("in force on the other replica after %v", time.Since(applied))

	code, out, _ = runCmd(t, "rules", "apply", "-f", rules, "--server", a, "--key", key)
	if code != 0 || !strings.Contains(out, "no changes; the rule set stays at version 1") {
		t.Fatalf("re-apply: exit %d\n%s", code, out)
	}

	exported := filepath.Join(t.TempDir(), "exported.yaml")
	if code, _, errOut := runCmd(t, "rules", "export", "--server", b, "--key", key, "-o", exported); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	code, out, _ = runCmd(t, "rules", "apply", "-f", exported, "--server", a, "--key", key)
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("applying the export changed something: exit %d\n%s", code, out)
	}

	// A set the service refuses changes nothing and names the rule.
	badRules := writeFile(t, "bad.yaml", "rules:\n  - name: x\n    tool: a\n    then: {class: governance, code: x, retryable: true}\n")
	code, _, errOut = runCmd(t, "rules", "apply", "-f", badRules, "--server", a, "--key", key)
	if code != 1 || !strings.Contains(errOut, `bad.yaml:4: rules[0] "x": then.retryable: only class reliability may be retryable`) {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}

func bearerInterceptor(key string) connect.ClientInterceptor {
	return func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", "Bearer "+key)
			return next(ctx, spec)
		}
	}
}

// rules export --baseline needs no server and writes one rules file that
// holds every pack rule, in the packs' words.
func TestRulesExportBaseline(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd(t, "rules", "export", "--baseline")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := ruleset.ParseFile([]byte(stdout))
	if err != nil {
		t.Fatalf("the export is not a rules file: %v", err)
	}
	want := map[string]bool{}
	for _, r := range ruleset.BaselinePackRules() {
		want[r.Name] = true
	}
	if len(f.Rules) != len(want) || len(want) == 0 {
		t.Fatalf("%d rules exported, want the %d pack rules", len(f.Rules), len(want))
	}
	for _, r := range f.Rules {
		if !want[r.Name] {
			t.Errorf("exported rule %q is not a pack rule", r.Name)
		}
	}
}
