package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// ErrInvalid is returned (wrapped) by Prepare for a record that breaks the contract of Failure,
// and by InsertFailure for the zero Prepared. Such a record can never be stored, so retrying it,
// or keeping it in a journal to replay later, is pointless.
var ErrInvalid = errors.New("invalid record")

// ErrUnavailable is returned (wrapped) when the backend cannot be reached or did not answer in time:
// the connection was refused or broke, the server is shutting down or out of connections. Unlike
// every other error it says nothing about the request, which may well succeed later. A journal (see
// package journal) takes it as the signal to keep the record locally instead.
var ErrUnavailable = errors.New("store unavailable")

// ErrCorrupt is returned (wrapped) when the store's data is damaged: the embedded store's file
// fails SQLite's integrity check, or a read meets a page that is not what it should be. Unlike
// ErrUnavailable it does not pass by waiting; an operator must restore the data. Ping reports it
// from the first time it is seen, so that health checks fail with the reason.
var ErrCorrupt = errors.New("store data is damaged")

// DefaultListLimit is the page size that ListFailures uses when ListQuery.Limit is zero or less.
const DefaultListLimit = 100

// MaxPageSize is the largest page the API hands out (ListFailures' pageSize).
const MaxPageSize = 1000

// MaxListLimit caps ListQuery.Limit, so that one request cannot make a backend materialise a whole
// tenant's history. It is one more than MaxPageSize: a caller that serves pages asks for one row
// beyond the page to learn, in the same query, whether another page exists; a cap equal to the
// largest page would swallow that row and end a full listing early without a word. Callers that
// page must compare a page's length with the limit actually in effect.
const MaxListLimit = MaxPageSize + 1

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
	ID        string   // short public identifier (shown in listings and logs; not secret); unique
	TenantID  int64    // the tenant that the key acts for
	Hash      []byte   // SHA-256 of the full secret key, 32 bytes; empty in ListAPIKeys
	Scopes    []string // ScopeReport, ScopeLookup, ScopeRules; empty comes back as nil
	CreatedAt time.Time
	// CreatedBy says who created the key and from where (the audit record, e.g. "keys create by
	// alice on host1"); "" = not recorded.
	CreatedBy string
	// ExpiresAt is when the key stops working by itself; zero = never.
	ExpiresAt time.Time
	// RevokedAt is when the key was revoked (RevokeAPIKey); zero = not revoked. RevokedBy says who
	// revoked it and from where, like CreatedBy.
	RevokedAt time.Time
	RevokedBy string
	// LastUsedAt is when the key last authenticated a call, as TouchAPIKey recorded it: coalesced,
	// so it may be up to the recording interval (a minute) old; zero = never recorded.
	LastUsedAt time.Time
}

// Revoked reports whether the key has been revoked.
func (k APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// Expired reports whether the key has expired at now.
func (k APIKey) Expired(now time.Time) bool { return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt) }

// APIKeyEntry is one row of ListAPIKeys: a key (without its hash) and its tenant.
type APIKeyEntry struct {
	Key    APIKey
	Tenant Tenant
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
	RuleVersion    int64  // the tenant's rule-set version that classified the failure
	// Shadow holds the would-be outcomes of the tenant's shadow-mode rules that matched and rank
	// above the rule that decided: a JSON array of objects such as {"ruleId": "…", "class": "…",
	// "code": "…"}; nil when none did. Rule authors compare it with what was applied before they
	// switch a rule to enforce.
	Shadow json.RawMessage

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

	// SameCallAs is the ID of the record that holds the idempotency key this record was reported
	// with, when this record had to be stored without it: a journal replaying it after an outage
	// found the key taken meanwhile (Prepared.SameCallAs). Both were answered to someone, so both
	// stay, and the link lets a lookup of either name the other. Zero = none; a record with a
	// link has no idempotency key.
	SameCallAs [16]byte
	// NamedBy is the IDs of the tenant's records whose SameCallAs is this record's ID, oldest
	// first: the other direction of the link. Only GetFailure fills it; it is not stored.
	NamedBy [][16]byte

	// Fingerprint names the problem this record is one occurrence of (package fingerprint): 16
	// lower-case hex characters. Prepare computes it from Tool and Error when it is empty, so every
	// stored record has one; "" only on records written before fingerprints existed.
	Fingerprint string

	// CreatedAt is when the service stored the record; zero means now. Filters apply to it.
	CreatedAt time.Time
	// OccurredAt is when the error happened, as far as the caller knows; zero means CreatedAt.
	OccurredAt time.Time
}

// SameCallIDs returns the IDs of the records that were stored for the same call as f: the one
// its SameCallAs names, then those of NamedBy. Lookups show them as linked.
func (f Failure) SameCallIDs() [][16]byte {
	var out [][16]byte
	if f.SameCallAs != ([16]byte{}) {
		out = append(out, f.SameCallAs)
	}
	return append(out, f.NamedBy...)
}

// Filter narrows ListFailures. Zero values do not filter; set fields are ANDed.
type Filter struct {
	Tool    string
	Class   string
	Code    string
	TraceID string    // compared case-insensitively, like the stored value
	Since   time.Time // inclusive, on CreatedAt
	Until   time.Time // exclusive, on CreatedAt
	// Fingerprint, when set, must be a valid fingerprint (fingerprint.Valid); callers check it.
	Fingerprint string
	// Server is the MCP server's label (Failure.Server), compared exactly. Records from many
	// servers share a tenant, and the same tool name on two servers is two different tools.
	Server string
}

// NearbyFilter selects the failures that the web page shows beside f as "the same tool and code,
// within window": f's tool and code, created within window either side of f, and from f's MCP
// server when f names one. Without the server, a tenant whose servers share a tool name (two
// "search" tools) would see another server's failures as the same incident. A record without a
// label is not narrowed, since nothing says which server it came from. The list includes f.
func NearbyFilter(f Failure, window time.Duration) Filter {
	return Filter{
		Tool: f.Tool, Code: f.Code, Server: f.Server,
		Since: f.CreatedAt.Add(-window), Until: f.CreatedAt.Add(window),
	}
}

// MaxGroupWindow is the longest time window that ListGroups and GetGroup aggregate over: groups
// are counted from the records at query time, so the window bounds the work of one request.
const MaxGroupWindow = 90 * 24 * time.Hour

// Group orders of GroupQuery.OrderBy.
const (
	GroupsByCount    = "count"     // most records first
	GroupsByLastSeen = "last_seen" // most recently seen first
)

// GroupFilter narrows ListGroups to records of a window. Since and Until are required, and at
// most MaxGroupWindow apart; the other fields do not filter when zero.
type GroupFilter struct {
	Tool  string
	Class string
	Code  string
	// Server keeps only records from this MCP server (Failure.Server): the groups, their counts,
	// times and samples are those of its records. Fingerprints leave the server out, so a problem
	// that two servers share is one group without this filter.
	Server string
	// Unclassified keeps only records that no rule matched: decided by the documented default or
	// guessed by the text model (see UnclassifiedRuleIDs).
	Unclassified bool
	Since        time.Time // inclusive, on CreatedAt
	Until        time.Time // exclusive, on CreatedAt
}

// UnclassifiedRuleIDs are the RuleIDs of records that no rule matched: none recorded, the
// documented default (classify.DefaultRuleID) and the text model's guess (classify.ModelRuleID).
// They are spelled out here because the store does not depend on the classifier; a server test
// holds them equal.
var UnclassifiedRuleIDs = []string{"", "baseline/default", "baseline/text-model"}

// GroupCursor is the last group of the previous page: the next page starts strictly after it in
// the query's order.
type GroupCursor struct {
	Count       int64
	LastSeen    time.Time
	Fingerprint string
}

// GroupQuery is one page request of ListGroups.
type GroupQuery struct {
	Filter  GroupFilter
	OrderBy string // GroupsByCount (also when empty) or GroupsByLastSeen; ties by fingerprint
	Limit   int    // DefaultListLimit when zero or less, at most MaxListLimit
	After   *GroupCursor
}

// Group is the records of a window that share a fingerprint.
type Group struct {
	Fingerprint string
	Count       int64
	FirstSeen   time.Time
	LastSeen    time.Time
	// Sample is the group's most recent record in the window (greatest ID): its tool, class,
	// code, rule and error stand for the group's.
	Sample Failure
}

// CheckGroupWindow returns an error wrapping ErrInvalid unless since < until and the window is
// at most MaxGroupWindow long. Both backends and the server use it, so that they refuse alike.
func CheckGroupWindow(since, until time.Time) error {
	switch {
	case since.IsZero() || until.IsZero():
		return fmt.Errorf("%w: a group window needs since and until", ErrInvalid)
	case !since.Before(until):
		return fmt.Errorf("%w: since must be before until", ErrInvalid)
	case until.Sub(since) > MaxGroupWindow:
		return fmt.Errorf("%w: window of %s is longer than %d days", ErrInvalid, until.Sub(since).Round(time.Hour), int(MaxGroupWindow/(24*time.Hour)))
	}
	return nil
}

// HourBuckets is the number of hourly counts GroupHours returns for a window.
func HourBuckets(since, until time.Time) int {
	return int((until.Sub(since) + time.Hour - 1) / time.Hour)
}

// FingerprintKeys converts fingerprints for a query, or fails with ErrInvalid naming the first
// malformed one.
func FingerprintKeys(fps []string) ([]int64, error) {
	keys := make([]int64, len(fps))
	for i, fp := range fps {
		k, ok := FingerprintKey(fp)
		if !ok {
			return nil, fmt.Errorf("%w: fingerprint %q", ErrInvalid, fp)
		}
		keys[i] = k
	}
	return keys, nil
}

// FingerprintKey returns the fingerprint as the signed 64-bit integer that backends store (half
// the size of its hex text in an index), and false for "" or a malformed fingerprint.
func FingerprintKey(fp string) (int64, bool) {
	if len(fp) != 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(fp); i++ {
		c := fp[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return int64(v), true
}

// FingerprintText is the inverse of FingerprintKey.
func FingerprintText(key int64) string {
	return fmt.Sprintf("%016x", uint64(key))
}

// ListQuery is one page request of ListFailures.
type ListQuery struct {
	Filter Filter
	// Limit is the page size: DefaultListLimit when zero or less, at most MaxListLimit.
	Limit int
	// After is the keyset cursor: only records strictly older (with a smaller ID) than this one are
	// returned. Pass the ID of the last record of the previous page; nil starts at the newest.
	After *[16]byte
	// MaxBytes, when positive, also ends the page by size, as RecordSize counts it: records are
	// returned while their total stays within MaxBytes, the first one whatever its size, and then
	// the one record that did not fit, if there is one, after which the backend reads no further.
	// That last record plays the part of the extra row of a pager (see MaxListLimit): PageEnd tells
	// a pager where its page ends and whether more follow. Zero or less means no byte limit.
	MaxBytes int
}

// recordOverhead is what RecordSize allows for a record's ID, times, numbers and field names.
const recordOverhead = 256

// RecordSize estimates how many bytes f takes in a listing: its text and JSON as stored, and a
// fixed allowance for the rest. ListQuery.MaxBytes counts it; it is close to the size of the
// record in the API's JSON form and above its size in the binary form.
func RecordSize(f Failure) int {
	return recordOverhead + len(f.Tool) + len(f.Server) + len(f.Class) + len(f.Code) +
		len(f.AgentGuidance) + len(f.RuleID) + len(f.Shadow) + len(f.Error) + len(f.ToolAnnotations) +
		len(f.TraceID) + len(f.SpanID) + len(f.Fingerprint)
}

// PageBudget follows ListQuery.MaxBytes while a backend reads the rows of a page, so that every
// backend ends a page at the same record.
type PageBudget struct {
	max, used, n int
}

// NewPageBudget returns the budget of a page of at most maxBytes (none when zero or less).
func NewPageBudget(maxBytes int) PageBudget { return PageBudget{max: maxBytes} }

// Over takes the next record read and reports whether it does not fit: it is then the record that
// follows the page, which the backend returns last before it stops reading. The first record of a
// page always fits.
func (b *PageBudget) Over(f Failure) bool {
	if b.max <= 0 {
		return false
	}
	size := RecordSize(f)
	b.n++
	if b.n > 1 && b.used+size > b.max {
		return true
	}
	b.used += size
	return false
}

// CutPage applies ListQuery's Limit and MaxBytes to rows that are already in the page's order,
// for a decorator that merges rows of its own into a backend's page: it keeps at most limit rows
// and ends after the first row that does not fit in maxBytes.
func CutPage(rows []Failure, limit, maxBytes int) []Failure {
	if len(rows) > limit {
		rows = rows[:limit]
	}
	b := NewPageBudget(maxBytes)
	for i, f := range rows {
		if b.Over(f) {
			return rows[:i+1]
		}
	}
	return rows
}

// PageEnd returns how many of rows make one page of at most pageSize records and maxBytes bytes
// (ListQuery.MaxBytes), and whether more records follow that page, for rows that a backend
// returned for a ListQuery with a Limit above pageSize and the same MaxBytes.
func PageEnd(rows []Failure, pageSize, maxBytes int) (n int, more bool) {
	b := NewPageBudget(maxBytes)
	for n < len(rows) && n < pageSize && !b.Over(rows[n]) {
		n++
	}
	return n, n < len(rows)
}

// Rule is one tenant rule as stored. The store does not interpret rules: Spec is the rule's whole
// definition as a JSON object (the API's JSON form, which is also the rules file's form), compared
// by value, so that a change of key order or whitespace is not a change of the rule. Name and
// Priority are kept beside it because they key and order the set; the caller keeps them equal to
// the spec's.
type Rule struct {
	TenantID int64
	Name     string // unique per tenant; compared byte for byte
	Priority int32
	Spec     json.RawMessage
	// Version is the rule-set version that last changed this rule, and UpdatedAt when; both are
	// set by the store.
	Version   int64
	UpdatedAt time.Time
}

// RuleSet is a tenant's whole set of rules at one version.
type RuleSet struct {
	// Version counts the changes to the tenant's set: 0 before the first one, then one more for
	// every call that changed something. Records keep the version that classified them.
	Version int64
	// Rules are in evaluation order: priority descending, then name in byte order.
	Rules []Rule
}

// Change values of RuleChange.
const (
	RuleAdded     = "added"
	RuleRemoved   = "removed"
	RuleChanged   = "changed"
	RuleUnchanged = "unchanged"
)

// RuleChange is one line of the difference between two rule sets.
type RuleChange struct {
	Name   string
	Change string // RuleAdded, RuleRemoved, RuleChanged or RuleUnchanged
}

// DiffRules compares two sets of rules by name: a rule is changed when its priority or its spec
// (by JSON value) differs. The result is sorted by name. Backends use it inside ReplaceRules, and
// callers for a dry run, so that both report the same diff.
func DiffRules(before, after []Rule) []RuleChange {
	old := make(map[string]Rule, len(before))
	for _, r := range before {
		old[r.Name] = r
	}
	changes := make([]RuleChange, 0, max(len(before), len(after)))
	for _, r := range after {
		prev, ok := old[r.Name]
		switch {
		case !ok:
			changes = append(changes, RuleChange{Name: r.Name, Change: RuleAdded})
		case prev.Priority != r.Priority || !SameJSON(prev.Spec, r.Spec):
			changes = append(changes, RuleChange{Name: r.Name, Change: RuleChanged})
		default:
			changes = append(changes, RuleChange{Name: r.Name, Change: RuleUnchanged})
		}
		delete(old, r.Name)
	}
	for name := range old {
		changes = append(changes, RuleChange{Name: name, Change: RuleRemoved})
	}
	slices.SortFunc(changes, func(a, b RuleChange) int { return strings.Compare(a.Name, b.Name) })
	return changes
}

// SameJSON reports whether two JSON documents have the same value. Invalid JSON equals nothing.
func SameJSON(a, b json.RawMessage) bool {
	if len(a) > 0 && bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// RuleEventKind says what a RuleEvent reports.
type RuleEventKind int

const (
	// RuleSetChanged: a change to one tenant's rules was committed, by any process.
	RuleSetChanged RuleEventKind = iota + 1
	// RuleWatchStarted: notifications flow (again). Changes made while they did not may have been
	// missed, so everything cached must be reloaded.
	RuleWatchStarted
	// RuleWatchLost: notifications stopped (the connection broke); the watcher is reconnecting.
	// Until RuleWatchStarted, a cache must check versions itself.
	RuleWatchLost
)

// RuleEvent is one report of a RuleWatcher.
type RuleEvent struct {
	Kind     RuleEventKind
	TenantID int64 // with RuleSetChanged
	Version  int64 // with RuleSetChanged: the version that the change committed
}

// RuleWatcher is implemented by backends that several processes share (store/postgres), so that
// every replica learns of a rule change within a second instead of serving stale rules. The
// embedded store is used by one process only, which sees its own writes, and needs none.
type RuleWatcher interface {
	// WatchRules calls fn, from one goroutine, for every event until ctx ends, and then returns
	// ctx's error. It reconnects by itself when its connection breaks, reporting RuleWatchLost
	// and, once listening again, RuleWatchStarted. The first event is RuleWatchStarted, sent once
	// it is listening, or RuleWatchLost if it cannot connect.
	WatchRules(ctx context.Context, fn func(RuleEvent)) error
}

// ForwardWatch is WatchRules for a decorator of inner: it forwards to inner's notifications when
// inner has them, and otherwise reports the watch as lost and waits for ctx, which makes a rule
// cache check versions itself, as it would without notifications. A decorator that embeds the
// Store interface would otherwise hide the capability.
func ForwardWatch(ctx context.Context, inner Store, fn func(RuleEvent)) error {
	if w, ok := inner.(RuleWatcher); ok {
		return w.WatchRules(ctx, fn)
	}
	fn(RuleEvent{Kind: RuleWatchLost})
	<-ctx.Done()
	return ctx.Err()
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

	// ListAPIKeys returns the keys of the tenant, or of every tenant when tenantID is 0, with their
	// tenants, ordered by tenant name, then creation time, then ID. Hash is left empty: a listing
	// never needs it. Revoked and expired keys are listed too.
	ListAPIKeys(ctx context.Context, tenantID int64) ([]APIKeyEntry, error)

	// RevokeAPIKey records that the key with this ID is revoked at at, by by (who and from where),
	// and returns it as stored. APIKeyByHash keeps returning the key, with RevokedAt set, and callers
	// refuse it. Revoking a revoked key changes nothing and returns it with revoked=false.
	// ErrNotFound when there is no such key.
	RevokeAPIKey(ctx context.Context, id string, at time.Time, by string) (key APIKey, revoked bool, err error)

	// TouchAPIKey records that the tenant's key id was used at at, unless a later use is already
	// recorded. Callers coalesce (a write per key per interval, not per request). An unknown key
	// is not an error.
	TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error

	// RevokeSession records that the web page's session id of the tenant has ended (its user
	// signed out), so that its cookie is refused by every replica from now on. expires is when
	// the session would have ended anyway: after it, the record may be forgotten. Revoking a
	// session twice is not an error. ErrNotFound when the tenant does not exist.
	RevokeSession(ctx context.Context, tenantID int64, id [16]byte, expires time.Time) error

	// SessionRevoked reports whether RevokeSession recorded the tenant's session id (and has not
	// forgotten it yet). Another tenant's revocation does not count.
	SessionRevoked(ctx context.Context, tenantID int64, id [16]byte) (bool, error)

	// InsertFailure stores the prepared record f durably (committed) before it returns, and returns
	// the record as stored (as Prepare left it: times truncated to microseconds, in UTC; defaults
	// filled in). It trusts f: the checks ran in Prepare. If its IdempotencyKey is set and a record
	// with the same (tenant, key) exists, nothing is written and that record is returned with
	// created=false; this holds when many callers race with the same key too: one record, and all
	// of them get its ID. ErrNotFound when the tenant does not exist, ErrInvalid for the zero
	// Prepared.
	InsertFailure(ctx context.Context, f Prepared) (stored Failure, created bool, err error)

	// GetFailure returns the tenant's record with this ID, or ErrNotFound, which is also the answer
	// for another tenant's record.
	GetFailure(ctx context.Context, tenantID int64, id [16]byte) (Failure, error)

	// ListFailures returns one page of the tenant's records matching q.Filter, newest first (ID
	// descending), starting after q.After. It pages by key, never by OFFSET, so a page costs the
	// same however deep it is, and records written meanwhile cause neither duplicates nor gaps.
	ListFailures(ctx context.Context, tenantID int64, q ListQuery) ([]Failure, error)

	// ListRules returns the tenant's rule set, read in one snapshot: the rules and the version
	// they are at. A tenant without rules (or that does not exist) has an empty set at version 0,
	// or at the version that its last change left.
	ListRules(ctx context.Context, tenantID int64) (RuleSet, error)

	// RuleSetVersion returns the version of the tenant's rule set (0 before any change). It is
	// cheap: caches poll it when they cannot be notified.
	RuleSetVersion(ctx context.Context, tenantID int64) (int64, error)

	// GetRule returns one rule of the tenant, or ErrNotFound.
	GetRule(ctx context.Context, tenantID int64, name string) (Rule, error)

	// CreateRule adds r to its tenant's set and returns it as stored, with the set's new version.
	// ErrConflict when the tenant has a rule of that name, ErrNotFound when the tenant does not
	// exist.
	CreateRule(ctx context.Context, r Rule) (Rule, error)

	// UpdateRule replaces the tenant's rule of the same name and returns it as stored, with the
	// set's new version. ErrNotFound when there is no such rule. An update that changes nothing
	// (same priority, same spec by value) returns the rule as it was and leaves the version alone.
	UpdateRule(ctx context.Context, r Rule) (Rule, error)

	// DeleteRule removes one rule and returns the set's new version; ErrNotFound when there is no
	// such rule.
	DeleteRule(ctx context.Context, tenantID int64, name string) (version int64, err error)

	// ReplaceRules makes rules the tenant's whole set, atomically: a concurrent reader sees the old
	// set or the new one, never a mix. Rules whose name, priority and spec are unchanged keep their
	// Version and UpdatedAt. It returns the set's version afterwards and the diff (DiffRules) from
	// the set it replaced; when nothing changed the version stays the same. With expectedVersion
	// set, it fails with ErrConflict, changing nothing, unless the set is at that version (the
	// optimistic concurrency of `rules apply`). ErrNotFound when the tenant does not exist. The
	// TenantID of each rule is ignored; names must be unique (ErrConflict otherwise).
	ReplaceRules(ctx context.Context, tenantID int64, rules []Rule, expectedVersion *int64) (version int64, changes []RuleChange, err error)

	// SetRetention sets how many days the tenant's failure records are kept; 0 keeps them forever
	// (the default). ErrNotFound when the tenant does not exist. Records are removed by
	// PurgeExpired, not by this call.
	SetRetention(ctx context.Context, tenantID int64, days int) error

	// Retention returns the tenant's retention in days, 0 for forever. ErrNotFound when the tenant
	// does not exist.
	Retention(ctx context.Context, tenantID int64) (days int, err error)

	// PurgeExpired removes every record that is older than its tenant's retention at now, where a
	// record's age is the time in its ID (a UUIDv7, minted when the record was made). It deletes in
	// batches of at most batch rows (DefaultPurgeBatch when zero or less), each committed on its own,
	// so that writers are never held up for long, and returns how many records it removed. It stops
	// between batches when ctx ends.
	PurgeExpired(ctx context.Context, now time.Time, batch int) (removed int64, err error)

	// ListGroups returns one page of the tenant's groups in q.Filter's window, in q.OrderBy's order,
	// starting after q.After. Counts are exact at the time of the query. ErrInvalid (wrapped) for a
	// window that CheckGroupWindow refuses.
	ListGroups(ctx context.Context, tenantID int64, q GroupQuery) ([]Group, error)

	// GetGroup returns the tenant's group with this fingerprint in the window [since, until), or
	// ErrNotFound when the tenant has no record with it there, which is also the answer for
	// another tenant's fingerprint.
	GetGroup(ctx context.Context, tenantID int64, fingerprint string, since, until time.Time) (Group, error)

	// GroupHours counts the tenant's records of each fingerprint per hour of [since, until): the
	// first count is of [since, since+1h), and there are as many as the window has hours, rounded
	// up. Fingerprints without records in the window are absent from the map. ErrInvalid (wrapped)
	// for a window that CheckGroupWindow refuses or a malformed fingerprint.
	GroupHours(ctx context.Context, tenantID int64, fingerprints []string, since, until time.Time) (map[string][]int64, error)

	// Ping reports whether the backend answers; /healthz and gRPC health use it.
	Ping(ctx context.Context) error

	// Close releases the store's connections (and, for the embedded store, its file lock). It is
	// safe to call more than once.
	Close() error
}

// DefaultPurgeBatch is the batch size of PurgeExpired when none is given: small enough that one
// batch holds its locks for milliseconds, large enough that a day's records of a busy tenant are
// removed in seconds.
const DefaultPurgeBatch = 5000

// MaxRetentionDays caps SetRetention, so that the cut-off time stays representable everywhere.
const MaxRetentionDays = 100 * 366

// RetentionValue checks a retention for SetRetention and returns what a backend stores: nil for 0
// (keep forever), else the number of days. Both backends share it so that they refuse alike.
func RetentionValue(tenantID int64, days int) (any, error) {
	if days < 0 || days > MaxRetentionDays {
		return nil, fmt.Errorf("set retention of tenant %d: %w: %d days is not from 0 to %d",
			tenantID, ErrInvalid, days, MaxRetentionDays)
	}
	if days == 0 {
		return nil, nil
	}
	return days, nil
}

// ExpiryBound returns the smallest UUIDv7 of the millisecond at cutoff: every record whose ID is
// below it was made before cutoff. Backends delete by this bound because the failures table's key
// is (tenant_id, id), so the oldest records of a tenant are one contiguous range of the primary
// key, and no index on created_at is needed.
func ExpiryBound(cutoff time.Time) [16]byte {
	var b [16]byte
	ms := cutoff.UnixMilli()
	if ms < 0 {
		return b
	}
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	return b
}
