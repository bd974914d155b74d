-- The records that no rule classified (store.UnclassifiedRuleIDs: no rule recorded, the documented
-- default, or the text model's guess) of a window, with their fingerprints: the Problems view's
-- "unclassified" filter, which is where rules are written from. failures_created_fingerprint holds
-- the window but not the rule, so that filter read every record of the window from the table;
-- this partial index holds only the unclassified ones, which costs nothing on the insert of a
-- classified record. The store writes the list as literals, as here, so that the planner can see
-- that its predicate implies the index's (a parameter would hide it).

-- +goose Up

CREATE INDEX failures_unclassified ON failures (tenant_id, created_at) INCLUDE (fingerprint)
    WHERE rule_id IN ('', 'baseline/default', 'baseline/text-model');

-- +goose Down

DROP INDEX failures_unclassified;
