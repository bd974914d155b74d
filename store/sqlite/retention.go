package sqlite

import (
	"context"
	"database/sql"
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
	var n int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tenants SET retention_days = ? WHERE id = ?`, value, tenantID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("set retention of tenant %d: %w", tenantID, s.mapError(err))
	}
	if n == 0 {
		return fmt.Errorf("set retention of tenant %d: %w", tenantID, store.ErrNotFound)
	}
	return nil
}

// Retention returns the tenant's retention in days, 0 for forever.
func (s *Store) Retention(ctx context.Context, tenantID int64) (int, error) {
	var days sql.NullInt64
	if err := s.readers.QueryRowContext(ctx, `SELECT retention_days FROM tenants WHERE id = ?`, tenantID).Scan(&days); err != nil {
		return 0, fmt.Errorf("retention of tenant %d: %w", tenantID, s.mapError(err))
	}
	return int(days.Int64), nil
}

// purgeBatch deletes the oldest expired rows of one tenant by a range of the primary key, as the
// PostgreSQL store does; blobs compare bytewise, so the ID bound is a time bound.
const purgeBatch = `DELETE FROM failures
	WHERE rowid IN (SELECT rowid FROM failures WHERE tenant_id = ? AND id < ? ORDER BY id LIMIT ?)`

// PurgeExpired deletes expired records tenant by tenant, one committed batch at a time, so that the
// single writer connection is never held for long by a purge.
func (s *Store) PurgeExpired(ctx context.Context, now time.Time, batch int) (int64, error) {
	if batch <= 0 {
		batch = store.DefaultPurgeBatch
	}
	rows, err := s.readers.QueryContext(ctx, `SELECT id, retention_days FROM tenants WHERE retention_days IS NOT NULL ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("purge expired failures: list tenants: %w", s.mapError(err))
	}
	type tenant struct{ id, days int64 }
	var tenants []tenant
	for rows.Next() {
		var t tenant
		if err := rows.Scan(&t.id, &t.days); err != nil {
			_ = rows.Close()
			return 0, fmt.Errorf("purge expired failures: list tenants: %w", s.mapError(err))
		}
		tenants = append(tenants, t)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("purge expired failures: list tenants: %w", s.mapError(err))
	}
	var removed int64
	for _, t := range tenants {
		bound := store.ExpiryBound(now.AddDate(0, 0, -int(t.days)))
		for {
			if err := ctx.Err(); err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, err)
			}
			var n int64
			err := s.write(ctx, func(tx *sql.Tx) error {
				res, err := tx.ExecContext(ctx, purgeBatch, t.id, bound[:], batch)
				if err != nil {
					return err
				}
				n, err = res.RowsAffected()
				return err
			})
			if err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, s.mapError(err))
			}
			removed += n
			if n < int64(batch) {
				break
			}
		}
	}
	return removed, nil
}
