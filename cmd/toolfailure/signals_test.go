package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/pgcluster"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
	"github.com/omcp/toolfailure/internal/racetest"
	"github.com/omcp/toolfailure/store/postgres"
)

// binDir holds the binary that the fault tests build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// migrated returns the URL of a migrated PostgreSQL schema of the test's own, from the test
// binary's pool (pgtest.Migrated), for tests that need the service's tables but do not test
// migrating: the commands under test migrate it again at start-up, which then finds nothing to do.
func migrated(t *testing.T) string {
	t.Helper()
	return pgmigrated.URL(t)
}

// binary builds cmd/toolfailure once per test run: the fault tests kill a real process.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "toolfailure-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	path := filepath.Join(dir, "toolfailure")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return path, nil
})

// service is one `toolfailure serve` process.
type service struct {
	cmd    *exec.Cmd
	base   string
	output *logBuffer
	exited chan error
}

// logBuffer is the service's stdout and stderr, safe to read while the process writes it, and
// able to wait for a line: the tests take the service's own log lines as the signal that it has
// reached a state, rather than sleeping.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{})} }

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.changed)
	b.changed = make(chan struct{})
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the output holds substr, or the process exits, or timeout passes.
func (b *logBuffer) waitFor(t *testing.T, substr string, exited <-chan error, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		found, changed := strings.Contains(b.buf.String(), substr), b.changed
		b.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case err := <-exited:
			t.Fatalf("the service exited (%v) before it logged %q:\n%s", err, substr, b)
		case <-deadline.C:
			t.Fatalf("the service did not log %q within %s:\n%s", substr, timeout, b)
		}
	}
}

func startService(t *testing.T, dbURL string, extra ...string) *service {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr, "--database-url", dbURL}, extra...)...)
	out := newLogBuffer()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &service{cmd: cmd, base: "http://" + addr, output: out, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(s.base + "/healthz")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not ready:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createKey runs `toolfailure keys create` and returns the key.
func createKey(t *testing.T, dbURL string) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--database-url", dbURL).Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

type ack struct {
	id          correlation.ID
	class, code string
}

// load calls Classify from several goroutines until stop is closed and returns every answer that
// was acknowledged (HTTP 200 with a correlation ID); calls that fail are not acknowledged.
func load(t *testing.T, base, key string, stop <-chan struct{}) (wait func() []ack, acked func() int) {
	var (
		mu    sync.Mutex
		acks  []ack
		wg    sync.WaitGroup
		c     = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableCompression: true}}
		cases = []struct{ body, class, code string }{
			{`{"tool":"send_email","error":{"message":"upstream returned 503","httpStatus":503,"retryAfter":"30"},"toolAnnotations":{"idempotentHint":true}}`, "reliability", "retryable_transient_error"},
			{`{"tool":"read_file","error":{"message":"ENOENT: no such file or directory","type":"ENOENT"}}`, "capability", "resource_not_found"},
			{`{"tool":"create_issue","error":{"message":"Bad credentials","httpStatus":401}}`, "governance", "auth_required"},
		}
	)
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tc := cases[(w+i)%len(cases)]
				req, _ := http.NewRequest(http.MethodPost, base+"/toolfailure.v1.ClassifierService/Classify", strings.NewReader(tc.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := c.Do(req)
				if err != nil {
					time.Sleep(5 * time.Millisecond) // the service is gone; not acknowledged
					continue
				}
				body, err := io.ReadAll(res.Body)
				_ = res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					continue
				}
				var out struct {
					ToolFailure struct {
						CorrelationID string `json:"correlationId"`
						Code          string `json:"code"`
					} `json:"toolFailure"`
					Meta map[string]struct {
						Class string `json:"class"`
					} `json:"meta"`
				}
				if err := json.Unmarshal(body, &out); err != nil {
					t.Errorf("acknowledged answer is not JSON: %s", body)
					return
				}
				id, err := correlation.Parse(out.ToolFailure.CorrelationID)
				if err != nil {
					t.Errorf("acknowledged answer has a bad ID: %s", body)
					return
				}
				a := ack{id: id, code: out.ToolFailure.Code}
				for _, m := range out.Meta {
					a.class = m.Class
				}
				if a.class != tc.class || a.code != tc.code {
					t.Errorf("classified %s/%s, want %s/%s: %s", a.class, a.code, tc.class, tc.code, body)
				}
				mu.Lock()
				acks = append(acks, a)
				mu.Unlock()
			}
		})
	}
	wait = func() []ack {
		wg.Wait()
		return acks
	}
	acked = func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acks)
	}
	return wait, acked
}

// waitAcked waits until the load has had at least n more calls acknowledged than when it is called:
// the readiness signal that a load is under way, instead of a fixed time that a slow machine may not
// fill and a fast one wastes.
func waitAcked(t *testing.T, acked func() int, n int, timeout time.Duration) {
	t.Helper()
	target := acked() + n
	deadline := time.Now().Add(timeout)
	for acked() < target {
		if time.Now().After(deadline) {
			t.Fatalf("only %d calls acknowledged within %v, want %d", acked(), timeout, target)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// requireStored checks every acknowledged record in the database, with the class and code it was
// acknowledged with.
func requireStored(t *testing.T, dbURL string, acks []ack) {
	t.Helper()
	ctx := t.Context()
	s, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tenant, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acks {
		f, err := s.GetFailure(ctx, tenant.ID, a.id)
		if err != nil {
			t.Fatalf("acknowledged %s is not stored: %v", a.id, err)
		}
		if f.Class != a.class || f.Code != a.code {
			t.Fatalf("%s is stored as %s/%s, acknowledged as %s/%s", a.id, f.Class, f.Code, a.class, a.code)
		}
	}
}

// SIGKILL in the middle of a load loses no acknowledged record: each was committed before its
// answer was sent.
func TestSIGKILLLosesNoAcknowledgedRecord(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	key := createKey(t, dbURL)
	svc := startService(t, dbURL)
	stop := make(chan struct{})
	wait, acked := load(t, svc.base, key, stop)
	waitAcked(t, acked, 100, 30*time.Second)
	if err := svc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-svc.exited
	close(stop)
	acks := wait()
	if len(acks) == 0 {
		t.Fatal("nothing was acknowledged before the kill")
	}
	requireStored(t, dbURL, acks)
	t.Logf("%d acknowledged records, all stored", len(acks))
}

// SIGTERM in the middle of a load: calls in flight finish (their batches commit), the process
// exits 0, and every acknowledged record is stored.
func TestSIGTERMDrainsAndExitsZero(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	key := createKey(t, dbURL)
	svc := startService(t, dbURL)
	stop := make(chan struct{})
	wait, acked := load(t, svc.base, key, stop)
	waitAcked(t, acked, 100, 30*time.Second)
	if err := svc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-svc.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, svc.output)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after SIGTERM\n%s", svc.output)
	}
	close(stop)
	acks := wait()
	if len(acks) == 0 {
		t.Fatal("nothing was acknowledged before SIGTERM")
	}
	requireStored(t, dbURL, acks)
	t.Logf("%d acknowledged records, all stored; exit status 0", len(acks))
}

// SIGTERM with a drain delay, as the chart runs it: readiness fails at once, while the replica
// still answers calls on new connections and on ones it had (closing each after its answer, so
// that clients move to other replicas); then it closes the port, finishes what is in flight and
// exits 0. The service's own log lines mark the phases; nothing here waits on a clock.
func TestSIGTERMDrainFailsReadinessFirst(t *testing.T) {
	t.Parallel()
	dbURL := migrated(t)
	key := createKey(t, dbURL)
	// Long enough for the few calls below on a busy machine, twice that
	// under the race detector; the test ends when the process does (and
	// fails if the drain ended before the calls were made).
	drain := "3s"
	if racetest.Enabled {
		drain = "6s"
	}
	svc := startService(t, dbURL, "--drain-delay", drain, "--shutdown-grace", "20s")
	classify := func(c *http.Client) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, svc.base+"/toolfailure.v1.ClassifierService/Classify",
			strings.NewReader(`{"tool":"send_email","error":{"message":"upstream returned 503","httpStatus":503}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("Classify while draining: %v\n%s", err, svc.output)
		}
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "tf_") {
			t.Fatalf("Classify while draining: %d %s", res.StatusCode, body)
		}
		return res
	}
	probe := func(path string) int {
		t.Helper()
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		res, err := c.Get(svc.base + path)
		if err != nil {
			t.Fatalf("GET %s while draining: %v", path, err)
		}
		_ = res.Body.Close()
		return res.StatusCode
	}
	pooled := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	if res := classify(pooled); res.Close {
		t.Fatal("the connection was closed before any signal")
	}
	stop := make(chan struct{})
	wait, _ := load(t, svc.base, key, stop)

	if err := svc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	svc.output.waitFor(t, "draining: /readyz answers 503", svc.exited, 30*time.Second)
	for _, path := range []string{"/readyz", "/healthz"} {
		if code := probe(path); code != http.StatusServiceUnavailable {
			t.Errorf("GET %s while draining: %d, want 503", path, code)
		}
	}
	if code := probe("/livez"); code != http.StatusOK {
		t.Errorf("GET /livez while draining: %d, want 200: draining is not dying", code)
	}
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	classify(fresh)
	if res := classify(pooled); !res.Close {
		t.Error("an answer on a kept-alive connection while draining did not close it")
	}
	// Still inside the drain: the calls above were served while readiness failed.
	if strings.Contains(svc.output.String(), "closing the listener") {
		t.Fatalf("the drain ended before the calls above were made; they prove nothing:\n%s", svc.output)
	}
	if code := probe("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz after the calls: %d, want 503", code)
	}

	svc.output.waitFor(t, "closing the listener", svc.exited, 60*time.Second)
	select {
	case err := <-svc.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, svc.output)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after the listener closed\n%s", svc.output)
	}
	close(stop)
	acks := wait()
	requireStored(t, dbURL, acks)
	out := svc.output.String()
	if i, j := strings.Index(out, "draining: /readyz answers 503"), strings.Index(out, "stopped"); i < 0 || j < i {
		t.Errorf("the log does not drain, then stop:\n%s", out)
	}
	t.Logf("%d acknowledged records under load through the drain, all stored; exit status 0", len(acks))
}

// The hardest case: PostgreSQL stopped hard, the service carrying on from its journal, then the
// service killed with SIGKILL while records wait in the journal. After PostgreSQL and the service
// start again, every record ever acknowledged is in PostgreSQL.
func TestSIGKILLWhileJournaling(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	if !serveHasFlag(t, "journal-dir") {
		t.Skip("serve has no --journal-dir flag in this build")
	}
	cluster := pgcluster.Start(t)
	dbURL := cluster.URL()
	key := createKey(t, dbURL)
	journalDir := t.TempDir()
	svc := startService(t, dbURL, "--journal-dir", journalDir, "--journal-after", "300ms")
	stop := make(chan struct{})
	wait, acked := load(t, svc.base, key, stop)
	waitAcked(t, acked, 100, 30*time.Second)
	cluster.StopImmediate()
	// Records wait in the journal once the service has switched to it and acknowledged more.
	svc.output.waitFor(t, "local journal", svc.exited, 30*time.Second)
	waitAcked(t, acked, 100, 30*time.Second)
	if err := svc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-svc.exited
	close(stop)
	acks := wait()
	if !strings.Contains(svc.output.String(), "local journal") {
		t.Fatalf("the service never switched to its journal:\n%s", svc.output)
	}

	cluster.Restart()
	svc = startService(t, dbURL, "--journal-dir", journalDir)
	// The restarted service replays its journal by itself; wait until the last record is there.
	waitStored(t, dbURL, acks, 30*time.Second)
	requireStored(t, dbURL, acks)
	t.Logf("%d acknowledged records, all stored after the journal was replayed", len(acks))
}

// waitStored waits until every acknowledged record is in the database.
func waitStored(t *testing.T, dbURL string, acks []ack, timeout time.Duration) {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tenant, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(timeout)
	for _, a := range acks {
		for {
			_, err := s.GetFailure(t.Context(), tenant.ID, a.id)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("acknowledged %s not stored %v after the restart: %v", a.id, timeout, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func serveHasFlag(t *testing.T, name string) bool {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "--"+name+" ") || strings.HasPrefix(line, "-"+name+" ") {
			return true
		}
	}
	return false
}
