-- Tenant rules: each tenant's set of classification rules and the version of that set.
--
-- Keyed tenant first like every other table, so that the rules distribute with their tenant. The
-- store does not interpret a rule: spec holds its whole definition (the API's JSON form), name and
-- priority sit beside it to key and order the set.

-- +goose Up

-- One row per tenant that ever changed its rules. The row is also the lock that serialises writers
-- of one tenant's set (SELECT … FOR UPDATE), so that versions are handed out without gaps or
-- duplicates and an expected-version check cannot race with another writer.
CREATE TABLE rule_sets (
    tenant_id  bigint      PRIMARY KEY REFERENCES tenants (id),
    version    bigint      NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at timestamptz NOT NULL
);

CREATE TABLE rules (
    tenant_id  bigint      NOT NULL REFERENCES tenants (id),
    -- Byte order ("C"), not the database's locale: ties in priority are broken by name, and every
    -- replica and the embedded store must break them the same way.
    name       text        COLLATE "C" NOT NULL CHECK (name <> ''),
    priority   integer     NOT NULL,
    spec       jsonb       NOT NULL CHECK (jsonb_typeof(spec) = 'object'),
    -- The rule-set version that last changed this rule.
    version    bigint      NOT NULL CHECK (version > 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, name)
);

-- The would-be outcomes of shadow-mode rules that matched a failure and rank above the rule that
-- decided it (a JSON array), so that a rule author can compare them with what was applied before
-- enforcing the rule. NULL when there were none, which is nearly always.
ALTER TABLE failures ADD COLUMN shadow jsonb CHECK (jsonb_typeof(shadow) = 'array');

-- +goose Down

ALTER TABLE failures DROP COLUMN shadow;

DROP TABLE rules;
DROP TABLE rule_sets;
