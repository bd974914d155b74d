// Package pgtest gives each test its own empty PostgreSQL schema, so that tests of every package can
// run in parallel against one shared server without seeing each other's data, and without a mock of
// the database anywhere.
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		s, err := postgres.Open(t.Context(), pgtest.URL(t))
//		...
//	}
//
// URL creates a schema with a random name (tft_ and 16 hex digits), drops it with everything in it
// when the test ends, and returns a database URL whose search_path names it, so code under test
// creates and finds its tables there without knowing. The server is shared with other test runs:
// pgtest touches only schemas it created.
//
// The server is taken from TOOLFAILURE_TEST_DATABASE_URL, by default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. When it cannot be reached, tests skip
// with a message saying so, so that `go test ./...` works on a machine without PostgreSQL; set
// TOOLFAILURE_REQUIRE_POSTGRES=1 (CI does) to make that a failure instead, because a suite whose
// database tests were silently skipped must not pass.
//
// Creating and dropping schemas goes through one connection per test binary, opened on first use,
// so a test costs two short statements, not a connection set-up.
//
// A test that needs migrated tables but does not test migrating takes a schema from Migrated
// instead: each test binary keeps a pool of schemas on which the migrations already ran, hands one
// to each test, and empties it when the test ends, so that a package's tests run the migrations a
// few times in all rather than once each (the pattern of River's riverdbtest). Such a package's
// TestMain calls Main (or Run), which drops the pool's schemas when the tests are over.
package pgtest
