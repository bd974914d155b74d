package ruleset_test

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/redact/redacttest"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// A rule's guidance template copies request fields into the _meta that the
// agent receives and into the stored record. Every interpolated value must
// be redacted exactly as the record's own fields are: a test for every kind
// of secret in every template field that can carry one.
func TestGuidanceTemplatesRedactEverySecret(t *testing.T) {
	t.Parallel()
	secrets := redacttest.Samples(t)
	fields := []struct {
		placeholder string
		set         func(in *classify.Input, v string)
	}{
		{"tool", func(in *classify.Input, v string) { in.Tool = v }},
		{"server", func(in *classify.Input, v string) { in.Server = v }},
		{"error.type", func(in *classify.Input, v string) { in.Error.Type = v }},
		{"error.retryAfter", func(in *classify.Input, v string) { in.Error.RetryAfter = v }},
		{"error.attributes.note", func(in *classify.Input, v string) { in.Error.Attributes = map[string]string{"note": v} }},
		{"error.details.info", func(in *classify.Input, v string) { in.Error.Details = map[string]any{"info": v} }},
		{"error.details.list.0", func(in *classify.Input, v string) { in.Error.Details = map[string]any{"list": []any{v}} }},
	}
	for _, f := range fields {
		set := compile(t, ruleset.Rule{Name: "r", When: "true", Then: ruleset.Outcome{Class: classify.Capability, Code: "x",
			AgentGuidance: "Value: {{" + f.placeholder + "}}."}})
		for _, s := range secrets {
			in := &classify.Input{Tool: "t", Error: classify.RawError{Message: "m"}}
			f.set(in, s.Text)
			res := set.Classify(in, now)
			if strings.Contains(res.AgentGuidance, s.Secret) || !strings.Contains(res.AgentGuidance, "[REDACTED:") {
				t.Errorf("{{%s}} with a %s: guidance %q", f.placeholder, s.Kind, res.AgentGuidance)
			}
		}
	}
	// A value under a key that names a secret is replaced whole, as the
	// record replaces it, whatever its shape, however deep the path.
	for _, tc := range []struct {
		placeholder string
		details     map[string]any
		attrs       map[string]string
	}{
		{"error.details.password", map[string]any{"password": "plain words"}, nil},
		{"error.details.auth.value", map[string]any{"auth": map[string]any{"value": "plain words"}}, nil},
		{"error.details.credentials.pin", map[string]any{"credentials": map[string]any{"pin": 482913.0}}, nil},
		{"error.attributes.api_key", nil, map[string]string{"api_key": "plain words"}},
	} {
		set := compile(t, ruleset.Rule{Name: "r", When: "true", Then: ruleset.Outcome{Class: classify.Capability, Code: "x",
			AgentGuidance: "Value: {{" + tc.placeholder + "}}."}})
		res := set.Classify(&classify.Input{Tool: "t", Error: classify.RawError{Message: "m", Details: tc.details, Attributes: tc.attrs}}, now)
		if want := "Value: " + redact.Marker(redact.KindField) + "."; res.AgentGuidance != want {
			t.Errorf("{{%s}}: guidance %q, want %q", tc.placeholder, res.AgentGuidance, want)
		}
	}
}
