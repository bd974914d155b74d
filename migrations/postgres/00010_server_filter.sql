-- The MCP server filter of ListFailures (filter.server, the CLI's --mcp-server, the web page's
-- server field): one server's records newest first, as failures_tool holds one tool's. Without it
-- a list of a server that reported little reads the tenant's records back from the newest until
-- a page is found, which on a tenant of millions of records is all of them.
--
-- The group reads' server filter (GroupFilter.Server) is checked on the rows of the window, as
-- the class and code filters are: it narrows a view that a person asks for, not a hot path.
--
-- The build reads the whole table and blocks writes meanwhile; on a large table an operator can
-- build it beforehand, partition by partition, under the same name.

-- +goose Up

CREATE INDEX failures_server ON failures (tenant_id, server, id DESC);

-- +goose Down

DROP INDEX failures_server;
