package canonical

import (
	"time"

	"github.com/google/uuid"

	"github.com/omcp/toolfailure/store"
)

// Time truncates t to microseconds, the precision of PostgreSQL's timestamptz, and converts it to
// UTC. Truncating before the write, rather than letting the database round, is what makes the value
// that InsertFailure returns equal to the value that GetFailure later reads. The zero time stays zero.
func Time(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Truncate(time.Microsecond).UTC()
}

// Now is the current time as a backend stores it.
func Now() time.Time { return Time(time.Now()) }

// Filter replaces U+0000 in the filter's text as store.Prepare does in records, so that a filter
// can name a tool whose stored name holds the stand-in, and a NUL never reaches the database.
func Filter(f store.Filter) store.Filter {
	f.Tool, f.Class, f.Code, f.TraceID = store.ReplaceNUL(f.Tool), store.ReplaceNUL(f.Class), store.ReplaceNUL(f.Code), store.ReplaceNUL(f.TraceID)
	return f
}

// APIKey fills in CreatedAt and normalises the key's times for storage.
func APIKey(k store.APIKey) store.APIKey {
	k.CreatedAt = Time(k.CreatedAt)
	if k.CreatedAt.IsZero() {
		k.CreatedAt = Now()
	}
	return k
}

// Scopes returns nil for no scopes, so that empty has one representation whatever the backend's
// array type returns.
func Scopes(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ID formats a failure ID the way PostgreSQL prints a uuid, for error messages and logs.
func ID(id [16]byte) string { return uuid.UUID(id).String() }

// Limit returns the page size in effect for a requested limit.
func Limit(n int) int {
	switch {
	case n <= 0:
		return store.DefaultListLimit
	case n > store.MaxListLimit:
		return store.MaxListLimit
	default:
		return n
	}
}
