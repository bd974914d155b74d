-- One call's two records, linked. An idempotency key stored before a database outage and replayed
-- during it, to a replica that journals the call, gets a second correlation ID, since the journal
-- cannot ask the database; when the journal is replayed the key is taken, and the second record is
-- stored without it (store/journal/drain.go). same_call_as keeps, on that second record, the ID of
-- the record that holds the key, so that a lookup of either names the other.
--
-- No foreign key: the failures table is partitioned by id and retention drops whole partitions,
-- so the record a link names may leave before the record that names it. A lookup of the named
-- record finds the records that name it through failures_same_call_as, which holds only the rows
-- with a link (a handful, from outages), so it is a probe of a near-empty index per partition.
-- Adding a nullable column without a default rewrites nothing; the index build reads the table,
-- as 00010_server_filter.sql's does.

-- +goose Up

ALTER TABLE failures ADD COLUMN same_call_as uuid;
CREATE INDEX failures_same_call_as ON failures (tenant_id, same_call_as) WHERE same_call_as IS NOT NULL;

-- +goose Down

DROP INDEX failures_same_call_as;
ALTER TABLE failures DROP COLUMN same_call_as;
