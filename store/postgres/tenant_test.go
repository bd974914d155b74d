package postgres_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/store/postgres"
)

// Distributed and reference tables of the Citus layout in docs/scaling.md. A table that a
// migration adds must be put in one of the two lists, which is the point: someone decides.
var (
	distributedTables = []string{"failures", "failure_keys", "rules", "rule_sets", "ui_session_revocations"}
	referenceTables   = []string{"tenants", "api_keys"}
)

// requireEveryQueryCarriesTenant checks the statements that rec recorded while the whole store
// conformance suite ran (TestStore): each one that reads or writes a distributed table must name
// tenant_id, so that a distributed PostgreSQL (Citus, tenant_id as the distribution column) can
// route it to one shard. Tables that are not distributed must be reference tables.
func requireEveryQueryCarriesTenant(t *testing.T, rec *sqlRecorder) {
	t.Helper()
	// A table after FROM, INTO, UPDATE or JOIN; a name followed by "(" is a function (unnest of a
	// batch's arrays), and ON CONFLICT's DO UPDATE SET names no table.
	tables := regexp.MustCompile(`(?i)\b(?:from|into|update|join)\s+([a-z_]+)(\s*\()?`)
	tenant := regexp.MustCompile(`(?i)\btenant_id\b`)
	// The names a statement gives its WITH queries are not tables.
	cte := regexp.MustCompile(`(?i)\b([a-z_]+)\s+as\s+\(`)
	ddl := regexp.MustCompile(`(?i)^\s*(create|alter|drop|do|comment|listen|unlisten|lock|set|show|begin|commit|rollback|savepoint|release)\b`)
	checked := 0
	for _, sql := range rec.statements() {
		if ddl.MatchString(sql) || strings.Contains(sql, "goose_db_version") || strings.Contains(sql, "pg_") || strings.Contains(sql, "information_schema") {
			continue
		}
		var local []string
		for _, m := range cte.FindAllStringSubmatch(sql, -1) {
			local = append(local, strings.ToLower(m[1]))
		}
		for _, m := range tables.FindAllStringSubmatch(sql, -1) {
			table := strings.ToLower(m[1])
			if m[2] != "" || table == "set" || slices.Contains(local, table) {
				continue
			}
			switch {
			case slices.Contains(distributedTables, table):
				checked++
				if !tenant.MatchString(sql) {
					t.Errorf("a statement on the distributed table %s does not name tenant_id, so it cannot be routed to one shard:\n%s", table, sql)
				}
			case slices.Contains(referenceTables, table):
			default:
				t.Errorf("the store uses table %s, which is neither distributed nor a reference table in docs/scaling.md:\n%s", table, sql)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d statements on distributed tables were recorded; the tracer missed the store's queries", checked)
	}
	t.Logf("%d distinct statements, %d uses of distributed tables, all with tenant_id", len(rec.seen), checked)
}

func openTraced(t *testing.T, u string, rec *sqlRecorder) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), u, postgres.WithTracer(rec))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// sqlRecorder is a pgx tracer that keeps the text of every distinct statement.
type sqlRecorder struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (r *sqlRecorder) add(sql string) {
	r.mu.Lock()
	r.seen[strings.Join(strings.Fields(sql), " ")] = true
	r.mu.Unlock()
}

func (r *sqlRecorder) statements() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.seen))
	for s := range r.seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (r *sqlRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}

func (r *sqlRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *sqlRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (r *sqlRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.add(d.SQL)
}

func (r *sqlRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
