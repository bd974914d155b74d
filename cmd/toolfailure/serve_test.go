package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"connectrpc.com/grpcreflect/v2"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
)

// migrated returns the URL of a migrated PostgreSQL schema of the test's own, from the test
// binary's pool (pgtest.Migrated; signals_test.go's TestMain runs it), for tests that need the
// service's tables but do not test migrating: the commands under test migrate it again at
// start-up, which then finds nothing to do.
func migrated(t *testing.T) string {
	t.Helper()
	return pgmigrated.URL(t)
}

// startServe runs "serve" with args until the test ends and returns its
// URL, everything it printed on stdout by the time it listened, and its
// stderr so far.
func startServe(t *testing.T, args ...string) (url, stdout, stderr string) {
	t.Helper()
	return startServeWith(t, defaultDeps(), args...)
}

// startServeWith is startServe with the commands' parts given.
func startServeWith(t *testing.T, d deps, args ...string) (url, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, d, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), outW, errW)
		_ = outW.Close()
		_ = errW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d after its context ended", code)
		}
	})
	var mu sync.Mutex
	var outBuf, errBuf strings.Builder
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			mu.Lock()
			outBuf.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			mu.Lock()
			errBuf.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := addr.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
	}()
	// Start-up compiles every pack's rules and loads the model; under the
	// race detector, beside other packages' tests on a small machine, that
	// can take tens of seconds, so the wait is generous: it bounds a hang,
	// it does not time the start.
	select {
	case url = <-urlc:
	case <-time.After(2 * time.Minute):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("serve did not start within 2 minutes; its stderr so far:\n%s", errBuf.String())
	}
	time.Sleep(50 * time.Millisecond) // let stdout's scanner catch up
	mu.Lock()
	defer mu.Unlock()
	return url, outBuf.String(), errBuf.String()
}

func post(t *testing.T, url, key, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %v", url, res.StatusCode, out)
	}
	return out
}

// TestEmbeddedFirstStart is the README's zero-setup path: serve with no
// database URL says where its file is, prints one all-scope key on the
// first start only, and that key classifies and looks up.
func TestEmbeddedFirstStart(t *testing.T) {
	t.Parallel()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	url, out, errOut := startServe(t, "--database-url", "sqlite:"+dbFile)
	if !strings.Contains(errOut, "embedded store at "+dbFile) || !strings.Contains(errOut, "--database-url postgres://") {
		t.Errorf("start-up does not say where the embedded store is and how to switch:\n%s", errOut)
	}
	m := regexp.MustCompile(`export TOOLFAILURE_KEY=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("first start printed no key:\n%s", out)
	}
	key := m[1]
	if apikey.Check(key) != nil {
		t.Fatalf("printed key %q is malformed", key)
	}
	res := post(t, url+"/toolfailure.v1.ClassifierService/Classify", key, `{"tool": "t", "error": {"httpStatus": 401}}`)
	cid := res["toolFailure"].(map[string]any)["correlationId"].(string)
	got := post(t, url+"/toolfailure.v1.FailureService/GetFailure", key, `{"correlationId": "`+cid+`"}`)
	if got["failure"].(map[string]any)["code"] != "auth_required" {
		t.Fatalf("lookup = %v", got)
	}

	// The CLI lookup reads the same record.
	code, text, stderr := runCmd(t, "lookup", "--server", url, "--key", key, strings.ToLower(cid))
	if code != 0 || !strings.Contains(text, "governance / auth_required") || !strings.Contains(text, cid) {
		t.Fatalf("lookup: exit %d\n%s%s", code, text, stderr)
	}
	code, text, _ = runCmd(t, "failures", "list", "--server", url, "--key", key, "--class", "governance")
	if code != 0 || !strings.Contains(text, cid) {
		t.Fatalf("failures list: exit %d\n%s", code, text)
	}
	code, _, stderr = runCmd(t, "lookup", "--server", url, "--key", key, cid[:len(cid)-1]+flipCheck(cid[len(cid)-1]))
	if code != 2 || !strings.Contains(stderr, "mistyped") {
		t.Fatalf("lookup with a typo: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCmd(t, "lookup", "--server", url, "--key", key, cid[:len(cid)-1])
	if code != 2 || !strings.Contains(stderr, "check character is missing") {
		t.Fatalf("lookup without the check character: exit %d: %s", code, stderr)
	}

	// Reflection answers without a key; health does too.
	rc := grpcreflect.NewClient(connect.NewClient(connecthttp.NewTransport(h2c(), url, connecthttp.WithGRPC())))
	stream := rc.NewStream(t.Context())
	names, err := stream.ListServices()
	_ = stream.Close()
	if err != nil || !containsName(names, "toolfailure.v1.ClassifierService") || !containsName(names, "toolfailure.v1.RuleService") {
		t.Fatalf("reflection: %v %v", names, err)
	}
	hres, err := http.Get(url + "/healthz")
	if err != nil || hres.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", hres, err)
	}
	hres.Body.Close()
}

// TestEmbeddedSecondStartPrintsNoKey: the bootstrap happens once.
func TestEmbeddedSecondStartPrintsNoKey(t *testing.T) {
	t.Parallel()
	dbFile := filepath.Join(t.TempDir(), "tf.db")
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "ops", "--scopes", "lookup", "--database-url", "sqlite:"+dbFile)
	if code != 0 || apikey.Check(strings.TrimSpace(out)) != nil {
		t.Fatalf("keys create: exit %d %q %s", code, out, errOut)
	}
	_, out, _ = startServe(t, "--database-url", "sqlite:"+dbFile)
	if strings.Contains(out, "TOOLFAILURE_KEY") {
		t.Fatalf("a store with keys got a bootstrap key:\n%s", out)
	}
}

// TestPostgresGetsNoBootstrapKey: nothing is created on PostgreSQL unless
// asked for, and keys create prints the key alone on stdout's last line.
func TestPostgresGetsNoBootstrapKey(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	if code, _, errOut := runCmd(t, "migrate", "--database-url", dbURL); code != 0 {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	url, out, _ := startServe(t, "--database-url", dbURL)
	if strings.Contains(out, "TOOLFAILURE_KEY") {
		t.Fatalf("PostgreSQL got a bootstrap key:\n%s", out)
	}
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report", "--database-url", dbURL)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || apikey.Check(lines[len(lines)-1]) != nil {
		t.Fatalf("keys create: exit %d %q %s", code, out, errOut)
	}
	post(t, url+"/toolfailure.v1.ClassifierService/Classify", lines[len(lines)-1], `{"tool": "t", "error": {"message": "boom"}}`)
	for _, bad := range [][]string{
		{"keys", "create", "--scopes", "report", "--database-url", dbURL},
		{"keys", "create", "--tenant", "x", "--scopes", "admin", "--database-url", dbURL},
	} {
		if code, _, _ := runCmd(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func flipCheck(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

func containsName[T ~string](names []T, want string) bool {
	for _, n := range names {
		if string(n) == want {
			return true
		}
	}
	return false
}

func h2c() *http.Client {
	tr := &http.Transport{}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}
