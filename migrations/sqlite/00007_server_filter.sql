-- The MCP server filter of ListFailures, as in migrations/postgres/00010_server_filter.sql: one
-- server's records newest first.

-- +goose Up

CREATE INDEX failures_server ON failures (tenant_id, server, id DESC);

-- +goose Down

DROP INDEX failures_server;
