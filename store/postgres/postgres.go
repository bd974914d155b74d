package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/omcp/toolfailure/migrations"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// versionTable is goose's bookkeeping table. It has our own name because the default,
// goose_db_version, may already belong to another application sharing the schema, and goose would
// then believe our migrations applied.
const versionTable = "toolfailure_goose_db_version"

// defaultConnectTimeout bounds each connection attempt when the URL does not say otherwise; pgx's
// own default is to wait as long as the context allows, which at start-up is forever.
const defaultConnectTimeout = 10 * time.Second

// Store is the PostgreSQL implementation of store.Store. It is safe for concurrent use.
type Store struct {
	pool      *pgxpool.Pool
	writer    *batcher
	closeOnce sync.Once
	// tenants holds the IDs of tenants known to exist (int64 → struct{}). failures has no foreign
	// key to tenants (see migrations/postgres/00004_lean_failures.sql): InsertFailure checks a
	// tenant once and remembers it, which is sound because tenants are never deleted.
	tenants sync.Map
}

var _ store.Store = (*Store)(nil)

// Option configures Open.
type Option func(*options)

type options struct {
	pool *pgxpool.Config
	// batchContext, when set, is given the context of each group-commit write and the
	// contexts of the callers it serves, and returns the context the write runs with.
	batchContext func(write context.Context, callers []context.Context) context.Context
}

// WithTracer traces every statement of the store's connections, for example with
// telemetry.Instruments.PgxTracer; nil traces nothing.
func WithTracer(t pgx.QueryTracer) Option {
	return func(o *options) {
		if t != nil {
			o.pool.ConnConfig.Tracer = t
		}
	}
}

// WithBatchContext has each group-commit write run with the context f returns, given the write's
// own context and those of the callers it serves: a write serves many callers on a goroutine of
// its own, so a tracer learns of them only this way (telemetry.WithStoreBatch links their spans
// and counts the batch). The store itself knows nothing of telemetry.
func WithBatchContext(f func(write context.Context, callers []context.Context) context.Context) Option {
	return func(o *options) { o.batchContext = f }
}

// Open connects to the database at databaseURL and checks that it answers. It does not migrate;
// call Migrate. See the package documentation for the settings the URL can carry.
func Open(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	return open(ctx, databaseURL, true, opts...)
}

// OpenLazy is Open without the check that the database answers: the pool connects when it is
// first used, and every call fails with store.ErrUnavailable until the database answers. It is for
// a service that can run without its database for a while (with an outage journal) and must be
// able to start during an outage; Ping and Migrate tell when the database is back.
func OpenLazy(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	return open(ctx, databaseURL, false, opts...)
}

func open(ctx context.Context, databaseURL string, ping bool, opts ...Option) (*Store, error) {
	databaseURL, batching, err := takeBatchSettings(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// pgx redacts the password in its parse errors; the URL itself is never repeated here.
		return nil, fmt.Errorf("open postgres store: parse database URL: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = int32(max(4, 2*runtime.GOMAXPROCS(0)))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		// Shows up in pg_stat_activity, which is where an operator looks first.
		cfg.ConnConfig.RuntimeParams["application_name"] = "toolfailure"
	}
	o := options{pool: cfg}
	for _, opt := range opts {
		opt(&o)
	}
	batching.context = o.batchContext
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	// The pool connects lazily; ping now so that a wrong URL fails at start-up, not on the first
	// request.
	if !ping {
		return &Store{pool: pool, writer: newBatcher(pool, batching)}, nil
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		// A server that does not answer is store.ErrUnavailable, as it is for every later call: a
		// caller with somewhere else to keep records (a journal) can start without it (OpenLazy).
		return nil, fmt.Errorf("open postgres store: connect to %s: %w", describe(cfg), mapError(err))
	}
	return &Store{pool: pool, writer: newBatcher(pool, batching)}, nil
}

// describe names the database for error messages without the password.
func describe(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// Migrate applies pending migrations; see the package documentation for how concurrent callers
// are serialised.
func (s *Store) Migrate(ctx context.Context) error {
	db := stdlib.OpenDB(*s.pool.Config().ConnConfig)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres,
		goose.WithTableName(versionTable),
		goose.WithSessionLocker(schemaLock{}),
		// Go migrations registered globally by any imported package must not leak into ours.
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		return fmt.Errorf("migrate postgres store: %w", mapError(err))
	}
	// An unreachable server is store.ErrUnavailable here too: serve with a journal starts anyway
	// and migrates once the server answers.
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("migrate postgres store: %w", mapError(err))
	}
	now := time.Now()
	if err := ensurePartitions(ctx, s.pool, now, now.Add(PartitionsAhead*partitionDay)); err != nil {
		return fmt.Errorf("migrate postgres store: %w", mapError(err))
	}
	return nil
}

// schemaLock is a goose session locker that serialises migrations per schema with a blocking
// advisory lock. goose's own locker polls with pg_try_advisory_lock every few seconds on one fixed
// key for the whole database; blocking wakes the waiter the moment the lock is free, and keying by
// schema lets independent schemas (parallel tests, or several deployments in one database) migrate
// at the same time. The key is hashed by the server, so every process computes the same one.
type schemaLock struct{}

const lockKey = `hashtextextended('toolfailure migrate ' || coalesce(current_schema(), ''), 0)`

func (schemaLock) SessionLock(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(`+lockKey+`)`); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	return nil
}

func (schemaLock) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var released bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_advisory_unlock(`+lockKey+`)`).Scan(&released); err != nil {
		return fmt.Errorf("release migration lock: %w", err)
	}
	if !released {
		return errors.New("release migration lock: the lock was not held")
	}
	return nil
}

// EnsureTenant looks the tenant up first, because it nearly always exists, and inserts only when
// it does not. ON CONFLICT DO NOTHING covers a concurrent creator: the insert then returns no row,
// and the next lookup sees the winner's committed tenant.
func (s *Store) EnsureTenant(ctx context.Context, name string) (store.Tenant, error) {
	for range 3 {
		t, err := scanTenant(s.pool.QueryRow(ctx,
			`SELECT id, name, created_at FROM tenants WHERE name = $1`, name))
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return store.Tenant{}, fmt.Errorf("store tenant %q: %w", name, mapError(err))
		}
		t, err = scanTenant(s.pool.QueryRow(ctx,
			`INSERT INTO tenants (name, created_at) VALUES ($1, $2)
			 ON CONFLICT (name) DO NOTHING
			 RETURNING id, name, created_at`, name, canonical.Now()))
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return store.Tenant{}, fmt.Errorf("store tenant %q: %w", name, mapError(err))
		}
	}
	return store.Tenant{}, fmt.Errorf("store tenant %q: created and removed concurrently, giving up", name)
}

func scanTenant(row pgx.Row) (store.Tenant, error) {
	var t store.Tenant
	if err := row.Scan(&t.ID, &t.Name, &t.CreatedAt); err != nil {
		return store.Tenant{}, err
	}
	t.CreatedAt = t.CreatedAt.UTC()
	return t, nil
}

const apiKeyColumns = `tenant_id, id, key_hash, scopes, created_at, created_by, expires_at,
	revoked_at, revoked_by, last_used_at`

// CreateAPIKey stores k and returns it as stored.
func (s *Store) CreateAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	k = canonical.APIKey(k)
	scopes := k.Scopes
	if scopes == nil {
		scopes = []string{} // the column is NOT NULL; pgx sends a nil slice as NULL
	}
	stored, err := scanAPIKey(s.pool.QueryRow(ctx,
		`INSERT INTO api_keys (`+apiKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		 RETURNING `+apiKeyColumns,
		k.TenantID, k.ID, k.Hash, scopes, k.CreatedAt, k.CreatedBy, nullTime(k.ExpiresAt),
		nullTime(k.RevokedAt), k.RevokedBy, nullTime(k.LastUsedAt)))
	if err != nil {
		return store.APIKey{}, fmt.Errorf("store API key %q of tenant %d: %w", k.ID, k.TenantID, mapError(err))
	}
	return stored, nil
}

// APIKeyByHash is an equality lookup on the unique hash index. Comparing hashes in the database is
// not a timing side channel worth closing: an attacker cannot choose the hash of a guess's prefix.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	k, t, err := scanAPIKeyEntry(s.pool.QueryRow(ctx,
		`SELECT `+apiKeyEntryColumns+`
		 FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		 WHERE k.key_hash = $1`, hash))
	if err != nil {
		return store.APIKey{}, store.Tenant{}, fmt.Errorf("store API key by hash: %w", mapError(err))
	}
	return k, t, nil
}

const apiKeyEntryColumns = `k.tenant_id, k.id, k.key_hash, k.scopes, k.created_at, k.created_by,
	k.expires_at, k.revoked_at, k.revoked_by, k.last_used_at, t.id, t.name, t.created_at`

func scanAPIKeyEntry(row pgx.Row) (store.APIKey, store.Tenant, error) {
	var t store.Tenant
	k, err := scanAPIKey(row, &t.ID, &t.Name, &t.CreatedAt)
	if err != nil {
		return store.APIKey{}, store.Tenant{}, err
	}
	t.CreatedAt = t.CreatedAt.UTC()
	return k, t, nil
}

// ListAPIKeys reads the (small) keys table in the order of the listing.
func (s *Store) ListAPIKeys(ctx context.Context, tenantID int64) ([]store.APIKeyEntry, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT `+apiKeyEntryColumns+`
		 FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		 WHERE $1 = 0 OR k.tenant_id = $1
		 ORDER BY t.name, k.created_at, k.id`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", mapError(err))
	}
	defer rows.Close()
	var out []store.APIKeyEntry
	for rows.Next() {
		k, t, err := scanAPIKeyEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("list API keys: %w", mapError(err))
		}
		k.Hash = nil
		out = append(out, store.APIKeyEntry{Key: k, Tenant: t})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list API keys: %w", mapError(err))
	}
	return out, nil
}

// RevokeAPIKey sets revoked_at once: a second revocation keeps the first time and author.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time, by string) (store.APIKey, bool, error) {
	at = canonical.Time(at)
	if at.IsZero() {
		at = canonical.Now()
	}
	k, err := scanAPIKey(s.pool.QueryRow(ctx,
		`UPDATE api_keys SET revoked_at = $2, revoked_by = $3
		 WHERE id = $1 AND revoked_at IS NULL
		 RETURNING `+apiKeyColumns, id, at, by))
	if err == nil {
		return k, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return store.APIKey{}, false, fmt.Errorf("revoke API key %q: %w", id, mapError(err))
	}
	k, err = scanAPIKey(s.pool.QueryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE id = $1`, id))
	if err != nil {
		return store.APIKey{}, false, fmt.Errorf("revoke API key %q: %w", id, mapError(err))
	}
	return k, false, nil
}

// TouchAPIKey moves last_used_at forward only; the primary key finds the row.
func (s *Store) TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE api_keys SET last_used_at = $3
		 WHERE tenant_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`,
		tenantID, id, canonical.Time(at))
	if err != nil {
		return fmt.Errorf("record use of API key %q: %w", id, mapError(err))
	}
	return nil
}

// scanAPIKey scans apiKeyColumns, then extra.
func scanAPIKey(row pgx.Row, extra ...any) (store.APIKey, error) {
	var (
		k                          store.APIKey
		expires, revoked, lastUsed *time.Time
	)
	dest := append([]any{&k.TenantID, &k.ID, &k.Hash, &k.Scopes, &k.CreatedAt, &k.CreatedBy,
		&expires, &revoked, &k.RevokedBy, &lastUsed}, extra...)
	if err := row.Scan(dest...); err != nil {
		return store.APIKey{}, err
	}
	k.Scopes = canonical.Scopes(k.Scopes)
	k.CreatedAt = k.CreatedAt.UTC()
	for _, f := range []struct {
		src *time.Time
		dst *time.Time
	}{{expires, &k.ExpiresAt}, {revoked, &k.RevokedAt}, {lastUsed, &k.LastUsedAt}} {
		if f.src != nil {
			*f.dst = f.src.UTC()
		}
	}
	return k, nil
}

// CountAPIKeys counts all keys of all tenants.
func (s *Store) CountAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count API keys: %w", mapError(err))
	}
	return n, nil
}

// insertColumns are what a batch writes (batch.go); failureColumns are a whole record's. A batch
// leaves same_call_as out because only a journal's drain sets it, and such a record is written
// alone (InsertFailure), which keeps the hot path's statement and its arrays as they were.
const (
	insertColumns = `tenant_id, id, tool, server, class, code, retryable, retry_not_before,
	agent_guidance, rule_id, rule_version, error, tool_annotations, trace_id, span_id,
	idempotency_key, created_at, occurred_at, shadow, fingerprint`
	failureColumns = insertColumns + `, same_call_as`
)

// insertFailure is insertBatch for one row, the path of a row whose batch failed: the key first,
// then the record if the key was free. The casts say what a batch's arrays say.
const insertFailure = `WITH taken AS (INSERT INTO failure_keys (tenant_id, idempotency_key, id)
		SELECT $1::bigint, $16::text, $2::uuid WHERE $16::text IS NOT NULL
		ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
		RETURNING id)
	INSERT INTO failures (` + failureColumns + `)
	SELECT $1::bigint, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::boolean, $8::timestamptz,
		$9::text, $10::text, $11::bigint, $12::jsonb, $13::jsonb, $14::text, $15::text, $16::text,
		$17::timestamptz, $18::timestamptz, $19::jsonb, $20::bigint, $21::uuid
	WHERE $16::text IS NULL OR EXISTS (SELECT FROM taken)
	RETURNING ` + failureColumns

// InsertFailure writes p and returns once the write is committed.
//
// Concurrent calls share a commit (see batcher): p was checked by store.Prepare, on the caller's
// goroutine, so that a record that breaks the contract is refused alone and never reaches a batch.
func (s *Store) InsertFailure(ctx context.Context, p store.Prepared) (store.Failure, bool, error) {
	f, err := p.Record()
	if err != nil {
		return store.Failure{}, false, err
	}
	if err := s.checkTenant(ctx, f.TenantID); err != nil {
		return store.Failure{}, false, fmt.Errorf("store failure %s: %w", canonical.ID(f.ID), err)
	}
	var (
		stored  store.Failure
		created bool
	)
	if f.SameCallAs != ([16]byte{}) {
		// Only a journal's drain links records, a few after an outage: written alone (see
		// insertColumns).
		stored, created, err = insertOne(ctx, s.pool, f)
	} else {
		stored, created, err = s.writer.insert(ctx, f)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		// The caller's deadline passed while the database had not answered: from the caller's
		// side, that is the database being unavailable.
		err = fmt.Errorf("store failure %s: %w: %w", canonical.ID(f.ID), store.ErrUnavailable, err)
	}
	return stored, created, err
}

// checkTenant returns store.ErrNotFound unless the tenant exists; a tenant seen once is not looked
// up again.
func (s *Store) checkTenant(ctx context.Context, tenantID int64) error {
	if _, ok := s.tenants.Load(tenantID); ok {
		return nil
	}
	var exists bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1)`, tenantID).Scan(&exists)
	if err != nil {
		return fmt.Errorf("look up tenant %d: %w", tenantID, mapError(err))
	}
	if !exists {
		return fmt.Errorf("tenant %d: %w", tenantID, store.ErrNotFound)
	}
	s.tenants.Store(tenantID, struct{}{})
	return nil
}

// getFailure reads one record and, in the same statement, the IDs of the records that name it as
// the same call (store.Failure.NamedBy), through the partial index of links
// (migrations/postgres/00011_same_call.sql). The tenant is part of both keys, so another tenant's
// ID is simply not found, and another tenant's record never names this one.
const getFailure = `SELECT ARRAY(SELECT l.id FROM failures l
		WHERE l.tenant_id = $1 AND l.same_call_as = $2 ORDER BY l.id),
	` + failureColumns + ` FROM failures WHERE tenant_id = $1 AND id = $2`

// GetFailure reads one record with the records linked to it.
func (s *Store) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	var named [][16]byte
	f, err := scanFailure(&rowSplitter{row: s.pool.QueryRow(ctx, getFailure, tenantID, id), head: []any{&named}})
	if err != nil {
		return store.Failure{}, fmt.Errorf("get failure %s: %w", canonical.ID(id), mapError(err))
	}
	if len(named) > 0 {
		f.NamedBy = named
	}
	return f, nil
}

// ListFailures builds its WHERE clause from the filters that are set, so that the planner sees
// plain equality and range predicates and can pick the index that ends in id (see the migration).
func (s *Store) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	limit := canonical.Limit(q.Limit)
	if q.MaxBytes <= 0 {
		out, _, err := s.listChunk(ctx, tenantID, q, limit, nil)
		return out, err
	}
	// With a byte budget the page is read in chunks: PostgreSQL sends every row of a LIMIT once
	// the query runs, so one query for a thousand rows of the largest records would move most of a
	// gigabyte for a page that keeps a few of them. The first chunk is small; each later one is as
	// many rows as the budget left holds at the largest size seen so far (and at least one more).
	var (
		out     []store.Failure
		budget  = store.NewPageBudget(q.MaxBytes)
		largest = 1
		used    = 0
		chunk   = min(limit, firstChunk)
	)
	for len(out) < limit {
		cq := q
		if len(out) > 0 {
			last := out[len(out)-1].ID
			cq.After = &last
		}
		want := min(chunk, limit-len(out))
		rows, over, err := s.listChunk(ctx, tenantID, cq, want, &budget)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		if over || len(rows) < want {
			break
		}
		for _, f := range rows {
			size := store.RecordSize(f)
			largest = max(largest, size)
			used += size
		}
		chunk = max(1, (q.MaxBytes-used)/largest) + 1
	}
	return out, nil
}

// firstChunk is how many rows the first query of a page with a byte budget asks for: a page of
// the default size of small records needs two queries, and a page of the largest records never
// moves more than a few megabytes that it does not keep.
const firstChunk = 8

// listChunk runs one query of ListFailures for at most limit rows. With a budget it stops
// reading at the first row that does not fit, returns it last and reports over; the driver
// discards the rest of the chunk without keeping it.
func (s *Store) listChunk(ctx context.Context, tenantID int64, q store.ListQuery, limit int, budget *store.PageBudget) (out []store.Failure, over bool, err error) {
	preds, err := canonical.ListPredicates(tenantID, q)
	if err != nil {
		return nil, false, err
	}
	where, args := []string{"tenant_id = $1"}, []any{tenantID}
	for _, p := range preds {
		args = append(args, p.Val)
		where = append(where, p.Cond+"$"+strconv.Itoa(len(args)))
	}
	args = append(args, limit)
	sqlText := `SELECT ` + failureColumns + ` FROM failures WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY id DESC LIMIT $` + strconv.Itoa(len(args))

	rows, err := s.pool.Query(ctx, sqlText, args...)
	if err != nil {
		return nil, false, fmt.Errorf("list failures of tenant %d: %w", tenantID, mapError(err))
	}
	defer rows.Close()
	for rows.Next() {
		f, err := scanFailure(rows)
		if err != nil {
			return nil, false, fmt.Errorf("list failures of tenant %d: %w", tenantID, mapError(err))
		}
		out = append(out, f)
		if budget != nil && budget.Over(f) {
			over = true
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("list failures of tenant %d: %w", tenantID, mapError(err))
	}
	return out, over, nil
}

func scanFailure(row pgx.Row) (store.Failure, error) {
	var (
		f                      store.Failure
		retryNotBefore         *time.Time
		errorJSON, annotations []byte
		shadow                 []byte
		traceID, spanID, idemp *string
		fp                     *int64
		sameCallAs             *[16]byte
	)
	err := row.Scan(&f.TenantID, &f.ID, &f.Tool, &f.Server, &f.Class, &f.Code, &f.Retryable,
		&retryNotBefore, &f.AgentGuidance, &f.RuleID, &f.RuleVersion, &errorJSON, &annotations,
		&traceID, &spanID, &idemp, &f.CreatedAt, &f.OccurredAt, &shadow, &fp, &sameCallAs)
	if err != nil {
		return store.Failure{}, err
	}
	if sameCallAs != nil {
		f.SameCallAs = *sameCallAs
	}
	if retryNotBefore != nil {
		f.RetryNotBefore = retryNotBefore.UTC()
	}
	f.Error = errorJSON
	if annotations != nil {
		f.ToolAnnotations = annotations
	}
	if shadow != nil {
		f.Shadow = shadow
	}
	f.TraceID = deref(traceID)
	f.SpanID = deref(spanID)
	f.IdempotencyKey = deref(idemp)
	f.CreatedAt = f.CreatedAt.UTC()
	f.OccurredAt = f.OccurredAt.UTC()
	if fp != nil {
		f.Fingerprint = store.FingerprintText(*fp)
	}
	return f, nil
}

// fingerprintArg is a record's fingerprint as stored: its 64-bit key, or NULL.
func fingerprintArg(fp string) *int64 {
	if key, ok := store.FingerprintKey(fp); ok {
		return &key
	}
	return nil
}

// mapError turns the database's answers into the store's sentinels, keeping the original error in
// the chain for logs: no row is ErrNotFound, a unique violation ErrConflict, and a foreign key
// violation (a write naming a tenant that does not exist) ErrNotFound.
func mapError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505": // unique_violation
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case pgErr.Code == "23503": // foreign_key_violation
			return fmt.Errorf("tenant: %w: %w", store.ErrNotFound, err)
		case unavailableClass(pgErr.Code):
			return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
		return err
	}
	if errors.Is(err, store.ErrUnavailable) || errors.Is(err, errClosed) {
		return err
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, context.DeadlineExceeded) || isNetError(err) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// unavailableClass reports whether a SQLSTATE says that the server, not the request, is the
// problem: connection exceptions (08), insufficient resources (53), operator intervention such as
// a shutdown in progress (57P01–57P05), and system errors (58).
func unavailableClass(code string) bool {
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53") ||
		strings.HasPrefix(code, "57P") || strings.HasPrefix(code, "58")
}

// isNetError reports a broken or refused connection below pgx: the server went away mid-query.
func isNetError(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	return errors.As(err, &netErr) || errors.As(err, &opErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// The columns that are NULL when absent (so that partial indexes skip them) take these.

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// nullID is an optional record ID as stored: NULL for the zero ID.
func nullID(id [16]byte) any {
	if id == ([16]byte{}) {
		return nil
	}
	return id
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullJSON(j []byte) any {
	if j == nil {
		return nil
	}
	// As a string, pgx sends the JSON text unchanged and the server parses it; nothing is re-encoded
	// on the way, which could alter a document that is stored "as received".
	return string(j)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Ping checks that PostgreSQL answers, for health checks.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", mapError(err))
	}
	return nil
}

// Close writes every record already queued for a group commit, then closes the pool, waiting for
// connections in use to be returned. Records are never dropped by a shutdown: a caller that was
// queued is answered after its commit, as always.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.writer.close()
		s.pool.Close()
	})
	return nil
}
