package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest"
)

// embeddedWithRecords makes an embedded store with a key of tenant "acme" (created first, so that
// it sits in the file's first pages) and n records of about 2 KB after it, and returns the key.
func embeddedWithRecords(t *testing.T, path string, n int) string {
	t.Helper()
	code, out, errOut := runCmd(t, "keys", "create", "--tenant", "acme", "--scopes", "report,lookup", "--database-url", "sqlite:"+path)
	key := strings.TrimSpace(out)
	if code != 0 || apikey.Check(key) != nil {
		t.Fatalf("keys create: exit %d %q %s", code, out, errOut)
	}
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tenant, err := s.EnsureTenant(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(map[string]string{"message": strings.Repeat("connection reset by peer ", 80)})
	for range n {
		if _, _, err := storetest.Insert(t.Context(), s, store.Failure{
			TenantID: tenant.ID, ID: uuid.Must(uuid.NewV7()), Tool: "read_file",
			Class: store.ClassReliability, Code: "retryable_transient_error", Error: msg,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil { // checkpoints the records into the file
		t.Fatal(err)
	}
	return key
}

// overwriteSecondHalf writes garbage over the second half of the file's pages, where the
// records are: what a bad disk or a stray program does to a file.
func overwriteSecondHalf(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header := make([]byte, 100)
	if _, err := f.ReadAt(header, 0); err != nil {
		t.Fatal(err)
	}
	pageSize := int64(binary.BigEndian.Uint16(header[16:18]))
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	first := info.Size() / pageSize / 2 * pageSize
	if _, err := f.WriteAt(bytes.Repeat([]byte{0x5a}, int(info.Size()-first)), first); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestServeRefusesDamagedEmbeddedStore: serve runs SQLite's quick integrity check at start-up and
// refuses a damaged file with a clear reason, instead of reporting healthy while every call
// answers "unavailable, retry shortly".
func TestServeRefusesDamagedEmbeddedStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tf.db")
	embeddedWithRecords(t, path, 200)
	overwriteSecondHalf(t, path)
	// A serve that did start would run until its context ends; it must not get that far.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--database-url", "sqlite:" + path}, &stdout, &stderr)
	errOut := stderr.String()
	if code != 1 {
		t.Fatalf("serve on a damaged store: exit %d, want 1\n%s", code, errOut)
	}
	for _, want := range []string{path, "integrity check", "damaged", "backup"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
}

// TestReadyzReportsDamageFoundLater: a file damaged while serve runs is found by the first call
// that reads a damaged page, which answers data_loss rather than "retry shortly"; from then on
// /readyz (and /healthz) answer 503 with the reason.
func TestReadyzReportsDamageFoundLater(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tf.db")
	key := embeddedWithRecords(t, path, 200)
	url, _, _ := startServe(t, "--database-url", "sqlite:"+path)
	status := func(p string) (int, string) {
		t.Helper()
		res, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := status("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz before the damage: %d %s", code, body)
	}
	overwriteSecondHalf(t, path)

	req, _ := http.NewRequest(http.MethodPost, url+"/toolfailure.v1.FailureService/ListFailures", strings.NewReader(`{"pageSize": 1000}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"data_loss"`) || strings.Contains(string(body), "retry shortly") {
		t.Fatalf("ListFailures over damaged pages: %d %s, want data_loss", res.StatusCode, body)
	}

	// The probe's answer is kept for a second; wait for the next one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := status("/readyz")
		if code == http.StatusServiceUnavailable {
			if !strings.Contains(body, "integrity check") || !strings.Contains(body, "malformed") {
				t.Fatalf("/readyz: 503 %q, want the reason", body)
			}
			if code, alias := status("/healthz"); code != http.StatusServiceUnavailable || alias != body {
				t.Fatalf("/healthz: %d %q, want what /readyz says", code, alias)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d %q after the damage was found", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
