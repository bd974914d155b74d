package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/internal/canonical"
)

// The embedded store is used by one process, whose own writes are the only changes, so it has no
// notifications: a cache in that process learns of a change from the code that made it.

const ruleColumns = `tenant_id, name, priority, spec, version, updated_at`

// ListRules reads the version and the rules in one read transaction, hence one snapshot.
func (s *Store) ListRules(ctx context.Context, tenantID int64) (store.RuleSet, error) {
	var set store.RuleSet
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return set, fmt.Errorf("list rules of tenant %d: %w", tenantID, s.mapError(err))
	}
	defer func() { _ = tx.Rollback() }()
	set.Version, err = s.ruleSetVersion(ctx, tx, tenantID)
	if err != nil {
		return store.RuleSet{}, fmt.Errorf("list rules of tenant %d: %w", tenantID, err)
	}
	set.Rules, err = s.queryRules(ctx, tx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ?
		ORDER BY priority DESC, name`, tenantID)
	if err != nil {
		return store.RuleSet{}, fmt.Errorf("list rules of tenant %d: %w", tenantID, err)
	}
	return set, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) ruleSetVersion(ctx context.Context, q querier, tenantID int64) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `SELECT version FROM rule_sets WHERE tenant_id = ?`, tenantID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, s.mapError(err)
}

func (s *Store) queryRules(ctx context.Context, q querier, query string, args ...any) ([]store.Rule, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.mapError(err)
	}
	defer rows.Close()
	var out []store.Rule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, s.mapError(rows.Err())
}

func scanRule(row scanner) (store.Rule, error) {
	var (
		r         store.Rule
		spec      string
		updatedAt int64
	)
	if err := row.Scan(&r.TenantID, &r.Name, &r.Priority, &spec, &r.Version, &updatedAt); err != nil {
		return store.Rule{}, err
	}
	r.Spec = []byte(spec)
	r.UpdatedAt = fromMicros(updatedAt)
	return r, nil
}

// RuleSetVersion is one primary-key lookup.
func (s *Store) RuleSetVersion(ctx context.Context, tenantID int64) (int64, error) {
	v, err := s.ruleSetVersion(ctx, s.readers, tenantID)
	if err != nil {
		return 0, fmt.Errorf("rule set version of tenant %d: %w", tenantID, err)
	}
	return v, nil
}

// GetRule reads one rule.
func (s *Store) GetRule(ctx context.Context, tenantID int64, name string) (store.Rule, error) {
	r, err := scanRule(s.readers.QueryRowContext(ctx,
		`SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ? AND name = ?`, tenantID, name))
	if err != nil {
		return store.Rule{}, fmt.Errorf("get rule %q of tenant %d: %w", name, tenantID, s.mapError(err))
	}
	return r, nil
}

// changeRules runs fn in a write transaction; writes are serialised on the single writer
// connection, so the version read here cannot change underneath. fn reports whether it changed
// anything; if so the version is bumped.
func (s *Store) changeRules(ctx context.Context, tenantID int64, fn func(tx *sql.Tx, current int64, now int64) (bool, error)) (int64, error) {
	var version int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := canonical.Now().UnixMicro()
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO rule_sets (tenant_id, version, updated_at) VALUES (?, 0, ?)
			 ON CONFLICT (tenant_id) DO NOTHING`, tenantID, now); err != nil {
			return s.mapError(err)
		}
		v, err := s.ruleSetVersion(ctx, tx, tenantID)
		if err != nil {
			return err
		}
		changed, err := fn(tx, v, now)
		if err != nil {
			return err
		}
		if changed {
			v++
			if _, err := tx.ExecContext(ctx, `UPDATE rule_sets SET version = ?, updated_at = ? WHERE tenant_id = ?`,
				v, now, tenantID); err != nil {
				return s.mapError(err)
			}
		}
		version = v
		return nil
	})
	return version, err
}

func (s *Store) insertRule(ctx context.Context, tx *sql.Tx, r store.Rule, version, now int64) error {
	_, err := tx.ExecContext(ctx, upsertRule, upsertArgs(r, version, now)...)
	return s.mapError(err)
}

// upsertArgs are upsertRule's arguments for r at version.
func upsertArgs(r store.Rule, version, now int64) []any {
	return []any{r.TenantID, r.Name, r.Priority, string(r.Spec), version, now}
}

// upsertRule is the statement that insertRule runs.
const upsertRule = `INSERT INTO rules (` + ruleColumns + `) VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (tenant_id, name) DO UPDATE
	SET priority = excluded.priority, spec = excluded.spec,
	    version = excluded.version, updated_at = excluded.updated_at`

// CreateRule inserts one rule at the next version.
func (s *Store) CreateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	var stored store.Rule
	_, err := s.changeRules(ctx, r.TenantID, func(tx *sql.Tx, current, now int64) (bool, error) {
		var exists int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM rules WHERE tenant_id = ? AND name = ?`, r.TenantID, r.Name).Scan(&exists)
		if err == nil {
			return false, fmt.Errorf("%w: the tenant has a rule named %q", store.ErrConflict, r.Name)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, s.mapError(err)
		}
		if err := s.insertRule(ctx, tx, r, current+1, now); err != nil {
			return false, err
		}
		stored, err = scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ? AND name = ?`, r.TenantID, r.Name))
		return true, s.mapError(err)
	})
	if err != nil {
		return store.Rule{}, fmt.Errorf("create rule %q of tenant %d: %w", r.Name, r.TenantID, err)
	}
	return stored, nil
}

// UpdateRule replaces one rule, unless nothing would change.
func (s *Store) UpdateRule(ctx context.Context, r store.Rule) (store.Rule, error) {
	var stored store.Rule
	_, err := s.changeRules(ctx, r.TenantID, func(tx *sql.Tx, current, now int64) (bool, error) {
		prev, err := scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ? AND name = ?`, r.TenantID, r.Name))
		if err != nil {
			return false, s.mapError(err)
		}
		if prev.Priority == r.Priority && store.SameJSON(prev.Spec, r.Spec) {
			stored = prev
			return false, nil
		}
		if err := s.insertRule(ctx, tx, r, current+1, now); err != nil {
			return false, err
		}
		stored, err = scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ? AND name = ?`, r.TenantID, r.Name))
		return true, s.mapError(err)
	})
	if err != nil {
		return store.Rule{}, fmt.Errorf("update rule %q of tenant %d: %w", r.Name, r.TenantID, err)
	}
	return stored, nil
}

// DeleteRule removes one rule at the next version.
func (s *Store) DeleteRule(ctx context.Context, tenantID int64, name string) (int64, error) {
	v, err := s.changeRules(ctx, tenantID, func(tx *sql.Tx, _, _ int64) (bool, error) {
		res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE tenant_id = ? AND name = ?`, tenantID, name)
		if err != nil {
			return false, s.mapError(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return false, errors.Join(store.ErrNotFound, err)
		}
		return true, nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete rule %q of tenant %d: %w", name, tenantID, err)
	}
	return v, nil
}

// ReplaceRules diffs the new set against the stored one inside the write transaction and writes
// only the difference.
func (s *Store) ReplaceRules(ctx context.Context, tenantID int64, rules []store.Rule, expectedVersion *int64) (int64, []store.RuleChange, error) {
	seen := make(map[string]store.Rule, len(rules))
	for _, r := range rules {
		if _, dup := seen[r.Name]; dup {
			return 0, nil, fmt.Errorf("replace rules of tenant %d: %w: rule name %q appears twice", tenantID, store.ErrConflict, r.Name)
		}
		r.TenantID = tenantID
		seen[r.Name] = r
	}
	var changes []store.RuleChange
	v, err := s.changeRules(ctx, tenantID, func(tx *sql.Tx, current, now int64) (bool, error) {
		if expectedVersion != nil && *expectedVersion != current {
			return false, fmt.Errorf("%w: the rule set is at version %d, not %d", store.ErrConflict, current, *expectedVersion)
		}
		before, err := s.queryRules(ctx, tx, `SELECT `+ruleColumns+` FROM rules WHERE tenant_id = ?`, tenantID)
		if err != nil {
			return false, err
		}
		changes = store.DiffRules(before, rules)
		changed := false
		// A set may add up to ruleset.MaxRules rules: the statement is prepared once, not
		// parsed again for each of them.
		var upsert *sql.Stmt
		for _, c := range changes {
			switch c.Change {
			case store.RuleRemoved:
				if _, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE tenant_id = ? AND name = ?`, tenantID, c.Name); err != nil {
					return false, s.mapError(err)
				}
				changed = true
			case store.RuleAdded, store.RuleChanged:
				if upsert == nil {
					if upsert, err = tx.PrepareContext(ctx, upsertRule); err != nil {
						return false, s.mapError(err)
					}
					defer upsert.Close()
				}
				if _, err := upsert.ExecContext(ctx, upsertArgs(seen[c.Name], current+1, now)...); err != nil {
					return false, s.mapError(err)
				}
				changed = true
			}
		}
		return changed, nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("replace rules of tenant %d: %w", tenantID, err)
	}
	return v, changes, nil
}
