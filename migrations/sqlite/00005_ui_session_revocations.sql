-- Web page sessions that ended before they expired, as in
-- migrations/postgres/00008_ui_session_revocations.sql; times in microseconds since the epoch.

-- +goose Up

CREATE TABLE ui_session_revocations (
    tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
    session_id BLOB    NOT NULL CHECK (length(session_id) = 16),
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, session_id)
) STRICT, WITHOUT ROWID;

-- +goose Down

DROP TABLE ui_session_revocations;
