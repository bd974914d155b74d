-- Web page sessions that ended before they expired: their user signed out. A session cookie is
-- sealed, not stored, so every replica that shares the secret accepts it until it expires; this
-- table is what makes signing out end it on every replica at once. Keyed tenant first like every
-- other table (distributed with the tenant's records on Citus). A row is needed only until the
-- session would have expired anyway; rows past expires_at are deleted as the tenant's next
-- sign-out is recorded.

-- +goose Up

CREATE TABLE ui_session_revocations (
    tenant_id  bigint      NOT NULL REFERENCES tenants (id),
    session_id bytea       NOT NULL CHECK (octet_length(session_id) = 16),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, session_id)
);

-- +goose Down

DROP TABLE ui_session_revocations;
