package server_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// Every field a caller sends is redacted before it is stored, the tool's
// name, the server's label and the raw Retry-After value included: what
// GetFailure returns holds no secret that the redactor would remove.
func TestStoredFieldsAreRedacted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	token := "ghp_" + "R4nd0mL00k1ngT0k3nF0rT3st1ngOnly0123"
	res, err := b.classifier(b.allKey).Classify(ctx, &v1.ClassifyRequest{
		Tool:   "call-" + token,
		Server: "mcp-" + token,
		Error:  &v1.RawError{Message: "boom", RetryAfter: token},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.failures(b.lookupKey).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: res.GetToolFailure().GetCorrelationId()})
	if err != nil {
		t.Fatal(err)
	}
	text, err := protojson.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "R4nd0mL00k1ngT0k3n") || !strings.Contains(string(text), "[REDACTED:github_token]") {
		t.Fatalf("the stored record keeps a secret the redactor removes:\n%s", text)
	}
}
