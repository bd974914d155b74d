package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/omcp/toolfailure/store/internal/canonical"
)

// RevokeSession records the session and forgets the tenant's sessions that have expired anyway,
// in one write transaction.
func (s *Store) RevokeSession(ctx context.Context, tenantID int64, id [16]byte, expires time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM ui_session_revocations WHERE tenant_id = ? AND expires_at < ?`,
			tenantID, canonical.Now().UnixMicro()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO ui_session_revocations (tenant_id, session_id, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (tenant_id, session_id) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)`,
			tenantID, id[:], canonical.Time(expires).UnixMicro())
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke session of tenant %d: %w", tenantID, s.mapError(err))
	}
	return nil
}

// SessionRevoked is a primary key lookup.
func (s *Store) SessionRevoked(ctx context.Context, tenantID int64, id [16]byte) (bool, error) {
	var revoked bool
	err := s.readers.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM ui_session_revocations WHERE tenant_id = ? AND session_id = ?)`,
		tenantID, id[:]).Scan(&revoked)
	if err != nil {
		return false, fmt.Errorf("session of tenant %d: %w", tenantID, s.mapError(err))
	}
	return revoked, nil
}
