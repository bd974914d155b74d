package sqlite_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/sqlite"
	"github.com/omcp/toolfailure/store/storetest"
	"github.com/omcp/toolfailure/store/storetest/sqlitetest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	var paths sync.Map // store.Store → string
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store {
			// A copy of a migrated file: the suite tests the store, not migrating (the tests
			// below migrate empty files themselves); Migrate then finds nothing to do.
			path := sqlitetest.Path(t)
			s := open(t, path)
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			paths.Store(s, path)
			return s
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			path, ok := paths.Load(s)
			if !ok {
				t.Fatal("Reopen of a store that Open did not return")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			reopened := open(t, path.(string))
			paths.Store(reopened, path)
			return reopened
		},
	})
}

type testBundle struct {
	path  string
	store *sqlite.Store
}

// setup opens a migrated store in a fresh directory, from a copy of a migrated file.
func setup(t *testing.T) *testBundle {
	t.Helper()
	path := sqlitetest.Path(t)
	s := open(t, path)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return &testBundle{path: path, store: s}
}

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// A second server on the same file is refused with an error that says what to do, and the file
// is free again once the first one closes.
func TestSecondOpenRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)

	_, err := sqlite.Open(t.Context(), b.path)
	if !errors.Is(err, sqlite.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	for _, want := range []string{b.path + ".lock", "another toolfailure is probably running", "process"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	if err := b.store.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, b.path)
	if err := again.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// Writers queue on the one writer connection while readers keep reading: nothing is lost and
// nobody sees SQLITE_BUSY.
func TestConcurrentInsertsLoseNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}

	const writers, each = 16, 20
	var (
		wg      sync.WaitGroup
		done    atomic.Bool
		errs    = make(chan error, writers+4)
		written = make([][][16]byte, writers)
	)
	for w := range writers {
		wg.Go(func() {
			for range each {
				id, err := uuid.NewV7()
				if err != nil {
					errs <- err
					return
				}
				_, _, err = storetest.Insert(ctx, b.store, store.Failure{
					TenantID: tenant.ID, ID: id, Tool: "search", Class: store.ClassCapability,
					Code: "invalid_input", Error: json.RawMessage(`{"message":"bad query"}`),
				})
				if err != nil {
					errs <- err
					return
				}
				written[w] = append(written[w], id)
			}
		})
	}
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for !done.Load() {
				if _, err := b.store.ListFailures(ctx, tenant.ID, store.ListQuery{Limit: 50}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	got, err := b.store.ListFailures(ctx, tenant.ID, store.ListQuery{Limit: store.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[16]byte]bool{}
	for _, f := range got {
		seen[f.ID] = true
	}
	for _, ids := range written {
		for _, id := range ids {
			if !seen[id] {
				t.Errorf("acknowledged record %s is missing", uuid.UUID(id))
			}
		}
	}
	if len(got) != writers*each {
		t.Fatalf("%d records stored, want %d", len(got), writers*each)
	}
}

// Paths are passed to SQLite as URIs; characters that mean something in a URI must still name
// the file they spell, and missing directories are created.
func TestOpenAwkwardPath(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new dir", "a?b#c%20d e.db")
	s := open(t, path)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path given: %v", err)
	}
}

func TestOpenEmptyPath(t *testing.T) {
	t.Parallel()
	if _, err := sqlite.Open(t.Context(), ""); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
}
