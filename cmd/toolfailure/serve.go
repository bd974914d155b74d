package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/omcp/toolfailure/apikey"
	"github.com/omcp/toolfailure/journal"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
	"github.com/omcp/toolfailure/telemetry"
	"github.com/omcp/toolfailure/ui"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", envOr("TOOLFAILURE_LISTEN", "127.0.0.1:8080"), "address to listen on")
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "postgres://… for PostgreSQL; empty for the embedded store (env DATABASE_URL)")
	shutdownGrace := fs.Duration("shutdown-grace", 20*time.Second, "how long SIGTERM waits for in-flight calls")
	journalDir := fs.String("journal-dir", os.Getenv("TOOLFAILURE_JOURNAL_DIR"), "local directory of the outage journal (PostgreSQL only); empty disables it (env TOOLFAILURE_JOURNAL_DIR)")
	journalMax := fs.Int64("journal-max-bytes", journal.DefaultMaxBytes, "size bound of the outage journal; when full, Classify answers unavailable")
	journalTimeout := fs.Duration("journal-after", journal.DefaultWriteTimeout, "how long Classify waits for the database before it journals the record")
	rateLimit := fs.Float64("rate-limit", 0, "calls per second per tenant (per replica); 0 means no limit")
	rateBurst := fs.Int("rate-burst", 0, "burst after idle; 0 means one second's worth")
	rateTenants := fs.String("rate-limit-tenants", "", "per-tenant overrides: name=rate[:burst],…")
	retentionEvery := fs.Duration("retention-interval", time.Hour, "how often expired records are purged; 0 disables")
	debugListen := fs.String("debug-listen", "", "serve Go's /debug/pprof profiles on this separate address (e.g. 127.0.0.1:6060); empty disables")
	traceURLFlag := fs.String("trace-url", os.Getenv("TOOLFAILURE_TRACE_URL"), "trace viewer link with {trace_id} (and optionally {span_id}), e.g. https://jaeger.example.com/trace/{trace_id} (env TOOLFAILURE_TRACE_URL)")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	tuneGC()
	tenantRates, err := server.ParseTenantRates(*rateTenants)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve: --rate-limit-tenants:", err)
		return 2
	}
	traceURL, err := telemetry.ParseTraceURLTemplate(*traceURLFlag)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve: --trace-url:", err)
		return 2
	}
	uiSecret := []byte(os.Getenv("TOOLFAILURE_UI_SECRET"))
	if n := len(uiSecret); n > 0 && n < 32 {
		fmt.Fprintf(stderr, "toolfailure serve: TOOLFAILURE_UI_SECRET is %d bytes; use at least 32 random bytes\n", n)
		return 2
	}

	// Telemetry is off unless OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER
	// ask for it; the W3C propagator is installed either way.
	sdk, err := telemetry.Setup(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
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
	fmt.Fprintln(stderr, "toolfailure: telemetry:", sdk.Description)
	// With telemetry off, a nil *Instruments records nothing at no cost;
	// no-op providers would still build spans and attributes per call.
	var inst *telemetry.Instruments
	var storeOpts []postgres.Option
	if sdk.Enabled {
		if inst, err = telemetry.New(sdk.Config()); err != nil {
			fmt.Fprintln(stderr, "toolfailure serve:", err)
			return 1
		}
		storeOpts = append(storeOpts, postgres.WithTracer(inst.PgxTracer()))
	}

	b, where, embedded, err := openBackend(ctx, *dbURL, storeOpts...)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
	}
	// b may be replaced by the journal below; close whatever it is then.
	defer func() { _ = b.Close() }()
	if err := b.Migrate(ctx); err != nil {
		fmt.Fprintln(stderr, "toolfailure serve: migrate:", err)
		return 1
	}
	if *journalDir != "" && !embedded {
		j, err := journal.Open(ctx, b.(store.Store), journal.Options{Dir: *journalDir, MaxBytes: *journalMax, WriteTimeout: *journalTimeout, Logger: log})
		if err != nil {
			fmt.Fprintln(stderr, "toolfailure serve:", err)
			return 1
		}
		b = j
		if reg, err := j.RegisterMetrics(sdk.Config().MeterProvider); err == nil {
			defer func() { _ = reg.Unregister() }()
		}
		fmt.Fprintf(stderr, "toolfailure: outage journal in %s (%d records waiting from an earlier run)\n", *journalDir, j.Status().Pending)
	}
	if *retentionEvery > 0 {
		go server.RunRetention(ctx, b.(server.Purger), *retentionEvery, log)
	}
	if embedded {
		fmt.Fprintf(stderr, "toolfailure: using the embedded store at %s (no set-up needed; for production run with --database-url postgres://… or DATABASE_URL)\n", where)
		if err := bootstrapDevKey(ctx, b, stdout); err != nil {
			fmt.Fprintln(stderr, "toolfailure serve:", err)
			return 1
		}
	} else {
		fmt.Fprintf(stderr, "toolfailure: using PostgreSQL at %s\n", where)
	}

	// The rule cache follows changes made on other replicas (LISTEN/NOTIFY
	// on PostgreSQL, with polling while notifications are down).
	rules := server.NewRuleCache(b, log)
	go func() {
		if err := rules.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("rule cache stopped", "error", err)
		}
	}()
	if reg, err := inst.ObserveRuleCache(rules.Versions()); err == nil {
		defer func() { _ = reg.Unregister() }()
	}
	api, err := server.New(server.Config{Store: b, Logger: log, Telemetry: inst, TraceURL: traceURL, Rules: rules, RateLimit: server.RateLimit{Rate: *rateLimit, Burst: *rateBurst, Tenants: tenantRates}})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
	}
	uiCfg := ui.Config{Store: b, SessionSecret: uiSecret, TraceURL: traceURL, Logger: log}
	if rg, ok := b.(ui.RuleGetter); ok {
		uiCfg.Rules = ui.StoreRules(rg)
	}
	supportUI, err := ui.New(uiCfg)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
	}
	if len(uiSecret) == 0 {
		fmt.Fprintln(stderr, "toolfailure: support UI sessions use a per-process secret; set TOOLFAILURE_UI_SECRET (32+ random bytes, the same on every replica) to keep sign-ins across restarts and replicas")
	}
	handler := http.NewServeMux()
	handler.Handle("/", api)
	handler.Handle("/ui/", supportUI)
	if *debugListen != "" {
		// Profiles stay off the service port: they reveal internals and
		// must never be reachable where API clients are.
		dbg := http.NewServeMux()
		dbg.HandleFunc("/debug/pprof/", pprof.Index)
		dbg.HandleFunc("/debug/pprof/profile", pprof.Profile)
		dbg.HandleFunc("/debug/pprof/trace", pprof.Trace)
		dbgSrv := &http.Server{Addr: *debugListen, Handler: dbg, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = dbgSrv.ListenAndServe() }()
		defer dbgSrv.Close()
		fmt.Fprintf(stderr, "toolfailure: profiles on http://%s/debug/pprof/\n", *debugListen)
	}
	srv := server.NewHTTPServer(handler, log)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
	}
	fmt.Fprintf(stderr, "toolfailure: serving Connect, gRPC and gRPC-Web on http://%s\n", ln.Addr())
	fmt.Fprintf(stderr, "toolfailure: support UI on http://%s/ui/\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "toolfailure serve:", err)
		return 1
	case <-ctx.Done():
	}
	// SIGTERM: stop accepting, let in-flight calls (and their durable
	// writes) finish, then exit 0.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), *shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "toolfailure serve: shutdown:", err)
		return 1
	}
	fmt.Fprintln(stderr, "toolfailure: stopped")
	return 0
}

// bootstrapDevKey gives a first-time user of the embedded store a working
// key without a second command: when the store has no keys at all it
// creates the "default" tenant and prints one key with every scope, once.
// PostgreSQL deployments never get this; their keys come from "keys create".
func bootstrapDevKey(ctx context.Context, b backend, stdout io.Writer) error {
	n, err := b.CountAPIKeys(ctx)
	if err != nil {
		return fmt.Errorf("count API keys: %w", err)
	}
	if n > 0 {
		return nil
	}
	secret, err := createKey(ctx, b, "default", apikey.AllScopes)
	if err != nil {
		return err
	}
	bar := strings.Repeat("=", 72)
	fmt.Fprintf(stdout, "%s\nFirst start of this embedded store: created tenant \"default\" and an API key\nwith scopes %s. It is shown only this once; keep it:\n\n  export TOOLFAILURE_KEY=%s\n%s\n",
		bar, strings.Join(apikey.AllScopes, ","), secret, bar)
	return nil
}

// createKey ensures the tenant and stores a new key for it, returning the
// secret, which exists nowhere else afterwards.
func createKey(ctx context.Context, b backend, tenant string, scopes []string) (string, error) {
	t, err := b.EnsureTenant(ctx, tenant)
	if err != nil {
		return "", fmt.Errorf("tenant %q: %w", tenant, err)
	}
	k, err := apikey.New()
	if err != nil {
		return "", err
	}
	if _, err := b.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: t.ID, Hash: k.Hash, Scopes: scopes}); err != nil {
		return "", fmt.Errorf("store key for tenant %q: %w", tenant, err)
	}
	return k.Secret, nil
}

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "database to migrate (env DATABASE_URL); empty for the embedded store")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	b, where, _, err := openBackend(ctx, *dbURL)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure migrate:", err)
		return 1
	}
	defer b.Close()
	if err := b.Migrate(ctx); err != nil {
		fmt.Fprintln(stderr, "toolfailure migrate:", err)
		return 1
	}
	fmt.Fprintf(stdout, "migrated %s\n", where)
	return 0
}

func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "create" {
		fmt.Fprintln(stderr, "usage: toolfailure keys create --tenant NAME --scopes report,lookup,rules [--database-url URL]")
		return 2
	}
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	tenant := fs.String("tenant", "", "tenant name (created if needed)")
	scopeList := fs.String("scopes", "", "comma-separated scopes: report, lookup, rules")
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "database (env DATABASE_URL); empty for the embedded store")
	if ok, code := parseFlags(fs, args[1:], stderr); !ok {
		return code
	}
	if strings.TrimSpace(*tenant) == "" {
		fmt.Fprintln(stderr, "toolfailure keys create: --tenant is required")
		return 2
	}
	scopes, err := apikey.ParseScopes(*scopeList)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure keys create: --scopes:", err)
		return 2
	}
	b, _, _, err := openBackend(ctx, *dbURL)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure keys create:", err)
		return 1
	}
	defer b.Close()
	if err := b.Migrate(ctx); err != nil {
		fmt.Fprintln(stderr, "toolfailure keys create: migrate:", err)
		return 1
	}
	secret, err := createKey(ctx, b, strings.TrimSpace(*tenant), scopes)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure keys create:", err)
		return 1
	}
	fmt.Fprintf(stderr, "created a key for tenant %q with scopes %s; it is shown only once\n", strings.TrimSpace(*tenant), strings.Join(scopes, ","))
	fmt.Fprintln(stdout, secret)
	return 0
}

// tuneGC trades a little memory for CPU unless the operator chose: the
// service's live heap is small (tens of MB), so Go's default GOGC=100
// collects very often under load. GOGC=400 keeps the heap well under
// 150 MB at the bench's load while cutting collection work by about
// three quarters; the soft memory limit makes the collector work harder
// again before memory becomes a problem. GOGC and GOMEMLIMIT override both.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}
