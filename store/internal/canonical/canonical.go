package canonical

import (
	"fmt"
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

// Filter replaces U+0000 in the filter's text as store.Prepare does in records, so that a filter
// can name a tool whose stored name holds the stand-in, and a NUL never reaches the database.
func Filter(f store.Filter) store.Filter {
	f.Tool, f.Class, f.Code, f.TraceID = store.ReplaceNUL(f.Tool), store.ReplaceNUL(f.Class), store.ReplaceNUL(f.Code), store.ReplaceNUL(f.TraceID)
	f.Server = store.ReplaceNUL(f.Server)
	return f
}

// APIKey fills in CreatedAt and normalises the key's times for storage.
func APIKey(k store.APIKey) store.APIKey {
	k.CreatedAt = Time(k.CreatedAt)
	if k.CreatedAt.IsZero() {
		k.CreatedAt = Now()
	}
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = Time(k.ExpiresAt), Time(k.RevokedAt), Time(k.LastUsedAt)
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

// Predicate is one condition of a ListFailures query after tenant_id: the column and operator
// ("tool = ", "created_at >= "), to which a backend appends its placeholder, and the value, a
// string, a canonical time.Time or a [16]byte ID that the backend encodes its own way.
type Predicate struct {
	Cond string
	Val  any
}

// ListPredicates are the conditions of q.Filter and q.After, in a fixed order: only the filters
// that are set, so that the planner sees plain equality and range predicates and can pick the
// index that ends in id. Both backends build their ListFailures from them.
func ListPredicates(tenantID int64, q store.ListQuery) ([]Predicate, error) {
	fl := Filter(q.Filter)
	var out []Predicate
	add := func(cond string, v any) { out = append(out, Predicate{cond, v}) }
	if fl.Tool != "" {
		add("tool = ", fl.Tool)
	}
	if fl.Class != "" {
		add("class = ", fl.Class)
	}
	if fl.Code != "" {
		add("code = ", fl.Code)
	}
	if fl.TraceID != "" {
		add("trace_id = ", strings.ToLower(fl.TraceID))
	}
	if fl.Server != "" {
		add("server = ", fl.Server)
	}
	if fl.Fingerprint != "" {
		key, ok := store.FingerprintKey(fl.Fingerprint)
		if !ok {
			return nil, fmt.Errorf("list failures of tenant %d: %w: fingerprint %q", tenantID, store.ErrInvalid, fl.Fingerprint)
		}
		add("fingerprint = ", key)
	}
	if !fl.Since.IsZero() {
		add("created_at >= ", Time(fl.Since))
	}
	if !fl.Until.IsZero() {
		add("created_at < ", Time(fl.Until))
	}
	if q.After != nil {
		add("id < ", *q.After)
	}
	return out, nil
}
