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

-- +goose Down

DROP TABLE rules;
DROP TABLE rule_sets;
