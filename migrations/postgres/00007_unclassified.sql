-- Two of the group reads' filters answered from an index alone.
--
-- The records that no rule classified (store.UnclassifiedRuleIDs: no rule recorded, the documented
-- default, or the text model's guess) of a window, with their fingerprints: the Problems view's
-- "unclassified" filter, which is where rules are written from. failures_created_fingerprint holds
-- the window but not the rule, so that filter read every record of the window from the table;
-- this partial index holds only the unclassified ones, which costs nothing on the insert of a
-- classified record. The store writes the list as literals, as here, so that the planner can see
-- that its predicate implies the index's (a parameter would hide it).
--
-- The tool filter ("the problems of tool X"): failures_created_fingerprint now carries the tool
-- too, so that the filter is checked on the index's entries instead of on the rows. A window of a
-- day at 10 M records over 30 days is a third of a million rows otherwise.
--
-- Both builds read the whole table and block writes meanwhile; on a large table an operator can
-- build them beforehand, partition by partition, under the same names.

-- +goose Up

CREATE INDEX failures_unclassified ON failures (tenant_id, created_at) INCLUDE (fingerprint)
    WHERE rule_id IN ('', 'baseline/default', 'baseline/text-model');

DROP INDEX failures_created_fingerprint;
CREATE INDEX failures_created_fingerprint ON failures (tenant_id, created_at) INCLUDE (fingerprint, tool);

-- +goose Down

DROP INDEX failures_created_fingerprint;
CREATE INDEX failures_created_fingerprint ON failures (tenant_id, created_at) INCLUDE (fingerprint);
DROP INDEX failures_unclassified;
