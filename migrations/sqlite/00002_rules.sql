-- Tenant rules in the embedded store: the same tables as on PostgreSQL (see
-- migrations/postgres/00002_rules.sql), in SQLite's terms. Text compares byte by byte (BINARY) by
-- default, which is the order ties in priority are broken by.

-- +goose Up

CREATE TABLE rule_sets (
    tenant_id  INTEGER PRIMARY KEY REFERENCES tenants (id),
    version    INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE rules (
    tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
    name       TEXT    NOT NULL CHECK (name <> ''),
    priority   INTEGER NOT NULL,
    spec       TEXT    NOT NULL
        CHECK (CASE WHEN json_valid(spec) THEN json_type(spec) = 'object' ELSE 0 END),
    version    INTEGER NOT NULL CHECK (version > 0),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, name)
) STRICT;

-- The would-be outcomes of shadow-mode rules that matched a failure and rank above the rule that
-- decided it (a JSON array), so that a rule author can compare them with what was applied before
-- enforcing the rule. NULL when there were none, which is nearly always.
ALTER TABLE failures ADD COLUMN shadow TEXT CHECK (shadow IS NULL
    OR CASE WHEN json_valid(shadow) THEN json_type(shadow) = 'array' ELSE 0 END);

-- +goose Down

ALTER TABLE failures DROP COLUMN shadow;

DROP TABLE rules;
DROP TABLE rule_sets;
