package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/store"
)

// SetRetention sets the tenant's retention in days; 0 keeps its records forever.
func (s *Store) SetRetention(ctx context.Context, tenantID int64, days int) error {
	value, err := store.RetentionValue(tenantID, days)
	if err != nil {
		return err
	}
	// Under the retention lock: a partition drop that is deciding on the retentions finishes first
	// (dropExpiredPartitions).
	var affected int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+retentionLockKey+`)`); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE tenants SET retention_days = $2 WHERE id = $1`, tenantID, value)
		affected = tag.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("set retention of tenant %d: %w", tenantID, mapError(err))
	}
	if affected == 0 {
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

// purgeBatch deletes the oldest expired rows of one tenant, and their idempotency keys. The inner
// query walks the primary key from the tenant's oldest record up to the bound and stops at the
// limit, so a batch costs the same however many records the tenant has; the DELETE then locks
// only those rows.
const purgeBatch = `WITH gone AS (DELETE FROM failures
		WHERE tenant_id = $1 AND id IN (
			SELECT id FROM failures WHERE tenant_id = $1 AND id < $2 ORDER BY id LIMIT $3)
		RETURNING id, idempotency_key),
	keys AS (DELETE FROM failure_keys WHERE tenant_id = $1
		AND (idempotency_key, id) IN (SELECT idempotency_key, id FROM gone WHERE idempotency_key IS NOT NULL))
	SELECT count(*) FROM gone`

// PurgeExpired removes expired records. It first makes the partitions of the coming days
// (PartitionsAhead) and drops the partitions whose records have all expired for every tenant
// (dropExpiredPartitions); what is left, the records of tenants with a shorter retention than the
// longest, goes tenant by tenant, one committed batch at a time.
func (s *Store) PurgeExpired(ctx context.Context, now time.Time, batch int) (int64, error) {
	if batch <= 0 {
		batch = store.DefaultPurgeBatch
	}
	if err := ensurePartitions(ctx, s.pool, now, now.Add(PartitionsAhead*partitionDay)); err != nil {
		return 0, fmt.Errorf("purge expired failures: %w", err)
	}
	removed, err := dropExpiredPartitions(ctx, s.pool, now)
	if err != nil {
		return removed, fmt.Errorf("purge expired failures: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, retention_days FROM tenants WHERE retention_days IS NOT NULL ORDER BY id`)
	if err != nil {
		return removed, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
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
			return removed, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
		}
		tenants = append(tenants, t)
	}
	if err := rows.Err(); err != nil {
		return removed, fmt.Errorf("purge expired failures: list tenants: %w", mapError(err))
	}
	for _, t := range tenants {
		bound := store.ExpiryBound(now.AddDate(0, 0, -int(t.days)))
		for {
			if err := ctx.Err(); err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, err)
			}
			var n int64
			if err := s.pool.QueryRow(ctx, purgeBatch, t.id, bound, batch).Scan(&n); err != nil {
				return removed, fmt.Errorf("purge expired failures of tenant %d: %w", t.id, mapError(err))
			}
			removed += n
			if n < int64(batch) {
				break
			}
		}
	}
	return removed, nil
}
