package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/pgtest/pgmigrated"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestStore runs the store conformance suite once, and with it the check that every statement the
// store sends is fit for a distributed PostgreSQL: the suite is what exercises every query, and
// running it twice would double the package's time for nothing.
func TestStore(t *testing.T) {
	t.Parallel()
	rec := &sqlRecorder{seen: map[string]bool{}}
	// Reopen needs the URL that a store was opened with; the store does not expose it.
	var urls sync.Map // store.Store → string
	// Not parallel: t.Run returns once every parallel test of the suite has ended.
	suitePassed := t.Run("Suite", func(t *testing.T) {
		storetest.Run(t, storetest.Harness{
			Open: func(t *testing.T) store.Store {
				u := migrated(t)
				s := openTraced(t, u, rec)
				urls.Store(s, u)
				return s
			},
			Reopen: func(t *testing.T, s store.Store) store.Store {
				u, ok := urls.Load(s)
				if !ok {
					t.Fatal("Reopen of a store that Open did not return")
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				reopened := openTraced(t, u.(string), rec)
				urls.Store(reopened, u)
				return reopened
			},
		})
	})
	t.Run("EveryQueryCarriesTenant", func(t *testing.T) {
		if !suitePassed {
			t.Skip("the suite failed, so its statements are not all recorded")
		}
		requireEveryQueryCarriesTenant(t, rec)
	})
}

// migrated returns the URL of a schema from the binary's pool of migrated ones (pgtest.Migrated),
// for tests that need the store's tables but do not test migrating.
func migrated(t *testing.T) string {
	t.Helper()
	return pgmigrated.URL(t)
}

type testBundle struct {
	url    string
	schema string
}

// setup gives a test its own empty, unmigrated schema.
func setup(t *testing.T) *testBundle {
	t.Helper()
	u := pgtest.URL(t)
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return &testBundle{url: u, schema: parsed.Query().Get("search_path")}
}

func open(t *testing.T, databaseURL string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), databaseURL)
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

func connect(t *testing.T, databaseURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// Replicas starting together all migrate: each must succeed, and each migration must run once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const replicas = 4
	stores := make([]*postgres.Store, replicas)
	for i := range stores {
		stores[i] = open(t, b.url)
	}
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() { errs[i] = s.Migrate(t.Context()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	var applied int
	err := connect(t, b.url).QueryRow(t.Context(),
		`SELECT count(*) FROM toolfailure_goose_db_version WHERE version_id = 1 AND is_applied`).Scan(&applied)
	if err != nil {
		t.Fatal(err)
	}
	if applied != 1 {
		t.Fatalf("migration 1 recorded %d times, want 1", applied)
	}
}

// The schema named by search_path in the URL, and nothing else, receives the tables: Migrate's
// database/sql handle must carry the pool's settings.
func TestMigrateUsesSearchPath(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := open(t, b.url)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	var schemas []string
	rows, err := connect(t, b.url).Query(t.Context(),
		`SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_name = 'failures'
		 AND table_schema = ANY ($1)`, []string{b.schema, "public"})
	if err != nil {
		t.Fatal(err)
	}
	schemas, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 1 || schemas[0] != b.schema {
		t.Fatalf("failures table in schemas %v, want only %s", schemas, b.schema)
	}
}

// A store that cannot reach its database says so at Open, without repeating the password.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, err := postgres.Open(t.Context(), "postgres://toolfailure:s3cr3t-pw@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("Open of an unreachable server succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-pw") {
		t.Fatalf("error reveals the password: %v", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("error does not name the server: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("Open took %v to give up", elapsed)
	}
}

func TestOpenRejectsBadURL(t *testing.T) {
	t.Parallel()
	_, err := postgres.Open(t.Context(), "postgres://u:s3cr3t-pw@host:notaport/db")
	if err == nil {
		t.Fatal("Open of a malformed URL succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-pw") {
		t.Fatalf("error reveals the password: %v", err)
	}
}
