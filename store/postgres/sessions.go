package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/omcp/toolfailure/store/internal/canonical"
)

// RevokeSession records the session and, in the same statement, forgets the tenant's sessions
// that have expired anyway, so that the table holds only sessions that could still be shown.
func (s *Store) RevokeSession(ctx context.Context, tenantID int64, id [16]byte, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `WITH expired AS (
			DELETE FROM ui_session_revocations WHERE tenant_id = $1 AND expires_at < now()
		)
		INSERT INTO ui_session_revocations (tenant_id, session_id, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (tenant_id, session_id) DO UPDATE SET expires_at = greatest(ui_session_revocations.expires_at, excluded.expires_at)`,
		tenantID, id[:], canonical.Time(expires))
	if err != nil {
		return fmt.Errorf("revoke session of tenant %d: %w", tenantID, mapError(err))
	}
	return nil
}

// SessionRevoked is a primary key lookup.
func (s *Store) SessionRevoked(ctx context.Context, tenantID int64, id [16]byte) (bool, error) {
	var revoked bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM ui_session_revocations WHERE tenant_id = $1 AND session_id = $2)`,
		tenantID, id[:]).Scan(&revoked)
	if err != nil {
		return false, fmt.Errorf("session of tenant %d: %w", tenantID, mapError(err))
	}
	return revoked, nil
}
