// Package canonical turns records into the exact form in which every backend stores them, so that
// the backends agree on the values they return without each re-deriving the rules.
//
// What the rules are is part of the store contract (package store documents them, and
// store/storetest checks them independently of this code); this package is only their one
// definition on the write side. The main rule is that times are cut to microseconds and converted
// to UTC in Go, before they reach a database: PostgreSQL would round a nanosecond time on its own
// and SQLite keeps whatever integer it is given, and either way the record that InsertFailure
// returns could then differ from the one GetFailure reads later. Defaults (CreatedAt now,
// OccurredAt = CreatedAt) and single representations of "absent" (nil annotations and scopes,
// lowercase trace IDs) are decided here for the same reason.
//
// It is internal because callers of the store never need it: they get canonical records back from
// every method.
package canonical
