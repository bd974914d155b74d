package sqlite_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest"
)

// fill writes n records of about 2 KB to a new store at path and closes it, which checkpoints
// them into the database file.
func fill(t *testing.T, path string, n int) {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
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
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the write-ahead log outlived the store: the records are not all in the file")
	}
}

// overwritePages writes garbage over the pages of the file from the fraction from of its length
// on (never over the first page, the header): what a bad disk or a stray program does to a file.
// The records that fill writes are the file's last pages, its schema the first ones. It works on
// an open store too, whose connections have not read those pages yet.
func overwritePages(t *testing.T, path string, from float64) {
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
	if info.Size() < 8*pageSize {
		t.Fatalf("the file has %d bytes, too few pages to damage", info.Size())
	}
	first := max(1, int64(float64(info.Size()/pageSize)*from)) * pageSize
	garbage := bytes.Repeat([]byte{0x5a}, int(info.Size()-first))
	if _, err := f.WriteAt(garbage, first); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesDamagedFile: a file whose pages were overwritten is refused at start-up, with
// what is wrong and what to do, rather than opened to fail every call later while reporting
// healthy.
func TestOpenRefusesDamagedFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		from float64  // the fraction of the file from which pages are overwritten
		say  []string // besides the path, ErrCorrupt and what to do
	}{
		// The schema reads, the records do not: only the integrity check finds it.
		{"Records", 0.5, []string{"integrity check", "quick_check"}},
		// Even the schema is unreadable: the first statement finds it.
		{"Schema", 0, []string{"malformed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "toolfailure.db")
			fill(t, path, 200)
			overwritePages(t, path, tc.from)
			s, err := sqlite.Open(t.Context(), path)
			if err == nil {
				_ = s.Close()
				t.Fatal("a damaged file opened")
			}
			t.Logf("refused: %v", err)
			if !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("error %v does not wrap store.ErrCorrupt", err)
			}
			for _, want := range append([]string{path, "damaged", "backup"}, tc.say...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			// The refusal released the file: a restored copy can be opened in its place.
			for _, name := range []string{path, path + "-wal", path + "-shm"} {
				if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
			}
			fill(t, path, 1)
		})
	}
}

// TestDamageFoundLaterFailsPing: a file damaged while the store is open is found by the first
// call that reads a damaged page; that call fails with store.ErrCorrupt, and from then on Ping
// (which health checks use) fails with the reason instead of reporting the store healthy.
func TestDamageFoundLaterFailsPing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "toolfailure.db")
	fill(t, path, 200)
	s := open(t, path)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping before the damage: %v", err)
	}
	overwritePages(t, path, 0.5)
	tenant := store.Tenant{ID: 1}
	_, err := s.ListFailures(t.Context(), tenant.ID, store.ListQuery{Limit: store.MaxListLimit})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("ListFailures over damaged pages: %v, want store.ErrCorrupt", err)
	}
	err = s.Ping(t.Context())
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("Ping after the damage was found: %v, want store.ErrCorrupt with the reason", err)
	}
	if err := s.QuickCheck(t.Context()); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("QuickCheck: %v, want store.ErrCorrupt", err)
	}
}
