package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/store/postgres"
)

// served is one in-process `toolfailure serve` that a test stops when it chooses.
type served struct {
	url    string
	cancel context.CancelFunc
	done   chan int
	mu     sync.Mutex
	errBuf strings.Builder
}

// serveUntilStopped starts serve with args and returns once it listens; it fails the test,
// with what serve printed, if serve exits first.
func serveUntilStopped(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{cancel: cancel, done: make(chan int, 1)}
	errR, errW := io.Pipe()
	go func() {
		s.done <- runWith(ctx, defaultDeps(), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), io.Discard, errW)
		_ = errW.Close()
	}()
	t.Cleanup(func() { s.stop(t) })
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	urlc := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			s.mu.Lock()
			s.errBuf.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := addr.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case s.url = <-urlc:
		return s
	case code := <-s.done:
		<-scanned
		s.done <- code
		t.Fatalf("serve exited %d instead of starting:\n%s", code, s.stderr())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start:\n%s", s.stderr())
	}
	return nil
}

func (s *served) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errBuf.String()
}

// stop ends serve as SIGTERM does and checks that it exited 0; a second call does nothing.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	if code := <-s.done; code != 0 {
		t.Errorf("serve exited %d when stopped:\n%s", code, s.stderr())
	}
}

func (s *served) get(t *testing.T, path string) (int, string) {
	t.Helper()
	res, err := http.Get(s.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// rpc posts a Connect JSON call and returns the status and the decoded answer.
func (s *served) rpc(t *testing.T, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// waitReady polls /readyz until it answers want (status and body prefix) or the time is up.
func (s *served) waitReady(t *testing.T, status int, prefix string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		code, body := s.get(t, "/readyz")
		if code == status && strings.HasPrefix(body, prefix) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d %q after %v, want %d %q…\n%s", code, body, within, status, prefix, s.stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const classifyRPC = "/toolfailure.v1.ClassifierService/Classify"

// TestReplicaRestartsDuringOutage: a replica with an outage journal that is restarted while
// PostgreSQL cannot be reached starts anyway, says so in its log and in /readyz ("ok, degraded:
// …"), classifies with the keys and rules its previous run saw and keeps the records in the
// journal, and, once PostgreSQL answers, migrates and replays them: every ID it gave out is then
// in the database. Before, it exited 1 until the database was back.
func TestReplicaRestartsDuringOutage(t *testing.T) {
	t.Parallel()
	directURL := migrated(t)
	proxy, dbURL := pgtest.NewProxy(t, directURL)
	if code, _, errOut := runCmd(t, "migrate", "--database-url", dbURL); code != 0 {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--database-url", dbURL)
	if code != 0 {
		t.Fatalf("keys create: exit %d %s", code, errOut)
	}
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	journalDir := filepath.Join(t.TempDir(), "journal")
	args := []string{"--database-url", dbURL, "--journal-dir", journalDir, "--journal-after", "200ms"}
	const body = `{"tool": "send_email", "error": {"message": "upstream returned 503", "httpStatus": 503}}`

	// The first run sees the key and the tenant's rules, as a replica in service does.
	first := serveUntilStopped(t, args...)
	if code, res := first.rpc(t, classifyRPC, key, body); code != http.StatusOK {
		t.Fatalf("Classify with the database up: %d %v", code, res)
	}
	first.stop(t)
	if _, err := os.Stat(filepath.Join(journalDir, lastGoodFile)); err != nil {
		t.Fatalf("the last good answers were not saved beside the journal: %v", err)
	}

	// The database goes away; the replica restarts.
	proxy.Down()
	second := serveUntilStopped(t, args...)
	for _, want := range []string{"PostgreSQL does not answer", "outage journal", "migrated once PostgreSQL answers"} {
		if !strings.Contains(second.stderr(), want) {
			t.Errorf("the start-up log does not say %q:\n%s", want, second.stderr())
		}
	}
	second.waitReady(t, http.StatusOK, "ok, degraded: ", 10*time.Second)
	code, res := second.rpc(t, classifyRPC, key, body)
	if code != http.StatusOK {
		t.Fatalf("Classify during the outage: %d %v\n%s", code, res, second.stderr())
	}
	cid := res["toolFailure"].(map[string]any)["correlationId"].(string)
	if code, res := second.rpc(t, "/toolfailure.v1.FailureService/GetFailure", key, `{"correlationId": "`+cid+`"}`); code != http.StatusOK {
		t.Fatalf("GetFailure of a journaled record during the outage: %d %v", code, res)
	}

	// The database is back: the replica migrates, replays the journal and is plainly ready.
	proxy.Up()
	second.waitReady(t, http.StatusOK, "ok\n", 30*time.Second)
	if !strings.Contains(second.stderr(), "schema migrated") {
		t.Errorf("the log does not say that the schema was migrated:\n%s", second.stderr())
	}
	pg, err := postgres.Open(t.Context(), directURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	tenant, err := pg.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	id, err := correlation.Parse(cid)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := pg.GetFailure(t.Context(), tenant.ID, id); err != nil || f.Tool != "send_email" {
		t.Fatalf("the record acknowledged during the outage is not in PostgreSQL: %+v %v", f, err)
	}
	second.stop(t)
	t.Logf("the restarted replica's log:\n%s", second.stderr())
}

// TestFirstStartDuringOutage: a replica that has never reached its database starts with a
// journal too, and migrates the empty schema once the database answers.
func TestFirstStartDuringOutage(t *testing.T) {
	t.Parallel()
	directURL := pgtest.URL(t)
	proxy, dbURL := pgtest.NewProxy(t, directURL)
	proxy.Down()
	s := serveUntilStopped(t, "--database-url", dbURL, "--journal-dir", filepath.Join(t.TempDir(), "journal"))
	s.waitReady(t, http.StatusOK, "ok, degraded: ", 10*time.Second)
	proxy.Up()
	s.waitReady(t, http.StatusOK, "ok\n", 30*time.Second)
	pg, err := postgres.Open(t.Context(), directURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if n, err := pg.CountAPIKeys(t.Context()); err != nil || n != 0 {
		t.Fatalf("the schema after the database came back: %d keys, %v; want it migrated and empty", n, err)
	}
	s.stop(t)
}
