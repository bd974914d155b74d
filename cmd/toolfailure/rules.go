package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/omcp/toolfailure/classify"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/ruleset"
	"github.com/omcp/toolfailure/server"
)

const rulesUsage = `usage:
  toolfailure rules apply -f rules.yaml [--dry-run] [--server URL --key KEY]
      replace the tenant's whole rule set with the file's, atomically, and print what changed
  toolfailure rules export [-o rules.yaml] [--server URL --key KEY]
      write the tenant's rule set in the rules file format
  toolfailure rules export --baseline [-o packs.yaml]
      write the built-in baseline packs (offline); a tenant rule with a pack rule's name replaces it
  toolfailure rules test -f rules.yaml --case case.json [--case …] [--json]
      run cases against the file's rules offline, without a server, and explain each decision`

// runRules is the rule author's command. apply and export talk to a running
// service; test needs none, so that rules can be tested in CI before they
// are applied.
func runRules(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stderr, rulesUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "apply":
		return runRulesApply(ctx, args[1:], stdout, stderr)
	case "export":
		return runRulesExport(ctx, args[1:], stdout, stderr)
	case "test":
		return runRulesTest(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "toolfailure rules: unknown subcommand %q\n\n%s\n", args[0], rulesUsage)
	return 2
}

// loadRulesFile reads and compiles a rules file, printing every problem as
// FILE:LINE:COL: rules[i] "name": field: … on stderr.
func loadRulesFile(path string, stderr io.Writer) (*ruleset.File, *ruleset.Set, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "toolfailure rules: %v\n", err)
		return nil, nil, false
	}
	f, err := ruleset.ParseFile(data)
	if err != nil {
		printRuleProblems(stderr, path, err)
		return nil, nil, false
	}
	set, err := ruleset.Compile(0, f.Rules)
	if err != nil {
		f.Locate(err)
		printRuleProblems(stderr, path, err)
		return nil, nil, false
	}
	return f, set, true
}

func printRuleProblems(w io.Writer, path string, err error) {
	var invalid *ruleset.InvalidError
	if !errors.As(err, &invalid) {
		fmt.Fprintf(w, "%s: %v\n", path, err)
		return
	}
	for _, p := range invalid.Problems {
		switch {
		case p.FileLine > 0 && p.FileColumn > 0:
			fmt.Fprintf(w, "%s:%d:%d: %s\n", path, p.FileLine, p.FileColumn, p)
		case p.FileLine > 0:
			fmt.Fprintf(w, "%s:%d: %s\n", path, p.FileLine, p)
		default:
			fmt.Fprintf(w, "%s: %s\n", path, p)
		}
	}
	if more := invalid.Total - len(invalid.Problems); more > 0 {
		fmt.Fprintf(w, "%s: … and %d more problems\n", path, more)
	}
	fmt.Fprintf(w, "%s: %d invalid; nothing was changed\n", path, invalid.Total)
}

func runRulesApply(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules apply", flag.ContinueOnError)
	cf := addClientFlags(fs)
	file := fs.String("f", "", "the rules file (YAML)")
	dryRun := fs.Bool("dry-run", false, "print what would change, change nothing")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *file == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: toolfailure rules apply -f rules.yaml [--dry-run]")
		return 2
	}
	f, _, ok := loadRulesFile(*file, stderr)
	if !ok {
		return 1
	}
	client, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules apply:", err)
		return 2
	}
	svc := toolfailurev1connect.NewRuleServiceClient(client)
	req := &v1.ReplaceRulesRequest{Rules: make([]*v1.Rule, len(f.Rules)), DryRun: true}
	for i, r := range f.Rules {
		req.Rules[i] = ruleset.ToProto(r)
	}
	// First a dry run, to show the diff against the set as it is now; then
	// the apply, on condition that the set is still at that version, so
	// that what is applied is exactly the diff that was shown.
	plan, err := svc.ReplaceRules(ctx, req)
	if err != nil {
		return applyError(stderr, *file, err)
	}
	changed := printChanges(stdout, plan.GetChanges())
	if !changed {
		fmt.Fprintf(stdout, "no changes; the rule set stays at version %d\n", plan.GetVersion())
		return 0
	}
	if *dryRun {
		fmt.Fprintf(stdout, "dry run: nothing applied; the rule set is at version %d\n", plan.GetVersion())
		return 0
	}
	req.DryRun = false
	req.ExpectedVersion = &plan.Version
	res, err := svc.ReplaceRules(ctx, req)
	if err != nil {
		return applyError(stderr, *file, err)
	}
	fmt.Fprintf(stdout, "applied: the rule set is at version %d\n", res.GetVersion())
	return 0
}

func applyError(stderr io.Writer, file string, err error) int {
	var cerr *connect.Error
	if errors.As(err, &cerr) {
		switch cerr.Code() {
		case connect.CodeInvalidArgument:
			for _, line := range strings.Split(cerr.Message(), "\n") {
				fmt.Fprintf(stderr, "%s: %s\n", file, line)
			}
			fmt.Fprintf(stderr, "%s: refused by the service; nothing was changed\n", file)
			return 1
		case connect.CodeAborted:
			fmt.Fprintf(stderr, "toolfailure rules apply: %s\nnothing was changed; run the command again to see the new diff\n", cerr.Message())
			return 1
		}
	}
	fmt.Fprintln(stderr, "toolfailure rules apply:", err)
	return 1
}

// printChanges prints the diff, changed rules first, and reports whether
// anything changes.
func printChanges(w io.Writer, changes []*v1.RuleChange) bool {
	marks := map[string]string{"added": "+", "removed": "-", "changed": "~"}
	unchanged := 0
	for _, c := range changes {
		if m, ok := marks[c.GetChange()]; ok {
			fmt.Fprintf(w, "%s %s (%s)\n", m, c.GetName(), c.GetChange())
		} else {
			unchanged++
		}
	}
	if unchanged > 0 {
		fmt.Fprintf(w, "  %d unchanged\n", unchanged)
	}
	return unchanged < len(changes)
}

func runRulesExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules export", flag.ContinueOnError)
	cf := addClientFlags(fs)
	out := fs.String("o", "", "write to this file instead of standard output")
	baseline := fs.Bool("baseline", false, "write the built-in baseline packs instead of the tenant's rules (no server needed)")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: toolfailure rules export [--baseline] [-o rules.yaml]")
		return 2
	}
	if *baseline {
		return writeExport(baselineExport(), *out, stdout, stderr)
	}
	client, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules export:", err)
		return 2
	}
	res, err := toolfailurev1connect.NewRuleServiceClient(client).ListRules(ctx, &v1.ListRulesRequest{})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules export:", err)
		return 1
	}
	rules := make([]ruleset.Rule, len(res.GetRules()))
	for i, r := range res.GetRules() {
		rules[i] = ruleset.FromProto(r)
	}
	body, err := ruleset.FormatFile(rules)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules export:", err)
		return 1
	}
	doc := fmt.Sprintf("# Rule set version %d, in evaluation order. Apply with: toolfailure rules apply -f FILE\n%s", res.GetVersion(), body)
	return writeExport(doc, *out, stdout, stderr)
}

// writeExport writes an export to the file, or to standard output when
// the file is empty.
func writeExport(doc, out string, stdout, stderr io.Writer) int {
	var err error
	if out == "" {
		_, err = io.WriteString(stdout, doc)
	} else {
		err = os.WriteFile(out, []byte(doc), 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules export:", err)
		return 1
	}
	return 0
}

// baselineExport is every baseline pack as its file says it, one after
// the other, each under a heading that names it. Together they are one
// valid rules file: a tenant may copy a rule, keep its name to replace the
// pack's, and apply it.
func baselineExport() string {
	var b strings.Builder
	b.WriteString("# The built-in baseline packs, evaluated after the tenant's rules and before the generic baseline\n")
	b.WriteString("# (status codes, Retry-After, gRPC, JSON-RPC, SQLSTATE, errno, the text model). A tenant rule with\n")
	b.WriteString("# the same name as a pack rule replaces it.\nrules:\n")
	for _, p := range ruleset.BaselinePacks() {
		fmt.Fprintf(&b, "\n# --- pack %s ---\n", p.Name)
		for _, line := range strings.Split(strings.TrimRight(string(p.Source), "\n"), "\n") {
			if strings.HasPrefix(line, "rules:") {
				continue
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// testCase is a case file: a ClassifyRequest as sent to the service, or a
// request with the outcome it must get.
type testCase struct {
	Request json.RawMessage `json:"request"`
	Expect  *struct {
		Class  string `json:"class"`
		Code   string `json:"code"`
		RuleID string `json:"ruleId"`
	} `json:"expect"`
}

func runRulesTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules test", flag.ContinueOnError)
	file := fs.String("f", "", "the rules file (YAML)")
	var cases stringList
	fs.Var(&cases, "case", "a case file: a ClassifyRequest as JSON, or {\"request\": …, \"expect\": {\"class\", \"code\", \"ruleId\"}} (repeatable)")
	asJSON := fs.Bool("json", false, "print each explanation as JSON")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *file == "" || len(cases) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: toolfailure rules test -f rules.yaml --case case.json [--case …] [--json]")
		return 2
	}
	_, set, ok := loadRulesFile(*file, stderr)
	if !ok {
		return 1
	}
	now := time.Now()
	code := 0
	for _, path := range cases {
		in, tc, err := readCase(path)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", path, err)
			code = 1
			continue
		}
		ex := set.Explain(in, now)
		if *asJSON {
			if printExplanationJSON(stdout, stderr, path, ex) != 0 {
				code = 1
			}
		} else {
			printExplanation(stdout, path, ex)
		}
		if tc.Expect != nil {
			e := tc.Expect
			if (e.Class != "" && e.Class != string(ex.Class)) || (e.Code != "" && e.Code != ex.Code) || (e.RuleID != "" && e.RuleID != ex.RuleID) {
				fmt.Fprintf(stderr, "%s: FAIL: got %s/%s by %s, expected %s/%s by %s\n", path, ex.Class, ex.Code, ex.RuleID,
					orAny(e.Class), orAny(e.Code), orAny(e.RuleID))
				code = 1
			} else {
				fmt.Fprintf(stdout, "%s: ok\n", path)
			}
		}
	}
	return code
}

func orAny(s string) string {
	if s == "" {
		return "(any)"
	}
	return s
}

func readCase(path string) (*classify.Input, testCase, error) {
	var tc testCase
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, tc, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, tc, fmt.Errorf("not a JSON object: %w", err)
	}
	raw := json.RawMessage(data)
	if _, wrapped := probe["request"]; wrapped {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tc); err != nil {
			return nil, tc, fmt.Errorf("case: %w", err)
		}
		raw = tc.Request
	}
	req := &v1.ClassifyRequest{}
	if err := protojson.Unmarshal(raw, req); err != nil {
		return nil, tc, fmt.Errorf("request: %w", err)
	}
	if req.GetTool() == "" {
		return nil, tc, errors.New("request: tool is required")
	}
	return server.ClassifyInput(req), tc, nil
}

func printExplanation(w io.Writer, path string, ex ruleset.Explanation) {
	fmt.Fprintf(w, "%s: %s / %s, decided by %s\n", path, ex.Class, ex.Code, ex.RuleID)
	if ex.Retryable {
		fmt.Fprintf(w, "  retryable")
		if !ex.RetryNotBefore.IsZero() {
			fmt.Fprintf(w, ", not before %s", ex.RetryNotBefore.UTC().Format(time.RFC3339))
		}
		fmt.Fprintln(w)
	}
	if ex.AgentGuidance != "" {
		fmt.Fprintf(w, "  guidance: %s\n", ex.AgentGuidance)
	}
	fmt.Fprintf(w, "  why: %s\n", ex.Reason)
	for _, s := range ex.Shadows {
		fmt.Fprintf(w, "  shadow: %s would give %s / %s\n", s.RuleID, s.Outcome.Class, s.Outcome.Code)
	}
	for _, ev := range ex.Evaluations {
		// The baseline's rules that were not reached, or did not match,
		// say nothing about the file; only its decision is shown.
		if ev.Source == ruleset.SourceBaseline && !(ev.Matched && ev.RuleID == ex.RuleID) {
			continue
		}
		mark := "✗"
		if ev.Matched {
			mark = "✓"
		}
		fmt.Fprintf(w, "  %s %s [%s, %s]: %s\n", mark, ev.RuleID, ev.Source, ev.Mode, ev.Detail)
	}
}

func printExplanationJSON(stdout, stderr io.Writer, path string, ex ruleset.Explanation) int {
	type evaluation struct {
		RuleID  string `json:"ruleId"`
		Source  string `json:"source"`
		Mode    string `json:"mode"`
		Matched bool   `json:"matched"`
		Detail  string `json:"detail"`
	}
	out := struct {
		Case        string         `json:"case"`
		Meta        map[string]any `json:"meta"`
		RuleID      string         `json:"ruleId"`
		Reason      string         `json:"reason"`
		Shadows     []string       `json:"shadows,omitempty"`
		Evaluations []evaluation   `json:"evaluations"`
	}{Case: path, RuleID: ex.RuleID, Reason: ex.Reason,
		// The service issues the correlation ID; an offline test has none.
		Meta: map[string]any{classify.MetaKey: ex.Meta("tf_(issued by the service)")}}
	for _, s := range ex.Shadows {
		out.Shadows = append(out.Shadows, s.RuleID)
	}
	for _, ev := range ex.Evaluations {
		out.Evaluations = append(out.Evaluations, evaluation{ev.RuleID, ev.Source, string(ev.Mode), ev.Matched, ev.Detail})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure rules test:", err)
		return 1
	}
	fmt.Fprintln(stdout, string(b))
	return 0
}
