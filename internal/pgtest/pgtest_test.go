package pgtest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

type testBundle struct {
	url  string
	conn *pgx.Conn // connected to url, closed at cleanup
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	u := URL(t)
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after URL's cleanup, so it runs first: the schema is dropped with no session in it.
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return &testBundle{url: u, conn: conn}
}

// A test works in its own schema without naming it, and the schema is gone when the test is.
func TestURL(t *testing.T) {
	t.Parallel()
	var schema string
	// Not parallel: t.Run must return only after Inner and its cleanups have run.
	t.Run("Inner", func(t *testing.T) {
		b := setup(t)
		if err := b.conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(schema, "tft_") || len(schema) != len("tft_")+16 {
			t.Fatalf("current_schema() = %q, want tft_ and 16 hex digits", schema)
		}
		if _, err := b.conn.Exec(t.Context(), "CREATE TABLE t (x int); INSERT INTO t VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		var where string
		err := b.conn.QueryRow(t.Context(),
			"SELECT table_schema FROM information_schema.tables WHERE table_schema = $1 AND table_name = 't'",
			schema).Scan(&where)
		if err != nil {
			t.Fatalf("table t is not in %s: %v", schema, err)
		}
	})
	if t.Skipped() || schema == "" {
		return
	}
	conn, err := pgx.Connect(t.Context(), serverURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	err = conn.QueryRow(t.Context(),
		"SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("schema %s still exists after its test ended", schema)
	}
}

// Parallel tests get distinct schemas and share the one admin connection safely.
func TestURLParallel(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 8)
	// Group is not parallel itself, so t.Run waits for its parallel subtests.
	t.Run("Group", func(t *testing.T) {
		for i := range cap(seen) {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				b := setup(t)
				var schema string
				if err := b.conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
					t.Fatal(err)
				}
				seen <- schema
			})
		}
	})
	close(seen)
	distinct := map[string]bool{}
	for s := range seen {
		distinct[s] = true
	}
	if len(distinct) == 0 {
		t.Skip("every subtest skipped: PostgreSQL is unavailable")
	}
	if len(distinct) != cap(seen) {
		t.Fatalf("%d distinct schemas for %d tests", len(distinct), cap(seen))
	}
}

func TestWithSearchPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
			"postgres://postgres@127.0.0.1:5432/test?search_path=tft_1&sslmode=disable"},
		{"postgresql://u:p@h/db?search_path=public",
			"postgresql://u:p@h/db?search_path=tft_1"},
		{"host=127.0.0.1 user=postgres dbname=test",
			"host=127.0.0.1 user=postgres dbname=test search_path=tft_1"},
	} {
		got, err := withSearchPath(tc.in, "tft_1")
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("withSearchPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
		cfg, err := pgx.ParseConfig(got)
		if err != nil {
			t.Fatal(err)
		}
		if sp := cfg.RuntimeParams["search_path"]; sp != "tft_1" {
			t.Errorf("pgx reads search_path %q from %q", sp, got)
		}
	}
}

// recorder stands in for a test, to observe whether unavailable skips or fails.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	run := func(require bool) *recorder {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() { // Skipf and Fatalf end the goroutine, as they end a test
			defer close(done)
			unavailable(r, errors.New("connection refused"), require)
		}()
		<-done
		return r
	}
	if r := run(false); r.failed != "" || !strings.Contains(r.skipped, "PostgreSQL is unavailable") ||
		!strings.Contains(r.skipped, "connection refused") {
		t.Errorf("without %s: skipped %q, failed %q; want a skip naming the cause", envRequire, r.skipped, r.failed)
	}
	if r := run(true); r.skipped != "" || !strings.Contains(r.failed, envRequire+"=1") {
		t.Errorf("with %s=1: skipped %q, failed %q; want a failure", envRequire, r.skipped, r.failed)
	}
}
