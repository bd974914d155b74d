package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/internal/ui"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/journal"
	"github.com/omcp/toolfailure/store/lastgood"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/store/schemagate"
)

// serveFlags are serve's flags.
type serveFlags struct {
	listen, dbURL, journalDir, traceURL *envString
	readDBURL, metricsListen            *envString
	replicaTimeout, replicaMaxLag       time.Duration
	journalTimeout, retentionEvery      time.Duration
	shutdownGrace                       *envValue[time.Duration]
	drainDelay                          *envValue[time.Duration]
	journalMax                          int64
	rateLimit                           *envValue[float64]
	rateBurst                           int
	rateTenants, debugListen            string
	tenantInFlight, tenantConcurrency   *envInt
	log                                 logFlags
}

func newServeCmd(d deps) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run the service",
		Long: `Run the service: Connect, gRPC and gRPC-Web on one port, the support web page under /ui/,
/readyz (alias /healthz), gRPC health and reflection. It migrates the schema on start; with
--journal-dir, a PostgreSQL that does not answer does not stop it: Classify is served from the
outage journal (with the keys and rules that an earlier run saved beside it), /readyz says
"ok, degraded: …", and the schema is migrated once PostgreSQL answers.

With no --database-url (and no DATABASE_URL) it uses the embedded store in a local file and
says where; on that store's first start it creates the tenant "default" and prints one API key
with every scope, once, after the port is open. For production use PostgreSQL.

SIGTERM first fails readiness (/readyz answers 503) and keeps serving for --drain-delay, so that
load balancers stop sending calls before the port closes; then it stops accepting calls, lets
those in flight finish (up to --shutdown-grace) and exits 0.`,
		Example: `  toolfailure serve
  toolfailure serve --listen 0.0.0.0:8080 --database-url postgres://USER:PASS@HOST:5432/DB
  toolfailure serve --journal-dir /var/lib/toolfailure/journal --rate-limit 200 --rate-burst 400
  toolfailure serve --database-url postgres://USER:PASS@PRIMARY/DB --read-database-url postgres://USER:PASS@REPLICA/DB --metrics-listen 0.0.0.0:9090`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd, d, f)
		},
	}
	fs := cmd.Flags()
	f.listen = envStringVar(fs, "listen", "TOOLFAILURE_LISTEN", "127.0.0.1:8080", "address to listen on")
	f.dbURL = envStringVar(fs, "database-url", "DATABASE_URL", "", "postgres://… for PostgreSQL, sqlite:PATH or empty for the embedded store")
	f.readDBURL = envStringVar(fs, "read-database-url", "TOOLFAILURE_READ_DATABASE_URL", "", "postgres://… of a read replica for GetFailure and ListFailures; an ID the replica lacks is looked up on the primary")
	fs.DurationVar(&f.replicaTimeout, "read-timeout", postgres.DefaultReplicaTimeout, "how long a lookup waits for the read replica before it asks the primary")
	fs.DurationVar(&f.replicaMaxLag, "read-max-lag", postgres.DefaultReplicaMaxLag, "replication lag above which lists go to the primary")
	f.metricsListen = envStringVar(fs, "metrics-listen", "TOOLFAILURE_METRICS_LISTEN", "", "serve Prometheus metrics at /metrics on this separate address (e.g. 0.0.0.0:9090); empty disables")
	f.shutdownGrace = envDurationVar(fs, "shutdown-grace", "TOOLFAILURE_SHUTDOWN_GRACE", 20*time.Second, "how long SIGTERM waits for in-flight calls")
	f.drainDelay = envDurationVar(fs, "drain-delay", "TOOLFAILURE_DRAIN_DELAY", 0, "how long SIGTERM keeps serving with /readyz at 503 before it closes the listener (e.g. 10s behind a load balancer)")
	f.journalDir = envStringVar(fs, "journal-dir", "TOOLFAILURE_JOURNAL_DIR", "", "local directory of the outage journal (PostgreSQL only), which also keeps the last keys and rules seen, for a start during an outage; empty disables it")
	fs.Int64Var(&f.journalMax, "journal-max-bytes", journal.DefaultMaxBytes, "size bound of the outage journal; when full, Classify answers unavailable")
	fs.DurationVar(&f.journalTimeout, "journal-after", journal.DefaultWriteTimeout, "how long Classify waits for the database before it journals the record")
	f.rateLimit = envFloatVar(fs, "rate-limit", "TOOLFAILURE_RATE_LIMIT", 0, "calls per second per tenant (per replica); 0 means no limit")
	fs.IntVar(&f.rateBurst, "rate-burst", 0, "burst after idle; 0 means one second's worth")
	fs.StringVar(&f.rateTenants, "rate-limit-tenants", "", "per-tenant overrides: name=rate[:burst],…")
	f.tenantInFlight = envIntVar(fs, "tenant-in-flight", "TOOLFAILURE_TENANT_IN_FLIGHT", 0,
		"calls of one tenant a replica holds at once; more are refused with resource_exhausted before their body is read; 0 means 64")
	f.tenantConcurrency = envIntVar(fs, "tenant-concurrency", "TOOLFAILURE_TENANT_CONCURRENCY", 0,
		"Classify and Explain calls of one tenant decoded and evaluated at once; more wait; 0 means half the processors")
	fs.DurationVar(&f.retentionEvery, "retention-interval", time.Hour, "how often expired records are purged; 0 disables")
	fs.StringVar(&f.debugListen, "debug-listen", "", "serve Go's /debug/pprof profiles on this separate address (e.g. 127.0.0.1:6060); empty disables")
	f.traceURL = envStringVar(fs, "trace-url", "TOOLFAILURE_TRACE_URL", "", "trace viewer link with {trace_id} (and optionally {span_id}), e.g. https://jaeger.example.com/trace/{trace_id}")
	f.log = addLogFlags(fs)
	return cmd
}

func runServe(cmd *cobra.Command, d deps, f serveFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	// Everything serve starts in the background ends with it: on every
	// return, not only at SIGTERM, it is stopped and waited for before the
	// store closes, so that no purge or rule check runs on a closed store.
	// Past start-up the signal no longer cancels ctx (see below): the store, the journal and the
	// rule cache keep working while the replica drains.
	ctx, cancel := context.WithCancel(context.WithoutCancel(cmd.Context()))
	signalled := cmd.Context()
	startupOnly := context.AfterFunc(signalled, cancel)
	var background sync.WaitGroup
	defer cancel()
	stopBackground := func() { cancel(); background.Wait() }
	log, err := f.log.logger(stderr)
	if err != nil {
		return usageErrorf("%w", err)
	}
	tuneGC()
	rate, err := f.rateLimit.Get()
	if err != nil {
		return usageErrorf("--rate-limit: %w", err)
	}
	grace, err := f.shutdownGrace.Get()
	if err != nil {
		return usageErrorf("--shutdown-grace: %w", err)
	}
	drainDelay, err := f.drainDelay.Get()
	if err != nil {
		return usageErrorf("--drain-delay: %w", err)
	}
	tenantRates, err := server.ParseTenantRates(f.rateTenants)
	if err != nil {
		return usageErrorf("--rate-limit-tenants: %w", err)
	}
	limits := server.Limits{}
	if limits.TenantInFlight, err = f.tenantInFlight.Get(); err != nil {
		return usageErrorf("--tenant-in-flight: %w", err)
	}
	if limits.RuleConcurrency, err = f.tenantConcurrency.Get(); err != nil {
		return usageErrorf("--tenant-concurrency: %w", err)
	}
	traceURL, err := telemetry.ParseTraceURLTemplate(f.traceURL.Get())
	if err != nil {
		return usageErrorf("--trace-url: %w", err)
	}
	uiSecret := []byte(os.Getenv("TOOLFAILURE_UI_SECRET"))
	if n := len(uiSecret); n > 0 && n < 32 {
		return usageErrorf("TOOLFAILURE_UI_SECRET is %d bytes; use at least 32 random bytes", n)
	}

	// Telemetry is off unless OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER
	// ask for it; the W3C propagator is installed either way.
	var setupOpts []telemetry.SetupOption
	var prom *telemetry.Prometheus
	if f.metricsListen.Get() != "" {
		if prom, err = telemetry.NewPrometheus(); err != nil {
			return failed(err)
		}
		setupOpts = append(setupOpts, telemetry.WithMetricReader("prometheus (--metrics-listen)", prom.Reader))
	}
	sdk, err := telemetry.Setup(ctx, setupOpts...)
	if err != nil {
		return failed(err)
	}
	defer func() {
		// Flush what is buffered, but never let a dead collector hold up
		// the exit for long.
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := sdk.Shutdown(flushCtx); err != nil {
			log.Warn("telemetry shutdown", "error", err)
		}
	}()
	log.Info("telemetry: " + sdk.Description)
	// With telemetry off, a nil *Instruments records nothing at no cost;
	// no-op providers would still build spans and attributes per call.
	var inst *telemetry.Instruments
	var storeOpts []postgres.Option
	if sdk.Enabled {
		if inst, err = telemetry.New(sdk.Config()); err != nil {
			return failed(err)
		}
		storeOpts = append(storeOpts, postgres.WithTracer(inst.PgxTracer()), postgres.WithBatchContext(telemetry.WithStoreBatch))
	}

	dbURL, journalDir := f.dbURL.Get(), f.journalDir.Get()
	b, where, embedded, err := d.openBackend(ctx, dbURL, storeOpts...)
	if err != nil && journalDir != "" && isPostgresURL(dbURL) && errors.Is(err, store.ErrUnavailable) {
		// With a journal, a database that does not answer does not keep a replica from starting
		// (a restart during an outage): Classify is served from the journal, and the schema is
		// migrated once the database is back.
		log.Warn("PostgreSQL does not answer; starting with the outage journal", "error", err)
		var pg *postgres.Store
		if pg, err = postgres.OpenLazy(ctx, dbURL, storeOpts...); err == nil {
			b, where, embedded = pg, redactURL(dbURL), false
		}
	}
	if err != nil {
		return openFailed(cmd, err)
	}
	// b may be replaced by the journal below; close whatever it is then,
	// after the background work that uses it.
	defer func() { _ = b.Close() }()
	defer stopBackground()
	var unmigrated error // the database did not answer the migration: a journal carries on without it
	if err := b.Migrate(ctx); err != nil {
		if journalDir == "" || embedded || !errors.Is(err, store.ErrUnavailable) {
			return failedf("migrate: %w", err)
		}
		unmigrated = err
	}
	if pg, ok := b.(*postgres.Store); ok {
		if reg, err := pg.RegisterMetrics(sdk.Config().MeterProvider); err == nil {
			defer func() { _ = reg.Unregister() }()
		}
	}
	if readURL := f.readDBURL.Get(); readURL != "" {
		// The replica sits under the journal: a journaled record is found in the journal first,
		// everything else on the replica and then on the primary.
		pg, ok := b.(*postgres.Store)
		if !ok {
			return usageErrorf("--read-database-url needs --database-url postgres://… (the store at %s has no replicas)", where)
		}
		if !strings.HasPrefix(readURL, "postgres://") && !strings.HasPrefix(readURL, "postgresql://") {
			return usageErrorf("--read-database-url: use postgres://…, not %q", redactURL(readURL))
		}
		replica, err := postgres.OpenReplica(ctx, readURL, storeOpts...)
		if err != nil {
			return failed(err)
		}
		if err := replica.Ping(ctx); err != nil {
			log.Warn("the read replica does not answer; lookups go to the primary until it does", "error", err)
		}
		r, err := postgres.NewReplicated(pg, replica, postgres.ReplicaOptions{
			Timeout: f.replicaTimeout, MaxLag: f.replicaMaxLag, MeterProvider: sdk.Config().MeterProvider})
		if err != nil {
			_ = replica.Close()
			return failed(err)
		}
		b = r
		log.Info("lookups go to the read replica at "+redactURL(readURL)+" first", "replica", redactURL(readURL))
	}
	if unmigrated != nil {
		// Every call answers "unavailable" until the schema is migrated, which the journal and
		// the last good answers below take for the outage it is.
		b = schemagate.New(b, unmigrated, schemagate.Options{Logger: log})
		log.Warn("the schema is migrated once PostgreSQL answers; until then Classify is served from the outage journal, and keys and rules from the answers an earlier run saved")
	}
	if dir := journalDir; dir != "" && !embedded {
		// Reads of keys and rules answer from their last good value while the database is down,
		// so that calls still authenticate and classify and reach the journal. The values are
		// kept beside the journal, so that a replica restarted during an outage has them too.
		lg, err := lastgood.Open(b, filepath.Join(dir, lastGoodFile), log)
		if err != nil {
			return failed(err)
		}
		j, err := journal.Open(ctx, lg, journal.Options{Dir: dir, MaxBytes: f.journalMax, WriteTimeout: f.journalTimeout, Logger: log})
		if err != nil {
			_ = lg.Close() // closes b too; closing it again is harmless
			return failed(err)
		}
		b = j
		if reg, err := j.RegisterMetrics(sdk.Config().MeterProvider); err == nil {
			defer func() { _ = reg.Unregister() }()
		}
		log.Info("outage journal in "+dir, "dir", dir, "pending", j.Status().Pending)
		if unmigrated != nil {
			// Probe now rather than at the first call, so that health and the log say so at once.
			_ = j.Ping(ctx)
		}
	}
	if f.retentionEvery > 0 {
		background.Go(func() { server.RunRetention(ctx, b, f.retentionEvery, log) })
	}
	if embedded {
		log.Info("using the embedded store at "+where+" (no set-up needed; for production run with --database-url postgres://… or DATABASE_URL)", "store", where)
	} else {
		log.Info("using PostgreSQL at "+where, "store", where)
	}

	// The rule cache follows changes made on other replicas (LISTEN/NOTIFY
	// on PostgreSQL, with polling while notifications are down).
	rules := server.NewRuleCache(b, log)
	background.Go(func() {
		if err := rules.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("rule cache stopped", "error", err)
		}
	})
	if reg, err := inst.ObserveRuleCache(rules.Versions()); err == nil {
		defer func() { _ = reg.Unregister() }()
	}
	// The drain fails readiness over HTTP (/readyz) and over gRPC health alike.
	var dr drain
	api, err := server.New(server.Config{Store: b, Logger: log, Telemetry: inst, TraceURL: traceURL, Rules: rules, Limits: limits,
		RateLimit: server.RateLimit{Rate: rate, Burst: f.rateBurst, Tenants: tenantRates}, Draining: dr.draining.Load})
	if err != nil {
		return failed(err)
	}
	uiCfg := ui.Config{Store: b, SessionSecret: uiSecret, TraceURL: traceURL, Logger: log, Suggest: suggester(b), Rules: ui.StoreRules(b)}
	supportUI, err := ui.New(uiCfg)
	if err != nil {
		return failed(err)
	}
	if len(uiSecret) == 0 {
		log.Info("support UI sessions use a per-process secret; set TOOLFAILURE_UI_SECRET (32+ random bytes, the same on every replica) to keep sign-ins across restarts and replicas")
	}
	handler := http.NewServeMux()
	handler.Handle("/", api)
	handler.Handle("/ui/", supportUI)
	// The port is taken before anything is promised: a first start of the
	// embedded store prints its key only once the service can be reached
	// with it, so a start that fails (port in use) leaves no key behind.
	// The packs and the text model are ready before the first request.
	ruleset.Warm()
	listen := f.listen.Get()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return failedf("cannot listen on %s: %w", listen, err)
	}
	defer ln.Close()
	if f.debugListen != "" {
		// Profiles stay off the service port: they reveal internals and
		// must never be reachable where API clients are.
		dbg := http.NewServeMux()
		dbg.HandleFunc("/debug/pprof/", pprof.Index)
		dbg.HandleFunc("/debug/pprof/profile", pprof.Profile)
		dbg.HandleFunc("/debug/pprof/trace", pprof.Trace)
		dbgSrv := &http.Server{Addr: f.debugListen, Handler: dbg, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = dbgSrv.ListenAndServe() }()
		defer dbgSrv.Close()
		log.Info("profiles on http://" + f.debugListen + "/debug/pprof/")
	}
	if prom != nil {
		// Metrics have a port of their own, as the profiles do: scrapers reach it without an
		// API key, so it must not be the port that the API is exposed on.
		mln, err := net.Listen("tcp", f.metricsListen.Get())
		if err != nil {
			return failedf("--metrics-listen: cannot listen on %s: %w", f.metricsListen.Get(), err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", server.LogProbes(log, prom.Handler))
		msrv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = msrv.Serve(mln) }()
		defer msrv.Close()
		log.Info(fmt.Sprintf("Prometheus metrics at http://%s/metrics", mln.Addr()))
	}
	if embedded {
		if err := bootstrapDevKey(ctx, b, stdout, log); err != nil {
			return failed(err)
		}
	}
	srv := server.NewHTTPServer(dr.readiness(handler), log)
	log.Info(fmt.Sprintf("serving Connect, gRPC and gRPC-Web on http://%s", ln.Addr()))
	log.Info(fmt.Sprintf("support UI on http://%s/ui/", ln.Addr()))

	// From here on a signal starts the drain rather than cancelling ctx. One that came during
	// start-up cancelled it already; nothing was ever ready then, so there is nothing to drain.
	if !startupOnly() {
		drainDelay = 0
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return failed(err)
	case <-signalled.Done():
	}
	// SIGTERM: fail readiness, keep serving for the drain delay, then stop accepting and let
	// in-flight calls (and their durable writes) finish, then exit 0.
	if err := dr.shutdown(srv, drainDelay, grace, log); err != nil {
		return failed(err)
	}
	log.Info("stopped")
	return nil
}

// lastGoodFile is the file in the journal directory that keeps the last good answers of keys and
// rules (package lastgood) for a restart during an outage.
const lastGoodFile = "lastgood.json"

// isPostgresURL reports whether a database URL names PostgreSQL.
func isPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// bootstrapDevKey gives a first-time user of the embedded store a working
// key without a second command: when the store has no keys at all it
// creates the "default" tenant and prints one key with every scope, once.
// PostgreSQL deployments never get this; their keys come from "keys create".
func bootstrapDevKey(ctx context.Context, b store.Store, stdout io.Writer, log *slog.Logger) error {
	n, err := b.CountAPIKeys(ctx)
	if err != nil {
		return fmt.Errorf("count API keys: %w", err)
	}
	if n > 0 {
		return nil
	}
	k, secret, err := createKey(ctx, b, "default", apikey.AllScopes, time.Time{}, "serve (first start of the embedded store)")
	if err != nil {
		return err
	}
	auditKey(log, "api key created", k, "default")
	bar := strings.Repeat("=", 72)
	fmt.Fprintf(stdout, "%s\nFirst start of this embedded store: created tenant \"default\" and an API key\nwith scopes %s. It is shown only this once; keep it:\n\n  export TOOLFAILURE_KEY=%s\n%s\n",
		bar, strings.Join(apikey.AllScopes, ","), secret, bar)
	return nil
}

// createKey ensures the tenant and stores a new key for it, expiring at expires (zero: never),
// with by as its audit record. It returns the key as stored and the secret, which exists nowhere
// else afterwards.
func createKey(ctx context.Context, b store.Store, tenant string, scopes []string, expires time.Time, by string) (store.APIKey, string, error) {
	t, err := b.EnsureTenant(ctx, tenant)
	if err != nil {
		return store.APIKey{}, "", fmt.Errorf("tenant %q: %w", tenant, err)
	}
	k, err := apikey.New()
	if err != nil {
		return store.APIKey{}, "", err
	}
	stored, err := b.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: t.ID, Hash: k.Hash, Scopes: scopes, ExpiresAt: expires, CreatedBy: by})
	if err != nil {
		return store.APIKey{}, "", fmt.Errorf("store key for tenant %q: %w", tenant, err)
	}
	return stored, k.Secret, nil
}

func newMigrateCmd(d deps) *cobra.Command {
	var dbURL *envString
	cmd := &cobra.Command{
		Use:   "migrate [flags]",
		Short: "Apply database migrations and exit",
		Long: `Apply the pending schema migrations and exit. serve migrates on start too; this is for
deployments that migrate in a step of their own. Safe to run from several processes at once.`,
		Example: `  toolfailure migrate --database-url postgres://USER:PASS@HOST:5432/DB
  DATABASE_URL=postgres://USER:PASS@HOST:5432/DB toolfailure migrate`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, where, _, err := d.openBackend(cmd.Context(), dbURL.Get())
			if err != nil {
				return openFailed(cmd, err)
			}
			defer b.Close()
			if err := b.Migrate(cmd.Context()); err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "migrated %s\n", where)
			return nil
		},
	}
	dbURL = envStringVar(cmd.Flags(), "database-url", "DATABASE_URL", "", "database to migrate: postgres://…, sqlite:PATH or empty for the embedded store")
	return cmd
}

// envInt is a whole-number flag whose default comes from an environment variable, read when the
// command runs, as envString's is.
type envInt struct {
	value    int
	set      bool
	env      string
	fallback int
}

func envIntVar(fs *pflag.FlagSet, name, env string, fallback int, usage string) *envInt {
	e := &envInt{value: fallback, env: env, fallback: fallback}
	fs.Var(e, name, usage+" (from $"+env+")")
	return e
}

func (e *envInt) String() string { return strconv.Itoa(e.value) }
func (e *envInt) Type() string   { return "int" }

func (e *envInt) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number", v)
	}
	e.value, e.set = n, true
	return nil
}

// Get is the flag's value, else the variable's, else the fallback.
func (e *envInt) Get() (int, error) {
	if e.set {
		return e.value, nil
	}
	v := strings.TrimSpace(os.Getenv(e.env))
	if v == "" {
		return e.fallback, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("$%s=%q is not a whole number", e.env, v)
	}
	return n, nil
}

// tuneGC trades a little memory for CPU unless the operator chose: the
// service's live heap is small (tens of MB), so Go's default GOGC=100
// collects very often under load. GOGC=200 keeps the peak heap under the
// bench's RSS floor (docs/reference.md) while cutting collection work by
// about half; the peak heap is about three times the live heap, which
// grows with the compiled baseline packs, so the setting is checked again
// when packs grow (250 served until the packs outgrew it). The soft memory
// limit makes the collector work harder again before memory becomes a
// problem. GOGC and GOMEMLIMIT override both.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}

// suggester is the web page's "suggest a rule": SuggestRule's draft as the rules file's YAML.
func suggester(groups server.GroupStore) ui.Suggester {
	return func(ctx context.Context, tenantID int64, fp string) (string, string, error) {
		rule, explanation, err := server.SuggestRule(ctx, groups, tenantID, fp, time.Now())
		if err != nil {
			return "", "", err
		}
		yaml, err := ruleset.FormatFile([]ruleset.Rule{rule})
		if err != nil {
			return "", "", fmt.Errorf("format the suggested rule: %w", err)
		}
		return string(yaml), explanation, nil
	}
}
