package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/omcp/toolfailure/store"
)

// SetRetention sets the tenant's retention in days; 0 keeps its records forever.
func (s *Store) SetRetention(ctx context.Context, tenantID int64, days int) error {
	value, err := store.RetentionValue(tenantID, days)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE tenants SET retention_days = $2 WHERE id = $1`, tenantID, value)
	if err != nil {
		return fmt.Errorf("set retention of tenant %d: %w", tenantID, mapError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set retention of tenant %d: %w", tenantID, store.ErrNotFound)
	}
	return nil
}

// Retention returns the tenant's retention in days, 0 for forever.
func (s *Store) Retention(ctx context.Context, tenantID int64) (int, error) {
	var days *int32
	if err := s.pool.QueryRow(ctx, `SELECT retention_days FROM tenants WHERE id = $1`, tenantID).Scan(&days); err != nil {
		return 0, fmt.Errorf("retention of tenant %d: %w", tenantID, mapError(err))
	}
	if days == nil {
		return 0, nil
	}
	return int(*days), nil
}

// purgeBatch deletes the oldest expired rows of one tenant. The inner query walks the primary key
// from the tenant's oldest record up to the bound and stops at the limit, so a batch costs the
// same however many records the tenant has; the DELETE then locks only those rows.
const purgeBatch = `DELETE FROM failures
	WHERE tenant_id = $1 AND id IN (
		SELECT id FROM failures WHERE tenant_id = $1 AND id < $2 ORDER BY id LIMIT $3)`

// PurgeExpired deletes expired records tenant by tenant, one committed batch at a time.
func (s *Store) PurgeExpired(ctx context.Context, now time.Time, batch int) (int64, error) {
	if batch <= 0 {
		batch = store.DefaultPurgeBatch
	}
	rows, err := s.pool.Query(ctx, `SELECT id, retention_days FROM tenants WHERE retention_days IS NOT NULL ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
	}
	type tenant struct {
		id   int64
		days int32
	}
	var tenants []tenant
	for rows.Next() {
		var t tenant
		if err := rows.Scan(&t.id, &t.days); err != nil {
			rows.Close()
			return 0, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
		}
		tenants = append(tenants, t)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
	}
	var removed int64
	for _, t := range tenants {
		bound := store.ExpiryBound(now.AddDate(0, 0, -int(t.days)))
		for {
			if err := ctx.Err(); err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, err)
			}
			tag, err := s.pool.Exec(ctx, purgeBatch, t.id, bound, batch)
			if err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, mapError(err))
			}
			removed += tag.RowsAffected()
			if tag.RowsAffected() < int64(batch) {
				break
			}
		}
	}
	return removed, nil
}
