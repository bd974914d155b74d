package canonical

import (
	"bytes"
	"encoding/json"
	"strings"
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

// Failure fills in defaults and normalises f for storage: times via Time, CreatedAt defaulting to
// now and OccurredAt to CreatedAt, trace and span IDs lowercased, and a JSON null annotation or shadow
// list made absent, so that absent has one representation.
func Failure(f store.Failure) store.Failure {
	f.CreatedAt = Time(f.CreatedAt)
	if f.CreatedAt.IsZero() {
		f.CreatedAt = Now()
	}
	f.OccurredAt = Time(f.OccurredAt)
	if f.OccurredAt.IsZero() {
		f.OccurredAt = f.CreatedAt
	}
	f.RetryNotBefore = Time(f.RetryNotBefore)
	f.TraceID = strings.ToLower(f.TraceID)
	f.SpanID = strings.ToLower(f.SpanID)
	f.ToolAnnotations = Annotations(f.ToolAnnotations)
	f.Shadow = Annotations(f.Shadow) // the same rule: absent has one representation
	return f
}

// Annotations returns nil for absent annotations: nil, empty, or the JSON literal null.
func Annotations(a json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(a); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return a
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
