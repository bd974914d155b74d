package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/pgtest"
)

// TestServeMetrics scrapes serve --metrics-listen as Prometheus would: the documented names are
// there with their low-cardinality labels (a tenant's own code is folded into "other"), next to
// the group-commit, pool and read-replica instruments; the API port does not serve them.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	if code, _, errOut := runCmd(t, "migrate", "--database-url", dbURL); code != 0 {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup,rules", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	key := lines[len(lines)-1]
	// The same database stands in for the replica: this test is about the wiring; the replica
	// itself is tested on a real streaming replica in store/postgres.
	url, _, errText := startServe(t, "--database-url", dbURL, "--read-database-url", dbURL, "--metrics-listen", "127.0.0.1:0")
	m := regexp.MustCompile(`Prometheus metrics at (http://127\.0\.0\.1:\d+/metrics)`).FindStringSubmatch(errText)
	if m == nil {
		t.Fatalf("serve does not say where the metrics are:\n%s", errText)
	}
	if !strings.Contains(errText, "lookups go to the read replica") {
		t.Errorf("serve does not say that lookups go to the replica:\n%s", errText)
	}
	metricsURL := m[1]

	rulesFile := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rulesFile, []byte(`rules:
  - name: quota
    priority: 100
    mode: enforce
    messageMatches: "quota"
    then:
      class: capability
      code: mail_quota_exceeded
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "rules", "apply", "-f", rulesFile, "--server", url, "--key", key); code != 0 {
		t.Fatalf("rules apply: exit %d %s", code, errOut)
	}
	post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, `{"tool": "t", "error": {"httpStatus": 401}}`)
	post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, `{"tool": "t", "error": {"message": "over quota"}}`)
	// An ID nobody issued: the replica does not have it, so the primary is asked too.
	req, _ := http.NewRequest(http.MethodPost, url+"/toolfailure.v1.FailureService/GetFailure",
		strings.NewReader(`{"correlationId": "tf_`+strings.Repeat("0", 26)+`0"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}

	body := get(t, metricsURL)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^toolfailure_classifications_total\{[^}]*toolfailure_class="governance"[^}]*toolfailure_code="auth_required"[^}]*toolfailure_tenant_name="acme"[^}]*\} 1$`),
		regexp.MustCompile(`(?m)^toolfailure_classify_duration_seconds_count\{[^}]*toolfailure_class="governance",toolfailure_outcome="stored"[^}]*\} 1$`),
		regexp.MustCompile(`(?m)^toolfailure_classifications_total\{[^}]*toolfailure_class="capability"[^}]*toolfailure_code="other"[^}]*\} 1$`),
		regexp.MustCompile(`(?m)^toolfailure_store_commit_queue(_records)?(\{[^}]*\})? 0$`),
		regexp.MustCompile(`(?m)^toolfailure_store_pool_connections(_connections)?\{[^}]*state="idle"[^}]*\} \d+$`),
		regexp.MustCompile(`(?m)^toolfailure_store_replica_fallbacks(_lookups)?_total\{[^}]*operation="get_failure"[^}]*reason="not_found"[^}]*\} 1$`),
		regexp.MustCompile(`(?m)^toolfailure_rules_cache_version(_versions)?\{`),
		regexp.MustCompile(`(?m)^go_goroutines `),
	} {
		if !want.MatchString(body) {
			t.Errorf("/metrics has no line matching %s", want)
		}
	}
	// Codes outside the baseline vocabulary never become series of their own.
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(line, "toolfailure_classifications_total{") && !regexp.MustCompile(`toolfailure_code="(`+baselineCodePattern+`|other)"`).MatchString(line) {
			t.Errorf("a classification series with a code outside the baseline: %s", line)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusOK {
		t.Error("the API port serves /metrics; it must stay on --metrics-listen")
	}
}

const baselineCodePattern = `capability_unsupported|resource_not_found|invalid_input|retryable_transient_error|auth_required|permission_denied|policy_blocked|user_action_required`

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", url, res.StatusCode, b)
	}
	return string(b)
}

// TestReadReplicaFlag: the replica's URL, like the primary's, is named in help and never shown,
// and a replica URL that cannot work is a usage error naming the flag, not a failure at the first
// lookup.
func TestReadReplicaFlag(t *testing.T) {
	t.Setenv("TOOLFAILURE_READ_DATABASE_URL", "postgres://reader:"+secretPassword+"@127.0.0.1:1/db")
	code, out, errOut := runCmd(t, "serve", "--help")
	if code != 0 || !strings.Contains(out, "(from $TOOLFAILURE_READ_DATABASE_URL)") || !strings.Contains(out, "(from $TOOLFAILURE_METRICS_LISTEN)") {
		t.Errorf("serve --help does not name the replica's and the metrics' variables: exit %d\n%s", code, out)
	}
	if strings.Contains(out+errOut, secretPassword) {
		t.Errorf("serve --help shows the replica's password:\n%s", out)
	}
	t.Setenv("TOOLFAILURE_READ_DATABASE_URL", "")

	for name, args := range map[string][]string{
		"embedded store":  {"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "tf.db"), "--read-database-url", "postgres://reader@127.0.0.1:1/db"},
		"not PostgreSQL":  {"--database-url", pgtest.URL(t), "--read-database-url", "mysql://reader:" + secretPassword + "@db/x"},
		"metrics address": {"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "tf2.db"), "--metrics-listen", "256.0.0.1:x"},
	} {
		code, _, errOut := runCmd(t, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
		switch {
		case name == "metrics address" && (code != 1 || !strings.Contains(errOut, "--metrics-listen")):
			t.Errorf("%s: exit %d, want 1 with a reason naming --metrics-listen: %s", name, code, errOut)
		case name != "metrics address" && (code != 2 || !strings.Contains(errOut, "--read-database-url")):
			t.Errorf("%s: exit %d, want 2 with a reason naming --read-database-url: %s", name, code, errOut)
		}
		if strings.Contains(errOut, secretPassword) {
			t.Errorf("%s: the error shows the password: %s", name, errOut)
		}
	}
}
