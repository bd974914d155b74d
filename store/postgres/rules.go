package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// rulesChannel is the NOTIFY channel of rule changes. Channels are per database, not per schema,
// so the payload names the schema ("schema tenant version") and a listener ignores other schemas'
// changes: several deployments, or parallel tests, can share one database.
const rulesChannel = "toolfailure_rules"

const ruleColumns = `tenant_id, name, priority, spec, version, updated_at`

// ListRules reads the set and its version in one statement, hence one snapshot.
func (s *Store) ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT s.version, r.name, r.priority, r.spec, r.version, r.updated_at
		 FROM rule_sets s LEFT JOIN rules r ON r.tenant_id = s.tenant_id
		 WHERE s.tenant_id = $1
		 ORDER BY r.priority DESC, r.name`, tenantID)
	if err != nil {
		return store.RuleSet{}, fmt.Errorf("list rules of tenant %d: %w", tenantID, mapError(err))
	}
	defer rows.Close()
	var set store.RuleSet
	for rows.Next() {
		var (
			name      *string
			priority  *int32
			spec      []byte
			version   *int64
			updatedAt *time.Time
		)
		if err := rows.Scan(&set.Version, &name, &priority, &spec, &version, &updatedAt); err != nil {
			return store.RuleSet{}, fmt.Errorf("list rules of tenant %d: %w", tenantID, err)
		}
		if name == nil {
			continue // the set exists but is empty
		}
		set.Rules = append(set.Rules, store.Rule{TenantID: tenantID, Name: *name, Priority: *priority,
			Spec: spec, Version: *version, UpdatedAt: updatedAt.UTC()})
	}
	if err := rows.Err(); err != nil {
		return store.RuleSet{}, fmt.Errorf("list rules of tenant %d: %w", tenantID, mapError(err))
	}
	return set, nil
}

// RuleSetVersion is one primary-key lookup.
func (s *Store) RuleSetVersion(ctx context.Context, tenantID int64) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `SELECT version FROM rule_sets WHERE tenant_id = $1`, tenantID).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("rule set version of tenant %d: %w", tenantID, mapError(err))
	}
	return v, nil
}

// GetRule reads one rule.
func (s *Store) GetRule(ctx context.Context, tenantID int64, name string) (store.Rule, error) {
	r, err := scanRule(s.pool.QueryRow(ctx,
		`SELECT `+ruleColumns+` FROM rules WHERE tenant_id = $1 AND name = $2`, tenantID, name))
	if err != nil {
		return store.Rule{}, fmt.Errorf("get rule %q of tenant %d: %w", name, tenantID, mapError(err))
	}
	return r, nil
}

func scanRule(row pgx.Row) (store.Rule, error) {
	var (
		r    store.Rule
		spec []byte
	)
	if err := row.Scan(&r.TenantID, &r.Name, &r.Priority, &spec, &r.Version, &r.UpdatedAt); err != nil {
		return store.Rule{}, err
	}
	r.Spec = spec
	r.UpdatedAt = r.UpdatedAt.UTC()
	return r, nil
}

// changeRules runs fn in a transaction that holds the tenant's rule_sets row locked, so that
// writers of one tenant's rules take turns and versions are handed out in order. fn gets the
// current version and the time of the change, and reports whether it changed anything; if it
// did, the version is bumped and a notification queued, which PostgreSQL delivers on COMMIT, so
// that no listener can hear of a change it cannot yet read.
func (s *Store) changeRules(ctx context.Context, tenantID int64, fn func(tx pgx.Tx, current int64, now time.Time) (bool, error)) (int64, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, mapError(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	now := canonical.Now()
	if _, err := tx.Exec(ctx,
		`INSERT INTO rule_sets (tenant_id, version, updated_at) VALUES ($1, 0, $2)
		 ON CONFLICT (tenant_id) DO NOTHING`, tenantID, now); err != nil {
		return 0, mapError(err)
	}
	var version int64
	if err := tx.QueryRow(ctx, `SELECT version FROM rule_sets WHERE tenant_id = $1 FOR UPDATE`, tenantID).Scan(&version); err != nil {
		return 0, mapError(err)
	}
	changed, err := fn(tx, version, now)
	if err != nil {
		return 0, err
	}
	if changed {
		version++
		if _, err := tx.Exec(ctx, `UPDATE rule_sets SET version = $2, updated_at = $3 WHERE tenant_id = $1`,
			tenantID, version, now); err != nil {
			return 0, mapError(err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, format('%s %s %s', current_schema(), $2::bigint, $3::bigint))`,
			rulesChannel, tenantID, version); err != nil {
			return 0, mapError(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, mapError(err)
	}
	return version, nil
}

// CreateRule inserts one rule at the next version.
func (s *Store) CreateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	var stored store.Rule
	_, err := s.changeRules(ctx, r.TenantID, func(tx pgx.Tx, current int64, now time.Time) (bool, error) {
		var err error
		stored, err = scanRule(tx.QueryRow(ctx,
			`INSERT INTO rules (`+ruleColumns+`) VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+ruleColumns,
			r.TenantID, r.Name, r.Priority, string(r.Spec), current+1, now))
		return true, mapError(err)
	})
	if err != nil {
		return store.Rule{}, fmt.Errorf("create rule %q of tenant %d: %w", r.Name, r.TenantID, err)
	}
	return stored, nil
}

// UpdateRule replaces one rule, unless nothing would change.
func (s *Store) UpdateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	var stored store.Rule
	_, err := s.changeRules(ctx, r.TenantID, func(tx pgx.Tx, current int64, now time.Time) (bool, error) {
		prev, err := scanRule(tx.QueryRow(ctx,
			`SELECT `+ruleColumns+` FROM rules WHERE tenant_id = $1 AND name = $2`, r.TenantID, r.Name))
		if err != nil {
			return false, mapError(err)
		}
		if prev.Priority == r.Priority && store.SameJSON(prev.Spec, r.Spec) {
			stored = prev
			return false, nil
		}
		stored, err = scanRule(tx.QueryRow(ctx,
			`UPDATE rules SET priority = $3, spec = $4, version = $5, updated_at = $6
			 WHERE tenant_id = $1 AND name = $2 RETURNING `+ruleColumns,
			r.TenantID, r.Name, r.Priority, string(r.Spec), current+1, now))
		return true, mapError(err)
	})
	if err != nil {
		return store.Rule{}, fmt.Errorf("update rule %q of tenant %d: %w", r.Name, r.TenantID, err)
	}
	return stored, nil
}

// DeleteRule removes one rule at the next version.
func (s *Store) DeleteRule(ctx context.Context, tenantID int64, name string) (int64, error) {
	v, err := s.changeRules(ctx, tenantID, func(tx pgx.Tx, _ int64, _ time.Time) (bool, error) {
		tag, err := tx.Exec(ctx, `DELETE FROM rules WHERE tenant_id = $1 AND name = $2`, tenantID, name)
		if err != nil {
			return false, mapError(err)
		}
		if tag.RowsAffected() == 0 {
			return false, store.ErrNotFound
		}
		return true, nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete rule %q of tenant %d: %w", name, tenantID, err)
	}
	return v, nil
}

// ReplaceRules diffs the new set against the stored one inside the locked transaction and writes
// only the difference, in two statements whatever the size of the set: one DELETE of the removed
// names and one INSERT … ON CONFLICT DO UPDATE from arrays of the added and changed rules.
func (s *Store) ReplaceRules(ctx context.Context, tenantID int64, rules []store.Rule, expectedVersion *int64) (int64, []store.RuleChange, error) {
	if err := uniqueNames(rules); err != nil {
		return 0, nil, fmt.Errorf("replace rules of tenant %d: %w", tenantID, err)
	}
	var changes []store.RuleChange
	v, err := s.changeRules(ctx, tenantID, func(tx pgx.Tx, current int64, now time.Time) (bool, error) {
		if expectedVersion != nil && *expectedVersion != current {
			return false, fmt.Errorf("%w: the rule set is at version %d, not %d", store.ErrConflict, current, *expectedVersion)
		}
		rows, err := tx.Query(ctx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return false, mapError(err)
		}
		before, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Rule, error) { return scanRule(row) })
		if err != nil {
			return false, mapError(err)
		}
		changes = store.DiffRules(before, rules)
		var (
			removed      []string
			names, specs []string
			priorities   []int32
			byName       = make(map[string]store.Rule, len(rules))
		)
		for _, r := range rules {
			byName[r.Name] = r
		}
		for _, c := range changes {
			switch c.Change {
			case store.RuleRemoved:
				removed = append(removed, c.Name)
			case store.RuleAdded, store.RuleChanged:
				r := byName[c.Name]
				names = append(names, r.Name)
				priorities = append(priorities, r.Priority)
				specs = append(specs, string(r.Spec))
			}
		}
		if len(removed) == 0 && len(names) == 0 {
			return false, nil
		}
		if len(removed) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM rules WHERE tenant_id = $1 AND name = ANY($2)`, tenantID, removed); err != nil {
				return false, mapError(err)
			}
		}
		if len(names) > 0 {
			if _, err := tx.Exec(ctx,
				`INSERT INTO rules (`+ruleColumns+`)
				 SELECT $1, u.name, u.priority, u.spec::jsonb, $5, $6
				 FROM unnest($2::text[], $3::integer[], $4::text[]) AS u(name, priority, spec)
				 ON CONFLICT (tenant_id, name) DO UPDATE
				 SET priority = excluded.priority, spec = excluded.spec,
				     version = excluded.version, updated_at = excluded.updated_at`,
				tenantID, names, priorities, specs, current+1, now); err != nil {
				return false, mapError(err)
			}
		}
		return true, nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("replace rules of tenant %d: %w", tenantID, err)
	}
	return v, changes, nil
}

func uniqueNames(rules []store.Rule) error {
	seen := make(map[string]struct{}, len(rules))
	for _, r := range rules {
		if _, dup := seen[r.Name]; dup {
			return fmt.Errorf("%w: rule name %q appears twice", store.ErrConflict, r.Name)
		}
		seen[r.Name] = struct{}{}
	}
	return nil
}

// Timing of WatchRules. A notification arrives as soon as the change commits; these bound how
// long a broken connection goes unnoticed and how hard a lost database is retried.
const (
	watchPing       = 10 * time.Second
	watchMinBackoff = 50 * time.Millisecond
	watchMaxBackoff = 2 * time.Second
)

// WatchRules listens for rule changes on a connection of its own, outside the pool: a LISTEN
// lives as long as its session, and a pooled connection could be closed or reused under it.
func (s *Store) WatchRules(ctx context.Context, fn func(store.RuleEvent)) error {
	backoff := watchMinBackoff
	listening := true // so that a first failure is reported as lost
	for {
		err := s.listen(ctx, func(ev store.RuleEvent) {
			if ev.Kind == store.RuleWatchStarted {
				listening = true
				backoff = watchMinBackoff
			}
			fn(ev)
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if listening {
			listening = false
			fn(store.RuleEvent{Kind: store.RuleWatchLost})
		}
		_ = err // the next attempt tells whether the database is back; callers poll meanwhile
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, watchMaxBackoff)
	}
}

// listen runs one connection's worth of watching: connect, LISTEN, report started, then relay
// notifications until the connection fails or ctx ends.
func (s *Store) listen(ctx context.Context, fn func(store.RuleEvent)) error {
	cfg := s.pool.Config().ConnConfig.Copy()
	// A deadline, not a cancel request, ends each wait: waking up every watchPing to check the
	// connection must not send the server a cancel request each time.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("watch rules: connect: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	var schema string
	if err := conn.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		return fmt.Errorf("watch rules: %w", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+rulesChannel); err != nil {
		return fmt.Errorf("watch rules: listen: %w", err)
	}
	fn(store.RuleEvent{Kind: store.RuleWatchStarted})
	for {
		wctx, cancel := context.WithTimeout(ctx, watchPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
			pctx, cancel := context.WithTimeout(ctx, watchPing)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("watch rules: ping: %w", err)
			}
			continue
		case err != nil:
			return fmt.Errorf("watch rules: %w", err)
		}
		if ev, ok := parseRuleNotification(n.Payload, schema); ok {
			fn(ev)
		}
	}
}

func parseRuleNotification(payload, schema string) (store.RuleEvent, bool) {
	f := strings.Split(payload, " ")
	n := len(f)
	if n < 3 || strings.Join(f[:n-2], " ") != schema {
		return store.RuleEvent{}, false
	}
	tenant, err1 := strconv.ParseInt(f[n-2], 10, 64)
	version, err2 := strconv.ParseInt(f[n-1], 10, 64)
	if err1 != nil || err2 != nil {
		return store.RuleEvent{}, false
	}
	return store.RuleEvent{Kind: store.RuleSetChanged, TenantID: tenant, Version: version}, true
}
