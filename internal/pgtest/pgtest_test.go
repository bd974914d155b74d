package pgtest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
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

func TestMain(m *testing.M) { Main(m) }

// migrateCounting is a Migrate that creates two emptied tables, one with an identity column and
// one that references it (so that emptying them in name order would break the foreign key), and a
// kept table with one row, and counts its runs.
func migrateCounting(runs *atomic.Int32) Migrate {
	return func(ctx context.Context, u string) error {
		runs.Add(1)
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, `CREATE TABLE items (id bigserial PRIMARY KEY, v text NOT NULL);
			CREATE TABLE tags (item_id bigint NOT NULL REFERENCES items, tag text NOT NULL);
			CREATE TABLE version (v int NOT NULL); INSERT INTO version VALUES (1)`)
		return err
	}
}

// inMigrated runs fn in a subtest on a schema from the pool name, and returns the schema's name
// once the subtest and its cleanups are over.
func inMigrated(t *testing.T, name string, runs *atomic.Int32, fn func(t *testing.T, conn *pgx.Conn)) string {
	t.Helper()
	var schema string
	t.Run("Inner", func(t *testing.T) {
		u := Migrated(t, name, migrateCounting(runs))
		conn, err := pgx.Connect(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		if err := conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		fn(t, conn)
	})
	if t.Failed() {
		t.FailNow()
	}
	if t.Skipped() || schema == "" {
		t.Skip("PostgreSQL is unavailable")
	}
	return schema
}

func schemaExists(t *testing.T, schema string) bool {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), serverURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(t.Context(),
		"SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}

// A schema goes back to the pool emptied, with its identities restarted and the rows that migrating
// left kept, and the next test gets it without migrating again.
func TestMigratedReusesEmptiedSchema(t *testing.T) {
	t.Parallel()
	name, runs := "reuse-"+randomHex(4), new(atomic.Int32)
	first := inMigrated(t, name, runs, func(t *testing.T, conn *pgx.Conn) {
		if _, err := conn.Exec(t.Context(), "INSERT INTO items (v) VALUES ('a'), ('b'); INSERT INTO tags VALUES (1, 'x'), (2, 'y')"); err != nil {
			t.Fatal(err)
		}
	})
	second := inMigrated(t, name, runs, func(t *testing.T, conn *pgx.Conn) {
		var items, tags, versions int
		if err := conn.QueryRow(t.Context(), "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM tags), (SELECT count(*) FROM version)").
			Scan(&items, &tags, &versions); err != nil {
			t.Fatal(err)
		}
		if items != 0 || tags != 0 || versions != 1 {
			t.Fatalf("reused schema has %d items, %d tags and %d versions, want 0, 0 and 1", items, tags, versions)
		}
		var id int64
		if err := conn.QueryRow(t.Context(), "INSERT INTO items (v) VALUES ('c') RETURNING id").Scan(&id); err != nil {
			t.Fatal(err)
		}
		if id != 1 {
			t.Fatalf("first id in a reused schema = %d, want 1", id)
		}
	})
	if first != second {
		t.Fatalf("second test got schema %s, want the pooled %s", second, first)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("migrated %d times, want once", n)
	}
}

// A schema that a test changed in a way TRUNCATE does not undo is dropped, not handed out again.
func TestMigratedDropsChangedSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, sql string }{
		{"NewTable", "CREATE TABLE extra (x int)"},
		{"NewColumn", "ALTER TABLE items ADD COLUMN w int"},
		{"NewIndex", "CREATE INDEX ON items (v)"},
		{"KeptRows", "INSERT INTO version VALUES (2)"},
		{"DroppedTable", "DROP TABLE tags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, runs := "change-"+randomHex(4), new(atomic.Int32)
			changed := inMigrated(t, name, runs, func(t *testing.T, conn *pgx.Conn) {
				if _, err := conn.Exec(t.Context(), tc.sql); err != nil {
					t.Fatal(err)
				}
			})
			if schemaExists(t, changed) {
				t.Fatalf("schema %s, changed by %q, still exists", changed, tc.sql)
			}
			next := inMigrated(t, name, runs, func(*testing.T, *pgx.Conn) {})
			if next == changed || runs.Load() != 2 {
				t.Fatalf("after a change: schema %s (was %s), %d migrations; want a new, migrated schema", next, changed, runs.Load())
			}
		})
	}
}

// Schemas held at the same time are different ones.
func TestMigratedHeldTogether(t *testing.T) {
	t.Parallel()
	name, runs := "together-"+randomHex(4), new(atomic.Int32)
	a := Migrated(t, name, migrateCounting(runs))
	b := Migrated(t, name, migrateCounting(runs))
	if t.Skipped() {
		return
	}
	if a == b || runs.Load() != 2 {
		t.Fatalf("two schemas held together: %s and %s after %d migrations, want two migrated schemas", a, b, runs.Load())
	}
}
