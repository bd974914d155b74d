package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrNotFound is returned (wrapped) when a record does not exist for the tenant that asked, and
// when a write names a tenant that does not exist. Callers map it to the API's not_found, which is
// also what a tenant sees for another tenant's record: existence is not revealed.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned (wrapped) when a write would break a uniqueness rule that the caller
// could not have known about, such as an API key whose hash or ID is already taken, or a failure ID
// that is already stored. Idempotent replays of InsertFailure are not conflicts.
var ErrConflict = errors.New("conflict")

// DefaultListLimit is the page size that ListFailures uses when ListQuery.Limit is zero or less.
const DefaultListLimit = 100

// MaxListLimit caps ListQuery.Limit, so that one request cannot make a backend materialise a whole
// tenant's history. Callers that page must compare a page's length with the limit actually in effect.
const MaxListLimit = 1000

// Class values: the closed set of the toolFailure proposal. Backends refuse any other value.
const (
	ClassCapability  = "capability"
	ClassReliability = "reliability"
	ClassGovernance  = "governance"
)

// Scope values of an API key: each one unlocks one RPC service.
const (
	ScopeReport = "report" // ClassifierService
	ScopeLookup = "lookup" // FailureService
	ScopeRules  = "rules"  // RuleService
)

// Tenant is one customer of the service. Every other record belongs to exactly one tenant.
type Tenant struct {
	ID        int64
	Name      string // unique; chosen by the operator, e.g. in `toolfailure keys create --tenant`
	CreatedAt time.Time
}

// APIKey is what the service remembers about a key it issued. The secret itself is never stored,
// only its hash: a copy of the database does not let anyone call the service.
type APIKey struct {
	ID        string   // short public identifier (shown in listings and logs; not secret)
	TenantID  int64    // the tenant that the key acts for
	Hash      []byte   // SHA-256 of the full secret key, 32 bytes
	Scopes    []string // ScopeReport, ScopeLookup, ScopeRules; empty comes back as nil
	CreatedAt time.Time
}

// Failure is one classified tool error: what was received, what the service decided, and when.
// Its ID is what the public correlation ID encodes.
type Failure struct {
	TenantID int64
	// ID is the UUIDv7 behind the public correlation ID. The caller generates it, so that the ID can
	// be logged before the record is written; ordering by ID is ordering by time.
	ID [16]byte

	Tool   string // required
	Server string // the reporting MCP server's label, "" = none

	Class          string    // ClassCapability, ClassReliability or ClassGovernance
	Code           string    // required; an open vocabulary
	Retryable      bool      // only with ClassReliability
	RetryNotBefore time.Time // zero = none; only when Retryable
	AgentGuidance  string
	RuleID         string // the rule that decided, "" = the documented default
	RuleVersion    int64

	// Error is the raw error as received, already redacted: a JSON object. Backends keep it by
	// value, not byte for byte (key order and whitespace may change).
	Error json.RawMessage
	// ToolAnnotations is the tool's MCP annotations as the caller sent them, a JSON object; nil when
	// absent (a JSON null is stored as absent).
	ToolAnnotations json.RawMessage

	TraceID string // W3C trace ID, 32 lowercase hex digits, "" = none; stored lowercased
	SpanID  string // W3C span ID, 16 lowercase hex digits, "" = none; stored lowercased

	// IdempotencyKey, when set, makes the insert idempotent per tenant; "" = none.
	IdempotencyKey string

	// CreatedAt is when the service stored the record; zero means now. Filters apply to it.
	CreatedAt time.Time
	// OccurredAt is when the error happened, as far as the caller knows; zero means CreatedAt.
	OccurredAt time.Time
}

// Filter narrows ListFailures. Zero values do not filter; set fields are ANDed.
type Filter struct {
	Tool    string
	Class   string
	Code    string
	TraceID string    // compared case-insensitively, like the stored value
	Since   time.Time // inclusive, on CreatedAt
	Until   time.Time // exclusive, on CreatedAt
}

// ListQuery is one page request of ListFailures.
type ListQuery struct {
	Filter Filter
	// Limit is the page size: DefaultListLimit when zero or less, at most MaxListLimit.
	Limit int
	// After is the keyset cursor: only records strictly older (with a smaller ID) than this one are
	// returned. Pass the ID of the last record of the previous page; nil starts at the newest.
	After *[16]byte
}

// Store is the storage contract of the service, implemented by store/postgres and store/sqlite and
// checked by store/storetest. Implementations are safe for concurrent use. Errors are wrapped with
// context; test them with errors.Is against ErrNotFound and ErrConflict.
type Store interface {
	// Migrate applies pending migrations. It is idempotent and safe to run concurrently from
	// several processes (PostgreSQL serialises them with an advisory lock), so every replica can
	// migrate on start.
	Migrate(ctx context.Context) error

	// EnsureTenant returns the tenant with this name, creating it first if it does not exist.
	// Concurrent calls with the same name all return the same tenant.
	EnsureTenant(ctx context.Context, name string) (Tenant, error)

	// CreateAPIKey stores k (CreatedAt defaults to now) and returns it as stored. ErrNotFound when
	// the tenant does not exist, ErrConflict when the ID or hash is taken.
	CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error)

	// APIKeyByHash returns the key with this hash and its tenant, or ErrNotFound. This is the
	// authentication lookup of every request.
	APIKeyByHash(ctx context.Context, hash []byte) (APIKey, Tenant, error)

	// CountAPIKeys counts the keys of all tenants. The embedded store's first start uses it to tell
	// whether it must bootstrap a key.
	CountAPIKeys(ctx context.Context) (int, error)

	// InsertFailure stores f durably (committed) before it returns, and returns the record as
	// stored (times truncated to microseconds, in UTC; defaults filled in). If f.IdempotencyKey is
	// set and a record with the same (tenant, key) exists, nothing is written and that record is
	// returned with created=false; this holds when many callers race with the same key too: one
	// record, and all of them get its ID. ErrNotFound when the tenant does not exist.
	InsertFailure(ctx context.Context, f Failure) (stored Failure, created bool, err error)

	// GetFailure returns the tenant's record with this ID, or ErrNotFound, which is also the answer
	// for another tenant's record.
	GetFailure(ctx context.Context, tenantID int64, id [16]byte) (Failure, error)

	// ListFailures returns one page of the tenant's records matching q.Filter, newest first (ID
	// descending), starting after q.After. It pages by key, never by OFFSET, so a page costs the
	// same however deep it is, and records written meanwhile cause neither duplicates nor gaps.
	ListFailures(ctx context.Context, tenantID int64, q ListQuery) ([]Failure, error)

	// Ping reports whether the backend answers; /healthz and gRPC health use it.
	Ping(ctx context.Context) error

	// Close releases the store's connections (and, for the embedded store, its file lock). It is
	// safe to call more than once.
	Close() error
}
