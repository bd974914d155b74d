// Package postgres is the production store: PostgreSQL through a pgx connection pool.
//
// Any number of service replicas share one database. Nothing is cached between requests, so a
// record that one replica wrote is visible to every other as soon as InsertFailure returns, and
// that return waits for the commit: an acknowledged record survives a crash of the service (and,
// with PostgreSQL's default synchronous_commit=on, of the database server).
//
// # Opening
//
//	s, err := postgres.Open(ctx, "postgres://user@db.internal:5432/toolfailure?sslmode=verify-full")
//	...
//	err = s.Migrate(ctx) // every replica may do this on start; see below
//
// The URL is anything pgx accepts (URL or keyword/value form, PG* environment variables for what
// it leaves out). Two settings are worth knowing. search_path selects the schema that holds the
// tables, e.g. `?search_path=toolfailure`, which is how the tests give each test its own schema and
// how an operator can share a database with other applications. pool_max_conns overrides the pool
// size, which otherwise is twice GOMAXPROCS (at least 4): inserts are bound by commit latency, not
// CPU, so a few more connections than cores keep the disk busy without crowding max_connections.
// Without connect_timeout in the URL a connection attempt gives up after 10 seconds, so that an
// unreachable database is reported instead of hanging start-up.
//
// # Migrations
//
// Migrate applies the SQL files in migrations.Postgres with goose, over a database/sql handle that
// is opened from the same pgx configuration as the pool, so search_path and TLS settings carry
// over. Concurrent Migrate calls, from any number of processes, take turns on a session-level
// advisory lock whose key is derived from the target schema: replicas starting together apply each
// migration once, while tests migrating their own schemas in parallel do not wait for each other.
// goose's version table is named toolfailure_goose_db_version so that it cannot be mistaken for
// another application's goose table in a shared schema.
//
// # Writes
//
// InsertFailure is one statement, INSERT … ON CONFLICT DO NOTHING RETURNING, and so one round trip
// in the common case; only a replay of an idempotency key costs a second query to read the record
// that won. PostgreSQL resolves racing inserts of the same key on the unique index, so exactly one
// of them writes and the others read that row. Writes are committed one by one for now; batching
// concurrent inserts into one commit (group commit) is planned and would live behind InsertFailure
// without changing its contract.
//
// # Rules
//
// A tenant's rules change rarely and are read on every classification, so replicas cache them
// compiled and must hear of every change. Each change runs in one transaction that first locks the
// tenant's rule_sets row (SELECT … FOR UPDATE): writers of one tenant take turns, versions are
// handed out without gaps, and ReplaceRules' expected-version check cannot race. The same
// transaction queues a NOTIFY on the channel toolfailure_rules with "schema tenant version";
// PostgreSQL delivers it at COMMIT, so a listener never hears of a change it cannot read yet.
// WatchRules LISTENs on a connection of its own, outside the pool, pings it every ten seconds, and
// reconnects with backoff when it breaks, reporting the gap (store.RuleWatchLost) so that caches
// check versions until notifications flow again (store.RuleWatchStarted). The schema in the payload
// keeps deployments that share a database (or parallel tests) from waking each other.
package postgres
