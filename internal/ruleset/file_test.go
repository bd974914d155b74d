package ruleset_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/ruleset"
)

const exampleFile = `rules:
  - name: mail-needs-confirmation          # unique per tenant
    priority: 100
    mode: enforce
    tool: "send_*"
    httpStatus: [409, 422]
    messageMatches: "(?i)confirm"
    when: 'error.details.structuredContent.reason_code == "explicit_production_confirmation_required"'
    then:
      class: governance
      code: user_action_required
      agentGuidance: "Ask the user to confirm the production send, then call again."
  - name: upstream-busy
    priority: 10
    mode: shadow
    jsonrpcCode: [-32001]
    when: |
      has(error.details.data.code)
        && error.details.data.code == "BUSY"
    then:
      class: reliability
      code: retryable_transient_error
      retryable: true
      retryAfter: 30s
`

func TestParseFile(t *testing.T) {
	t.Parallel()
	f, err := ruleset.ParseFile([]byte(exampleFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rules) != 2 {
		t.Fatalf("%d rules", len(f.Rules))
	}
	r := f.Rules[0]
	if r.Name != "mail-needs-confirmation" || r.Priority != 100 || r.Tool != "send_*" ||
		!reflect.DeepEqual(r.HTTPStatus, []int32{409, 422}) || r.Then.Code != "user_action_required" {
		t.Fatalf("rule 0 = %+v", r)
	}
	r = f.Rules[1]
	if r.Mode != ruleset.Shadow || r.JSONRPCCode[0] != -32001 || !*r.Then.Retryable || r.Then.RetryAfter != "30s" {
		t.Fatalf("rule 1 = %+v", r)
	}
	if _, err := ruleset.Compile(0, f.Rules); err != nil {
		t.Fatal(err)
	}
	if got := f.Line(1, "then.retryAfter"); got != 24 {
		t.Fatalf("line of rules[1].then.retryAfter = %d, want 24", got)
	}
}

// FormatFile writes what ParseFile reads back unchanged, and the proto form
// round-trips too: the file, the API and the store hold the same rules.
func TestFormatFileRoundTrip(t *testing.T) {
	t.Parallel()
	f, err := ruleset.ParseFile([]byte(exampleFile))
	if err != nil {
		t.Fatal(err)
	}
	out, err := ruleset.FormatFile(f.Rules)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ruleset.ParseFile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for i := range f.Rules {
		want := f.Rules[i]
		if !reflect.DeepEqual(want, again.Rules[i]) {
			t.Fatalf("rule %d after FormatFile:\n got %+v\nwant %+v\n%s", i, again.Rules[i], want, out)
		}
		if got := ruleset.FromProto(ruleset.ToProto(want)); !reflect.DeepEqual(got, want) {
			t.Fatalf("rule %d after the proto round trip:\n got %+v\nwant %+v", i, got, want)
		}
	}
}

func TestParseFileProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", "the file is empty; write `rules: []`"},
		{"no rules key", "rule: []\n", `1:1: rules: unknown key "rule"`},
		{"not yaml", "rules: [\n", "did not find expected node content"},
		{"unknown field", "rules:\n  - name: a\n    thn: {}\n", `3:5: rules[0] "a": thn: unknown field; known: name, priority`},
		{"unknown outcome field", "rules:\n  - name: a\n    then: {class: governance, kode: x}\n", `3:31: rules[0] "a": then.kode: unknown field`},
		{"priority not an integer", "rules:\n  - name: a\n    priority: high\n", `3:15: rules[0] "a": priority: want an integer`},
		{"priority too large", "rules:\n  - name: a\n    priority: 99999999999\n", `rules[0] "a": priority: 99999999999 is not a 32-bit integer`},
		{"status list of strings", "rules:\n  - name: a\n    httpStatus: [\"409\"]\n", `3:18: rules[0] "a": httpStatus: want an integer`},
		{"status not a list", "rules:\n  - name: a\n    httpStatus: 409\n", `rules[0] "a": httpStatus: want a list of integers`},
		{"retryable not a bool", "rules:\n  - name: a\n    then: {retryable: yes}\n", `rules[0] "a": then.retryable: want true or false`},
		{"bare retryAfter", "rules:\n  - name: a\n    then: {retryAfter: 30}\n", `then.retryAfter: 30: a bare number is ambiguous; write a duration such as 30s`},
		{"rule not a mapping", "rules:\n  - just a string\n", `2:5: rules[0]: want a mapping`},
		{"rules not a list", "rules: {a: 1}\n", `1:8: rules: want a list of rules`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ruleset.ParseFile([]byte(tt.file))
			var invalid *ruleset.InvalidError
			if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if f, err := ruleset.ParseFile([]byte("rules: []\n")); err != nil || len(f.Rules) != 0 {
		t.Fatalf("rules: [] = %v, %v; want an empty set", f, err)
	}
}

// A problem that Compile finds is located at the line of the file, inside a
// multi-line condition too.
func TestLocateCompileProblems(t *testing.T) {
	t.Parallel()
	src := strings.Replace(exampleFile, `error.details.data.code == "BUSY"`, `error.details.data.code == BUSY`, 1)
	f, err := ruleset.ParseFile([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ruleset.Compile(0, f.Rules)
	f.Locate(err)
	var invalid *ruleset.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("error = %v", err)
	}
	p := invalid.Problems[0]
	if p.FileLine != 19 || p.Line != 2 || p.Error() != `rules[1] "upstream-busy": when: 2:33: undeclared reference to 'BUSY'` {
		t.Fatalf("problem = %q at file line %d", p.Error(), p.FileLine)
	}
}
