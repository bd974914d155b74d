package main_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/mcpfailure"
)

var updateTraceability = flag.Bool("update-traceability", false,
	"rewrite conformance/sep-3313/src/seps/traceability.json from the direct run")

// sep3313Dir is the SEP-3313 scenario, in the conformance suite's layout.
const sep3313Dir = "../../conformance/sep-3313"

// sep3313Defects maps each path of the negative test server
// (examples/servers/typescript/sep-3313-broken-server.ts) to the one check
// its defect must fail; every other check must pass against it.
var sep3313Defects = map[string]string{
	"class-outside-set":                  "sep-3313-class-closed-set",
	"code-empty":                         "sep-3313-code-non-empty-string",
	"retryable-on-governance":            "sep-3313-retryable-only-reliability",
	"retry-not-before-string":            "sep-3313-retry-not-before-epoch-ms",
	"retry-not-before-without-retryable": "sep-3313-retry-not-before-only-when-retryable",
	"correlation-id-missing":             "sep-3313-correlation-id",
	"agent-guidance-too-long":            "sep-3313-agent-guidance",
	"extra-field":                        "sep-3313-no-other-fields",
	"baseline-code-wrong-class":          "sep-3313-baseline-code-class",
	"key-on-success":                     "sep-3313-key-only-on-error",
	"key-in-jsonrpc-error":               "sep-3313-no-key-in-jsonrpc-error",
	"text-content-dropped":               "sep-3313-keeps-text-content",
	"other-meta-dropped":                 "sep-3313-keeps-other-meta",
	"object-rewritten":                   "sep-3313-relay-passes-object-unchanged",
	"tool-error-as-protocol-error":       "sep-3313-relay-no-error-conversion",
	"read-only-without-idempotent-hint":  "sep-3313-read-only-idempotent-hint",
	"task-key-outside-result":            "sep-3313-task-result-carries-key",
}

// noTasks is why the task row is SKIPPED against a server that does not
// run tool calls as tasks (the Go SDK, v1.8.0, has no tasks), as the
// scenario words it.
const noTasks = "does not run tool calls as tasks"

// sep3313ClientDefects maps each defect of the negative test client
// (examples/clients/typescript/sep-3313-broken-client.ts) to the one check
// it must fail.
var sep3313ClientDefects = map[string]string{
	"retry-capability":     "sep-3313-client-no-retry-capability",
	"retry-governance":     "sep-3313-client-no-retry-governance",
	"retry-not-retryable":  "sep-3313-client-retry-requires-retryable",
	"retry-not-idempotent": "sep-3313-client-retry-requires-idempotent-hint",
	"retry-early":          "sep-3313-client-retry-not-before",
	"retry-unbounded":      "sep-3313-client-retry-bounded",
	"retry-malformed":      "sep-3313-client-ignore-malformed",
}

// TestSEP3313Scenario runs the SEP-3313 (toolFailure) scenarios of
// conformance/sep-3313 through that folder's runner: the server scenario,
// src/scenarios/server/tool-failure.ts,
//
//   - against the Go server with the middleware, and both proxies in front of
//     it, on 2025-11-25 (the Go SDK does not speak 2026-07-28): every check
//     passes, and the proxies get the same verdict on every check;
//   - against the TypeScript reporter's example server on 2025-11-25 (the
//     TypeScript SDK's newest): every check passes, the task row included,
//     and each correlation ID it sent, the one inside the task's result too,
//     is a record of the service it reported to;
//   - against "toolfailure proxy" in front of a TypeScript SDK server that
//     knows nothing of the proposal and runs a tool call as a task
//     (examples/servers/typescript/sep-3313-task-server.ts, 2025-11-25):
//     every check passes, the task row included, and the correlation ID
//     the proxy put inside the task's result is a record of the service;
//   - against the negative test server's control path on 2025-11-25 and
//     2026-07-28 (where it runs the task in the tasks extension's form):
//     every check passes;
//   - against each of its defects: the check the defect targets fails (warns,
//     for a SHOULD) and every other check passes.
//
// and the client scenario, src/scenarios/client/tool-failure-retry.ts:
//
//   - with mcpfailure.Dispatcher as the client (this test binary, started by
//     the runner, is that client: see sep3313DispatcherClient), and with the
//     TypeScript dispatcher, callToolWithPolicy, as the client: every check
//     passes, and the one retry the rules allow was made;
//   - with the negative test client, without a defect and with each defect,
//     as above.
//
// Then the published suite's own traceability command checks that
// src/seps/traceability.json matches the direct server run and the
// Dispatcher's run (-update-traceability rewrites it), and the test logs a
// table: yaml row, checks emitted, status per target.
func TestSEP3313Scenario(t *testing.T) {
	t.Parallel()
	sc := sep3313OrSkip(t)
	sc.typecheck(t)
	tg := startTargets(t)
	fixture := sc.startFixture(t)
	reporter := sc.startReporter(t, tg.svc)
	tasks := sc.startTaskProxy(t, tg.svc)

	// A column is one target: a server's URL, or a client's command. skip
	// names the checks the target leaves nothing to inspect for, and why:
	// those may be SKIPPED; every other check must pass.
	type column struct {
		name, target, spec string
		skip               map[string]string
		checks             []sep3313Check
	}
	untasked := map[string]string{"sep-3313-task-result-carries-key": noTasks}
	cols := []*column{
		{name: "server", target: tg.direct, spec: "2025-11-25", skip: untasked},
		{name: "proxy-http", target: tg.viaHTTP, spec: "2025-11-25", skip: untasked},
		{name: "proxy-stdio", target: tg.viaStdio, spec: "2025-11-25", skip: untasked},
		{name: "ts-reporter", target: reporter, spec: "2025-11-25", skip: map[string]string{
			// The TypeScript SDK's McpServer (1.32.2) answers a call of an
			// unknown tool with an error result, not the JSON-RPC error the
			// specification asks for (typescript-sdk#1510), so no JSON-RPC
			// error reaches the row; the other servers exercise it.
			"sep-3313-no-key-in-jsonrpc-error": "the unknown tool was answered with a result",
		}},
		{name: "proxy-tasks", target: tasks, spec: "2025-11-25", skip: map[string]string{
			// The same SDK, so the same unknown-tool answer; and its
			// failures say "Retry-After" in text only, from which the
			// service need not derive retryNotBefore, which is optional.
			"sep-3313-no-key-in-jsonrpc-error":   "the unknown tool was answered with a result",
			"sep-3313-retry-not-before-epoch-ms": "no error result carried retryNotBefore",
		}},
		{name: "fixture", target: fixture, spec: "2025-11-25"},
		{name: "fixture@draft", target: fixture, spec: "2026-07-28"},
	}
	// The results the traceability manifest is computed from: the Go
	// server's and the Go client's.
	traced := t.TempDir()
	runs := make([]*sep3313Run, len(cols))
	for i, c := range cols {
		out := t.TempDir()
		if c.name == "server" {
			out = filepath.Join(traced, "server")
		}
		runs[i] = sc.start(t, c.name, out, "server", "--url", c.target, "--spec-version", c.spec)
	}
	plain := start(t, os.Environ(), regexp.MustCompile(`(http://\S+/mcp)`), "server --plain", serverBin, "--plain", "--listen", "127.0.0.1:0")
	plainRun := sc.start(t, "server --plain", t.TempDir(), "server", "--url", plain, "--spec-version", "2025-11-25")
	defects := slices.Sorted(maps.Keys(sep3313Defects))
	defectRuns := make([]*sep3313Run, len(defects))
	for i, defect := range defects {
		url := strings.TrimSuffix(fixture, "/mcp") + "/" + defect + "/mcp"
		defectRuns[i] = sc.start(t, "defect "+defect, t.TempDir(), "server", "--url", url, "--spec-version", "2025-11-25")
	}
	for i, c := range cols {
		c.checks = sc.wait(t, runs[i])
		for _, ch := range c.checks {
			if why := c.skip[ch.ID]; ch.Status == "SKIPPED" && why != "" && strings.Contains(ch.ErrorMessage, why) {
				continue
			}
			if ch.Status != "SUCCESS" {
				t.Errorf("%s (%s): %s is %s: %s", c.name, c.spec, ch.ID, ch.Status, ch.ErrorMessage)
			}
		}
	}
	sc.checkRecorded(t, tg.svc, cols[3].checks)
	sc.checkTaskRecorded(t, tg.svc, cols[3].name, reporterLabel, cols[3].checks)
	sc.checkTaskRecorded(t, tg.svc, cols[4].name, "sep-3313-task-server", cols[4].checks)
	direct := statusByID(cols[0].checks)
	for _, c := range cols[1:3] {
		got := statusByID(c.checks)
		for _, id := range sortedIDs(direct, got) {
			if got[id] != direct[id] {
				t.Errorf("%s: %s is %q, directly %q", c.name, id, got[id], direct[id])
			}
		}
	}

	// A server that knows nothing of the proposal gives the scenario nothing
	// to check: the rows about the object fail as not testable, rather than
	// pass for want of evidence.
	untestable := 0
	for _, ch := range sc.wait(t, plainRun) {
		switch {
		case (ch.Status == "FAILURE" || ch.Status == "WARNING") && strings.HasPrefix(ch.ErrorMessage, "Not testable: "):
			untestable++
		case ch.Status == "FAILURE" || ch.Status == "WARNING":
			t.Errorf("server --plain: %s is %s: %s; only not testable was expected", ch.ID, ch.Status, ch.ErrorMessage)
		}
	}
	if untestable == 0 {
		t.Error("server --plain: no check failed as not testable")
	}

	negative := map[string]string{} // row → status against its defect
	for i, defect := range defects {
		checks := sc.wait(t, defectRuns[i])
		negative[sep3313Defects[defect]] = sc.onlyFails(t, "defect "+defect, checks, sep3313Defects[defect])
	}

	// The client scenario, with the Dispatcher and with the negative client.
	tsClient := func(defect string) string {
		return strings.Join([]string{sc.node, sc.tsx, "examples/clients/typescript/sep-3313-broken-client.ts", defect}, " ")
	}
	tsDispatcher := strings.Join([]string{sc.node, sc.tsx, "examples/clients/typescript/sep-3313-dispatcher-client.ts"}, " ")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	clients := []*column{
		{name: "dispatcher", target: self, spec: "2025-11-25"},
		{name: "ts-dispatcher", target: tsDispatcher, spec: "2025-11-25"},
		{name: "ts-client", target: tsClient("none"), spec: "2025-11-25"},
	}
	clientRuns := make([]*sep3313Run, len(clients))
	for i, c := range clients {
		out := t.TempDir()
		if c.name == "dispatcher" {
			out = filepath.Join(traced, "client")
		}
		clientRuns[i] = sc.start(t, c.name, out, "client", "--command", c.target, "--spec-version", c.spec)
	}
	clientDefects := slices.Sorted(maps.Keys(sep3313ClientDefects))
	clientDefectRuns := make([]*sep3313Run, len(clientDefects))
	for i, defect := range clientDefects {
		clientDefectRuns[i] = sc.start(t, "client defect "+defect, t.TempDir(), "client", "--command", tsClient(defect))
	}
	for i, c := range clients {
		c.checks = sc.wait(t, clientRuns[i])
		for _, ch := range c.checks {
			if ch.Status != "SUCCESS" {
				t.Errorf("%s: %s is %s: %s", c.name, ch.ID, ch.Status, ch.ErrorMessage)
			}
			// Retrying is allowed, not required; the dispatchers are meant
			// to make the one retry the rules allow, so the check was
			// exercised.
			if ch.ID == "sep-3313-client-retry-not-before" && c.name != "ts-client" && ch.Details["retried"] != true {
				t.Errorf("%s: did not retry the failure the rules allow a retry of: %v", c.name, ch.Details)
			}
		}
	}
	for i, defect := range clientDefects {
		checks := sc.wait(t, clientDefectRuns[i])
		negative[sep3313ClientDefects[defect]] = sc.onlyFails(t, "client defect "+defect, checks, sep3313ClientDefects[defect])
	}
	cols = append(cols, clients...)
	for _, row := range sc.rows {
		if negative[row] == "" {
			t.Errorf("sep-3313.yaml row %s: no defect of the negative test server or client targets it", row)
		}
	}

	sc.traceability(t, traced)

	// The traceability table: every yaml row, how many checks each run
	// emitted for it, and their status per target.
	var b strings.Builder
	fmt.Fprintf(&b, "%-48s %-6s %-7s", "yaml row", "level", "emitted")
	for _, c := range cols {
		fmt.Fprintf(&b, " %-13s", c.name)
	}
	fmt.Fprintf(&b, " %s\n", "negative fixture")
	for _, row := range sc.rows {
		statuses := make([][]string, len(cols))
		for i, c := range cols {
			for _, ch := range c.checks {
				if ch.ID == row {
					statuses[i] = append(statuses[i], ch.Status)
				}
			}
		}
		emitted := 0 // per run, in the runs that emitted the row at all
		for _, st := range statuses {
			emitted = max(emitted, len(st))
		}
		fmt.Fprintf(&b, "%-48s %-6s %-7d", row, sc.severity[row], emitted)
		for _, s := range statuses {
			fmt.Fprintf(&b, " %-13s", orDash(strings.Join(s, ",")))
		}
		fmt.Fprintf(&b, " %s\n", orDash(negative[row]))
	}
	t.Logf("SEP-3313 traceability (%d rows with a check; %d excluded):\n%s", len(sc.rows), sc.excluded, b.String())
}

// sep3313Check is one entry of a scenario's checks.json.
type sep3313Check struct {
	ID           string         `json:"id"`
	Status       string         `json:"status"`
	ErrorMessage string         `json:"errorMessage"`
	Details      map[string]any `json:"details"`
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func statusByID(checks []sep3313Check) map[string]string {
	m := map[string]string{}
	for _, c := range checks {
		if prev, ok := m[c.ID]; ok && prev != "SUCCESS" {
			continue // a check emitted more than once keeps its worst status
		}
		m[c.ID] = c.Status
	}
	return m
}

func sortedIDs(maps ...map[string]string) []string {
	var ids []string
	for _, m := range maps {
		for id := range m {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// sep3313 is the scenario's folder with what npm ci installed there, and
// the rows of its sep-3313.yaml.
type sep3313 struct {
	dir, node, tsx, suite string
	rows                  []string          // check ids, in the yaml's order
	severity              map[string]string // check id → MUST or SHOULD
	excluded              int
}

// sep3313OrSkip finds the Node binary, tsx and the published suite that
// npm ci installed in conformance/sep-3313, as suiteOrSkip does for the
// suite here (and, as it does, skips in -short), and reads the yaml's rows.
func sep3313OrSkip(t *testing.T) *sep3313 {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the SEP-3313 scenarios on Node: not in the -short inner loop")
	}
	dir, err := filepath.Abs(sep3313Dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := &sep3313{
		dir:      dir,
		node:     filepath.Join(dir, "node_modules", ".bin", "node"),
		tsx:      filepath.Join(dir, "node_modules", "tsx", "dist", "cli.mjs"),
		suite:    filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		severity: map[string]string{},
	}
	// The TypeScript examples import the package as npm ci copied it from
	// sdk/typescript, built (the folder's .npmrc: install-links).
	pkg := filepath.Join(dir, "node_modules", "@omcp", "toolfailure", "dist", "src", "index.js")
	for _, f := range []string{sc.node, sc.tsx, sc.suite, pkg} {
		if _, err := os.Stat(f); err != nil {
			msg := fmt.Sprintf("the SEP-3313 scenario's tools are not installed (%s missing): run npm run build in sdk/typescript, then npm ci in conformance/sep-3313", f)
			if os.Getenv("TOOLFAILURE_REQUIRE_NODE") != "" {
				t.Fatal("TOOLFAILURE_REQUIRE_NODE is set: " + msg)
			}
			t.Skip(msg + " (set TOOLFAILURE_REQUIRE_NODE=1 to fail instead)")
		}
	}
	sc.readRows(t)
	return sc
}

// readRows reads the check rows of sep-3313.yaml, and each one's level
// from its quoted text: a SHOULD row warns, every other row fails.
func (sc *sep3313) readRows(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sc.dir, "src", "seps", "sep-3313.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requirements []struct{ Check, Text, Excluded string }
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("sep-3313.yaml: %v", err)
	}
	for _, r := range doc.Requirements {
		switch {
		case r.Check != "":
			sc.rows = append(sc.rows, r.Check)
			sc.severity[r.Check] = "MUST"
			if strings.Contains(r.Text, "SHOULD") {
				sc.severity[r.Check] = "SHOULD"
			}
		case r.Excluded != "":
			sc.excluded++
		}
	}
	if len(sc.rows) == 0 {
		t.Fatal("sep-3313.yaml has no check rows")
	}
}

// typecheck compiles the folder's TypeScript with its pinned tsc (the
// runner's tsx only strips types), so the scenarios as contributed compile
// under the suite's strict settings.
func (sc *sep3313) typecheck(t *testing.T) {
	t.Helper()
	cmd := exec.Command(sc.node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	cmd.Dir = sc.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc -p conformance/sep-3313: %v\n%s", err, out)
	}
}

// startFixture starts the negative test server and returns its control
// path's URL.
func (sc *sep3313) startFixture(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(sc.node, sc.tsx, filepath.Join("examples", "servers", "typescript", "sep-3313-broken-server.ts"))
	cmd.Dir = sc.dir
	cmd.Env = append(os.Environ(), "PORT=0")
	return servicetest.StartAndScan(t, cmd, regexp.MustCompile(`running on (http://\S+/mcp)`), "sep-3313 fixture")
}

// startReporter starts the TypeScript reporter's example server, reporting
// to svc, and returns its URL.
func (sc *sep3313) startReporter(t *testing.T, svc servicetest.Service) string {
	t.Helper()
	cmd := exec.Command(sc.node, sc.tsx, filepath.Join("examples", "servers", "typescript", "sep-3313-reporter-server.ts"))
	cmd.Dir = sc.dir
	cmd.Env = append(os.Environ(), "PORT=0", "TOOLFAILURE_SERVER="+svc.URL, "TOOLFAILURE_KEY="+svc.ReportKey)
	return servicetest.StartAndScan(t, cmd, regexp.MustCompile(`running on (http://\S+/mcp)`), "sep-3313 ts-reporter")
}

// startTaskProxy starts "toolfailure proxy --listen", reporting to svc, with
// the task example server (stdio, the TypeScript SDK) as its child, and
// returns its URL.
func (sc *sep3313) startTaskProxy(t *testing.T, svc servicetest.Service) string {
	t.Helper()
	script := filepath.Join(sc.dir, "examples", "servers", "typescript", "sep-3313-task-server.ts")
	env := append(os.Environ(), "TOOLFAILURE_SERVER="+svc.URL, "TOOLFAILURE_KEY="+svc.ReportKey)
	return start(t, env, regexp.MustCompile(`(http://\S+/mcp)`), "proxy-tasks", toolfailureBin, "proxy", "--listen", "127.0.0.1:0", "--budget", testBudget, "--", sc.node, sc.tsx, script)
}

// checkTaskRecorded looks up the correlation ID that column col's task row
// saw inside the task's result, in the service col reported to: the failure
// of a tool call run as a task is recorded like any other, under the tool's
// name and server's label (the reporter's, or the proxy's upstream's).
func (sc *sep3313) checkTaskRecorded(t *testing.T, svc servicetest.Service, col, server string, checks []sep3313Check) {
	t.Helper()
	for _, ch := range checks {
		if ch.ID != "sep-3313-task-result-carries-key" {
			continue
		}
		tf, _ := ch.Details["toolFailure"].(map[string]any)
		id, _ := tf["correlationId"].(string)
		if id == "" {
			t.Fatalf("%s: the task row saw no correlation ID: %v", col, ch.Details)
		}
		res, err := mcpfailure.NewFailureClient(nil, svc.URL, svc.LookupKey).GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
		if err != nil {
			t.Fatalf("%s: %s: GetFailure: %v", col, id, err)
		}
		if f := res.GetFailure(); f.GetTool() != "test_tool_failure_task" || f.GetServer() != server {
			t.Errorf("%s: %s is a record of %s on %q, want test_tool_failure_task on %q", col, id, f.GetTool(), f.GetServer(), server)
		}
		return
	}
	t.Errorf("%s: no sep-3313-task-result-carries-key check", col)
}

// reporterLabel is the server label the TypeScript reporter's example
// server reports under.
const reporterLabel = "sep-3313-reporter-server"

// checkRecorded looks up, in the service the TypeScript reporter reported
// to, every correlation ID the server scenario saw from it: an ID on the
// wire is only worth something if support can find its record.
func (sc *sep3313) checkRecorded(t *testing.T, svc servicetest.Service, checks []sep3313Check) {
	t.Helper()
	client := mcpfailure.NewFailureClient(nil, svc.URL, svc.LookupKey)
	looked := 0
	for _, ch := range checks {
		if ch.ID != "sep-3313-correlation-id" {
			continue
		}
		objects, _ := ch.Details["objects"].([]any)
		for _, o := range objects {
			o, _ := o.(map[string]any)
			tf, _ := o["toolFailure"].(map[string]any)
			id, _ := tf["correlationId"].(string)
			if id == "" {
				continue
			}
			res, err := client.GetFailure(t.Context(), &toolfailurev1.GetFailureRequest{CorrelationId: id})
			if err != nil {
				t.Errorf("ts-reporter: %s of %v: GetFailure: %v", id, o["tool"], err)
				continue
			}
			if f := res.GetFailure(); f.GetServer() != reporterLabel || f.GetTool() != o["tool"] {
				t.Errorf("ts-reporter: %s is a record of %s on %q, want %v on %q", id, f.GetTool(), f.GetServer(), o["tool"], reporterLabel)
			}
			looked++
		}
	}
	if looked == 0 {
		t.Error("ts-reporter: the scenario reported no correlation ID to look up")
	}
	t.Logf("ts-reporter: %d correlation IDs looked up in the service, each a record of its tool under %q", looked, reporterLabel)
}

// sep3313Run is one run of the folder's runner, started by start and read
// by wait.
type sep3313Run struct {
	name, out string
	args      []string
	report    []byte
	err       error
	done      chan struct{}
}

// sep3313Slots bounds the runs of the runner that go on at once: each run
// has its own results directory, sessions and (for a client run) mock
// server, so they are independent, and most of a run is spent waiting on
// the servers and the service.
var sep3313Slots = make(chan struct{}, 4)

// start starts the folder's runner (server --url URL …, or client --command
// CMD …) with its results in out, in the background; wait reads what it did.
// The test does not end before the run has.
func (sc *sep3313) start(t *testing.T, name, out string, args ...string) *sep3313Run {
	t.Helper()
	r := &sep3313Run{name: name, out: out, args: args, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		sep3313Slots <- struct{}{}
		defer func() { <-sep3313Slots }()
		cmd := exec.Command(sc.node, append([]string{sc.tsx, "harness/run.ts"}, append(args, "-o", out)...)...)
		cmd.Dir = sc.dir
		// The test binary is the Dispatcher client when the runner starts it.
		cmd.Env = append(os.Environ(), sep3313ClientEnv+"=1")
		r.report, r.err = cmd.CombinedOutput()
	}()
	t.Cleanup(func() { <-r.done })
	return r
}

// wait waits for r to end, logs its report, and returns the checks it
// wrote.
func (sc *sep3313) wait(t *testing.T, r *sep3313Run) []sep3313Check {
	t.Helper()
	<-r.done
	name, out, args, report, err := r.name, r.out, r.args, r.report, r.err
	t.Logf("SEP-3313 scenario, %s (%s):\n%s", name, strings.Join(args, " "), report)
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("SEP-3313 scenario, %s: %v", name, err)
	}
	var checks []sep3313Check
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cs []sep3313Check
		if err := json.Unmarshal(b, &cs); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		checks = append(checks, cs...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 {
		t.Fatalf("SEP-3313 scenario, %s: no checks written", name)
	}
	return checks
}

// onlyFails asserts that the run against a defect failed its row (warned,
// for a SHOULD row) and passed every other check, and returns the row's
// status.
func (sc *sep3313) onlyFails(t *testing.T, name string, checks []sep3313Check, row string) string {
	t.Helper()
	got := statusByID(checks)
	want := "FAILURE"
	if sc.severity[row] == "SHOULD" {
		want = "WARNING"
	}
	if got[row] != want {
		t.Errorf("%s: %s is %q, want %s", name, row, got[row], want)
	}
	for id, status := range got {
		if id != row && status != "SUCCESS" {
			t.Errorf("%s: %s is %s as well; a defect should fail only the row it targets", name, id, status)
		}
	}
	return got[row]
}

// traceability runs the published suite's traceability command over the
// direct run's results: with -update-traceability it rewrites
// src/seps/traceability.json, otherwise it fails when the file is stale.
func (sc *sep3313) traceability(t *testing.T, results string) {
	t.Helper()
	args := []string{sc.suite, "traceability", "--results", results, "--source", "examples/conformance-server"}
	if !*updateTraceability {
		args = append(args, "--check")
	}
	cmd := exec.Command(sc.node, args...)
	cmd.Dir = sc.dir
	out, err := cmd.CombinedOutput()
	t.Logf("conformance traceability:\n%s", out)
	if err != nil {
		t.Errorf("conformance traceability: %v (run go test -run TestSEP3313Scenario -update-traceability to rewrite it)", err)
	}
}

// sep3313ClientEnv, set in the runner's environment, makes this test binary
// the tool-failure-retry scenario's client when the runner starts it: the
// scenario needs a client command, and the Dispatcher is a library.
const sep3313ClientEnv = "TOOLFAILURE_SEP3313_CLIENT"

// sep3313DispatcherClient is the client under test of the
// tool-failure-retry scenario: mcpfailure.Dispatcher, trusting the
// scenario's server, calls each listed tool once. It returns the exit
// status.
func sep3313DispatcherClient(url string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfailure-dispatcher", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 1
	}
	defer session.Close()
	d, err := mcpfailure.NewDispatcher(session, mcpfailure.DispatcherConfig{Trusted: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools/list:", err)
		return 1
	}
	for _, tool := range tools.Tools {
		_, report, err := d.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{}})
		if err != nil && report == nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", tool.Name, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "dispatcher: %s: %s after %d attempts: %s\n", tool.Name, report.Action, report.Attempts, report.Reason)
	}
	return 0
}
