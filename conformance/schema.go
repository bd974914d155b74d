package conformance

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Both schemas ship inside the binary: the conform command must work
// offline, and a checker that fetched the MCP schema at run time would
// silently change what it checks whenever the upstream file changed.
//
//go:embed schema/toolfailure.schema.json mcpschema/2026-07-28/schema.json
var schemaFiles embed.FS

const (
	toolFailureSchemaFile = "schema/toolfailure.schema.json"
	mcpSchemaFile         = "mcpschema/2026-07-28/schema.json"

	// SchemaID is the $id of the toolFailure JSON Schema that Schema
	// returns.
	SchemaID = "https://github.com/omcp/toolfailure/conformance/schema/toolfailure.schema.json"

	// MCPSchemaVersion is the dated MCP schema that results are validated
	// against.
	MCPSchemaVersion = "2026-07-28"

	// mcpSchemaURL names the embedded MCP schema for the validator, which
	// needs a base URI to resolve the schema's #/$defs references. The
	// schema file has no $id of its own; this is the file's address in the
	// MCP specification repository at the commit it was copied from. It is
	// never fetched.
	mcpSchemaURL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/b0f60ba5409db7a6582440a7b473cc0398890f15/schema/2026-07-28/schema.json"
)

// Schema returns the JSON Schema (draft 2020-12) of the toolFailure object,
// for users of other languages: it states every MUST-level rule of the
// object, including the conditional ones (retryable only for reliability,
// retryNotBefore only with retryable), so that any draft 2020-12 validator
// accepts exactly the objects CheckToolFailure finds no MUST violation in.
// The slice is a fresh copy.
func Schema() []byte {
	b, err := schemaFiles.ReadFile(toolFailureSchemaFile)
	if err != nil {
		panic("conformance: embedded toolFailure schema missing: " + err.Error())
	}
	return b
}

// toolFailureSchema is the compiled form of Schema. Compiling an embedded
// file can only fail through a bug in this package, which the tests catch,
// so failure panics instead of surfacing as an error from every check.
var toolFailureSchema = sync.OnceValue(func() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		panic(fmt.Sprintf("conformance: decode %s: %v", toolFailureSchemaFile, err))
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		panic(fmt.Sprintf("conformance: add %s: %v", toolFailureSchemaFile, err))
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		panic(fmt.Sprintf("conformance: compile %s: %v", toolFailureSchemaFile, err))
	}
	return sch
})

type mcpCompiled struct {
	callToolResult *jsonschema.Schema // $defs/CallToolResult
	envelope       *jsonschema.Schema // $defs/JSONRPCResultResponse
}

// mcpSchemas compiles the two definitions of the official schema that a
// document is checked against, once per process: the file is large and
// compiling it costs far more than any single check.
var mcpSchemas = sync.OnceValue(func() mcpCompiled {
	raw, err := schemaFiles.ReadFile(mcpSchemaFile)
	if err != nil {
		panic("conformance: embedded MCP schema missing: " + err.Error())
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		panic(fmt.Sprintf("conformance: decode %s: %v", mcpSchemaFile, err))
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(mcpSchemaURL, doc); err != nil {
		panic(fmt.Sprintf("conformance: add %s: %v", mcpSchemaFile, err))
	}
	compile := func(def string) *jsonschema.Schema {
		sch, err := c.Compile(mcpSchemaURL + "#/$defs/" + def)
		if err != nil {
			panic(fmt.Sprintf("conformance: compile %s $defs/%s: %v", mcpSchemaFile, def, err))
		}
		return sch
	}
	return mcpCompiled{
		callToolResult: compile("CallToolResult"),
		envelope:       compile("JSONRPCResultResponse"),
	}
})

var printer = message.NewPrinter(language.English)

// schemaViolations turns a validator error into violations of rule, one per
// distinct problem, at JSON Pointers prefixed with at. instance is the value
// that was validated; it is consulted to name an unknown content type.
//
// A validator reports a failed anyOf as every alternative's failures, which
// for a content block is ten lines about five types. That is collapsed: when
// exactly one alternative has the instance's "type", only that
// alternative's failures are reported (a text block missing its text says
// just that); otherwise one line says which type was given and which exist.
func schemaViolations(err error, instance any, at, rule, what string) []Violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{newViolation(at, rule, "%s: %v", what, err)}
	}
	var vs []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		loc := at + jsonPointer(e.InstanceLocation)
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			if len(e.Causes) == 0 {
				break // oneOf matched more than one: a leaf
			}
			if branch := discriminatedBranch(e.Causes); branch != nil {
				walk(branch)
				return
			}
			vs = append(vs, newViolation(loc, rule, "%s: %s", what, noBranchMatches(e, instance)))
			return
		}
		if len(e.Causes) == 0 {
			vs = append(vs, newViolation(loc, rule, "%s: %s", what, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return vs
}

// discriminatedBranch returns the one failed alternative whose "type" const
// the instance satisfies, or nil when there is no such single alternative.
func discriminatedBranch(branches []*jsonschema.ValidationError) *jsonschema.ValidationError {
	var match *jsonschema.ValidationError
	for _, b := range branches {
		if typeConst(b) != nil {
			continue
		}
		if match != nil {
			return nil
		}
		match = b
	}
	return match
}

// typeConst finds, within one alternative's failures, the failed const on a
// member named "type" directly below the alternative's instance.
func typeConst(b *jsonschema.ValidationError) *kind.Const {
	depth := len(b.InstanceLocation)
	var found *kind.Const
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.Const); ok && found == nil &&
			len(e.InstanceLocation) == depth+1 && e.InstanceLocation[depth] == "type" {
			found = k
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(b)
	return found
}

// noBranchMatches says why no alternative matched: the type names when
// every alternative is told apart by its "type", else the alternatives.
func noBranchMatches(e *jsonschema.ValidationError, instance any) string {
	var types, names []string
	allTyped := true
	for i, b := range e.Causes {
		if k := typeConst(b); k != nil {
			types = append(types, strconv.Quote(fmt.Sprint(k.Want)))
		} else {
			allTyped = false
		}
		names = append(names, branchName(b, i))
	}
	if allTyped {
		got := "no type"
		if obj, ok := valueAt(instance, e.InstanceLocation).(map[string]any); ok {
			if t, present := obj["type"]; present {
				got = "type " + describe(t)
				if s, isString := t.(string); isString {
					got = fmt.Sprintf("type %q", s)
				}
			}
		}
		return fmt.Sprintf("%s is not one of the allowed types %s", got, strings.Join(types, ", "))
	}
	return "matches none of " + strings.Join(names, ", ")
}

// branchName names an alternative by the definition it refers to, which
// is what a reader of the MCP schema knows it by (TextContent, not anyOf/0).
func branchName(b *jsonschema.ValidationError, i int) string {
	if ref, ok := b.ErrorKind.(*kind.Reference); ok {
		if _, def, found := strings.Cut(ref.URL, "#/$defs/"); found {
			return def
		}
	}
	return "alternative " + strconv.Itoa(i+1)
}

// valueAt resolves decoded reference tokens in a decoded JSON value.
func valueAt(v any, tokens []string) any {
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString(pointer("", t))
	}
	return b.String()
}
