package postgres

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/omcp/toolfailure/store"
)

// sampleRows is a batch with every nullable column both set and NULL, and times at the edges the
// store promises to keep.
func sampleRows(n int) []*store.Failure {
	rows := make([]*store.Failure, n)
	for i := range rows {
		f := &store.Failure{
			TenantID: int64(i + 1), Tool: fmt.Sprintf("tool_%d", i), Server: "srv", Class: "reliability",
			Code: "retryable_transient_error", Retryable: i%2 == 0, AgentGuidance: "Wait, then retry. ünïcödé",
			RuleID: "baseline.http_status", RuleVersion: int64(i * 7),
			Error:      []byte(fmt.Sprintf(`{"message":"upstream returned 503 (%d)","httpStatus":503}`, i)),
			CreatedAt:  time.Date(2026, 11, 30, 5, 0, 0, 123456000, time.UTC).Add(time.Duration(i) * time.Second),
			OccurredAt: time.Date(1969, 7, 20, 20, 17, 40, 1000, time.UTC),
		}
		f.ID[0], f.ID[15] = byte(i), 0xAB
		if i%2 == 0 {
			f.RetryNotBefore = time.Date(2999, 12, 31, 23, 59, 59, 999999000, time.UTC)
			f.ToolAnnotations = []byte(`{"idempotentHint":true}`)
			f.TraceID, f.SpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			f.IdempotencyKey = fmt.Sprintf("key-%d", i)
			f.Shadow = []byte(`[{"ruleId":"r1"}]`)
		}
		rows[i] = f
	}
	return rows
}

// TestEncodeBatch decodes what encode writes with pgx's own decoders, column by column, for
// batches of several sizes encoded one after the other into the same reused buffer.
func TestEncodeBatch(t *testing.T) {
	enc := &encodedBatch{}
	for _, n := range []int{5, 1, 9, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { checkEncoded(t, enc, sampleRows(n)) })
	}
}

func checkEncoded(t *testing.T, enc *encodedBatch, rows []*store.Failure) {
	t.Helper()
	enc.encode(rows)
	m := pgtype.NewMap()
	var (
		ints   []int64
		uuids  [][16]byte
		texts  []pgtype.Text
		bools  []bool
		times  []pgtype.Timestamptz
		column = func(i int, oid uint32, dst any) {
			t.Helper()
			if enc.formats[i] != 1 {
				t.Fatalf("column %d: format %d, want binary", i, enc.formats[i])
			}
			if err := m.Scan(oid, 1, enc.params[i], dst); err != nil {
				t.Fatalf("column %d: %v", i, err)
			}
		}
	)
	textCol := func(i int, want func(f *store.Failure) (string, bool)) {
		t.Helper()
		column(i, pgtype.TextArrayOID, &texts)
		if len(texts) != len(rows) {
			t.Fatalf("column %d: %d elements, want %d", i, len(texts), len(rows))
		}
		for r, f := range rows {
			s, valid := want(f)
			if texts[r].Valid != valid || texts[r].String != s {
				t.Errorf("column %d row %d: got %+v, want %q (valid %v)", i, r, texts[r], s, valid)
			}
		}
	}
	timeCol := func(i int, want func(f *store.Failure) time.Time) {
		t.Helper()
		column(i, pgtype.TimestamptzArrayOID, &times)
		for r, f := range rows {
			w := want(f)
			if times[r].Valid != !w.IsZero() || (!w.IsZero() && !times[r].Time.Equal(w)) {
				t.Errorf("column %d row %d: got %v, want %v", i, r, times[r], w)
			}
		}
	}
	str := func(get func(f *store.Failure) string) func(f *store.Failure) (string, bool) {
		return func(f *store.Failure) (string, bool) { return get(f), true }
	}
	opt := func(get func(f *store.Failure) string) func(f *store.Failure) (string, bool) {
		return func(f *store.Failure) (string, bool) { s := get(f); return s, s != "" }
	}
	js := func(get func(f *store.Failure) []byte) func(f *store.Failure) (string, bool) {
		return func(f *store.Failure) (string, bool) { b := get(f); return string(b), b != nil }
	}

	column(0, pgtype.Int8ArrayOID, &ints)
	column(1, pgtype.UUIDArrayOID, &uuids)
	for r, f := range rows {
		if ints[r] != f.TenantID || uuids[r] != f.ID {
			t.Errorf("row %d: tenant %d id %x, want %d %x", r, ints[r], uuids[r], f.TenantID, f.ID)
		}
	}
	textCol(2, str(func(f *store.Failure) string { return f.Tool }))
	textCol(3, str(func(f *store.Failure) string { return f.Server }))
	textCol(4, str(func(f *store.Failure) string { return f.Class }))
	textCol(5, str(func(f *store.Failure) string { return f.Code }))
	column(6, pgtype.BoolArrayOID, &bools)
	for r, f := range rows {
		if bools[r] != f.Retryable {
			t.Errorf("row %d: retryable %v, want %v", r, bools[r], f.Retryable)
		}
	}
	timeCol(7, func(f *store.Failure) time.Time { return f.RetryNotBefore })
	textCol(8, str(func(f *store.Failure) string { return f.AgentGuidance }))
	textCol(9, str(func(f *store.Failure) string { return f.RuleID }))
	column(10, pgtype.Int8ArrayOID, &ints)
	for r, f := range rows {
		if ints[r] != f.RuleVersion {
			t.Errorf("row %d: rule version %d, want %d", r, ints[r], f.RuleVersion)
		}
	}
	textCol(11, js(func(f *store.Failure) []byte { return f.Error }))
	textCol(12, js(func(f *store.Failure) []byte { return f.ToolAnnotations }))
	textCol(13, opt(func(f *store.Failure) string { return f.TraceID }))
	textCol(14, opt(func(f *store.Failure) string { return f.SpanID }))
	textCol(15, opt(func(f *store.Failure) string { return f.IdempotencyKey }))
	timeCol(16, func(f *store.Failure) time.Time { return f.CreatedAt })
	timeCol(17, func(f *store.Failure) time.Time { return f.OccurredAt })
	textCol(18, js(func(f *store.Failure) []byte { return f.Shadow }))
}

// BenchmarkEncodeBatch compares encode with pgx's generic encoding of the same 19 arrays,
// which is what a pool.Query with Go slices does.
func BenchmarkEncodeBatch(b *testing.B) {
	rows := sampleRows(32)
	b.Run("direct", func(b *testing.B) {
		var enc encodedBatch
		for b.Loop() {
			enc.encode(rows)
		}
	})
	for _, v := range []struct {
		name string
		args func([]*store.Failure) []any
	}{{"pgx", pgxArgs}, {"pgx-pointers", pgxPlainArgs}} {
		b.Run(v.name, func(b *testing.B) { benchPgxEncode(b, rows, v.args) })
	}
}

// benchPgxEncode encodes the batch's 19 arrays with pgx's type map, as a query would.
func benchPgxEncode(b *testing.B, rows []*store.Failure, argsOf func([]*store.Failure) []any) {
	m := pgtype.NewMap()
	oids := []uint32{pgtype.Int8ArrayOID, pgtype.UUIDArrayOID, pgtype.TextArrayOID, pgtype.TextArrayOID,
		pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.BoolArrayOID, pgtype.TimestamptzArrayOID,
		pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.Int8ArrayOID, pgtype.TextArrayOID,
		pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.TextArrayOID, pgtype.TextArrayOID,
		pgtype.TimestamptzArrayOID, pgtype.TimestamptzArrayOID, pgtype.TextArrayOID}
	for b.Loop() {
		args := argsOf(rows)
		var buf []byte
		for i, a := range args {
			out, err := m.Encode(oids[i], 1, a, buf[:0])
			if err != nil {
				b.Fatal(err)
			}
			buf = out
		}
	}
}

// pgxPlainArgs is pgxArgs with the nullable columns as slices of pointers ([]*string,
// []*time.Time) instead of pgtype values: the element types for which pgx has encode plans of
// its own rather than the reflective path.
func pgxPlainArgs(rows []*store.Failure) []any {
	args := pgxArgs(rows)
	n := len(rows)
	ptrs := func(col []pgtype.Text) []*string {
		out := make([]*string, n)
		for i := range col {
			if col[i].Valid {
				out[i] = &col[i].String
			}
		}
		return out
	}
	rnb := args[7].([]pgtype.Timestamptz)
	times := make([]*time.Time, n)
	for i := range rnb {
		if rnb[i].Valid {
			times[i] = &rnb[i].Time
		}
	}
	args[7] = times
	for _, c := range []int{12, 13, 14, 15, 18} {
		args[c] = ptrs(args[c].([]pgtype.Text))
	}
	return args
}

// pgxArgs is the batch as Go slices, one per column, the way a pgx query would take it.
func pgxArgs(rows []*store.Failure) []any {
	n := len(rows)
	var (
		tenants, vers                    = make([]int64, n), make([]int64, n)
		ids                              = make([][16]byte, n)
		tools, servers, classes, codes   = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		guidance, ruleIDs, errs          = make([]string, n), make([]string, n), make([]string, n)
		annots, traces, spans, keys, shs = make([]pgtype.Text, n), make([]pgtype.Text, n), make([]pgtype.Text, n), make([]pgtype.Text, n), make([]pgtype.Text, n)
		retry                            = make([]bool, n)
		rnb, created, occurred           = make([]pgtype.Timestamptz, n), make([]time.Time, n), make([]time.Time, n)
	)
	for i, f := range rows {
		tenants[i], ids[i], tools[i], servers[i], classes[i], codes[i] = f.TenantID, f.ID, f.Tool, f.Server, f.Class, f.Code
		retry[i], rnb[i] = f.Retryable, pgtype.Timestamptz{Time: f.RetryNotBefore, Valid: !f.RetryNotBefore.IsZero()}
		guidance[i], ruleIDs[i], vers[i], errs[i] = f.AgentGuidance, f.RuleID, f.RuleVersion, string(f.Error)
		annots[i] = pgtype.Text{String: string(f.ToolAnnotations), Valid: f.ToolAnnotations != nil}
		traces[i] = pgtype.Text{String: f.TraceID, Valid: f.TraceID != ""}
		spans[i] = pgtype.Text{String: f.SpanID, Valid: f.SpanID != ""}
		keys[i] = pgtype.Text{String: f.IdempotencyKey, Valid: f.IdempotencyKey != ""}
		created[i], occurred[i] = f.CreatedAt, f.OccurredAt
		shs[i] = pgtype.Text{String: string(f.Shadow), Valid: f.Shadow != nil}
	}
	return []any{tenants, ids, tools, servers, classes, codes, retry, rnb, guidance, ruleIDs, vers, errs,
		annots, traces, spans, keys, created, occurred, shs}
}
