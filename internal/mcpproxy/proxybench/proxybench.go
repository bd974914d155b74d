// Package proxybench measures what "toolfailure proxy" and the Go middleware
// add to an MCP call. One MCP client (the official Go SDK) drives one Go MCP
// server directly and through the proxy, over stdio (kernel pipes) and over
// streamable HTTP (loopback TCP), in alternating rounds of one run, with
// successful and failing tool calls; it reports the latency the proxy adds
// per call (p50, p99), the throughput through the proxy against direct, and
// the proxy's CPU per relayed message, and checks them against the floors
// the proxy is held to. Everything runs in this process, so that the same
// clock and the same scheduler see both sides of every comparison.
package proxybench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"slices"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/mcpproxy"
	"github.com/omcp/toolfailure/mcpfailure"
)

// Floors the proxy is held to (issue 18).
const (
	FloorAddedP50        = 50 * time.Microsecond
	FloorAddedP99        = 250 * time.Microsecond
	FloorThroughput      = 0.90
	FloorFailureOverhead = 100 * time.Microsecond // over the Classify round trip, p50
	FloorMiddlewareP50   = 5 * time.Microsecond
)

// Config configures a run.
type Config struct {
	// Classifier is the service the proxy and the middleware classify
	// failures with. Nil runs the failing calls fail-open (no service), and
	// the failure floor is not checked.
	Classifier mcpfailure.Classifier
	Rounds     int // alternating rounds; zero means 5
	Calls      int // calls of each kind per side per round; zero means 200
	Callers    int // concurrent callers of the throughput measurement; zero means 8
}

// Row is one transport and outcome.
type Row struct {
	Transport, Outcome        string
	Via                       string // what stands between the client and the server: viaProxy, or a reference relay
	DirectP50, ProxyP50       time.Duration
	AddedP50, AddedP99        time.Duration
	DirectPerSec, ProxyPerSec float64
	ProxyCPUPerMessage        time.Duration
}

// Report is what a run measured.
type Report struct {
	Rows               []Row         // through the proxy
	References         []Row         // through relays that only copy, in the same rounds: what any relay costs on this machine
	ClassifyP50        time.Duration // the Classify round trip alone, timed in the rounds of failing calls
	MiddlewareAddedP50 time.Duration // the middleware on a successful call, in memory: the median of paired differences
	Calls, Rounds      int
}

// Run measures.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Rounds <= 0 {
		cfg.Rounds = 5
	}
	if cfg.Calls <= 0 {
		cfg.Calls = 200
	}
	if cfg.Callers <= 0 {
		cfg.Callers = 8
	}
	rep := &Report{Calls: cfg.Calls, Rounds: cfg.Rounds}
	var classify []time.Duration
	quiet := slog.New(slog.DiscardHandler)
	p, err := mcpproxy.New(mcpproxy.Config{Classifier: cfg.Classifier, Unavailable: "benchmark without a service", Logger: quiet, Budget: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	for _, transport := range []string{"stdio", "http"} {
		direct, err := connectVia(ctx, transport, "", nil, quiet)
		if err != nil {
			return nil, fmt.Errorf("%s direct: %w", transport, err)
		}
		sides := []*side{direct}
		for _, via := range append([]string{viaProxy}, references[transport]...) {
			s, err := connectVia(ctx, transport, via, p, quiet)
			if err != nil {
				closeAll(sides)
				return nil, fmt.Errorf("%s through %s: %w", transport, via, err)
			}
			sides = append(sides, s)
		}
		for _, outcome := range []string{"success", "failure"} {
			tool := map[string]string{"success": "ok", "failure": "fails"}[outcome]
			measured := sides
			if outcome == "failure" {
				measured = sides[:2] // a bare relay's failing call is its successful one
			}
			rows, err := measure(ctx, cfg, measured, tool, &classify)
			if err != nil {
				closeAll(sides)
				return nil, fmt.Errorf("%s %s: %w", transport, outcome, err)
			}
			for _, row := range rows {
				row.Transport, row.Outcome = transport, outcome
				if row.Via == viaProxy {
					rep.Rows = append(rep.Rows, row)
				} else {
					rep.References = append(rep.References, row)
				}
			}
		}
		closeAll(sides)
	}
	rep.ClassifyP50 = pct(classify, 50)
	if rep.MiddlewareAddedP50, err = middlewareOverhead(ctx, cfg, quiet); err != nil {
		return nil, err
	}
	return rep, nil
}

// measure times sequential calls for latency, each path to the server one
// after the other, call by call (which goes first rotates), so that every
// side meets the same moments of the machine; then rotates rounds of
// concurrent calls on each side, for throughput and CPU. sides[0] is the
// direct path; there is one row for each of the others. With failing calls
// and a service, each round also times the Classify round trip alone, into
// classify, so that the failure floor compares figures of the same moments
// of the run.
func measure(ctx context.Context, cfg Config, sides []*side, tool string, classify *[]time.Duration) ([]Row, error) {
	n := len(sides)
	lat := make([][]time.Duration, n)
	wall := make([]time.Duration, n)
	cpu := make([]time.Duration, n)
	for round := range cfg.Rounds {
		for i := range cfg.Calls {
			for k := range n {
				j := (i + k) % n
				d, err := sides[j].timed(ctx, tool)
				if err != nil {
					return nil, err
				}
				lat[j] = append(lat[j], d)
			}
		}
		for k := range n {
			j := (round + k) % n
			w, c, err := sides[j].concurrent(ctx, tool, cfg.Calls, cfg.Callers)
			if err != nil {
				return nil, err
			}
			wall[j], cpu[j] = wall[j]+w, cpu[j]+c
		}
		if tool == "fails" && cfg.Classifier != nil {
			d, err := classifyRoundTrip(ctx, cfg.Classifier, cfg.Calls)
			if err != nil {
				return nil, err
			}
			*classify = append(*classify, d...)
		}
	}
	calls := float64(cfg.Calls * cfg.Rounds)
	rows := make([]Row, 0, n-1)
	for j := 1; j < n; j++ {
		row := Row{
			Via:       sides[j].via,
			DirectP50: pct(lat[0], 50), ProxyP50: pct(lat[j], 50),
			DirectPerSec: calls / wall[0].Seconds(), ProxyPerSec: calls / wall[j].Seconds(),
			// Two messages a call cross the relay: the request and its answer.
			ProxyCPUPerMessage: max(0, cpu[j]-cpu[0]) / time.Duration(2*cfg.Calls*cfg.Rounds),
		}
		row.AddedP50 = row.ProxyP50 - row.DirectP50
		row.AddedP99 = pct(lat[j], 99) - pct(lat[0], 99)
		rows = append(rows, row)
	}
	return rows, nil
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// cpuTime is the process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// side is a client session on one path to the server.
type side struct {
	via     string
	cs      *mcp.ClientSession
	closers []func()
}

func (s *side) close() {
	if s.cs != nil {
		_ = s.cs.Close()
	}
	for _, c := range slices.Backward(s.closers) {
		c()
	}
}

func (s *side) call(ctx context.Context, tool string) error {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil {
		return err
	}
	if res.IsError != (tool == "fails") {
		return fmt.Errorf("%s: isError %v", tool, res.IsError)
	}
	return nil
}

// timed makes one call and returns how long it took.
func (s *side) timed(ctx context.Context, tool string) (time.Duration, error) {
	start := time.Now()
	err := s.call(ctx, tool)
	return time.Since(start), err
}

func (s *side) sequential(ctx context.Context, tool string, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		lat, err := s.timed(ctx, tool)
		if err != nil {
			return nil, err
		}
		out = append(out, lat)
	}
	return out, nil
}

func (s *side) concurrent(ctx context.Context, tool string, n, callers int) (wall, cpu time.Duration, err error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	c0, start := cpuTime(), time.Now()
	for range callers {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= n || err != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				if e := s.call(ctx, tool); e != nil {
					mu.Lock()
					err = e
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), cpuTime() - c0, err
}

// newServer is the benchmark's MCP server: one tool that succeeds, one that
// fails, as an unmodified server's would.
func newServer(a *mcpfailure.Annotator) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "503 Service Unavailable: backend overloaded"}}}, nil
		})
	if a != nil {
		s.AddReceivingMiddleware(a.Middleware)
	}
	return s
}

// What can stand between the client and the server.
const (
	viaProxy        = "toolfailure proxy"
	viaCopy         = "io.Copy"               // bytes copied both ways: a pipe or a TCP connection more, no parsing
	viaReverseProxy = "httputil.ReverseProxy" // the standard library's HTTP relay, which parses HTTP but not MCP
)

// references are the relays that only copy, measured beside the proxy for
// each transport.
var references = map[string][]string{
	"stdio": {viaCopy},
	"http":  {viaCopy, viaReverseProxy},
}

func closeAll(sides []*side) {
	for _, s := range sides {
		s.close()
	}
}

// connectVia opens a client session to a fresh server over transport,
// through via (empty: directly; viaProxy: through p).
func connectVia(ctx context.Context, transport, via string, p *mcpproxy.Proxy, log *slog.Logger) (*side, error) {
	sd := &side{via: via}
	server := newServer(nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil)
	var ct mcp.Transport
	switch transport {
	case "stdio":
		// Kernel pipes, as between a host and its server process.
		pipe := func() (*os.File, *os.File) {
			r, w, err := os.Pipe()
			if err != nil {
				panic(err)
			}
			sd.closers = append(sd.closers, func() { _ = r.Close(); _ = w.Close() })
			return r, w
		}
		toServerR, toServerW := pipe()
		fromServerR, fromServerW := pipe()
		ss, err := server.Connect(ctx, &mcp.IOTransport{Reader: toServerR, Writer: fromServerW}, nil)
		if err != nil {
			return nil, err
		}
		sd.closers = append(sd.closers, func() { _ = ss.Close() })
		if via == "" {
			ct = &mcp.IOTransport{Reader: fromServerR, Writer: toServerW}
			break
		}
		toProxyR, toProxyW := pipe()
		fromProxyR, fromProxyW := pipe()
		switch via {
		case viaProxy:
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = p.Relay(rctx, mcpproxy.Stdio(toProxyR, fromProxyW), mcpproxy.Stdio(fromServerR, toServerW))
			}()
			sd.closers = append(sd.closers, func() { cancel(); <-done })
		case viaCopy:
			go func() { _, _ = io.Copy(toServerW, toProxyR) }()
			go func() { _, _ = io.Copy(fromProxyW, fromServerR) }()
		}
		ct = &mcp.IOTransport{Reader: fromProxyR, Writer: toProxyW}
	case "http":
		url, stop, err := serveHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil), log)
		if err != nil {
			return nil, err
		}
		sd.closers = append(sd.closers, stop)
		switch via {
		case viaProxy:
			upstream := url
			h := p.Handler(func() (mcp.Transport, error) { return &mcpproxy.HTTPUpstream{Endpoint: upstream, Logger: log}, nil }, nil)
			purl, pstop, err := serveHTTP(h, log)
			if err != nil {
				return nil, err
			}
			sd.closers = append(sd.closers, func() { _ = h.Close(); pstop() })
			url = purl
		case viaReverseProxy:
			target, err := neturl.Parse(url)
			if err != nil {
				return nil, err
			}
			rp := &httputil.ReverseProxy{
				Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.URL.Path = target.Path },
				FlushInterval: -1, // event streams flow as they are written
			}
			purl, pstop, err := serveHTTP(rp, log)
			if err != nil {
				return nil, err
			}
			sd.closers = append(sd.closers, pstop)
			url = purl
		case viaCopy:
			purl, pstop, err := copyTCP(url)
			if err != nil {
				return nil, err
			}
			sd.closers = append(sd.closers, pstop)
			url = purl
		}
		ct = &mcp.StreamableClientTransport{Endpoint: url}
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		sd.close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	sd.cs = cs
	if _, err := cs.ListTools(ctx, nil); err != nil { // as clients do; the proxy learns the annotations
		sd.close()
		return nil, err
	}
	return sd, nil
}

// copyTCP listens on a loopback port and copies every connection's bytes to
// and from the host of url, both ways; it returns url with its host
// replaced.
func copyTCP(url string) (string, func(), error) {
	target, err := neturl.Parse(url)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target.Host)
			if err != nil {
				_ = c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			go func() { _, _ = io.Copy(u, c); _ = u.Close() }()
			go func() { _, _ = io.Copy(c, u); _ = c.Close() }()
		}
	}()
	stop := func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	}
	out := *target
	out.Host = ln.Addr().String()
	return out.String(), stop, nil
}

func serveHTTP(h http.Handler, log *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() { _ = srv.Close() }, nil
}

// classifyRoundTrip times Classify calls alone, sequentially, each the
// request the proxy sends for the failing tool: its error, its server and
// its annotations.
func classifyRoundTrip(ctx context.Context, c mcpfailure.Classifier, n int) ([]time.Duration, error) {
	annotations := mcpfailure.AnnotationsProto(&mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true})
	ds := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		_, err := c.Classify(ctx, &toolfailurev1.ClassifyRequest{
			Tool: "fails", Server: "bench-server",
			Error:           &toolfailurev1.RawError{Message: "503 Service Unavailable: backend overloaded"},
			ToolAnnotations: annotations,
			OccurredAt:      timestamppb.Now(),
		})
		if err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
		ds = append(ds, time.Since(start))
	}
	return ds, nil
}

// middlewareOverhead times successful calls in memory to a server with the
// middleware and to one without, and returns the median of the paired
// differences. Calls are paired one by one, in alternating order, rather
// than timed in blocks and compared by their p50s: each call allocates
// far more in the SDK than the middleware costs, and on a shared machine
// the difference of two separately timed p50s moves by tens of
// microseconds between runs with the collector's and the neighbours'
// phases (BenchmarkMiddlewareSuccess has the middleware's own cost).
func middlewareOverhead(ctx context.Context, cfg Config, log *slog.Logger) (time.Duration, error) {
	classifier := cfg.Classifier
	if classifier == nil {
		classifier = unreachable{}
	}
	a, err := mcpfailure.NewAnnotator(mcpfailure.AnnotatorConfig{Classifier: classifier, Logger: log})
	if err != nil {
		return 0, err
	}
	open := func(a *mcpfailure.Annotator) (*side, error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := newServer(a).Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			return nil, err
		}
		return &side{cs: cs, closers: []func(){func() { _ = ss.Close() }}}, nil
	}
	plain, err := open(nil)
	if err != nil {
		return 0, err
	}
	defer plain.close()
	with, err := open(a)
	if err != nil {
		return 0, err
	}
	defer with.close()
	diffs := make([]time.Duration, 0, cfg.Rounds*cfg.Calls)
	for i := range cfg.Rounds * cfg.Calls {
		first, second := plain, with
		if i%2 == 1 {
			first, second = with, plain
		}
		l1, err := first.timed(ctx, "ok")
		if err != nil {
			return 0, err
		}
		l2, err := second.timed(ctx, "ok")
		if err != nil {
			return 0, err
		}
		if first == with {
			l1, l2 = l2, l1
		}
		diffs = append(diffs, l2-l1) // with − without
	}
	return pct(diffs, 50), nil
}

type unreachable struct{}

func (unreachable) Classify(context.Context, *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	return nil, errors.New("no service in this benchmark")
}

// Floors returns the floors the report misses, empty when it meets them all.
func (r *Report) Floors() []string {
	var missed []string
	for _, row := range r.Rows {
		name := row.Transport + " " + row.Outcome
		if row.Outcome == "success" {
			if row.AddedP50 > FloorAddedP50 {
				missed = append(missed, fmt.Sprintf("%s: added p50 %v > %v", name, row.AddedP50, FloorAddedP50))
			}
			if row.AddedP99 > FloorAddedP99 {
				missed = append(missed, fmt.Sprintf("%s: added p99 %v > %v", name, row.AddedP99, FloorAddedP99))
			}
			if ratio := row.ProxyPerSec / row.DirectPerSec; ratio < FloorThroughput {
				missed = append(missed, fmt.Sprintf("%s: throughput %.2f× direct < %.2f×", name, ratio, FloorThroughput))
			}
		} else if r.ClassifyP50 > 0 && row.AddedP50 > r.ClassifyP50+FloorFailureOverhead {
			missed = append(missed, fmt.Sprintf("%s: added p50 %v > Classify %v + %v", name, row.AddedP50, r.ClassifyP50, FloorFailureOverhead))
		}
	}
	if r.MiddlewareAddedP50 > FloorMiddlewareP50 {
		missed = append(missed, fmt.Sprintf("middleware: added p50 %v > %v", r.MiddlewareAddedP50, FloorMiddlewareP50))
	}
	return missed
}

// Print writes the report as a table, then the floors it misses.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%d rounds × %d calls per side per kind\n", r.Rounds, r.Calls)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transport\toutcome\tdirect p50\tproxy p50\tadded p50\tadded p99\tthroughput\tproxy CPU/msg\t")
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f×\t%s\t\n", row.Transport, row.Outcome,
			us(row.DirectP50), us(row.ProxyP50), us(row.AddedP50), us(row.AddedP99), row.ProxyPerSec/row.DirectPerSec, us(row.ProxyCPUPerMessage))
	}
	_ = tw.Flush()
	if len(r.References) > 0 {
		fmt.Fprintln(w, "\nrelays that only copy, in the same rounds (what any relay costs on this machine):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "transport\trelay\tdirect p50\trelay p50\tadded p50\tadded p99\tthroughput\trelay CPU/msg\t")
		for _, row := range r.References {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f×\t%s\t\n", row.Transport, row.Via,
				us(row.DirectP50), us(row.ProxyP50), us(row.AddedP50), us(row.AddedP99), row.ProxyPerSec/row.DirectPerSec, us(row.ProxyCPUPerMessage))
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
	if r.ClassifyP50 > 0 {
		fmt.Fprintf(w, "Classify round trip alone, timed in each round of failing calls: p50 %s (a failing call may add it plus %s)\n", us(r.ClassifyP50), us(FloorFailureOverhead))
	} else {
		fmt.Fprintln(w, "no service: failing calls ran fail-open, the failure floor is not checked")
	}
	fmt.Fprintf(w, "middleware on a successful call (in memory): added p50 %s (floor %s)\n", us(r.MiddlewareAddedP50), us(FloorMiddlewareP50))
	missed := r.Floors()
	if len(missed) == 0 {
		fmt.Fprintln(w, "every floor met")
	}
	for _, m := range missed {
		fmt.Fprintln(w, "floor missed:", m)
	}
}
