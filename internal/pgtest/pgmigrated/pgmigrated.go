// Package pgmigrated hands a test a PostgreSQL schema of its own with the service's tables, from
// the test binary's pool of migrated schemas (pgtest.Migrated), for tests that need the tables
// but do not test migrating. The package's TestMain must call pgtest.Main or pgtest.Run.
//
// It is apart from pgtest because it opens the production store, whose own tests use pgtest.
package pgmigrated

import (
	"context"
	"testing"

	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/store/postgres"
)

// URL returns the URL of a migrated schema that is the test's alone until it ends.
func URL(tb testing.TB) string {
	tb.Helper()
	return pgtest.Migrated(tb, "postgres", func(ctx context.Context, u string) error {
		s, err := postgres.Open(ctx, u)
		if err != nil {
			return err
		}
		defer s.Close()
		return s.Migrate(ctx)
	})
}
