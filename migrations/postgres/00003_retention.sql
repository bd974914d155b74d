-- Per-tenant retention: how many days a tenant's failure records are kept. NULL keeps them forever.
--
-- Records expire by batched deletes over a range of the primary key, not by dropping time
-- partitions. A record's age is the time in its ID (a UUIDv7), and the key is (tenant_id, id), so a
-- tenant's expired records are one contiguous range at the start of its part of the key: each
-- batch finds them by an index range scan, deletes a few thousand rows and commits, and concurrent
-- inserts, which append at the other end of the range, never wait for it. Its cost is paid per
-- row: WAL for each deleted row and its index entries, and dead tuples for autovacuum to reclaim.
--
-- Partitioning by time would make expiry free (DROP a partition) but costs more than it saves
-- here. Retention is per tenant, so a partition can be dropped only when the longest retention of
-- any tenant has passed, and every shorter one still needs deletes. PostgreSQL requires every
-- unique index of a partitioned table to contain the partition key, so the idempotency index
-- (tenant_id, idempotency_key) could no longer be unique across partitions and would need a table
-- of its own, written by every keyed insert. And turning the existing table into a partitioned
-- one rewrites it. Should deletes ever dominate (hundreds of millions of expiring rows a day),
-- partitioning by range of id is the way: id is in the primary key, so the key needs no change.

-- +goose Up

ALTER TABLE tenants ADD COLUMN retention_days integer CHECK (retention_days > 0);

-- +goose Down

ALTER TABLE tenants DROP COLUMN retention_days;
