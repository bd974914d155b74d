-- Fingerprints (package fingerprint): every record names the problem it is one occurrence of, as
-- the 64-bit value of its 16 hex characters (half the size of the text in an index). NULL only on
-- records written before this migration.
--
-- Groups are counted from the records at query time rather than kept in an aggregate written with
-- each batch: an aggregate row per group would be updated by every concurrent batch that carries
-- the same problem (a hot problem is exactly when many do), serialising writers on its row lock,
-- and every filter of ListGroups (tool, class, code, unclassified, any window) would need its own
-- aggregate. Two indexes make the query cheap instead:
--
-- failures_fingerprint: one group's records newest first, for ListFailures' filter.fingerprint,
-- GetGroup and the sample record of each group.
-- failures_created_fingerprint: the records of a window with their fingerprints, so that counting
-- the groups of a window is an index-only scan of that window.
--
-- On a large existing table the index builds take a while and block writes; an operator can create
-- them beforehand with CREATE INDEX CONCURRENTLY under the same names.

-- +goose Up

ALTER TABLE failures ADD COLUMN fingerprint bigint;
CREATE INDEX IF NOT EXISTS failures_fingerprint ON failures (tenant_id, fingerprint, id DESC);
CREATE INDEX IF NOT EXISTS failures_created_fingerprint ON failures (tenant_id, created_at)
    INCLUDE (fingerprint);

-- +goose Down

DROP INDEX failures_created_fingerprint;
DROP INDEX failures_fingerprint;
ALTER TABLE failures DROP COLUMN fingerprint;
