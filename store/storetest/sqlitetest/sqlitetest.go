// Package sqlitetest hands a test a file of the embedded (SQLite) store on which the migrations
// have already run, for tests that need the tables but do not test migrating. Migrating parses
// every statement of every migration, which under the race detector costs a test more than most of
// what it then checks; the test binary migrates one file once, keeps its bytes, and writes a copy
// of them for each test, so that every test still starts from exactly what migrating leaves.
//
// It is apart from storetest so that the PostgreSQL store's tests do not link SQLite.
package sqlitetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/omcp/toolfailure/store/sqlite"
)

// Path writes a migrated database file into a new directory of t's and returns its path. The
// caller opens it with sqlite.Open; a Migrate on it finds nothing to do.
func Path(t testing.TB) string {
	t.Helper()
	b, err := migrated()
	if err != nil {
		t.Fatalf("sqlitetest: %v", err)
	}
	path := filepath.Join(t.TempDir(), "toolfailure.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("sqlitetest: %v", err)
	}
	return path
}

// migrated is the bytes of a database file straight after migrating, made once per test binary.
var migrated = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "sqlitetest-")
	if err != nil {
		return nil, fmt.Errorf("migrate a template: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "toolfailure.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("migrate a template: %w", err)
	}
	if err := errors.Join(s.Migrate(ctx), s.Close()); err != nil {
		return nil, fmt.Errorf("migrate a template: %w", err)
	}
	// Closing the last connection checkpoints the write-ahead log into the file and removes it:
	// the file alone is then the whole database. A log left behind would hold part of it.
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("migrate a template: %s-wal is left after closing", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("migrate a template: %w", err)
	}
	return b, nil
})
