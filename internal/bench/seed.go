package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// seedChunk is the number of rows per COPY, each its own transaction, so that progress shows and
// an interrupted seed keeps what it wrote.
const seedChunk = 500_000

// seedProgressEvery is how many rows the seeding's progress callback waits between calls.
const seedProgressEvery = 10_000

var (
	seedTools = []string{"send_email", "read_file", "query_orders", "create_issue", "deploy", "search",
		"resize_image", "fetch_url", "update_record", "charge_card", "list_repos", "delete_bucket",
		"translate", "summarize", "upload_file", "schedule_meeting", "get_weather", "run_sql",
		"open_ticket", "post_message"}
	seedOutcomes = []struct {
		class, code string
		retryable   bool
	}{
		{store.ClassReliability, "retryable_transient_error", true},
		{store.ClassReliability, "retryable_transient_error", true},
		{store.ClassReliability, "retryable_transient_error", false},
		{store.ClassCapability, "invalid_input", false},
		{store.ClassCapability, "resource_not_found", false},
		{store.ClassCapability, "capability_unsupported", false},
		{store.ClassGovernance, "auth_required", false},
		{store.ClassGovernance, "permission_denied", false},
		{store.ClassGovernance, "policy_blocked", false},
		{store.ClassGovernance, "user_action_required", false},
	}
	seedErrors = []string{
		`{"message":"upstream returned 503 Service Unavailable","httpStatus":503,"retryAfter":"30"}`,
		`{"message":"ENOENT: no such file or directory, open '/srv/data/report.csv'","type":"ENOENT"}`,
		`{"message":"could not serialize access due to concurrent update","attributes":{"db.response.status_code":"40001"}}`,
		`{"message":"Bad credentials","httpStatus":401,"details":{"documentation_url":"https://docs.example.com/rest"}}`,
		`{"message":"rpc error: code = Unavailable desc = connection refused","grpcCode":14}`,
		`{"message":"Traceback (most recent call last):\n  File \"tool.py\", line 42, in resize\nValueError: width must be positive, got -3","type":"ValueError"}`,
	}
)

// seedGroups is the number of distinct problems (fingerprints) that seeded records fall into; how
// often each occurs follows a Zipf distribution, as errors do: a few problems make most records.
const seedGroups = 2000

// DefaultLookupSample is how many random records the GetFailure measurement
// reads: enough for a stable p99.
const DefaultLookupSample = 2000

// seedGroup is one seeded problem: a tool, an error whose message names the problem, and the
// fingerprint the service would have computed for them.
type seedGroup struct {
	tool, err, ruleID string
	fingerprint       int64
}

func seedGroupSet() []seedGroup {
	groups := make([]seedGroup, seedGroups)
	for g := range groups {
		var e map[string]any
		_ = json.Unmarshal([]byte(seedErrors[(g/len(seedTools))%len(seedErrors)]), &e)
		// A word of letters only, so that the template, and so the fingerprint, differs per group.
		word := ""
		for k := g; ; k /= 26 {
			word = string(rune('a'+k%26)) + word
			if k < 26 {
				break
			}
		}
		e["message"] = fmt.Sprintf("%v (%s)", e["message"], word)
		b, _ := json.Marshal(e)
		tool := seedTools[g%len(seedTools)]
		key, _ := store.FingerprintKey(store.FingerprintOf(tool, b))
		rule := "baseline"
		if g%5 == 0 { // a fifth of the problems fell to the documented default
			rule = "baseline/default"
		}
		groups[g] = seedGroup{tool: tool, err: string(b), ruleID: rule, fingerprint: key}
	}
	return groups
}

// seed adds n records of tenant with COPY, spread over the time from start to end in ID order, as
// a service would have written them. The partitions of those days are made first, as the service
// makes them ahead of time.
func seed(ctx context.Context, conn *pgx.Conn, serviceURL, schema string, tenant store.Tenant, n int, start, end time.Time, logf func(string, ...any), progress func(done, total int)) error {
	cols := []string{"tenant_id", "id", "tool", "server", "class", "code", "retryable", "retry_not_before",
		"agent_guidance", "rule_id", "error", "trace_id", "span_id", "created_at", "occurred_at", "fingerprint"}
	s, err := postgres.Open(ctx, serviceURL)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	err = s.EnsurePartitions(ctx, start, end)
	_ = s.Close()
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	step := end.Sub(start) / time.Duration(n)
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	groups := seedGroupSet()
	zipf := rand.NewZipf(rng, 1.1, 1, seedGroups-1)
	began := time.Now()
	for done := 0; done < n; {
		size := min(seedChunk, n-done)
		i := 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i == size {
				return nil, nil
			}
			k := done + i
			i++
			if progress != nil && k%seedProgressEvery == 0 {
				progress(k, n)
			}
			at := start.Add(time.Duration(k) * step).UTC().Truncate(time.Microsecond)
			id := uuidv7(at, rng)
			o := seedOutcomes[rng.IntN(len(seedOutcomes))]
			var rnb any
			if o.retryable {
				rnb = at.Add(30 * time.Second)
			}
			var traceID, spanID any
			if rng.IntN(2) == 0 {
				traceID = fmt.Sprintf("%016x%016x", rng.Uint64()|1, rng.Uint64())
				spanID = fmt.Sprintf("%016x", rng.Uint64()|1)
			}
			g := groups[zipf.Uint64()]
			return []any{tenant.ID, id, g.tool, "bench-mcp", o.class, o.code,
				o.retryable, rnb, "Wait 30 s, then retry the same call.", g.ruleID,
				g.err, traceID, spanID, at, at, g.fingerprint}, nil
		})
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{schema, "failures"}, cols, src); err != nil {
			return fmt.Errorf("seed: COPY: %w", err)
		}
		done += size
		logf("seeded %d of %d records (%.0f/s)", done, n, float64(done)/time.Since(began).Seconds())
		if progress != nil {
			progress(done, n)
		}
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+pgx.Identifier{schema, "failures"}.Sanitize()); err != nil {
		return fmt.Errorf("seed: vacuum: %w", err)
	}
	return nil
}

// uuidv7 makes a UUIDv7 of the millisecond of at with random bits from rng.
func uuidv7(at time.Time, rng *rand.Rand) [16]byte {
	var id [16]byte
	ms := at.UnixMilli()
	for i := 5; i >= 0; i-- {
		id[i] = byte(ms)
		ms >>= 8
	}
	a, b := rng.Uint64(), rng.Uint64()
	for i := range 2 {
		id[6+i] = byte(a >> (8 * i))
	}
	for i := range 8 {
		id[8+i] = byte(b >> (8 * i))
	}
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

// lookups seeds (if asked), then measures what a support engineer waits for at the table's size:
// GetFailure of random records and the first page of ListFailures, through a freshly started
// service, and reports the table's bytes per record.
func lookups(ctx context.Context, cfg Config, admin *pgx.Conn, schema, serviceURL string, tenant store.Tenant, key string, logf func(string, ...any)) (bool, error) {
	if cfg.Seed > 0 {
		logf("seeding %d records with COPY", cfg.Seed)
		end := time.Now()
		if err := seed(ctx, admin, serviceURL, schema, tenant, cfg.Seed, end.Add(-30*24*time.Hour), end, logf, cfg.SeedProgress); err != nil {
			return false, err
		}
	}
	table := pgx.Identifier{schema, "failures"}.Sanitize()
	var size, count int64
	// The records are in partitions (store/postgres/partitions.go), which the parent's size leaves out.
	if err := admin.QueryRow(ctx, `SELECT (SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0)::bigint
		FROM pg_inherits WHERE inhparent = $1::regclass), (SELECT count(*) FROM `+table+`)`,
		table).Scan(&size, &count); err != nil {
		return false, fmt.Errorf("measure the table: %w", err)
	}
	if count == 0 {
		return false, fmt.Errorf("no records to look up in schema %s; seed some with --seed", schema)
	}
	n := cfg.LookupSample
	if n <= 0 {
		n = DefaultLookupSample
	}
	sample := "SELECT id FROM " + table + " WHERE tenant_id = $1 ORDER BY random() LIMIT $2"
	if count > 200_000 {
		sample = "SELECT id FROM " + table + " TABLESAMPLE SYSTEM (0.5) WHERE tenant_id = $1 LIMIT $2"
	}
	rows, err := admin.Query(ctx, sample, tenant.ID, n)
	if err != nil {
		return false, fmt.Errorf("sample IDs: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil {
		return false, fmt.Errorf("sample IDs: %w", err)
	}
	rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })

	svc, err := startChild(ctx, cfg.Binary, append([]string{"serve", "--database-url", serviceURL}, cfg.ServeArgs...), cfg.Log)
	if err != nil {
		return false, fmt.Errorf("start the service: %w", err)
	}
	defer svc.stop(logf)
	c := client(1)
	get := svc.base + "/toolfailure.v1.FailureService/GetFailure"
	list := svc.base + "/toolfailure.v1.FailureService/ListFailures"
	body := func(id [16]byte) string {
		return fmt.Sprintf(`{"correlationId":%q}`, correlation.ID(id).String())
	}
	// Warm the service's key cache and connections, as a running service has them.
	for _, id := range ids[:min(50, len(ids))] {
		if err := call(ctx, c, get, key, body(id)); err != nil {
			return false, fmt.Errorf("GetFailure: %w", err)
		}
	}
	var lat []time.Duration
	for _, id := range ids {
		t0 := time.Now()
		if err := call(ctx, c, get, key, body(id)); err != nil {
			return false, fmt.Errorf("GetFailure: %w", err)
		}
		lat = append(lat, time.Since(t0))
	}
	getP50, getP99 := percentile(lat, 0.5), percentile(lat, 0.99)

	fmt.Fprintf(cfg.Out, "\nlookups at %d records, all of one tenant; table with its indexes %.2f GB, %d bytes per record\n",
		count, float64(size)/(1<<30), size/count)
	ok := true
	verdict := verdicts(&ok)
	fmt.Fprintf(cfg.Out, "GetFailure of %d random records: p50 %s, p99 %s; floor p99 <= %s  %s\n",
		len(lat), ms(getP50), ms(getP99), ms(FloorGetP99), verdict(getP99 <= FloorGetP99))
	for _, q := range []struct{ name, body string }{
		{"no filter", `{}`},
		{"tool", `{"filter":{"tool":"deploy"}}`},
		{"class+code", `{"filter":{"class":"governance","code":"policy_blocked"}}`},
		{"trace ID", `{"filter":{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}}`},
		{"last hour", fmt.Sprintf(`{"filter":{"since":%q}}`, time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))},
	} {
		var l []time.Duration
		for range 21 {
			t0 := time.Now()
			if err := call(ctx, c, list, key, q.body); err != nil {
				return false, fmt.Errorf("ListFailures (%s): %w", q.name, err)
			}
			l = append(l, time.Since(t0))
		}
		p50, worst := percentile(l, 0.5), percentile(l, 1)
		fmt.Fprintf(cfg.Out, "ListFailures first page, %-10s: p50 %s, max %s; floor p50 <= %s  %s\n",
			q.name, ms(p50), ms(worst), ms(FloorListFirstPage), verdict(p50 <= FloorListFirstPage))
	}
	// ListGroups counts at query time (see migrations/postgres/00005_fingerprints.sql), so its cost
	// grows with the records in the window: measured over the default window, the last 24 hours.
	groups := svc.base + "/toolfailure.v1.FailureService/ListGroups"
	for _, q := range []struct{ name, body string }{
		{"by count", `{}`},
		{"last seen", `{"orderBy":"last_seen"}`},
		{"unclassified", `{"filter":{"unclassified":true}}`},
		{"tool", `{"filter":{"tool":"deploy"}}`},
	} {
		var l []time.Duration
		for range 101 {
			t0 := time.Now()
			if err := call(ctx, c, groups, key, q.body); err != nil {
				return false, fmt.Errorf("ListGroups (%s): %w", q.name, err)
			}
			l = append(l, time.Since(t0))
		}
		p50, p99 := percentile(l, 0.5), percentile(l, 0.99)
		fmt.Fprintf(cfg.Out, "ListGroups 24 h page, %-12s: p50 %s, p99 %s; floor p50 <= %s, p99 <= %s  %s\n",
			q.name, ms(p50), ms(p99), ms(FloorGroupsP50), ms(FloorGroupsP99), verdict(p50 <= FloorGroupsP50 && p99 <= FloorGroupsP99))
	}
	return ok, nil
}
