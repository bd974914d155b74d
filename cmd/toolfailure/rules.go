package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
	"github.com/omcp/toolfailure/server"
)

// newRulesCmd is the rule author's command. apply and export talk to a
// running service; test needs none, so that rules can be tested in CI
// before they are applied.
func newRulesCmd() *cobra.Command {
	c := groupCmd("rules", "Manage a tenant's rules: apply, export, suggest, test (offline)",
		`  toolfailure rules test -f rules.yaml --case case.json
  toolfailure rules apply -f rules.yaml --dry-run
  toolfailure rules export -o current.yaml
  toolfailure rules suggest 3f9a0c1d2e4b5a68`,
		newRulesApplyCmd(), newRulesExportCmd(), newRulesTestCmd(), newRulesSuggestCmd())
	return c
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

func newRulesApplyCmd() *cobra.Command {
	var (
		cf     clientFlags
		file   string
		dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "apply -f rules.yaml [flags]",
		Short: "Replace the tenant's whole rule set with a file's, atomically",
		Long: `Replace the tenant's whole rule set with the file's, atomically, and print what changed.
The file is checked first (every problem is printed as FILE:LINE:COL). A dry run against the
service shows the diff; the apply then happens only if the set is still at the version that
diff was made from, so what is applied is exactly what was shown. Needs the rules scope.`,
		Example: `  toolfailure rules apply -f rules.yaml --dry-run
  toolfailure rules apply -f rules.yaml --server https://toolfailure.example.com`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usageErrorf("-f FILE is required (usage: %s)", cmd.UseLine())
			}
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			f, _, ok := loadRulesFile(file, stderr)
			if !ok {
				return exitSilently(1)
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			svc := toolfailurev1connect.NewRuleServiceClient(client)
			req := &v1.ReplaceRulesRequest{Rules: make([]*v1.Rule, len(f.Rules)), DryRun: true}
			for i, r := range f.Rules {
				req.Rules[i] = ruleset.ToProto(r)
			}
			// First a dry run, to show the diff against the set as it is now; then
			// the apply, on condition that the set is still at that version, so
			// that what is applied is exactly the diff that was shown.
			bar := newProgress(stderr, fmt.Sprintf("comparing %d rules with the service", len(f.Rules)), 0)
			plan, err := svc.ReplaceRules(cmd.Context(), req)
			bar.Done()
			if err != nil {
				return applyError(stderr, file, err)
			}
			changed := printChanges(stdout, plan.GetChanges())
			if !changed {
				fmt.Fprintf(stdout, "no changes; the rule set stays at version %d\n", plan.GetVersion())
				return nil
			}
			if dryRun {
				fmt.Fprintf(stdout, "dry run: nothing applied; the rule set is at version %d\n", plan.GetVersion())
				return nil
			}
			req.DryRun = false
			req.ExpectedVersion = &plan.Version
			bar = newProgress(stderr, fmt.Sprintf("applying %d rules", len(f.Rules)), 0)
			res, err := svc.ReplaceRules(cmd.Context(), req)
			bar.Done()
			if err != nil {
				return applyError(stderr, file, err)
			}
			fmt.Fprintf(stdout, "applied: the rule set is at version %d\n", res.GetVersion())
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.StringVarP(&file, "file", "f", "", "the rules file (YAML)")
	fs.BoolVar(&dryRun, "dry-run", false, "print what would change, change nothing")
	_ = cmd.MarkFlagFilename("file", "yaml", "yml")
	return cmd
}

func applyError(stderr io.Writer, file string, err error) error {
	var cerr *connect.Error
	if errors.As(err, &cerr) {
		switch cerr.Code() {
		case connect.CodeInvalidArgument:
			for _, line := range strings.Split(cerr.Message(), "\n") {
				fmt.Fprintf(stderr, "%s: %s\n", file, line)
			}
			fmt.Fprintf(stderr, "%s: refused by the service; nothing was changed\n", file)
			return exitSilently(1)
		case connect.CodeAborted:
			return failedf("%s; nothing was changed: run the command again to see the new diff", cerr.Message())
		}
	}
	return failed(err)
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

func newRulesExportCmd() *cobra.Command {
	var (
		cf       clientFlags
		out      string
		baseline bool
	)
	cmd := &cobra.Command{
		Use:   "export [-o rules.yaml] [flags]",
		Short: "Write the tenant's rule set, or the baseline packs, as a rules file",
		Long: `Write the tenant's rule set in the rules file format, in evaluation order, to stdout or to
the file -o names; "rules apply" of the export changes nothing. With --baseline it writes the
built-in baseline packs instead (offline, no server): a tenant rule with a pack rule's name
replaces it.`,
		Example: `  toolfailure rules export > current.yaml
  toolfailure rules export -o current.yaml --server https://toolfailure.example.com
  toolfailure rules export --baseline -o packs.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := cmd.OutOrStdout()
			if baseline {
				return writeExport(baselineExport(), out, stdout)
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			res, err := toolfailurev1connect.NewRuleServiceClient(client).ListRules(cmd.Context(), &v1.ListRulesRequest{})
			if err != nil {
				return failed(err)
			}
			rules := make([]ruleset.Rule, len(res.GetRules()))
			for i, r := range res.GetRules() {
				rules[i] = ruleset.FromProto(r)
			}
			body, err := ruleset.FormatFile(rules)
			if err != nil {
				return failed(err)
			}
			doc := fmt.Sprintf("# Rule set version %d, in evaluation order. Apply with: toolfailure rules apply -f FILE\n%s", res.GetVersion(), body)
			return writeExport(doc, out, stdout)
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	fs.BoolVar(&baseline, "baseline", false, "write the built-in baseline packs instead of the tenant's rules (no server needed)")
	return cmd
}

// writeExport writes an export to the file, or to standard output when
// the file is empty.
func writeExport(doc, out string, stdout io.Writer) error {
	var err error
	if out == "" {
		_, err = io.WriteString(stdout, doc)
	} else {
		err = os.WriteFile(out, []byte(doc), 0o644)
	}
	if err != nil {
		return failed(err)
	}
	return nil
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

func newRulesTestCmd() *cobra.Command {
	var (
		file  string
		cases []string
		out   *outputFlags
	)
	cmd := &cobra.Command{
		Use:   "test -f rules.yaml --case case.json [--case …] [flags]",
		Short: "Run cases against a rules file offline and explain each decision",
		Long: `Run cases against the file's rules offline, without a server, and explain each decision:
the outcome, the rule that decided, why, and the rules that were tried. A case file is a
ClassifyRequest as JSON, or {"request": …, "expect": {"class", "code", "ruleId"}}; a case
whose outcome differs from its expect fails (exit status 1).`,
		Example: `  toolfailure rules test -f rules.yaml --case case.json
  toolfailure rules test -f rules.yaml --case a.json --case b.json --output json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			if file == "" || len(cases) == 0 {
				return usageErrorf("-f FILE and at least one --case are required (usage: %s)", cmd.UseLine())
			}
			if code := rulesTest(file, cases, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitSilently(code)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&file, "file", "f", "", "the rules file (YAML)")
	fs.StringArrayVar(&cases, "case", nil, "a case file: a ClassifyRequest as JSON, or {\"request\": …, \"expect\": {\"class\", \"code\", \"ruleId\"}} (repeatable)")
	out = addOutputFlags(fs)
	completeWords(cmd, "output", "text", "json")
	_ = cmd.MarkFlagFilename("file", "yaml", "yml")
	_ = cmd.MarkFlagFilename("case", "json")
	return cmd
}

func rulesTest(file string, cases []string, asJSON bool, stdout, stderr io.Writer) int {
	_, set, ok := loadRulesFile(file, stderr)
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
		if asJSON {
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
