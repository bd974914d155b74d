-- The first schema of the embedded store: the same records as the PostgreSQL schema, in SQLite's
-- terms. Times are integer Unix microseconds (UTC by construction, exact, and ordered as integers),
-- UUIDs are 16-byte blobs (byte order is UUID order, so UUIDv7 ids sort by time), JSON is text as
-- received. STRICT tables make SQLite refuse a value of the wrong type instead of storing it anyway.

-- +goose Up

CREATE TABLE tenants (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE CHECK (name <> ''),
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
    tenant_id  INTEGER NOT NULL REFERENCES tenants (id),
    id         TEXT    NOT NULL CHECK (id <> ''),
    -- SHA-256 of the whole secret; the secret itself is never stored.
    key_hash   BLOB    NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    -- A JSON array of scope names: SQLite has no array type.
    scopes     TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(scopes) AND json_type(scopes) = 'array'),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, id)
) STRICT;

-- A rowid table, not WITHOUT ROWID: rows carry JSON of up to megabytes, which WITHOUT ROWID tables
-- store badly. The primary key is then a separate index, which is what ListFailures walks.
CREATE TABLE failures (
    tenant_id        INTEGER NOT NULL REFERENCES tenants (id),
    id               BLOB    NOT NULL CHECK (length(id) = 16),
    tool             TEXT    NOT NULL CHECK (tool <> ''),
    server           TEXT    NOT NULL DEFAULT '',
    class            TEXT    NOT NULL CHECK (class IN ('capability', 'reliability', 'governance')),
    code             TEXT    NOT NULL CHECK (code <> ''),
    retryable        INTEGER NOT NULL DEFAULT 0 CHECK (retryable IN (0, 1)),
    retry_not_before INTEGER,
    agent_guidance   TEXT    NOT NULL DEFAULT '',
    rule_id          TEXT    NOT NULL DEFAULT '',
    rule_version     INTEGER NOT NULL DEFAULT 0,
    -- json_type is only asked once json_valid has said yes, because it raises an error, rather than
    -- answering, on malformed input.
    error            TEXT    NOT NULL
        CHECK (CASE WHEN json_valid(error) THEN json_type(error) = 'object' ELSE 0 END),
    tool_annotations TEXT CHECK (tool_annotations IS NULL
        OR CASE WHEN json_valid(tool_annotations) THEN json_type(tool_annotations) = 'object' ELSE 0 END),
    -- Lowercase hex, checked with GLOB (case-sensitive) because SQLite has no built-in regexp.
    trace_id         TEXT CHECK (length(trace_id) = 32 AND trace_id NOT GLOB '*[^0-9a-f]*'),
    span_id          TEXT CHECK (length(span_id) = 16 AND span_id NOT GLOB '*[^0-9a-f]*'),
    idempotency_key  TEXT CHECK (idempotency_key <> ''),
    created_at       INTEGER NOT NULL,
    occurred_at      INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CHECK (NOT retryable OR class = 'reliability'),
    CHECK (retry_not_before IS NULL OR retryable)
) STRICT;

-- The same indexes as on PostgreSQL, for the same reasons (see migrations/postgres/00001_init.sql).
CREATE UNIQUE INDEX failures_idempotency_key ON failures (tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX failures_tool ON failures (tenant_id, tool, id DESC);
CREATE INDEX failures_class_code ON failures (tenant_id, class, code, id DESC);
CREATE INDEX failures_trace_id ON failures (tenant_id, trace_id) WHERE trace_id IS NOT NULL;

-- +goose Down

DROP TABLE failures;
DROP TABLE api_keys;
DROP TABLE tenants;
