-- The first schema: tenants, their API keys, and the failure records that correlation IDs point to.
--
-- Every table is keyed tenant first. Primary keys and unique constraints of per-tenant data include
-- tenant_id and every lookup carries it, so that when one primary is no longer enough the failures
-- table can be distributed by tenant_id on Citus without a redesign. tenants and api_keys are small
-- and read on every request by key hash, which carries no tenant; on Citus they become reference
-- tables (copied to every node), where global uniqueness such as api_keys.key_hash is allowed.

-- +goose Up

CREATE TABLE tenants (
    -- ALWAYS rather than BY DEFAULT: ids are handed out by the database only, so an import can never
    -- collide with the sequence. pg_dump restores with OVERRIDING SYSTEM VALUE.
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text        NOT NULL UNIQUE CHECK (name <> ''),
    created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
    tenant_id  bigint      NOT NULL REFERENCES tenants (id),
    -- The short public identifier shown in listings and logs; not secret.
    id         text        NOT NULL CHECK (id <> ''),
    -- SHA-256 of the whole secret. The secret itself is never stored, so a leaked database does not
    -- leak usable keys. Looked up on every request, hence the unique index that the constraint brings.
    key_hash   bytea       NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    scopes     text[]      NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE failures (
    tenant_id        bigint      NOT NULL REFERENCES tenants (id),
    -- A UUIDv7: its leading 48 bits are a millisecond timestamp, so id order is (close to) creation
    -- order and "newest first" is an index scan of the primary key, no created_at index needed.
    id               uuid        NOT NULL,
    tool             text        NOT NULL CHECK (tool <> ''),
    server           text        NOT NULL DEFAULT '',
    -- The closed set of the toolFailure proposal. Codes are an open vocabulary, so only presence is
    -- checked for them.
    class            text        NOT NULL CHECK (class IN ('capability', 'reliability', 'governance')),
    code             text        NOT NULL CHECK (code <> ''),
    retryable        boolean     NOT NULL DEFAULT false,
    retry_not_before timestamptz,
    agent_guidance   text        NOT NULL DEFAULT '',
    rule_id          text        NOT NULL DEFAULT '',
    rule_version     bigint      NOT NULL DEFAULT 0,
    -- jsonb, not json: it is validated on the way in and can be queried by support tooling later. It
    -- does not keep the received whitespace or key order, which nothing depends on.
    error            jsonb       NOT NULL CHECK (jsonb_typeof(error) = 'object'),
    tool_annotations jsonb CHECK (jsonb_typeof(tool_annotations) = 'object'),
    -- W3C trace context ids, lowercase hex as OpenTelemetry prints them; NULL when the call had none,
    -- so that the partial index below stays small.
    trace_id         text CHECK (trace_id ~ '^[0-9a-f]{32}$'),
    span_id          text CHECK (span_id ~ '^[0-9a-f]{16}$'),
    idempotency_key  text CHECK (idempotency_key <> ''),
    created_at       timestamptz NOT NULL,
    occurred_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    -- The proposal's own rules, enforced where the record is kept so that no stored record can be
    -- served back in a form that a conforming client would have to reject: retryable only for
    -- reliability, and a retry time only when the call may be retried at all.
    CONSTRAINT failures_retryable_reliability_only CHECK (NOT retryable OR class = 'reliability'),
    CONSTRAINT failures_retry_not_before_needs_retryable CHECK (retry_not_before IS NULL OR retryable)
);

-- Idempotency: the same (tenant, key) maps to one record. Partial, because most callers send no key
-- and they must not collide with one another. InsertFailure names this index in ON CONFLICT.
CREATE UNIQUE INDEX failures_idempotency_key ON failures (tenant_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- Indexes for ListFailures, kept few because each one costs every insert. The unfiltered listing,
-- and the time-window filters, walk the primary key (tenant_id, id) backwards and stop at LIMIT; a
-- separate (tenant_id, id DESC) index would duplicate it. Each index below ends in id so that its
-- filter, too, is answered newest first with keyset paging and no sort.

-- "All failures of tool X": the most common question from an operator.
CREATE INDEX failures_tool ON failures (tenant_id, tool, id DESC);

-- "All governance failures", "all auth_required": class alone uses the prefix. A code without its
-- class is rare (codes belong to one class), and is then a filtered walk of this index.
CREATE INDEX failures_class_code ON failures (tenant_id, class, code, id DESC);

-- Jump from a trace to its failures: few rows per trace, so no id column is needed to avoid a sort.
CREATE INDEX failures_trace_id ON failures (tenant_id, trace_id) WHERE trace_id IS NOT NULL;

-- +goose Down

DROP TABLE failures;
DROP TABLE api_keys;
DROP TABLE tenants;
