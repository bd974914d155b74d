// Package store defines what toolfailure keeps and the one interface through which every part of
// the service keeps it.
//
// A failure record is the promise behind a correlation ID: once a user has been shown "tf_…", a
// support engineer must be able to look it up, on any replica, after any restart. Everything in
// this package follows from that promise. InsertFailure returns only after the record is committed
// to durable storage, so the service never hands out an ID that a crash could take back. Idempotency
// keys make retries of the same report safe: the same (tenant, key) always maps to the first record,
// even when many callers race. Reads always name a tenant, and a backend must never return another
// tenant's data, not even to say that it exists.
//
// There are two backends, chosen by the operator, not by the code that uses them:
//
//   - store/postgres, for production: a pgx connection pool against PostgreSQL, safe for any number
//     of replicas, laid out tenant first so that it can later be distributed by tenant (Citus).
//   - store/sqlite, the zero-setup default: one local file, pure Go, one process at a time.
//
// Both are held to the same behaviour by a single conformance suite, store/storetest, which every
// backend's tests run in full (the pattern River uses for its database drivers). A behaviour that
// matters belongs in that suite, not in one backend's tests, so that the backends cannot drift.
//
// # Values as stored
//
// Backends store times at microsecond precision (PostgreSQL's) and return them in UTC, so a value
// read back compares equal to the value that InsertFailure returned. Failure IDs are UUIDv7, whose
// leading bits are a millisecond timestamp: ordering by ID is ordering by creation, which is what
// makes newest-first keyset paging (ListQuery.After) cheap without an OFFSET. JSON documents are
// kept by value, not byte for byte: PostgreSQL's jsonb may reorder keys and drop whitespace.
//
// # One check per record
//
// A caller prepares a record with Prepare, on its own goroutine: canonicalised, limited and
// checked. InsertFailure takes the Prepared that Prepare returns and trusts it, so that a decorator
// (store/journal) and the backend beneath it check nothing again, and a record that breaks the
// contract is refused before it can reach a batch that it would share with others.
//
// # Rules
//
// Each tenant's classification rules are kept as a set with a version: every change that alters the
// set (ReplaceRules, CreateRule, UpdateRule, DeleteRule) makes the next version, and failure records
// keep the version that classified them. The store does not interpret a rule; it keeps its
// definition as JSON compared by value, so a replace that changes nothing keeps the version, and
// unchanged rules keep theirs. Backends shared by several processes also implement RuleWatcher, which
// tells every replica of a change as it commits.
//
// Schemas live in the migrations package, one directory per backend; Store.Migrate applies them.
package store
