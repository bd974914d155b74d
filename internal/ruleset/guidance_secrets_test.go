package ruleset_test

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/redact"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// A rule's guidance template copies request fields into the _meta that the
// agent receives and into the stored record. Every interpolated value must
// be redacted exactly as the record's own fields are: a test for every kind
// of secret in every template field that can carry one.
func TestGuidanceTemplatesRedactEverySecret(t *testing.T) {
	t.Parallel()
	// Fake credentials shaped like real ones, assembled at run time so that
	// secret scanners do not flag this file. secret is the part that must
	// not appear in the guidance.
	secrets := []struct{ kind, text, secret string }{
		{"private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo"},
		{"authorization", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"},
		{"cookie", "Cookie: sid=31d4d96e407aad42", "31d4d96e407aad42"},
		{"bearer_token", "bearer " + "a1b2c3d4e5f6g7h8", "a1b2c3d4e5f6g7h8"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"},
		{"github_token", "ghp_" + "R4nd0mL00k1ngT0k3nF0rT3st1ngOnly0123", "R4nd0mL00k1ngT0k3n"},
		{"slack_token", "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOp"},
		{"slack_webhook", "https://hooks.slack.com/services/" + "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXX"},
		{"stripe_key", "sk_" + "live_51HqLyjWDarjtT1zdp7dcXoz0Yy9xR", "51HqLyjWDarjtT1zdp7"},
		{"aws_access_key_id", "AKIA" + "IOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"},
		{"aws_secret_access_key", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"},
		{"anthropic_api_key", "sk-ant-" + "api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f", "Zx9yW8vU7tS6rQ5p"},
		{"openai_api_key", "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c", "Ab3dEf6hIj9kLm2n"},
		{"google_api_key", "AIza" + "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "SyDdI0hCZtE6vySjMm"},
		{"url_password", "postgres://app:" + "s3cr3tpa55@db.internal:5432/app", "s3cr3tpa55"},
		{"secret_field", "password=" + "hunter2horse", "hunter2horse"},
	}
	kinds := map[string]bool{}
	for _, p := range redact.Patterns() {
		kinds[p.Kind] = true
	}
	for _, s := range secrets {
		if !kinds[s.kind] {
			t.Fatalf("%s is not a redaction kind", s.kind)
		}
		delete(kinds, s.kind)
		if got := redact.String(s.text); strings.Contains(got, s.secret) {
			t.Fatalf("%s: the sample is not one the redactor removes: %q", s.kind, got)
		}
	}
	for k := range kinds {
		t.Errorf("redaction kind %s has no sample here", k)
	}
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
			f.set(in, s.text)
			res := set.Classify(in, now)
			if strings.Contains(res.AgentGuidance, s.secret) || !strings.Contains(res.AgentGuidance, "[REDACTED:") {
				t.Errorf("{{%s}} with a %s: guidance %q", f.placeholder, s.kind, res.AgentGuidance)
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
