package conformance_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/conformance"
)

func addSeeds(f *testing.F, dirs ...string) {
	for _, dir := range dirs {
		for _, file := range jsonFiles(f, dir) {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// FuzzCheckResult feeds arbitrary bytes to CheckResult: it must never
// panic, must fail only on input that is not JSON, and must report only
// catalogued rules at well-formed pointers.
func FuzzCheckResult(f *testing.F) {
	addSeeds(f, callToolResultExamples, "testdata/invalid", "testdata/warning")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x","data":{"io.modelcontextprotocol/toolFailure":{}}}}`))
	f.Add([]byte(`{"result":{"_meta":{"io.modelcontextprotocol/toolFailure":{"retryNotBefore":1e999999}}}}`))
	f.Add([]byte(`[[[[{"a":1,"a":2}]]]]`))

	severity := map[string]conformance.Severity{}
	for _, r := range conformance.Rules() {
		severity[r.ID] = r.Severity
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		vs, err := newChecker().CheckResult(doc)
		if isJSON := json.Valid(doc); err != nil && isJSON || err == nil && !isJSON {
			// json.Valid and the decoder agree on what JSON is; a
			// disagreement means valid input was rejected or garbage
			// accepted.
			t.Fatalf("json.Valid=%t but err=%v", isJSON, err)
		}
		for _, v := range vs {
			if sev, ok := severity[v.Rule]; !ok || sev != v.Severity {
				t.Errorf("violation of uncatalogued rule or wrong severity: %v", v)
			}
			if v.Path != "" && !strings.HasPrefix(v.Path, "/") {
				t.Errorf("path %q is not a JSON pointer", v.Path)
			}
			if v.Message == "" {
				t.Errorf("empty message: %#v", v)
			}
		}
	})
}

// FuzzToolFailureAgreement checks the property the package promises: for
// any JSON value, the shipped schema accepts it exactly when the Go rules
// find no MUST violation.
func FuzzToolFailureAgreement(f *testing.F) {
	for _, dir := range []string{toolFailureExamples} {
		for _, file := range jsonFiles(f, dir) {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"class":"reliability","code":"x","retryable":true,"retryNotBefore":1.0e12,"correlationId":"tf_"}`))
	f.Add([]byte(`{"class":"governance","code":"x","retryable":false,"retryNotBefore":null,"correlationId":"tf_é"}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		assertAgree(t, string(doc), decode(t, doc))
	})
}
