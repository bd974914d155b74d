package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/sqlite"
)

// backend is everything the commands need of a store.
type backend interface {
	server.Store
	Migrate(ctx context.Context) error
	EnsureTenant(ctx context.Context, name string) (store.Tenant, error)
	CreateAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error)
	CountAPIKeys(ctx context.Context) (int, error)
	Close() error
}

// openBackend opens PostgreSQL for a postgres:// URL and the embedded store
// otherwise: for an empty URL at its default path, or at the path of a
// "sqlite:PATH" URL. embedded reports which one it chose.
func openBackend(ctx context.Context, databaseURL string, opts ...postgres.Option) (b backend, where string, embedded bool, err error) {
	switch {
	case databaseURL == "":
		path := sqlite.DefaultPath()
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, "", true, err // names the file and, when locked, the process holding it
		}
		return s, path, true, nil
	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "//")
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, "", true, err // names the file and, when locked, the process holding it
		}
		return s, path, true, nil
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		s, err := postgres.Open(ctx, databaseURL, opts...)
		if err != nil {
			return nil, "", false, fmt.Errorf("open PostgreSQL: %w", err)
		}
		return s, redactURL(databaseURL), false, nil
	default:
		return nil, "", false, fmt.Errorf("unsupported database URL %q: use postgres://… or sqlite:PATH", redactURL(databaseURL))
	}
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
