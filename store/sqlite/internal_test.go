package sqlite

import (
	"errors"
	"path/filepath"
	"testing"
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
