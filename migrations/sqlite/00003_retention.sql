-- Per-tenant retention, as in migrations/postgres/00003_retention.sql: how many days a tenant's
-- failure records are kept, NULL for forever. Expired records are deleted in batches over a range
-- of the primary key (tenant_id, id); the ID is a UUIDv7 blob whose leading bytes are its time.

-- +goose Up

ALTER TABLE tenants ADD COLUMN retention_days INTEGER CHECK (retention_days > 0);

-- +goose Down

ALTER TABLE tenants DROP COLUMN retention_days;
