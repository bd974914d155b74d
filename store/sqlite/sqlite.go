package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/omcp/toolfailure/internal/filelock"
	"github.com/omcp/toolfailure/migrations"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// ErrLocked is returned (wrapped) by Open when another process has the database open.
var ErrLocked = errors.New("database is in use by another process")

// versionTable is goose's bookkeeping table, named like the PostgreSQL store's for consistency.
const versionTable = "toolfailure_goose_db_version"

// busyTimeoutMS is how long a connection waits for a lock before failing with SQLITE_BUSY. With one
// writer in one process, readers meet a lock only around WAL checkpoints and recovery, which are short.
const busyTimeoutMS = 10_000

// Store is the SQLite implementation of store.Store. It is safe for concurrent use.
type Store struct {
	path    string
	lock    *os.File
	writer  *sql.DB // exactly one connection: every write goes through it, in turn
	readers *sql.DB // read-only connections

	closeOnce sync.Once
	closeErr  error

	// damage is the first error that showed the file damaged (wrapping store.ErrCorrupt); Ping
	// answers with it from then on. A damaged file does not heal while it is open.
	damage atomic.Pointer[error]
}

var _ store.Store = (*Store)(nil)

// DefaultPath is where the embedded store lives when the operator names no database:
// $XDG_DATA_HOME/toolfailure/toolfailure.db, or ~/.local/share/toolfailure/toolfailure.db when
// XDG_DATA_HOME is unset (or, as the XDG specification requires, ignored because it is not absolute).
// It is a data directory, not a cache or config directory, because the records must survive cache
// cleaning and are not settings. On Windows, without XDG_DATA_HOME, it is under %LocalAppData%. If
// no home directory is known, it is toolfailure.db in the working directory. Open creates the
// directory.
func DefaultPath() string {
	return defaultPath(runtime.GOOS, os.Getenv, os.UserHomeDir)
}

// defaultPath is DefaultPath with its environment passed in, so that tests need not change the
// process's.
func defaultPath(goos string, getenv func(string) string, home func() (string, error)) string {
	const app, file = "toolfailure", "toolfailure.db"
	if dir := getenv("XDG_DATA_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, app, file)
	}
	if goos == "windows" {
		if dir := getenv("LocalAppData"); dir != "" {
			return filepath.Join(dir, app, file)
		}
	}
	if h, err := home(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", app, file)
	}
	return file
}

// Open opens (creating if needed) the database file at path, and its directory, and locks it for
// this process. It does not migrate; call Migrate.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open sqlite store: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", abs, err)
	}
	lock, err := acquireLock(ctx, abs+".lock")
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", abs, err)
	}
	s := &Store{path: abs, lock: lock}

	// Order matters: the writer creates the file and switches it to WAL before any reader opens it.
	s.writer, err = sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout("+strconv.Itoa(busyTimeoutMS)+")",
		"_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(FULL)",
		"_txlock=immediate",
	))
	if err != nil {
		return nil, s.openFailed(err)
	}
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)
	// journal_mode=WAL silently stays what it was where WAL is impossible (some network file
	// systems); the durability and concurrency described in the package documentation need it.
	var mode string
	if err := s.writer.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return nil, s.openFailed(err)
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, errors.Join(fmt.Errorf("open sqlite store %s: journal mode is %q, not WAL; is it on a network file system?", abs, mode), s.Close())
	}

	s.readers, err = sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout("+strconv.Itoa(busyTimeoutMS)+")",
		"_pragma=query_only(1)",
	))
	if err != nil {
		return nil, s.openFailed(err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	s.readers.SetMaxOpenConns(n)
	s.readers.SetMaxIdleConns(n)
	if err := s.readers.PingContext(ctx); err != nil {
		return nil, s.openFailed(err)
	}
	// A file whose pages were overwritten (a bad disk, a copy taken mid-write, another program)
	// would otherwise open, report healthy and fail every call that meets a damaged page; it is
	// refused here, where the operator is looking, with what to do about it.
	if err := s.QuickCheck(ctx); err != nil {
		return nil, s.openFailed(err)
	}
	return s, nil
}

// openFailed closes what Open opened and says why it failed; for a damaged file, also what to do.
func (s *Store) openFailed(err error) error {
	err = s.mapError(err)
	if errors.Is(err, store.ErrCorrupt) {
		err = fmt.Errorf("%w; restore the file from a backup, or move it (and its -wal and -shm files) aside to start with an empty store", err)
	}
	return errors.Join(fmt.Errorf("open sqlite store %s: %w", s.path, err), s.Close())
}

// maxCheckProblems is how many of quick_check's findings an error quotes.
const maxCheckProblems = 3

// QuickCheck runs SQLite's PRAGMA quick_check over the whole file: every page and record is read
// and checked, without comparing indexes to their tables. Open runs it; it takes time in
// proportion to the file's size. A damaged file gives an error
// wrapping store.ErrCorrupt that quotes the first findings, and Ping reports it from then on.
// The check runs on a connection of its own, closed afterwards, so that the pages it read are not
// left in the cache of a connection that serves calls.
func (s *Store) QuickCheck(ctx context.Context) error {
	db, err := sql.Open("sqlite", dsn(s.path,
		"_pragma=busy_timeout("+strconv.Itoa(busyTimeoutMS)+")",
		"_pragma=query_only(1)",
	))
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("integrity check: %w", s.mapError(err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("integrity check: %w", s.mapError(err))
		}
		for _, p := range strings.Split(line, "\n") {
			if p = strings.TrimSpace(p); p != "ok" && p != "" && !strings.HasPrefix(p, "*** in database") && len(problems) < maxCheckProblems {
				problems = append(problems, p)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", s.mapError(err))
	}
	if len(problems) == 0 {
		return nil
	}
	err = fmt.Errorf("%w: the file failed SQLite's integrity check (PRAGMA quick_check): %s", store.ErrCorrupt, strings.Join(problems, "; "))
	s.damage.CompareAndSwap(nil, &err)
	return err
}

// dsn builds a URI filename. The file: form (rather than a bare path) lets SQLite decode %-escapes,
// so a path containing '?' or '#' is not mistaken for the start of the parameters.
func dsn(path string, params ...string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path, C:/…, becomes /C:/… as SQLite expects
	}
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file:" + p + "?" + strings.Join(params, "&")
}

// lockWait is how long Open waits for a lock that its holder is about to release.
const lockWait = time.Second

// acquireLock opens and locks the lock file, and writes this process's ID into it so that the
// error seen by a second process can name the first.
func acquireLock(ctx context.Context, lockPath string) (*os.File, error) {
	f, err := filelock.Acquire(ctx, lockPath, lockWait)
	if errors.Is(err, filelock.ErrHeld) {
		holder := ""
		if b, rerr := os.ReadFile(lockPath); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf(" (process %d)", pid)
			}
		}
		return nil, fmt.Errorf("%s is locked%s: another toolfailure is probably running with this database; stop it or use another path: %w",
			lockPath, holder, ErrLocked)
	}
	if err != nil {
		return nil, err
	}
	// Best effort: the PID only improves the message above.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// Migrate applies pending migrations through the writer connection. No database lock is needed:
// the file lock keeps other processes out, and the single writer connection serialises callers in
// this one.
func (s *Store) Migrate(ctx context.Context) error {
	provider, err := goose.NewProvider(goose.DialectSQLite3, s.writer, migrations.SQLite,
		goose.WithTableName(versionTable),
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		return fmt.Errorf("migrate sqlite store %s: %w", s.path, err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("migrate sqlite store %s: %w", s.path, err)
	}
	return nil
}

// write runs fn in a transaction on the writer connection. The explicit COMMIT is what makes the
// acknowledgement durable: with synchronous=FULL it returns after the WAL is synced, and its error
// cannot be lost the way an implicit commit at statement reset could be.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// EnsureTenant returns the tenant named name, creating it if needed. Writes are serialised, so a
// lookup and an insert in one transaction cannot race with another creator.
func (s *Store) EnsureTenant(ctx context.Context, name string) (store.Tenant, error) {
	var t store.Tenant
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		t, err = scanTenant(tx.QueryRowContext(ctx,
			`SELECT id, name, created_at FROM tenants WHERE name = ?`, name))
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		t, err = scanTenant(tx.QueryRowContext(ctx,
			`INSERT INTO tenants (name, created_at) VALUES (?, ?) RETURNING id, name, created_at`,
			name, canonical.Now().UnixMicro()))
		return err
	})
	if err != nil {
		return store.Tenant{}, fmt.Errorf("store tenant %q: %w", name, s.mapError(err))
	}
	return t, nil
}

func scanTenant(row *sql.Row) (store.Tenant, error) {
	var (
		t         store.Tenant
		createdAt int64
	)
	if err := row.Scan(&t.ID, &t.Name, &createdAt); err != nil {
		return store.Tenant{}, err
	}
	t.CreatedAt = fromMicros(createdAt)
	return t, nil
}

// CreateAPIKey stores k and returns it as stored.
func (s *Store) CreateAPIKey(ctx context.Context, k store.APIKey) (store.APIKey, error) {
	k = canonical.APIKey(k)
	scopes := k.Scopes
	if scopes == nil {
		scopes = []string{} // "[]", not "null": the column holds an array
	}
	scopesJSON, err := json.Marshal(scopes)
	if err != nil {
		return store.APIKey{}, fmt.Errorf("store API key %q of tenant %d: %w", k.ID, k.TenantID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO api_keys (`+apiKeyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.TenantID, k.ID, k.Hash, string(scopesJSON), k.CreatedAt.UnixMicro(), k.CreatedBy,
			nullMicros(k.ExpiresAt), nullMicros(k.RevokedAt), k.RevokedBy, nullMicros(k.LastUsedAt))
		return err
	})
	if err != nil {
		return store.APIKey{}, fmt.Errorf("store API key %q of tenant %d: %w", k.ID, k.TenantID, s.mapError(err))
	}
	k.Scopes = canonical.Scopes(k.Scopes)
	return k, nil
}

const apiKeyColumns = `tenant_id, id, key_hash, scopes, created_at, created_by, expires_at,
	revoked_at, revoked_by, last_used_at`

const apiKeyEntryColumns = `k.tenant_id, k.id, k.key_hash, k.scopes, k.created_at, k.created_by,
	k.expires_at, k.revoked_at, k.revoked_by, k.last_used_at, t.id, t.name, t.created_at`

// APIKeyByHash is an equality lookup on the unique hash index.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error) {
	k, t, err := scanAPIKeyEntry(s.readers.QueryRowContext(ctx,
		`SELECT `+apiKeyEntryColumns+`
		 FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		 WHERE k.key_hash = ?`, hash))
	if err != nil {
		return store.APIKey{}, store.Tenant{}, fmt.Errorf("store API key by hash: %w", s.mapError(err))
	}
	return k, t, nil
}

func scanAPIKeyEntry(row interface{ Scan(...any) error }) (store.APIKey, store.Tenant, error) {
	var (
		t        store.Tenant
		tenantAt int64
	)
	k, err := scanAPIKey(row, &t.ID, &t.Name, &tenantAt)
	if err != nil {
		return store.APIKey{}, store.Tenant{}, err
	}
	t.CreatedAt = fromMicros(tenantAt)
	return k, t, nil
}

// scanAPIKey scans apiKeyColumns, then extra.
func scanAPIKey(row interface{ Scan(...any) error }, extra ...any) (store.APIKey, error) {
	var (
		k                          store.APIKey
		scopes                     string
		createdAt                  int64
		expires, revoked, lastUsed sql.NullInt64
	)
	dest := append([]any{&k.TenantID, &k.ID, &k.Hash, &scopes, &createdAt, &k.CreatedBy,
		&expires, &revoked, &k.RevokedBy, &lastUsed}, extra...)
	if err := row.Scan(dest...); err != nil {
		return store.APIKey{}, err
	}
	if err := json.Unmarshal([]byte(scopes), &k.Scopes); err != nil {
		return store.APIKey{}, fmt.Errorf("store API key %q: decode scopes: %w", k.ID, err)
	}
	k.Scopes = canonical.Scopes(k.Scopes)
	k.CreatedAt = fromMicros(createdAt)
	for _, f := range []struct {
		src sql.NullInt64
		dst *time.Time
	}{{expires, &k.ExpiresAt}, {revoked, &k.RevokedAt}, {lastUsed, &k.LastUsedAt}} {
		if f.src.Valid {
			*f.dst = fromMicros(f.src.Int64)
		}
	}
	return k, nil
}

// ListAPIKeys reads the (small) keys table in the order of the listing.
func (s *Store) ListAPIKeys(ctx context.Context, tenantID int64) ([]store.APIKeyEntry, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT `+apiKeyEntryColumns+`
		 FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		 WHERE ?1 = 0 OR k.tenant_id = ?1
		 ORDER BY t.name, k.created_at, k.id`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", s.mapError(err))
	}
	defer rows.Close()
	var out []store.APIKeyEntry
	for rows.Next() {
		k, t, err := scanAPIKeyEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("list API keys: %w", s.mapError(err))
		}
		k.Hash = nil
		out = append(out, store.APIKeyEntry{Key: k, Tenant: t})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list API keys: %w", s.mapError(err))
	}
	return out, nil
}

// RevokeAPIKey sets revoked_at once: a second revocation keeps the first time and author.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time, by string) (store.APIKey, bool, error) {
	at = canonical.Time(at)
	if at.IsZero() {
		at = canonical.Now()
	}
	var (
		k       store.APIKey
		revoked bool
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL`,
			at.UnixMicro(), by, id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		revoked = n > 0
		k, err = scanAPIKey(tx.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE id = ?`, id))
		return err
	})
	if err != nil {
		return store.APIKey{}, false, fmt.Errorf("revoke API key %q: %w", id, s.mapError(err))
	}
	return k, revoked, nil
}

// TouchAPIKey moves last_used_at forward only.
func (s *Store) TouchAPIKey(ctx context.Context, tenantID int64, id string, at time.Time) error {
	us := canonical.Time(at).UnixMicro()
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET last_used_at = ?
			 WHERE tenant_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
			us, tenantID, id, us)
		return err
	})
	if err != nil {
		return fmt.Errorf("record use of API key %q: %w", id, s.mapError(err))
	}
	return nil
}

// CountAPIKeys counts all keys of all tenants.
func (s *Store) CountAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.readers.QueryRowContext(ctx, `SELECT count(*) FROM api_keys`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count API keys: %w", s.mapError(err))
	}
	return n, nil
}

const failureColumns = `tenant_id, id, tool, server, class, code, retryable, retry_not_before,
	agent_guidance, rule_id, rule_version, error, tool_annotations, trace_id, span_id,
	idempotency_key, created_at, occurred_at, shadow, fingerprint, same_call_as`

// The conflict target repeats the partial index's predicate, which SQLite requires to use a
// partial unique index as the arbiter.
const insertFailure = `INSERT INTO failures (` + failureColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`

// InsertFailure writes p in one transaction on the writer connection. An idempotency replay is
// detected by the insert changing nothing, and the existing record is read in the same
// transaction; since writes are serialised, no other writer can come in between.
func (s *Store) InsertFailure(ctx context.Context, p store.Prepared) (store.Failure, bool, error) {
	f, err := p.Record()
	if err != nil {
		return store.Failure{}, false, err
	}
	var (
		stored  store.Failure
		created bool
	)
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, insertFailure,
			f.TenantID, f.ID[:], f.Tool, f.Server, f.Class, f.Code, f.Retryable,
			nullMicros(f.RetryNotBefore), f.AgentGuidance, f.RuleID, f.RuleVersion,
			nullJSON(f.Error), nullJSON(f.ToolAnnotations),
			nullString(f.TraceID), nullString(f.SpanID), nullString(f.IdempotencyKey),
			f.CreatedAt.UnixMicro(), f.OccurredAt.UnixMicro(), nullJSON(f.Shadow), nullFingerprint(f.Fingerprint),
			nullID(f.SameCallAs))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 1 {
			stored, created = f, true
			return nil
		}
		stored, err = scanFailure(tx.QueryRowContext(ctx,
			`SELECT `+failureColumns+` FROM failures WHERE tenant_id = ? AND idempotency_key = ?`,
			f.TenantID, f.IdempotencyKey))
		return err
	})
	if err != nil {
		return store.Failure{}, false, fmt.Errorf("store failure %s: %w", canonical.ID(f.ID), s.mapError(err))
	}
	return stored, created, nil
}

// GetFailure reads one record of the tenant and the IDs of the tenant's records that name it as
// the same call (store.Failure.NamedBy), through the partial index of links
// (migrations/sqlite/00008_same_call.sql). The two reads share one read transaction, so that
// they see the same snapshot.
func (s *Store) GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	f, err := s.getFailure(ctx, tenantID, id)
	if err != nil {
		return store.Failure{}, fmt.Errorf("get failure %s: %w", canonical.ID(id), s.mapError(err))
	}
	return f, nil
}

func (s *Store) getFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return store.Failure{}, err
	}
	defer func() { _ = tx.Rollback() }()
	f, err := scanFailure(tx.QueryRowContext(ctx,
		`SELECT `+failureColumns+` FROM failures WHERE tenant_id = ? AND id = ?`, tenantID, id[:]))
	if err != nil {
		return store.Failure{}, err
	}
	rows, err := tx.QueryContext(ctx,
		`SELECT id FROM failures WHERE tenant_id = ? AND same_call_as = ? ORDER BY id`, tenantID, id[:])
	if err != nil {
		return store.Failure{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var named []byte
		if err := rows.Scan(&named); err != nil {
			return store.Failure{}, err
		}
		if len(named) != len(id) {
			return store.Failure{}, fmt.Errorf("linked failure id has %d bytes, want %d", len(named), len(id))
		}
		f.NamedBy = append(f.NamedBy, [16]byte(named))
	}
	return f, rows.Err()
}

// ListFailures mirrors the PostgreSQL query: only the filters that are set become predicates, so
// that SQLite's planner can choose the index that ends in id.
func (s *Store) ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error) {
	preds, err := canonical.ListPredicates(tenantID, q)
	if err != nil {
		return nil, err
	}
	where, args := []string{"tenant_id = ?"}, []any{tenantID}
	for _, p := range preds {
		v := p.Val
		switch x := v.(type) {
		case time.Time:
			v = x.UnixMicro() // the schema's integer microseconds
		case [16]byte:
			v = x[:]
		}
		args = append(args, v)
		where = append(where, p.Cond+"?")
	}
	args = append(args, canonical.Limit(q.Limit))
	query := `SELECT ` + failureColumns + ` FROM failures WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY id DESC LIMIT ?`

	rows, err := s.readers.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list failures of tenant %d: %w", tenantID, s.mapError(err))
	}
	defer rows.Close()
	var out []store.Failure
	// Rows are stepped one at a time, so a page that reaches its byte budget reads no further.
	budget := store.NewPageBudget(q.MaxBytes)
	for rows.Next() {
		f, err := scanFailure(rows)
		if err != nil {
			return nil, fmt.Errorf("list failures of tenant %d: %w", tenantID, err)
		}
		out = append(out, f)
		if budget.Over(f) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list failures of tenant %d: %w", tenantID, s.mapError(err))
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanFailure(row scanner) (store.Failure, error) {
	var (
		f                      store.Failure
		id                     []byte
		retryNotBefore         sql.NullInt64
		errorJSON, annotations sql.NullString
		shadow                 sql.NullString
		traceID, spanID, idemp sql.NullString
		createdAt, occurredAt  int64
		fp                     sql.NullInt64
		sameCallAs             []byte
	)
	err := row.Scan(&f.TenantID, &id, &f.Tool, &f.Server, &f.Class, &f.Code, &f.Retryable,
		&retryNotBefore, &f.AgentGuidance, &f.RuleID, &f.RuleVersion, &errorJSON, &annotations,
		&traceID, &spanID, &idemp, &createdAt, &occurredAt, &shadow, &fp, &sameCallAs)
	if err != nil {
		return store.Failure{}, err
	}
	switch len(sameCallAs) {
	case 0: // NULL: no link
	case len(f.SameCallAs):
		f.SameCallAs = [16]byte(sameCallAs)
	default:
		return store.Failure{}, fmt.Errorf("same_call_as has %d bytes, want %d", len(sameCallAs), len(f.SameCallAs))
	}
	if len(id) != len(f.ID) {
		return store.Failure{}, fmt.Errorf("failure id has %d bytes, want %d", len(id), len(f.ID))
	}
	copy(f.ID[:], id)
	if retryNotBefore.Valid {
		f.RetryNotBefore = fromMicros(retryNotBefore.Int64)
	}
	if errorJSON.Valid {
		f.Error = json.RawMessage(errorJSON.String)
	}
	if annotations.Valid {
		f.ToolAnnotations = json.RawMessage(annotations.String)
	}
	if shadow.Valid {
		f.Shadow = json.RawMessage(shadow.String)
	}
	f.TraceID = traceID.String
	f.SpanID = spanID.String
	f.IdempotencyKey = idemp.String
	f.CreatedAt = fromMicros(createdAt)
	f.OccurredAt = fromMicros(occurredAt)
	if fp.Valid {
		f.Fingerprint = store.FingerprintText(fp.Int64)
	}
	return f, nil
}

// nullID is an optional record ID as stored: NULL for the zero ID.
func nullID(id [16]byte) any {
	if id == ([16]byte{}) {
		return nil
	}
	return id[:]
}

func nullFingerprint(fp string) any {
	if key, ok := store.FingerprintKey(fp); ok {
		return key
	}
	return nil
}

// mapError is the package's mapError, and it remembers the first sign of a damaged file for Ping.
func (s *Store) mapError(err error) error {
	err = mapError(err)
	if errors.Is(err, store.ErrCorrupt) && s.damage.Load() == nil {
		s.damage.CompareAndSwap(nil, &err)
	}
	return err
}

// mapError turns SQLite's answers into the store's sentinels, keeping the original error in the
// chain: no row is ErrNotFound, a unique or primary key violation ErrConflict, a foreign key
// violation (a write naming a tenant that does not exist) ErrNotFound, and a damaged file (a page
// that is not what it should be, or a file that is not a database) ErrCorrupt.
func mapError(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	if errors.Is(err, store.ErrCorrupt) {
		return err // mapped already
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %w", store.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("tenant: %w: %w", store.ErrNotFound, err)
		}
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %w", store.ErrCorrupt, err)
		}
	}
	return err
}

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// The columns that are NULL when absent (so that partial indexes skip them) take these.

func nullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
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
	return string(j) // TEXT in a STRICT table: a []byte would be refused as a BLOB
}

// Ping checks that the database file can be read, for health checks: its schema is read, and once
// any call has found the file damaged, Ping fails with that error (wrapping store.ErrCorrupt).
func (s *Store) Ping(ctx context.Context) error {
	if d := s.damage.Load(); d != nil {
		return *d
	}
	var n int
	if err := s.readers.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		return fmt.Errorf("ping sqlite store %s: %w", s.path, s.mapError(err))
	}
	return nil
}

// Close closes the connections, then releases the file lock, in that order, so that another
// process cannot open the file while this one still writes to it.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.readers != nil {
			errs = append(errs, s.readers.Close())
		}
		if s.writer != nil {
			errs = append(errs, s.writer.Close())
		}
		errs = append(errs, s.lock.Close()) // closing the descriptor releases the lock
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close sqlite store %s: %w", s.path, err)
		}
	})
	return s.closeErr
}
