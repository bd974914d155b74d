package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// Floors that a run is judged by (see the package documentation).
const (
	// BudgetServiceCPU and BudgetPostgresCPU are the absolute CPU budget of
	// a durable Classify on the 2-core machine when nothing else runs
	// (docs/scaling.md has what they allow). The zero-work handler's
	// figures are printed beside them for information, not judged.
	BudgetServiceCPU   = 200.0 // µs per request
	BudgetPostgresCPU  = 100.0 // µs per request
	FloorP99           = 5 * time.Millisecond
	FloorRSS           = 150 << 20
	FloorGetP99        = 2 * time.Millisecond
	FloorListFirstPage = 20 * time.Millisecond
	FloorGroupsP50     = 50 * time.Millisecond
	FloorGroupsP99     = 200 * time.Millisecond
	// FloorPartitionDrop bounds the retention round that drops a partition (--drop-partition), and
	// FloorDropStall the longest Classify call meanwhile.
	FloorPartitionDrop = time.Second
	FloorDropStall     = 50 * time.Millisecond
)

// Config is one benchmark run.
type Config struct {
	// DatabaseURL is the PostgreSQL server to use. The run works in a schema of its own, created
	// and dropped by the run, unless Schema names one.
	DatabaseURL string
	// Schema, when set, is an existing or new schema to use and keep (e.g. to seed once and
	// measure lookups many times).
	Schema string
	// Binary is the toolfailure executable whose serve and bench zero-work subcommands are started.
	Binary string
	// ServeArgs are extra flags for serve, to measure a configuration other than the default;
	// ZeroWorkArgs are those of `bench zero-work` (--commit-wait).
	ServeArgs, ZeroWorkArgs []string
	// Duration of each measurement and of the warm-up before it.
	Duration, Warmup time.Duration
	// Rounds of alternating measurements; 0 skips the load and only seeds and looks up.
	Rounds int
	// Callers is the concurrency of the throughput measurement, FloorCallers that of the latency
	// floor.
	Callers, FloorCallers int
	// Seed is how many records to add with COPY before measuring lookups; Lookups measures them
	// even without seeding.
	Seed    int
	Lookups bool
	// LookupSample is how many random records the GetFailure measurement
	// reads; zero means DefaultLookupSample.
	LookupSample int
	// DropPartition, when above zero, adds that many records in one day two months back, gives
	// the tenant a retention that expires that day only, and measures the retention round that
	// drops its partition while Classify calls go on.
	DropPartition int
	// Out receives the report, Log the progress and the children's output on failure.
	Out, Log io.Writer
	// SeedProgress, if set, is called now and then during the seeding with the records sent so
	// far and the total (a terminal's progress bar), and with the total at the end.
	SeedProgress func(done, total int)
}

// measurement is one target under one load in one round.
type measurement struct {
	round   int
	target  string // "zero-work" or "service"
	callers int
	result
	cpuService, cpuPG int64 // µs over the measurement
	pgKnown           bool
	commits           int64 // transactions committed in the database meanwhile, for the service
	rss               int64
}

func (m measurement) cpuPerRequest() (svc, pg float64) {
	if m.requests == 0 {
		return 0, 0
	}
	return float64(m.cpuService) / float64(m.requests), float64(m.cpuPG) / float64(m.requests)
}

// Run runs the benchmark and writes its report. ok is false when a floor was missed.
func Run(ctx context.Context, cfg Config) (ok bool, err error) {
	if err := checkMix(); err != nil {
		return false, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, "bench: "+format+"\n", args...) }

	// The store's own settings (group_commit_…) are for the service; PostgreSQL would refuse them.
	adminURL, err := storeParamsRemoved(cfg.DatabaseURL)
	if err != nil {
		return false, err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return false, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer admin.Close(context.Background())
	schema, keep := cfg.Schema, cfg.Schema != ""
	if schema == "" {
		schema = "tfbench_" + randomHex(6)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return false, fmt.Errorf("create schema %s: %w", schema, err)
	}
	if !keep {
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := admin.Exec(dctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
				logf("drop schema %s: %v", schema, err)
			}
		}()
	}
	appName := "tfbench-" + randomHex(4)
	serviceURL, err := withParams(cfg.DatabaseURL, map[string]string{"search_path": schema, "application_name": appName})
	if err != nil {
		return false, err
	}
	logf("schema %s", schema)

	tenant, reportKey, err := prepare(ctx, serviceURL)
	if err != nil {
		return false, err
	}

	var ms []measurement
	if cfg.Rounds > 0 {
		svc, err := startChild(ctx, cfg.Binary, append([]string{"serve", "--database-url", serviceURL}, cfg.ServeArgs...), cfg.Log)
		if err != nil {
			return false, fmt.Errorf("start the service: %w", err)
		}
		defer svc.stop(logf)
		zero, err := startChild(ctx, cfg.Binary, append([]string{"bench", "zero-work", "--key", reportKey}, cfg.ZeroWorkArgs...), cfg.Log)
		if err != nil {
			return false, fmt.Errorf("start the zero-work handler: %w", err)
		}
		defer zero.stop(logf)

		if len(cfg.ZeroWorkArgs) > 0 {
			fmt.Fprintf(cfg.Out, "zero-work handler started with %q: its ratios are not judged against the floors\n",
				strings.Join(cfg.ZeroWorkArgs, " "))
		}
		pgPIDs := func() []int { return postgresPIDs(ctx, admin, appName) }
		c := client(max(cfg.Callers, cfg.FloorCallers))
		fmt.Fprintf(cfg.Out, "%-5s %-9s %7s %9s %8s %8s %9s %9s %9s %6s %7s %s\n",
			"round", "target", "callers", "req/s", "p50", "p99", "svc µs/r", "pg µs/r", "sum µs/r", "rows/c", "RSS MB", "errors")
		for round := 1; round <= cfg.Rounds; round++ {
			for _, callers := range []int{cfg.Callers, cfg.FloorCallers} {
				targets := []*child{zero, svc}
				if round%2 == 0 {
					slices.Reverse(targets) // alternate who goes first, so drift does not favour one
				}
				for _, t := range targets {
					name := "zero-work"
					if t == svc {
						name = "service"
					}
					endpoint := t.base + "/toolfailure.v1.ClassifierService/Classify"
					drive(ctx, c, endpoint, reportKey, requestMix, callers, cfg.Warmup)
					var pids []int
					if t == svc {
						pids = pgPIDs()
					}
					svcBefore, _ := cpuTime(t.pid())
					pgBefore := cpuTimes(pids)
					commitsBefore := commits(ctx, admin)
					r := drive(ctx, c, endpoint, reportKey, requestMix, callers, cfg.Duration)
					svcAfter, _ := cpuTime(t.pid())
					m := measurement{round: round, target: name, callers: callers, result: r,
						cpuService: svcAfter - svcBefore, cpuPG: cpuTimes(pids) - pgBefore, pgKnown: len(pids) > 0}
					if t == svc && commitsBefore >= 0 {
						m.commits = commits(ctx, admin) - commitsBefore
					}
					m.rss, _, _ = memory(t.pid())
					ms = append(ms, m)
					printMeasurement(cfg.Out, m)
					if ctx.Err() != nil {
						return false, ctx.Err()
					}
				}
			}
		}
		_, peak, _ := memory(svc.pid())
		ok = summarize(cfg.Out, ms, cfg.Callers, cfg.FloorCallers, peak, len(cfg.ZeroWorkArgs) > 0)
		if err := svc.terminate(); err != nil {
			fmt.Fprintf(cfg.Out, "service: SIGTERM: %v  FAIL\n", err)
			ok = false
		} else {
			fmt.Fprintln(cfg.Out, "service: SIGTERM drained and exited 0")
		}
	} else {
		ok = true
	}

	if cfg.Seed > 0 || cfg.Lookups {
		lok, err := lookups(ctx, cfg, admin, schema, serviceURL, tenant, reportKey, logf)
		if err != nil {
			return false, err
		}
		ok = ok && lok
	}
	if cfg.DropPartition > 0 {
		dok, err := dropPartition(ctx, cfg, admin, schema, serviceURL, tenant, reportKey, logf)
		if err != nil {
			return false, err
		}
		ok = ok && dok
	}
	return ok, nil
}

// prepare migrates the schema and creates the benchmark's tenant and its key.
func prepare(ctx context.Context, databaseURL string) (store.Tenant, string, error) {
	s, err := postgres.Open(ctx, databaseURL)
	if err != nil {
		return store.Tenant{}, "", err
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		return store.Tenant{}, "", err
	}
	t, err := s.EnsureTenant(ctx, "bench")
	if err != nil {
		return store.Tenant{}, "", err
	}
	k, err := apikey.New()
	if err != nil {
		return store.Tenant{}, "", err
	}
	if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: t.ID, Hash: k.Hash,
		Scopes: []string{store.ScopeReport, store.ScopeLookup}}); err != nil {
		return store.Tenant{}, "", err
	}
	return t, k.Secret, nil
}

// postgresPIDs returns the server processes that do the service's work: its own connections
// (found by the application name that the run gave them) and the WAL writer, checkpointer and
// background writer, which flush what its commits wrote. They must run on this machine to be
// measured; otherwise the list is empty and the report says n/a.
func postgresPIDs(ctx context.Context, conn *pgx.Conn, appName string) []int {
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE application_name = $1 OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`, appName)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	var out []int
	for _, p := range pids {
		if isPostgres(int(p)) {
			out = append(out, int(p))
		}
	}
	return out
}

// commits returns how many transactions the database has committed so far, as its statistics
// say, or -1. Backends report to the statistics about once a second, so over a measurement of a
// few seconds the count is close, not exact; it also counts other sessions of the same database.
func commits(ctx context.Context, conn *pgx.Conn) int64 {
	var n int64
	if err := conn.QueryRow(ctx, `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		return -1
	}
	return n
}

func printMeasurement(w io.Writer, m measurement) {
	svc, pg := m.cpuPerRequest()
	pgText := "n/a"
	if m.target == "zero-work" {
		pgText = "-"
	} else if m.pgKnown {
		pgText = fmt.Sprintf("%.0f", pg)
	}
	batch := "-"
	if m.commits > 0 {
		batch = fmt.Sprintf("%.1f", float64(m.requests)/float64(m.commits))
	}
	errText := fmt.Sprint(m.errors)
	if m.firstErr != "" {
		errText += " (" + m.firstErr + ")"
	}
	fmt.Fprintf(w, "%-5d %-9s %7d %9.0f %8s %8s %9.0f %9s %9.0f %6s %7.1f %s\n",
		m.round, m.target, m.callers, m.rate(), ms(m.p50), ms(m.p99), svc, pgText, svc+pg, batch,
		float64(m.rss)/(1<<20), errText)
}

// verdicts returns the PASS/FAIL word of a floor's line, clearing *ok on a FAIL.
func verdicts(ok *bool) func(pass bool) string {
	return func(pass bool) string {
		if pass {
			return "PASS"
		}
		*ok = false
		return "FAIL"
	}
}

// summarize prints the ratios per round, their median and spread, and the verdict on each floor.
// The ratios are judged only against the plain zero-work handler: with other zero-work flags
// (baselineChanged) they are printed and count as not met.
func summarize(w io.Writer, all []measurement, callers, floorCallers int, peakRSS int64, baselineChanged bool) bool {
	var throughput, cpu, svcCPU, pgCPU []float64
	var p99s []time.Duration
	errorsSeen := 0
	rounds := map[int][2]*measurement{}
	for i := range all {
		m := &all[i]
		errorsSeen += m.errors
		if m.callers == floorCallers && m.target == "service" {
			p99s = append(p99s, m.p99)
		}
		if m.callers != callers {
			continue
		}
		pair := rounds[m.round]
		if m.target == "zero-work" {
			pair[0] = m
		} else {
			pair[1] = m
		}
		rounds[m.round] = pair
	}
	for _, pair := range rounds {
		z, s := pair[0], pair[1]
		if z == nil || s == nil || z.requests == 0 || s.requests == 0 {
			continue
		}
		throughput = append(throughput, s.rate()/z.rate())
		zs, _ := z.cpuPerRequest()
		ss, sp := s.cpuPerRequest()
		svcCPU, pgCPU = append(svcCPU, ss), append(pgCPU, sp)
		if zs > 0 {
			cpu = append(cpu, (ss+sp)/zs)
		}
	}
	fmt.Fprintln(w)
	ok := true
	verdict := verdicts(&ok)
	if len(svcCPU) > 0 {
		med, lo, hi := spread(svcCPU)
		fmt.Fprintf(w, "service CPU per durable Classify at %d callers: median %.0f µs (min %.0f, max %.0f); budget <= %.0f µs  %s\n",
			callers, med, lo, hi, BudgetServiceCPU, verdict(med <= BudgetServiceCPU))
		med, lo, hi = spread(pgCPU)
		fmt.Fprintf(w, "PostgreSQL CPU per durable Classify at %d callers: median %.0f µs (min %.0f, max %.0f); budget <= %.0f µs  %s\n",
			callers, med, lo, hi, BudgetPostgresCPU, verdict(med <= BudgetPostgresCPU))
	}
	// For information only: the zero-work handler is a yardstick of the
	// machine, not a floor (a handler that does nothing rewards
	// hand-written code over libraries).
	note := ""
	if baselineChanged {
		note = " (the zero-work handler was not the plain one)"
	}
	if len(throughput) > 0 {
		med, lo, hi := spread(throughput)
		fmt.Fprintf(w, "for information: throughput service/zero-work at %d callers: median %.2f (min %.2f, max %.2f)%s\n",
			callers, med, lo, hi, note)
	}
	if len(cpu) > 0 {
		med, lo, hi := spread(cpu)
		fmt.Fprintf(w, "for information: CPU per request (service + PostgreSQL)/zero-work at %d callers: median %.2fx (min %.2f, max %.2f)%s\n",
			callers, med, lo, hi, note)
	}
	if len(p99s) > 0 {
		f := make([]float64, len(p99s))
		for i, d := range p99s {
			f[i] = float64(d)
		}
		med, lo, hi := spread(f)
		fmt.Fprintf(w, "service p99 at %d callers: median %s (min %s, max %s); floor <= %s  %s\n",
			floorCallers, ms(time.Duration(med)), ms(time.Duration(lo)), ms(time.Duration(hi)), ms(FloorP99),
			verdict(time.Duration(med) <= FloorP99))
	}
	fmt.Fprintf(w, "service peak RSS: %.1f MB; floor <= %d MB  %s\n", float64(peakRSS)/(1<<20), FloorRSS>>20,
		verdict(peakRSS > 0 && peakRSS <= FloorRSS))
	fmt.Fprintf(w, "failed requests: %d  %s\n", errorsSeen, verdict(errorsSeen == 0))
	return ok
}

// spread returns the median, minimum and maximum.
func spread(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// child is a process started by the benchmark, listening on base.
type child struct {
	cmd    *exec.Cmd
	base   string
	output *tail
	exited chan error
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// startChild starts binary with args plus --listen on a free port, and waits until its /healthz
// answers.
func startChild(ctx context.Context, binary string, args []string, log io.Writer) (*child, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, append(args, "--listen", addr)...)
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, base: "http://" + addr, output: out, exited: make(chan error, 1)}
	go func() { c.exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(c.base + "/healthz")
		if err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return c, nil
			}
		}
		select {
		case err := <-c.exited:
			c.exited <- err
			return nil, fmt.Errorf("%s exited before it was ready (%v):\n%s", args[0], err, out)
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("%s not ready after 60 s:\n%s", args[0], out)
		}
	}
}

// terminate sends SIGTERM and waits for the exit, which must be 0.
func (c *child) terminate() error {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-c.exited:
		c.exited <- err
		if err != nil {
			return fmt.Errorf("%w:\n%s", err, c.output)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		return errors.New("did not exit within 30 s of SIGTERM")
	}
}

func (c *child) stop(logf func(string, ...any)) {
	select {
	case err := <-c.exited:
		c.exited <- err
		return
	default:
	}
	if err := c.terminate(); err != nil {
		logf("stop %s: %v", c.cmd.Args[1], err)
	}
}

// tail keeps the last 16 KiB that a child printed, for error messages.
type tail struct {
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 16<<10 {
		t.buf = t.buf[len(t.buf)-16<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// storeParamsRemoved returns the URL without the store's group_commit_… parameters.
func storeParamsRemoved(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New("the benchmark needs a postgres:// database URL")
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "group_commit_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// withParams sets query parameters of a postgres:// URL.
func withParams(databaseURL string, params map[string]string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New("the benchmark needs a postgres:// database URL")
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ServeZeroWork serves ZeroWorkHandler on addr with the service's HTTP settings (HTTP/1.1 and
// h2c) until ctx ends; it is what `toolfailure bench zero-work` runs.
func ServeZeroWork(ctx context.Context, addr, key string, commitWait time.Duration, log *slog.Logger) error {
	srv := server.NewHTTPServer(ZeroWorkHandler(key, commitWait), log)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
