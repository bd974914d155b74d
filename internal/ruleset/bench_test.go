package ruleset_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// benchRules builds n rules of the shapes tenants write: per-tool globs
// with status lists and a condition on the provider's body, JSON-RPC codes
// with data.code, error types, gRPC codes, message patterns, database
// SQLSTATEs per server, some in shadow mode, and two rules that test
// nothing the index can use and so run for every request.
func benchRules(n int) []ruleset.Rule {
	rules := make([]ruleset.Rule, 0, n)
	gov := ruleset.Outcome{Class: classify.Governance, Code: "user_action_required", AgentGuidance: "Ask the user to confirm, then call {{tool}} again."}
	capa := ruleset.Outcome{Class: classify.Capability, Code: "invalid_input"}
	yes := true
	rel := ruleset.Outcome{Class: classify.Reliability, Code: "retryable_transient_error", Retryable: &yes, RetryAfter: "fromError"}
	for i := range n - 2 {
		t := i / 6 // six rules per tool family
		r := ruleset.Rule{Name: fmt.Sprintf("rule-%05d", i), Priority: int32(1000 - i%100)}
		switch i % 6 {
		case 0:
			r.Tool = fmt.Sprintf("svc%d_*", t)
			r.HTTPStatus = []int32{409, 422}
			r.When = fmt.Sprintf(`error.details.structuredContent.reason_code == "rc_%d"`, i)
			r.Then = gov
		case 1:
			r.Tool = fmt.Sprintf("svc%d_send", t)
			r.JSONRPCCode = []int32{-32001}
			r.When = fmt.Sprintf(`error.details.data.code == "C%d"`, i)
			r.Then = gov
		case 2:
			r.When = fmt.Sprintf(`error.type == "Svc%dError" && error.message.contains("invalid")`, t)
			r.Then = capa
		case 3:
			r.Tool = fmt.Sprintf("svc%d_read", t)
			r.GRPCCode = []int32{14, 4}
			r.Then = rel
		case 4:
			r.Tool = fmt.Sprintf("svc%d_*", t)
			r.MessageMatches = fmt.Sprintf(`(?i)quota %d exceeded`, i)
			r.Then = rel
		case 5:
			r.When = fmt.Sprintf(`server == "db%d" && error.attributes["db.response.status_code"] == "40001"`, t)
			r.Then = rel
		}
		if i%50 == 7 {
			r.Mode = ruleset.Shadow
		}
		rules = append(rules, r)
	}
	rules = append(rules,
		ruleset.Rule{Name: "awaiting-confirmation", Priority: 5,
			When: `has(error.details.execution) && error.details.execution.status == "awaiting_confirmation"`, Then: gov},
		ruleset.Rule{Name: "fatal", Priority: 1, When: `error.message.startsWith("FATAL")`, Then: capa},
	)
	return rules
}

func i32(v int32) *int32 { return &v }

// benchInputs is a mix of requests: some decided by a tenant rule (early,
// late, unindexed), some by the baseline.
func benchInputs(n int) []*classify.Input {
	last := max(0, (n-3)/6) // the last tool family
	return []*classify.Input{
		{Tool: fmt.Sprintf("svc%d_send", last/2), Error: classify.RawError{HTTPStatus: i32(409),
			Details: map[string]any{"structuredContent": map[string]any{"reason_code": fmt.Sprintf("rc_%d", last/2*6)}}}},
		{Tool: fmt.Sprintf("svc%d_send", last), Error: classify.RawError{JSONRPCCode: i32(-32001),
			Details: map[string]any{"data": map[string]any{"code": "nope"}}}},
		{Tool: "unknown_tool", Error: classify.RawError{HTTPStatus: i32(503), Message: "upstream unavailable", RetryAfter: "30"}},
		{Tool: fmt.Sprintf("svc%d_read", last), Error: classify.RawError{Type: "ECONNRESET", Message: "read: connection reset by peer"}},
		{Tool: "x", Error: classify.RawError{Type: fmt.Sprintf("Svc%dError", last), Message: "invalid argument: to"}},
		{Tool: "mail_send", Error: classify.RawError{Details: map[string]any{"execution": map[string]any{"status": "awaiting_confirmation"}}}},
		{Tool: fmt.Sprintf("svc%d_read", last/3), Server: fmt.Sprintf("db%d", last/3), Error: classify.RawError{
			GRPCCode: i32(14), Attributes: map[string]string{"db.response.status_code": "40001"}}},
	}
}

// oneByOne is the baseline the engine is measured against: the same rules,
// each a cel-go program over a map activation, evaluated in order until the
// first enforce rule matches, as a straightforward implementation would.
type oneByOne struct {
	progs  []cel.Program
	shadow []bool
}

func newOneByOne(tb testing.TB, set *ruleset.Set) *oneByOne {
	env, err := cel.NewEnv(
		cel.Variable("tool", cel.StringType),
		cel.Variable("server", cel.StringType),
		cel.Variable("error", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("toolAnnotations", cel.MapType(cel.StringType, cel.BoolType)),
		ext.Strings(),
	)
	if err != nil {
		tb.Fatal(err)
	}
	o := &oneByOne{}
	for _, r := range set.Rules() {
		var conj []string
		if r.Tool != "" {
			conj = append(conj, `tool.matches("^`+strings.ReplaceAll(r.Tool, "*", ".*")+`$")`)
		}
		for _, l := range []struct {
			f string
			v []int32
		}{{"httpStatus", r.HTTPStatus}, {"grpcCode", r.GRPCCode}, {"jsonrpcCode", r.JSONRPCCode}} {
			if len(l.v) > 0 {
				conj = append(conj, fmt.Sprintf("error.%s in %s", l.f, strings.ReplaceAll(fmt.Sprint(l.v), " ", ", ")))
			}
		}
		if r.MessageMatches != "" {
			conj = append(conj, fmt.Sprintf("error.message.matches(%q)", r.MessageMatches))
		}
		if r.When != "" {
			conj = append(conj, "("+r.When+")")
		}
		ast, iss := env.Compile(strings.Join(conj, " && "))
		if iss.Err() != nil {
			tb.Fatalf("%s: %v", r.Name, iss.Err())
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			tb.Fatal(err)
		}
		o.progs = append(o.progs, prg)
		o.shadow = append(o.shadow, r.Mode == ruleset.Shadow)
	}
	return o
}

func (o *oneByOne) classify(in *classify.Input) int {
	e := map[string]any{"message": in.Error.Message, "type": in.Error.Type, "retryAfter": in.Error.RetryAfter,
		"attributes": in.Error.Attributes}
	if in.Error.Details != nil {
		e["details"] = in.Error.Details
	}
	if in.Error.HTTPStatus != nil {
		e["httpStatus"] = int64(*in.Error.HTTPStatus)
	}
	if in.Error.GRPCCode != nil {
		e["grpcCode"] = int64(*in.Error.GRPCCode)
	}
	if in.Error.JSONRPCCode != nil {
		e["jsonrpcCode"] = int64(*in.Error.JSONRPCCode)
	}
	vars := map[string]any{"tool": in.Tool, "server": in.Server, "error": e, "toolAnnotations": map[string]bool{}}
	for i, p := range o.progs {
		v, _, err := p.Eval(vars)
		if err == nil && v == types.True && !o.shadow[i] {
			return i
		}
	}
	return -1
}

// BenchmarkMatch measures the tenant rules alone, the engine's job, beside
// the same rules evaluated one by one. BenchmarkClassifyWithBaseline adds
// the built-in baseline pack that runs when no tenant rule decides.
func BenchmarkMatch(b *testing.B) {
	now := time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{10, 100, 1000} {
		rules := benchRules(n)
		set, err := ruleset.Compile(1, rules)
		if err != nil {
			b.Fatal(err)
		}
		inputs := benchInputs(n)
		b.Run(fmt.Sprintf("rules=%d/engine", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_, _ = set.Match(inputs[i%len(inputs)], now)
				i++
			}
		})
		b.Run(fmt.Sprintf("rules=%d/one-by-one", n), func(b *testing.B) {
			base := newOneByOne(b, set)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_ = base.classify(inputs[i%len(inputs)])
				i++
			}
		})
	}
}

func BenchmarkClassifyWithBaseline(b *testing.B) {
	now := time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)
	set, err := ruleset.Compile(1, benchRules(1000))
	if err != nil {
		b.Fatal(err)
	}
	inputs := benchInputs(1000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = set.Classify(inputs[i%len(inputs)], now)
		i++
	}
}

// BenchmarkCompile reports the cost of compiling a set, and the memory one
// compiled rule holds (bytes/rule, live heap after a GC).
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{100, 1000} {
		rules := benchRules(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ruleset.Compile(1, rules); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(liveBytesPerRule(b, rules)), "bytes/rule")
		})
	}
}

func liveBytesPerRule(tb testing.TB, rules []ruleset.Rule) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	set, err := ruleset.Compile(1, rules)
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(set)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return (after.HeapAlloc - before.HeapAlloc) / uint64(len(rules))
}

// BenchmarkBaselineStages prices each stage of a tenant without rules on
// a mix of common errors: the generic rules alone, with the text model
// (the default engine), and the whole baseline with its packs.
func BenchmarkBaselineStages(b *testing.B) {
	now := time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)
	inputs := []*classify.Input{
		{Tool: "send_email", Error: classify.RawError{Message: "upstream returned 503 Service Unavailable", HTTPStatus: i32(503), RetryAfter: "30"}},
		{Tool: "read_file", Error: classify.RawError{Message: "ENOENT: no such file or directory, open '/srv/data/report.csv'", Type: "ENOENT"}},
		{Tool: "query", Error: classify.RawError{Message: "could not serialize access due to concurrent update", Attributes: map[string]string{"db.response.status_code": "40001"}}},
		{Tool: "create_issue", Error: classify.RawError{Message: "Bad credentials", HTTPStatus: i32(401), Details: map[string]any{"documentation_url": "https://docs.example.com/rest"}}},
		{Tool: "fetch_url", Error: classify.RawError{Message: "read tcp 10.0.0.5:443: connection reset by peer", Type: "ECONNRESET"}},
		{Tool: "charge_card", Error: classify.RawError{Message: "java.net.SocketTimeoutException: Read timed out", Type: "java.net.SocketTimeoutException"}},
		{Tool: "list_repos", Error: classify.RawError{Message: "API rate limit exceeded", HTTPStatus: i32(429)}},
		{Tool: "run", Error: classify.RawError{Message: "cp: невозможно создать обычный файл '/etc/app.conf': Отказано в доступе"}},
	}
	var none *ruleset.Set
	rulesOnly := classify.NewEngine(nil, 0)
	stages := []struct {
		name string
		fn   func(in *classify.Input)
	}{
		{"generic-rules", func(in *classify.Input) { rulesOnly.Classify(in, now) }},
		{"with-model", func(in *classify.Input) { classify.DefaultEngine().Classify(in, now) }},
		{"with-packs", func(in *classify.Input) { none.Classify(in, now) }},
	}
	none.Classify(inputs[0], now) // compile the packs outside the timing
	for _, st := range stages {
		b.Run(st.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				st.fn(inputs[i%len(inputs)])
				i++
			}
		})
	}
	// In the service a classification runs between the decoding of a request, its record and
	// its answer, which evict most of what it had in the processor's caches: the same stages with
	// 1 MiB of other memory touched before each call, only the call timed (classify-ns/op).
	evict := make([]byte, 8<<20)
	for _, st := range stages {
		b.Run(st.name+"/evicted", func(b *testing.B) {
			var spent time.Duration
			i, off := 0, 0
			for b.Loop() {
				for k := 0; k < 1<<20; k += 64 {
					evict[(off+k)%len(evict)]++
				}
				off += 1 << 20
				t0 := time.Now()
				st.fn(inputs[i%len(inputs)])
				spent += time.Since(t0)
				i++
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "classify-ns/op")
		})
	}
}
