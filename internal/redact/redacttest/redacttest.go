// Package redacttest holds fake credentials of every kind the redactor
// knows, for tests that check that a path of the service never keeps or
// sends a secret. The samples are shaped like real credentials and
// assembled at run time, so that secret scanners do not flag the source.
package redacttest

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/redact"
)

// Sample is one fake credential: Text is how it appears in an error, and
// Secret the part that must never be kept or sent.
type Sample struct {
	Kind, Text, Secret string
}

// Samples returns one sample of every redaction kind, and fails t when a
// kind has none or a sample is not one the redactor removes, so that a
// new kind cannot go untested.
func Samples(t testing.TB) []Sample {
	t.Helper()
	samples := []Sample{
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
	for _, s := range samples {
		if !kinds[s.Kind] {
			t.Fatalf("redacttest: %s is not a redaction kind", s.Kind)
		}
		delete(kinds, s.Kind)
		if strings.Contains(redact.String(s.Text), s.Secret) {
			t.Fatalf("redacttest: the %s sample is not one the redactor removes", s.Kind)
		}
	}
	for k := range kinds {
		t.Fatalf("redacttest: redaction kind %s has no sample", k)
	}
	return samples
}
