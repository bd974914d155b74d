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
// # Writes: group commit
//
// What limits inserts is not the statement but the commit: each one waits for a WAL flush. So
// InsertFailure does not commit alone. Concurrent calls hand their rows to a writer goroutine of
// the store, which sends them as one INSERT … SELECT FROM unnest(…) (one array per column, so the
// statement and its prepared plan are the same for any batch size) in its own transaction, and
// answers each caller only after that COMMIT. The durability promise is unchanged: a caller is
// answered after its row is committed. One round trip and one flush are shared by the whole batch.
// The writer encodes the arrays itself in PostgreSQL's binary format (pgx's reflective encoding of
// 19 arrays cost several times more: BenchmarkEncodeBatch) and keeps one connection, so that one backend, warm,
// does its writes.
//
// The failures table has no foreign key to tenants and no per-row checks of its text
// (migrations/postgres/00004_lean_failures.sql): every record was checked before it is queued
// (store.Prepare, on the caller's goroutine), and the store checks each tenant once before its
// first write (tenants are never deleted), so "unknown tenant" is still store.ErrNotFound.
//
// The writer flushes as soon as its queue is empty; rows that arrive while a batch is being
// committed form the next batch, so batches grow with load by themselves and an idle service adds
// no latency. Four URL parameters tune it (they are taken out of the URL before pgx sees it):
//
//   - group_commit_writers (default 1): batches in flight at once. With one, a row that arrives
//     during a commit waits for that commit and then its own; with two it is taken at once, and
//     PostgreSQL merges the WAL flushes of commits that coincide. More only makes batches smaller;
//     1 gives the largest batches, and so the least CPU per row (the bench's numbers are on
//     DefaultWriters);
//   - group_commit_max_batch (default 256): rows per statement at most;
//   - group_commit_max_wait (default 0): how long the writer lingers for more rows after the
//     first, e.g. 200us; worth it only when the disk's flush, not the CPU, is the limit;
//   - group_commit_write_timeout (default 10s): the bound on one batch's statement, so that a
//     database that stopped answering cannot hold every queued caller forever.
//
// The queue holds four batches' rows; beyond that callers wait to enqueue, which bounds memory when the
// database is slower than the callers.
//
// Batching must not change what a caller sees. Rows that share an idempotency key inside a batch
// are sent once, and the others get that record (created=false), as if they had come just after
// it; the same ID sent twice is a replay with the same key and a conflict without one. A key
// already in the table is resolved by ON CONFLICT … DO NOTHING on the partial unique index, which
// waits for a concurrent holder to commit, and then read back. One bad row must not fail its
// neighbours: rows are checked against the schema's rules before they are queued
// (store.Prepare), and when a batch still fails on a row's data (SQLSTATE classes 22 and 23,
// e.g. an ID that is already stored, or text that jsonb refuses) nothing of it was written, so its
// rows are retried one by one and only the culprit fails. When the batch fails because the
// database is unavailable, every caller gets an error wrapping store.ErrUnavailable, which the
// outage journal (package journal) acts on. Close writes every row that was queued before it
// returns, so a graceful shutdown drops nothing.
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
//
// # Retention
//
// Failure records live in daily range partitions of their ID (partitions.go, and why in
// migrations/postgres/00006_partitions.sql). SetRetention stores a tenant's retention in days;
// PurgeExpired makes the coming days' partitions, drops the partitions whose every record is past
// the longest retention of any tenant, and deletes what shorter retentions expire in batches by a
// range of the primary key, each batch its own short transaction.
package postgres
