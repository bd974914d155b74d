package sqlite

import (
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// The durability promise rests on these settings; a driver upgrade that stopped applying a DSN
// parameter must not go unnoticed.
func TestConnectionSettings(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "toolfailure.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	for _, tc := range []struct {
		name   string
		reader bool
		pragma string
		want   string
	}{
		{"WriterJournalMode", false, "journal_mode", "wal"},
		{"WriterSynchronousFull", false, "synchronous", "2"},
		{"WriterForeignKeys", false, "foreign_keys", "1"},
		{"WriterBusyTimeout", false, "busy_timeout", "10000"},
		{"ReaderQueryOnly", true, "query_only", "1"},
		{"ReaderBusyTimeout", true, "busy_timeout", "10000"},
	} {
		db := s.writer
		if tc.reader {
			db = s.readers
		}
		var got string
		if err := db.QueryRowContext(t.Context(), "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: PRAGMA %s = %s, want %s", tc.name, tc.pragma, got, tc.want)
		}
	}
	if n := s.writer.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("writer pool allows %d connections, want 1", n)
	}
	if _, err := s.readers.ExecContext(t.Context(), "CREATE TABLE nope (x)"); err == nil {
		t.Error("a reader connection could write")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	home := func(dir string, err error) func() (string, error) {
		return func() (string, error) { return dir, err }
	}
	noHome := home("", errors.New("no home"))
	for _, tc := range []struct {
		name string
		goos string
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{"XDGDataHome", "linux", map[string]string{"XDG_DATA_HOME": "/data"}, home("/home/u", nil),
			filepath.Join("/data", "toolfailure", "toolfailure.db")},
		{"RelativeXDGIgnored", "linux", map[string]string{"XDG_DATA_HOME": "data"}, home("/home/u", nil),
			filepath.Join("/home/u", ".local", "share", "toolfailure", "toolfailure.db")},
		{"Home", "darwin", nil, home("/Users/u", nil),
			filepath.Join("/Users/u", ".local", "share", "toolfailure", "toolfailure.db")},
		{"WindowsLocalAppData", "windows", map[string]string{"LocalAppData": "/appdata"}, home("/home/u", nil),
			filepath.Join("/appdata", "toolfailure", "toolfailure.db")},
		{"NoHome", "linux", nil, noHome, "toolfailure.db"},
	} {
		if got := defaultPath(tc.goos, env(tc.env), tc.home); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// A lock released while Open waits is taken; one held past the wait is refused with ErrLocked.
// The wait runs on synctest's clock, so the test does not sleep.
func TestLockWaitsForARelease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "toolfailure.db.lock")
	synctest.Test(t, func(t *testing.T) {
		held, err := acquireLock(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(lockWait / 2)
			_ = held.Close()
		}()
		start := time.Now()
		got, err := acquireLock(t.Context(), path)
		if err != nil {
			t.Fatalf("a lock released after %v: %v, want it taken", lockWait/2, err)
		}
		if waited := time.Since(start); waited < lockWait/2 || waited > lockWait/2+2*lockPoll {
			t.Errorf("took the lock after %v, want about %v", waited, lockWait/2)
		}

		start = time.Now()
		_, err = acquireLock(t.Context(), path)
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("a lock held throughout: %v, want ErrLocked", err)
		}
		if waited := time.Since(start); waited < lockWait {
			t.Errorf("refused after %v, want after the whole wait of %v", waited, lockWait)
		}
		_ = got.Close()
	})
}
