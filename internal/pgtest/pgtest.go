package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server used when TOOLFAILURE_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

const (
	envURL     = "TOOLFAILURE_TEST_DATABASE_URL"
	envRequire = "TOOLFAILURE_REQUIRE_POSTGRES"
)

// admin is the connection that creates and drops schemas. A *pgx.Conn is not safe for concurrent
// use and parallel tests share it, hence the mutex.
var admin struct {
	once sync.Once
	mu   sync.Mutex
	conn *pgx.Conn
	err  error
}

// URL returns the URL of a new, empty schema that lives until t ends. It skips t (or fails it, with
// TOOLFAILURE_REQUIRE_POSTGRES=1) when the server cannot be reached.
func URL(t testing.TB) string {
	t.Helper()
	if !connected(t) {
		return ""
	}
	schema, u := newSchema(t)
	t.Cleanup(func() {
		if err := dropSchema(schema); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return u
}

// connected opens the admin connection on first use, and reports whether it is there; when it is
// not, t has been skipped or failed.
func connected(t testing.TB) bool {
	t.Helper()
	admin.once.Do(func() {
		// The error is kept: every later test then skips at once instead of each waiting out its
		// own connection timeout.
		admin.conn, admin.err = connect(serverURL())
	})
	if admin.err != nil {
		unavailable(t, admin.err, os.Getenv(envRequire) == "1")
		return false
	}
	return true
}

// newSchema creates an empty schema and returns its name and the URL that selects it. The caller
// drops it.
func newSchema(t testing.TB) (schema, u string) {
	t.Helper()
	schema = "tft_" + randomHex(8)
	if err := adminExec(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: create schema %s: %v", schema, err)
	}
	u, err := withSearchPath(serverURL(), schema)
	if err != nil {
		_ = dropSchema(schema)
		t.Fatalf("pgtest: %s: %v", envURL, err)
	}
	return schema, u
}

func dropSchema(schema string) error {
	// Called from cleanups, when t.Context is already canceled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := adminExec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}

// serverURL is the URL of the server as configured, without a schema.
func serverURL() string {
	if u := os.Getenv(envURL); u != "" {
		return u
	}
	return DefaultURL
}

// connect opens the admin connection with a short timeout: an unreachable server should turn into
// a skip within seconds.
func connect(adminURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", envURL, err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	cfg.RuntimeParams["application_name"] = "toolfailure-pgtest"
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s@%s:%d/%s: %w", cfg.User, cfg.Host, cfg.Port, cfg.Database, err)
	}
	return conn, nil
}

// unavailable reports an unreachable server as a skip, or as a failure when the environment
// requires PostgreSQL.
func unavailable(t testing.TB, err error, require bool) {
	t.Helper()
	if require {
		t.Fatalf("pgtest: PostgreSQL is required (%s=1) but unavailable: %v", envRequire, err)
	}
	t.Skipf("pgtest: skipping, PostgreSQL is unavailable (set %s to use another server, %s=1 to fail instead): %v",
		envURL, envRequire, err)
}

func adminExec(ctx context.Context, sql string) error {
	admin.mu.Lock()
	defer admin.mu.Unlock()
	_, err := admin.conn.Exec(ctx, sql)
	return err
}

// withSearchPath sets search_path in a URL or keyword/value connection string. pgx sends unknown
// settings such as search_path to the server as run-time parameters, so every connection made
// from the result starts in the schema.
func withSearchPath(connString, schema string) (string, error) {
	if !strings.HasPrefix(connString, "postgres://") && !strings.HasPrefix(connString, "postgresql://") {
		return connString + " search_path=" + schema, nil
	}
	u, err := url.Parse(connString)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
