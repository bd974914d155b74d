package conformance_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/omcp/toolfailure/conformance"
)

// A governance failure marked retryable: a client following the proposal
// must never retry it automatically, so the object is wrong.
func ExampleCheckToolFailure() {
	var tf any
	_ = json.Unmarshal([]byte(`{
		"class": "governance",
		"code": "auth_required",
		"retryable": true,
		"correlationId": "tf_01M8N413BQES9V07V85B0H6E7WM"
	}`), &tf)
	for _, v := range conformance.CheckToolFailure(tf) {
		fmt.Println(v)
	}
	// Output:
	// MUST retryable-only-reliability at /retryable: retryable is true but class is governance: only reliability failures may be retried, and governance failures must never be retried automatically; omit retryable or set it to false
}

// Checking a server's output in a test: a CallToolResult whose failure
// object lacks its correlation ID.
func ExampleCheckResult() {
	doc := []byte(`{
		"resultType": "complete",
		"content": [{"type": "text", "text": "Issue acme/web#4182 not found."}],
		"isError": true,
		"_meta": {"io.modelcontextprotocol/toolFailure": {"class": "capability", "code": "resource_not_found"}}
	}`)
	vs, err := conformance.CheckResult(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	conformance.Report(os.Stdout, "result.json", vs)
	fmt.Println("conforms:", conformance.Conforms(vs))
	// Output:
	// result.json: MUST correlation-id-missing at /_meta/io.modelcontextprotocol~1toolFailure: correlationId is required: the ID a user quotes and an operator looks up, starting with tf_
	// conforms: false
}

// A protocol error is not a tool result. The proposal leaves JSON-RPC
// errors alone, so a file holding one never conforms.
func ExampleCheckResult_protocolError() {
	vs, _ := conformance.CheckResult([]byte(`{"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: send_emial"}}`))
	for _, v := range vs {
		fmt.Println(v.Severity, v.Rule)
	}
	// Output:
	// MUST jsonrpc-error-response
}

// A Checker with a fixed clock checks a captured document as of the moment
// it was captured. Here the server sent seconds where the proposal wants
// milliseconds, which is only advice-level (the number is still a valid
// integer) but would make every client retry at once.
func ExampleChecker() {
	captured := time.Date(2026, 11, 30, 2, 30, 0, 0, time.UTC)
	c := &conformance.Checker{Now: func() time.Time { return captured }}
	vs := c.CheckToolFailure(map[string]any{
		"class":          "reliability",
		"code":           "retryable_transient_error",
		"retryable":      true,
		"retryNotBefore": 1796005830,
		"correlationId":  "tf_01M8N3YJHAFJPBR162ETPFRX5AD",
	})
	for _, v := range vs {
		fmt.Println(v)
	}
	// Output:
	// SHOULD retry-not-before-past at /retryNotBefore: retryNotBefore 1796005830 is 1970-01-21T18:53:25.830Z, more than 24 h before now (2026-11-30T02:30:30Z if it were seconds: it must be milliseconds); send the earliest retry time computed when the failure happened
}

// Main is what `toolfailure conform` runs. SHOULD findings are printed but
// fail the run only with --strict.
func ExampleMain() {
	status := conformance.Main([]string{"testdata/warning/code-class-mismatch.json"}, os.Stdout, os.Stderr)
	fmt.Println("exit status", status)
	// Output:
	// testdata/warning/code-class-mismatch.json: SHOULD code-class-mismatch at /_meta/io.modelcontextprotocol~1toolFailure/code: code "auth_required" belongs to class governance in the baseline vocabulary, but class is capability; clients act on class, so the two should agree
	// testdata/warning/code-class-mismatch.json: ok (1 warning)
	// exit status 0
}

// Schema is the rule set for users of other languages: any JSON Schema
// draft 2020-12 validator can load it.
func ExampleSchema() {
	var s struct {
		ID    string `json:"$id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(conformance.Schema(), &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.ID)
	fmt.Println(s.Title)
	// Output:
	// https://github.com/omcp/toolfailure/conformance/schema/toolfailure.schema.json
	// toolFailure
}
