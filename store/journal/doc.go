// Package journal keeps the service's promise through a database outage: every correlation ID that
// a caller was shown can be looked up, even when PostgreSQL was down, or too slow, at the moment
// the failure was reported.
//
// When the database cannot take a record, a Store appends it to a local journal, synced to disk
// before the answer is sent, so that the durability promise of store.Store.InsertFailure holds
// whichever way the record went, and moves it into the database once it is back. When the journal
// itself cannot take the record (it is full, or its disk fails), InsertFailure fails with
// store.ErrUnavailable, which the server maps to unavailable.
//
// # How it is used
//
// A Store wraps any store.Store and is one itself, so the server needs nothing but the wiring:
//
//	pg, err := postgres.Open(ctx, url)
//	...
//	s, err := journal.Open(ctx, pg, journal.Options{Dir: "/var/lib/toolfailure/journal"})
//	...
//	defer s.Close() // closes pg too
//
// InsertFailure tries the wrapped store first, for at most Options.WriteTimeout. If it answers, that
// is the answer. If it fails with store.ErrUnavailable, or does not answer in time, the record is
// appended to the journal instead and the journal switches to degraded: further records go straight
// to the journal, without waiting for a database that is known to be down, and a drainer pings the
// store every Options.ProbeInterval. Once the store answers, new records go to it again and the
// drainer replays the journal into it, several records at a time so that the store's group commit
// batches them. No restart is needed, and a restart is harmless: the journal is read on Open and
// whatever is still in it is replayed.
//
// Reads see journaled records that are not replayed yet: GetFailure looks in the journal's index
// first, and ListFailures merges them into the store's page. While the store is down, GetFailure
// still finds journaled records, but ListFailures fails rather than list only the journal.
// The journal takes care of writes and of reads of records only. For authentication and rules to
// keep working through an outage, wrap the store in package lastgood first (as serve does), which
// serves the store's last answer for API keys and rule sets while it is unavailable.
//
// Ping, which /healthz and gRPC health use, succeeds while the journal can take records: the
// service can serve Classify. Status tells whether it is degraded and how much is pending, for
// metrics and for an operator.
//
// # Idempotency and replay
//
// A record's ID is its identity. Replaying a record that the store already has (the original write
// got through after all, or a crash came between a replay and the removal of its segment) is a
// no-op: the store answers with the same record, or with store.ErrConflict for the same ID, and
// both count as done. Idempotency keys are honoured inside the journal (a replay of a key that is
// pending gets the pending record's ID), and against the store when it is up. During an outage,
// two replicas, each with its own journal, cannot see each other's keys, and no journal can see the
// keys that the store took before the outage; when a journaled record's key is taken in the store
// by the time it is replayed, it is replayed without its key and linked to the record that holds
// it (store.Prepared.SameCallAs), so that both IDs, each shown to someone, stay valid, a lookup of
// either names the other, and the log names both (docs/reference.md, "Idempotency across an
// outage"). A record that the store refuses for good (its tenant was deleted meanwhile) is written
// to quarantine.jsonl in the journal directory and logged as an error; it is never dropped
// silently.
//
// # On disk
//
// The journal directory holds numbered segment files and a LOCK file. Each record is framed by its
// length and a CRC-32C checksum and appended; a batch of concurrent records is written and synced
// once (group commit again, so an outage does not cost one fsync per call). After a SIGKILL or a
// power cut, the last segment may end in a record that was being written; it was never
// acknowledged, its checksum does not match, and Open cuts it off. A segment is deleted once every
// record in it is in the store, so a journal that is not needed holds no data. Its size is bounded
// by Options.MaxBytes. The journal directory must be on a local disk that outlives the process,
// one per replica; on Kubernetes, a volume that survives a restart of the pod.
package journal
