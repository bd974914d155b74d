package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// FloorIsolationRatio is the floor of `toolfailure bench isolation`: tenant B's Classify p99 under
// tenant A's hostile load is at most this many times its p99 when A is quiet (issue 31, "Floors").
const FloorIsolationRatio = 3.0

// IsolationConfig is one run of the noisy-neighbour scenario.
type IsolationConfig struct {
	// DatabaseURL is the PostgreSQL server; the run makes and drops a schema of its own.
	DatabaseURL string
	// Binary is the toolfailure executable whose serve subcommand is started, with ServeArgs.
	Binary    string
	ServeArgs []string
	// Duration of each measurement and of the warm-up before it.
	Duration, Warmup time.Duration
	// Rounds of a quiet and a noisy measurement each, in alternating order.
	Rounds int
	// QuietCallers are tenant B's concurrent Classify callers; HostileCallers tenant A's.
	QuietCallers, HostileCallers int
	// Kinds are the hostile kinds tenant A sends; nil means HostileKinds (all of them).
	Kinds []HostileKind
	// Out receives the report, Log the progress and the service's output on failure.
	Out, Log io.Writer
}

// isolationRow is one measurement of tenant B.
type isolationRow struct {
	round int
	noisy bool
	result
	hostile    int            // tenant A's requests answered or abandoned meanwhile
	hostileBy  map[string]int // by kind, over warm-up and measurement
	faults     int
	firstFault string
}

// RunIsolation runs the noisy-neighbour scenario and writes its report: tenant B's Classify
// latency with tenant A quiet and under tenant A's hostile load (the heaviest rule set the budget
// accepts, oversized and deeply nested bodies, malformed JSON, forged page tokens, callers that
// hang up or give themselves no time), their p99 ratio against FloorIsolationRatio, and whether
// anyone got a server error. ok is false when a floor was missed.
func RunIsolation(ctx context.Context, cfg IsolationConfig) (ok bool, err error) {
	if err := checkMix(); err != nil {
		return false, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Rounds < 1 || cfg.QuietCallers < 1 || cfg.HostileCallers < 1 {
		return false, fmt.Errorf("rounds, quiet callers and hostile callers must be at least 1")
	}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, "bench: "+format+"\n", args...) }

	adminURL, err := storeParamsRemoved(cfg.DatabaseURL)
	if err != nil {
		return false, err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return false, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer admin.Close(context.Background())
	schema := "tfbench_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return false, fmt.Errorf("create schema %s: %w", schema, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := admin.Exec(dctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			logf("drop schema %s: %v", schema, err)
		}
	}()
	serviceURL, err := withParams(cfg.DatabaseURL, map[string]string{"search_path": schema, "application_name": "tfbench-" + randomHex(4)})
	if err != nil {
		return false, err
	}
	logf("schema %s", schema)
	keys, err := PrepareTenants(ctx, serviceURL, "noisy", "quiet")
	if err != nil {
		return false, err
	}
	noisyKey, quietKey := keys[0], keys[1]

	svc, err := startChild(ctx, cfg.Binary, append([]string{"serve", "--database-url", serviceURL}, cfg.ServeArgs...), cfg.Log)
	if err != nil {
		return false, fmt.Errorf("start the service: %w", err)
	}
	defer svc.stop(logf)

	c := client(cfg.QuietCallers + cfg.HostileCallers)
	nRules, err := SaveHeaviestRules(ctx, c, svc.base, noisyKey)
	if err != nil {
		return false, err
	}
	// Tenant B's records, and a page token of them that tenant A replays.
	for i := range 4 {
		if _, _, err := Classify(ctx, c, svc.base, quietKey, []byte(requestMix[i])); err != nil {
			return false, fmt.Errorf("tenant B's first Classify: %w", err)
		}
	}
	foreign, err := FirstPageToken(ctx, c, svc.base, quietKey)
	if err != nil {
		return false, err
	}
	hostile := &Hostile{Client: c, Base: svc.base, Key: noisyKey, ForeignToken: foreign}
	kinds := cfg.Kinds
	if len(kinds) == 0 {
		kinds = HostileKinds
	}

	fmt.Fprintf(cfg.Out, "tenant A (noisy): %d rules `error.message.split(\" \").size() == N`, the most the rule budget accepts; "+
		"%d hostile callers cycling %d kinds\n", nRules, cfg.HostileCallers, len(kinds))
	fmt.Fprintf(cfg.Out, "tenant B (quiet): %d Classify callers, the benchmark's request mix\n\n", cfg.QuietCallers)
	fmt.Fprintf(cfg.Out, "%-5s %-6s %9s %8s %8s %10s %7s %s\n",
		"round", "load", "B req/s", "B p50", "B p99", "A req", "RSS MB", "errors")

	classifyURL := svc.base + ClassifyPath
	var rows []isolationRow
	for round := 1; round <= cfg.Rounds; round++ {
		order := []bool{false, true}
		if round%2 == 0 {
			slices.Reverse(order)
		}
		for _, noisy := range order {
			row := isolationRow{round: round, noisy: noisy, hostileBy: map[string]int{}}
			var stop func() error
			if noisy {
				if stop, err = startHostile(ctx, cfg.Binary, hostile, kinds, cfg.HostileCallers, &row); err != nil {
					return false, err
				}
			}
			drive(ctx, c, classifyURL, quietKey, requestMix, cfg.QuietCallers, cfg.Warmup)
			row.result = drive(ctx, c, classifyURL, quietKey, requestMix, cfg.QuietCallers, cfg.Duration)
			if stop != nil {
				if err := stop(); err != nil {
					return false, err
				}
			}
			rss, _, _ := memory(svc.pid())
			printIsolationRow(cfg.Out, row, rss)
			rows = append(rows, row)
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
		}
	}
	_, peak, _ := memory(svc.pid())
	ok = summarizeIsolation(cfg.Out, rows, kinds, peak)
	if err := svc.terminate(); err != nil {
		fmt.Fprintf(cfg.Out, "service: SIGTERM: %v  FAIL\n", err)
		ok = false
	} else {
		fmt.Fprintln(cfg.Out, "service: SIGTERM drained and exited 0")
	}
	return ok, nil
}

// HostileCounts are what tenant A's callers sent: requests answered or abandoned, by kind, and the
// server faults among the answers.
type HostileCounts struct {
	Requests   int            `json:"requests"`
	ByKind     map[string]int `json:"byKind"`
	Faults     int            `json:"faults"`
	FirstFault string         `json:"firstFault,omitempty"`
}

// HostileLoad runs callers goroutines of hostile requests, cycling kinds, until ctx ends, and
// returns their counts; h.Client nil means a client sized for callers. `toolfailure bench hostile` runs it in a process of its own, so that
// the thousands of connections a second that hanging-up callers open and drop are scheduled
// apart from tenant B's callers, whose latency is what the scenario measures.
func HostileLoad(ctx context.Context, h *Hostile, kinds []HostileKind, callers int) HostileCounts {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	if h.Client == nil {
		h.Client = client(callers)
	}
	counts := HostileCounts{ByKind: map[string]int{}}
	for w := range callers {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				k := kinds[i%len(kinds)]
				o := h.Send(ctx, k)
				mu.Lock()
				counts.Requests++
				counts.ByKind[k.String()]++
				if o.Fault != "" {
					counts.Faults++
					if counts.FirstFault == "" {
						counts.FirstFault = k.String() + ": " + o.Fault
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return counts
}

// HostileReady is the line the hostile load's process writes on its standard error once SIGTERM
// ends it cleanly (bench hostile).
const HostileReady = "hostile load: ready"

// startHostile starts the hostile load in a process of its own (HostileLoad) and returns stop,
// which ends it with SIGTERM, reads its counts and adds them to row.
func startHostile(ctx context.Context, binary string, h *Hostile, kinds []HostileKind, callers int, row *isolationRow) (stop func() error, err error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	cmd := exec.CommandContext(ctx, binary, "bench", "hostile", "--server", h.Base, "--foreign-token", h.ForeignToken,
		"--hostile-kinds", strings.Join(names, ","), "--hostile-callers", strconv.Itoa(callers))
	// The key goes by the environment, not the command line, which other users can read.
	cmd.Env = append(os.Environ(), "TOOLFAILURE_KEY="+h.Key)
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("start the hostile load: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the hostile load: %w", err)
	}
	// SIGTERM before the process has set up its handler would kill it
	// (a loaded machine can take a second to start a binary): wait for
	// the line it writes once the handler is in place.
	ready := make(chan error, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		r := bufio.NewReader(stderr)
		line, err := r.ReadString('\n')
		if err == nil && line != HostileReady+"\n" {
			err = fmt.Errorf("unexpected first line %q", line)
		}
		ready <- err
		errOut.WriteString(line)
		_, _ = io.Copy(&errOut, r)
	}()
	select {
	case err = <-ready:
	case <-time.After(time.Minute):
		err = errors.New("not ready after a minute")
	}
	if err != nil {
		_ = cmd.Process.Kill()
		<-copied
		_ = cmd.Wait()
		return nil, fmt.Errorf("start the hostile load: %w: %s", err, errOut.String())
	}
	return func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return fmt.Errorf("stop the hostile load: %w", err)
		}
		<-copied // Wait closes the pipe: read it to the end first
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("the hostile load: %w: %s", err, errOut.String())
		}
		var c HostileCounts
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			return fmt.Errorf("read the hostile load's counts: %w: %q", err, out.String())
		}
		row.hostile += c.Requests
		maps.Copy(row.hostileBy, c.ByKind)
		row.faults += c.Faults
		if row.firstFault == "" {
			row.firstFault = c.FirstFault
		}
		return nil
	}, nil
}

func printIsolationRow(w io.Writer, r isolationRow, rss int64) {
	load, hostile := "quiet", "-"
	if r.noisy {
		load, hostile = "noisy", fmt.Sprint(r.hostile)
	}
	errText := fmt.Sprint(r.errors)
	if r.firstErr != "" {
		errText += " (" + r.firstErr + ")"
	}
	if r.faults > 0 {
		errText += fmt.Sprintf("; A: %d server faults (%s)", r.faults, r.firstFault)
	}
	fmt.Fprintf(w, "%-5d %-6s %9.0f %8s %8s %10s %7.1f %s\n",
		r.round, load, r.rate(), ms(r.p50), ms(r.p99), hostile, float64(rss)/(1<<20), errText)
}

// summarizeIsolation prints the medians, the ratio against the floor and the error counts.
func summarizeIsolation(w io.Writer, rows []isolationRow, sent []HostileKind, peakRSS int64) bool {
	var quiet, noisy, ratios []float64
	byRound := map[int][2]time.Duration{}
	bErrors, aFaults, aRequests := 0, 0, 0
	kinds := map[string]int{}
	for _, r := range rows {
		bErrors += r.errors
		pair := byRound[r.round]
		if r.noisy {
			noisy = append(noisy, float64(r.p99))
			pair[1] = r.p99
			aFaults += r.faults
			aRequests += r.hostile
			for k, n := range r.hostileBy {
				kinds[k] += n
			}
		} else {
			quiet = append(quiet, float64(r.p99))
			pair[0] = r.p99
		}
		byRound[r.round] = pair
	}
	for _, p := range byRound {
		if p[0] > 0 && p[1] > 0 {
			ratios = append(ratios, float64(p[1])/float64(p[0]))
		}
	}
	ok := true
	verdict := verdicts(&ok)
	fmt.Fprintln(w)
	if len(quiet) == 0 || len(noisy) == 0 || len(ratios) == 0 {
		fmt.Fprintln(w, "tenant B p99: no measurement  FAIL")
		return false
	}
	qm, ql, qh := spread(quiet)
	nm, nl, nh := spread(noisy)
	rm, rl, rh := spread(ratios)
	d := func(f float64) string { return ms(time.Duration(f)) }
	fmt.Fprintf(w, "tenant B Classify p99, tenant A quiet: median %s (min %s, max %s)\n", d(qm), d(ql), d(qh))
	fmt.Fprintf(w, "tenant B Classify p99 under tenant A's hostile load: median %s (min %s, max %s)\n", d(nm), d(nl), d(nh))
	fmt.Fprintf(w, "tenant B p99 ratio noisy/quiet: %.2fx (median of %d rounds; min %.2f, max %.2f); floor <= %.0fx  %s\n",
		rm, len(ratios), rl, rh, FloorIsolationRatio, verdict(rm <= FloorIsolationRatio))
	var kindText []string
	for _, k := range sent {
		kindText = append(kindText, fmt.Sprintf("%s %d", k, kinds[k.String()]))
	}
	fmt.Fprintf(w, "tenant A hostile requests: %d (%s)\n", aRequests, strings.Join(kindText, ", "))
	fmt.Fprintf(w, "server faults (HTTP 5xx, internal, unknown, unavailable, another tenant's records) for tenant A: %d  %s\n",
		aFaults, verdict(aFaults == 0))
	fmt.Fprintf(w, "tenant B failed requests: %d  %s\n", bErrors, verdict(bErrors == 0))
	fmt.Fprintf(w, "for information: service peak RSS %.1f MB\n", float64(peakRSS)/(1<<20))
	return ok
}

// ParseHostileKinds reads a comma-separated list of hostile kinds by name ("" is all of them).
func ParseHostileKinds(list string) ([]HostileKind, error) {
	var out []HostileKind
	for name := range strings.SplitSeq(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		i := slices.IndexFunc(HostileKinds, func(k HostileKind) bool { return k.String() == name })
		if i < 0 {
			names := make([]string, len(HostileKinds))
			for j, k := range HostileKinds {
				names[j] = k.String()
			}
			return nil, fmt.Errorf("unknown hostile kind %q (known: %s)", name, strings.Join(names, ", "))
		}
		out = append(out, HostileKinds[i])
	}
	return out, nil
}
