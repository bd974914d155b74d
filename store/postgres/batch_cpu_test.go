package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/procstat"
	"github.com/omcp/toolfailure/store"
)

// BenchmarkBatchCPU measures what one group commit costs PostgreSQL itself: the CPU time of the
// writer's backend process (from /proc, so PostgreSQL must run on this machine), per batch and
// per row, for batches of 1, 12 (what 32 closed-loop callers of `toolfailure bench` produce) and
// 48 rows, next to the cheapest round trip (SELECT 1) and the cheapest durable commit (a one-row
// insert into a one-column table). The difference between sizes is the cost of a row; what is
// left at one row is the cost of a commit, which only larger batches spread thinner. These are
// the figures that bound how close the service can come to the zero-work handler of the
// benchmark (docs/reference.md, "What a durable record costs"):
//
//	go test ./store/postgres -run '^$' -bench BatchCPU -benchtime 3s
func BenchmarkBatchCPU(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	tenant, err := s.EnsureTenant(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	w := &writer{pool: s.pool}
	defer w.release()
	if w.conn, err = s.pool.Acquire(ctx); err != nil {
		b.Fatal(err)
	}
	var pid int
	if err := w.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	if _, err := procstat.CPU(pid); err != nil {
		b.Skipf("PostgreSQL's backend is not a process of this machine: %v", err)
	}
	if _, err := w.conn.Exec(ctx, "CREATE TABLE commit_floor (id bigint PRIMARY KEY)"); err != nil {
		b.Fatal(err)
	}

	// measure runs op b.N times and reports the backend's CPU per operation and per row.
	measure := func(b *testing.B, rows int, op func() error) {
		b.Helper()
		for range 50 { // warm the backend's caches and the prepared statement's plan
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
		before, err := procstat.CPU(pid)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
		after, err := procstat.CPU(pid)
		if err != nil {
			b.Fatal(err)
		}
		perOp := float64(after-before) / float64(time.Microsecond) / float64(b.N)
		b.ReportMetric(perOp, "pg-µs/op")
		if rows > 0 {
			b.ReportMetric(perOp/float64(rows), "pg-µs/row")
		}
	}

	b.Run("select1", func(b *testing.B) {
		measure(b, 0, func() error { _, err := w.conn.Exec(ctx, "SELECT 1"); return err })
	})
	b.Run("commit_floor", func(b *testing.B) {
		next := int64(0)
		measure(b, 1, func() error {
			next++
			_, err := w.conn.Exec(ctx, "INSERT INTO commit_floor VALUES ($1)", next)
			return err
		})
	})
	for _, n := range []int{1, 12, 48} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			batch := make([]*store.Failure, n)
			seq := 0
			measure(b, n, func() error {
				for i := range batch {
					seq++
					batch[i] = benchFailure(b, tenant.ID, seq)
				}
				_, err := w.execBatch(ctx, batch)
				return err
			})
		})
	}
}

var (
	benchTools = []string{"search", "fetch_page", "send_email", "query_db", "read_file"}
	benchCodes = []string{"retryable_transient_error", "not_found", "permission_denied", "rate_limited", "invalid_arguments"}
)

// benchFailure is a record of the sizes `toolfailure bench` stores: a few tools and codes, an error
// of about a hundred bytes, a trace on one record in six and annotations on one in three.
func benchFailure(b *testing.B, tenant int64, seq int) *store.Failure {
	now := time.Now()
	id, err := correlation.New(now)
	if err != nil {
		b.Fatal(err)
	}
	f := &store.Failure{
		TenantID: tenant, ID: id, Tool: benchTools[seq%len(benchTools)], Server: "weather",
		Class: "capability", Code: benchCodes[seq%len(benchCodes)], AgentGuidance: "Check the arguments, then call again.",
		RuleID:    "baseline.http_status",
		Error:     fmt.Appendf(nil, `{"message":"upstream returned 404 Not Found for the forecast of station %d","httpStatus":404}`, seq),
		CreatedAt: now, OccurredAt: now,
	}
	if seq%6 == 0 {
		f.TraceID, f.SpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	}
	if seq%3 == 0 {
		f.ToolAnnotations = []byte(`{"readOnlyHint":true}`)
	}
	return f
}
