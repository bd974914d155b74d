package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/sqlite"
)

// openBackend opens PostgreSQL for a postgres:// URL and the embedded store
// otherwise: for an empty URL at its default path, or at the path of a
// "sqlite:PATH" URL. embedded reports which one it chose. Both are a whole
// store.Store; what only PostgreSQL has (replicas, pool metrics) the
// commands ask of *postgres.Store.
func openBackend(ctx context.Context, databaseURL string, opts ...postgres.Option) (b store.Store, where string, embedded bool, err error) {
	switch {
	case databaseURL == "":
		path := sqlite.DefaultPath()
		s, err := openSQLite(ctx, path)
		if err != nil {
			return nil, "", true, err
		}
		return s, path, true, nil
	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "//")
		s, err := openSQLite(ctx, path)
		if err != nil {
			return nil, "", true, err
		}
		return s, path, true, nil
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		s, err := postgres.Open(ctx, databaseURL, opts...)
		if err != nil {
			return nil, "", false, fmt.Errorf("open PostgreSQL: %w", err)
		}
		return s, redactURL(databaseURL), false, nil
	default:
		return nil, "", false, fmt.Errorf("%w %q: use postgres://… or sqlite:PATH", errUnsupportedURL, redactURL(databaseURL))
	}
}

// errUnsupportedURL is a database URL of no known kind: a usage error.
var errUnsupportedURL = errors.New("unsupported database URL")

// storeLockedError is the embedded store's file held by another process.
type storeLockedError struct {
	path string // the database file, absolute
	err  error
}

func (e *storeLockedError) Error() string { return e.err.Error() }
func (e *storeLockedError) Unwrap() error { return e.err }

func openSQLite(ctx context.Context, path string) (*sqlite.Store, error) {
	s, err := sqlite.Open(ctx, path)
	if errors.Is(err, sqlite.ErrLocked) {
		abs, aerr := filepath.Abs(path)
		if aerr != nil {
			abs = path
		}
		return nil, &storeLockedError{path: abs, err: err}
	}
	return s, err // the error names the file
}

// openFailed is the error of a command that could not open its store. The
// embedded store is locked by the process that has it open, usually a
// running serve; the one line says which file and what to do about it.
func openFailed(cmd *cobra.Command, err error) error {
	if errors.Is(err, errUnsupportedURL) {
		return &exitError{code: 2, err: fmt.Errorf("--database-url: %w", err)}
	}
	var locked *storeLockedError
	if !errors.As(err, &locked) {
		return failed(err)
	}
	holder := ""
	if b, rerr := os.ReadFile(locked.path + ".lock"); rerr == nil {
		if pid := strings.TrimSpace(string(b)); pid != "" {
			holder = " (process " + pid + ")"
		}
	}
	return failedf("the embedded store %s is in use by a running toolfailure%s: stop that server and run %q again, or pass --database-url for another database",
		locked.path, holder, cmd.CommandPath())
}

// redactURL hides a password in a database URL before it is printed.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	at := strings.IndexByte(rest, '@')
	if at < 0 {
		return u
	}
	userinfo := rest[:at]
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":***" + rest[at:]
	}
	return u
}
