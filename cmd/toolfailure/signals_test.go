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
	"github.com/omcp/toolfailure/store/postgres"
)

// binDir holds the binary that the fault tests build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
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
	output *bytes.Buffer
	exited chan error
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
	out := &bytes.Buffer{}
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
func load(t *testing.T, base, key string, stop <-chan struct{}) func() []ack {
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
	return func() []ack {
		wg.Wait()
		return acks
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
	dbURL := pgtest.URL(t)
	key := createKey(t, dbURL)
	svc := startService(t, dbURL)
	stop := make(chan struct{})
	wait := load(t, svc.base, key, stop)
	time.Sleep(1500 * time.Millisecond)
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
	dbURL := pgtest.URL(t)
	key := createKey(t, dbURL)
	svc := startService(t, dbURL)
	stop := make(chan struct{})
	wait := load(t, svc.base, key, stop)
	time.Sleep(1500 * time.Millisecond)
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
	wait := load(t, svc.base, key, stop)
	time.Sleep(time.Second)
	cluster.StopImmediate()
	time.Sleep(1500 * time.Millisecond)
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
