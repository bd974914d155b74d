// Package sqlite is the embedded store: one local file, no server to run, pure Go (modernc.org/sqlite,
// no cgo), so that `toolfailure serve` works on a laptop with nothing else installed.
//
//	s, err := sqlite.Open(ctx, sqlite.DefaultPath())
//	...
//	err = s.Migrate(ctx)
//
// It keeps the same promise as the PostgreSQL store: InsertFailure returns only when the record is
// on disk. The database runs in WAL mode with synchronous=FULL, so every commit waits for the
// write-ahead log to be synced; NORMAL would be faster, but it can lose the last commits on power
// loss, and an acknowledged correlation ID must never be lost.
//
// # One writer, many readers
//
// SQLite allows one writer at a time per file. Rather than letting concurrent writers collide and
// retry on SQLITE_BUSY, the store writes through a single connection (a database/sql pool limited
// to one connection), so writes queue in Go, in order, and each transaction starts with BEGIN
// IMMEDIATE. Reads use a separate pool of read-only connections, which in WAL mode read a
// consistent snapshot while the writer works, so lookups never wait behind inserts.
//
// # One process
//
// The file belongs to one process at a time. Open takes an exclusive lock on a sibling file,
// path + ".lock", and fails with ErrLocked, naming that file, when another process still holds it
// after a second (a process that is stopping lets go within that): two servers writing one SQLite
// file would still be correct, but they would fight over the write lock, and the second one was
// almost certainly started by mistake. The lock is released by Close, or by the operating system
// when the process dies, so a crash never leaves a stale lock behind.
// The lock file itself is left in place; deleting it would let two processes lock different files.
//
// # Layout
//
// Times are integer Unix microseconds, IDs 16-byte blobs (byte order is UUID order, so UUIDv7 IDs
// sort by time), JSON is text exactly as received. See migrations/sqlite for the schema.
package sqlite
