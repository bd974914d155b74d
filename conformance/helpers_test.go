package conformance_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/omcp/toolfailure/conformance"
	"github.com/omcp/toolfailure/correlation"
)

// testNow is the instant the example documents were written at
// (2026-11-30T02:30:00Z). Checking them as of this instant keeps the
// time-relative rules from turning the examples into warnings as the real
// clock moves on.
var testNow = time.UnixMilli(1796005800000)

func newChecker() *conformance.Checker {
	return &conformance.Checker{Now: func() time.Time { return testNow }}
}

// checkerFor is newChecker for a counter-example whose name gives the
// protocol version it was sent under, as a variant "protocol-2026-07-28".
func checkerFor(path string) *conformance.Checker {
	c := newChecker()
	for _, part := range strings.Split(strings.TrimSuffix(filepath.Base(path), ".json"), ".")[1:] {
		if v, ok := strings.CutPrefix(part, "protocol-"); ok {
			c.ProtocolVersion = v
		}
	}
	return c
}

// Example documents live outside the package, in the layout the MCP
// specification repository uses for its schema examples: a folder per type.
const (
	toolFailureExamples    = "../examples/ToolFailure"
	callToolResultExamples = "../examples/CallToolResult"
)

func jsonFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	if len(files) == 0 {
		t.Fatalf("no JSON files in %s", dir)
	}
	return files
}

// ruleOf takes the rule a counter-example is about from its name: the part
// before the first dot, so that one rule can have several variants
// (mcp-schema.content-missing.json, mcp-schema.unknown-content-type.json).
func ruleOf(path string) string {
	rule, _, _ := strings.Cut(filepath.Base(path), ".")
	return rule
}

func readJSON(t testing.TB, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// toolFailureIn digs the toolFailure object out of a document, wherever the
// counter-examples put it, for the schema-agreement test.
func toolFailureIn(doc any) (any, bool) {
	obj, _ := doc.(map[string]any)
	if res, ok := obj["result"].(map[string]any); ok {
		obj = res
	}
	meta, _ := obj["_meta"].(map[string]any)
	tf, ok := meta[conformance.MetaKey]
	return tf, ok
}

// shippedSchema compiles conformance.Schema() the way a user of another
// language would: from the bytes alone, with an independent compiler.
var shippedSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(conformance.Schema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("toolfailure.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("toolfailure.schema.json")
})

func schemaAccepts(t testing.TB, v any) bool {
	t.Helper()
	sch, err := shippedSchema()
	if err != nil {
		t.Fatalf("compile shipped schema: %v", err)
	}
	return sch.Validate(v) == nil
}

// assertAgree checks one toolFailure object with both the Go rules and the
// shipped schema and fails the test when they disagree: the schema is what
// users of other languages get, so it must accept exactly what the Go
// checker accepts.
func assertAgree(t testing.TB, name string, v any) {
	t.Helper()
	vs := newChecker().CheckToolFailure(v)
	for _, x := range vs {
		if x.Rule == "toolfailure-schema" {
			t.Errorf("%s: the schema rejects what the Go rules accept: %v", name, x)
		}
	}
	if goOK, schemaOK := conformance.Conforms(vs), schemaAccepts(t, v); goOK != schemaOK {
		t.Errorf("%s: Go rules conform=%t, shipped schema valid=%t; violations: %v", name, goOK, schemaOK, vs)
	}
}

func rulesIn(vs []conformance.Violation) []string {
	var ids []string
	for _, v := range vs {
		if !slices.Contains(ids, v.Rule) {
			ids = append(ids, v.Rule)
		}
	}
	return ids
}

// isProjectCorrelationID reports whether id has this project's exact
// correlation ID format (package correlation: tf_, 26 Crockford base32
// characters of a UUIDv7, one check character). The checker does not
// require this format (the proposal makes IDs opaque); the test uses it to
// keep the example documents realistic.
func isProjectCorrelationID(id string) bool {
	u, err := correlation.Parse(id)
	if err != nil || id != u.String() {
		return false
	}
	return u[6]>>4 == 7 && u[8]>>6 == 2 // UUID version 7, RFC 9562 variant
}
