package conformance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// MetaKey is the _meta key under which a CallToolResult carries the
// toolFailure object.
const MetaKey = "io.modelcontextprotocol/toolFailure"

// Severity says whether a finding breaks the proposal or only departs from
// its advice, so that a caller can fail a build on the first and merely warn
// on the second.
type Severity string

const (
	// SeverityMust marks a violation of a MUST-level rule: a client that
	// implements the proposal may misbehave on this document.
	SeverityMust Severity = "MUST"
	// SeverityShould marks a departure from SHOULD-level advice: the document
	// is usable, but something is likely a bug, a leak or an interoperability
	// hazard.
	SeverityShould Severity = "SHOULD"
)

// Violation is one finding. Path and Rule are meant for machines (editors,
// CI annotations, tests matching on rule IDs); Message is meant for the
// person fixing the document and says what to do.
type Violation struct {
	// Path is a JSON Pointer (RFC 6901) into the checked document, for
	// example /_meta/io.modelcontextprotocol~1toolFailure/retryable. The
	// empty string is the document itself.
	Path string
	// Rule is the stable rule ID; Rules lists them all.
	Rule string
	// Severity is the rule's severity.
	Severity Severity
	// Message explains the finding.
	Message string
}

// String formats the violation as "MUST rule-id at /pointer: message", the
// form Report prints after the file name.
func (v Violation) String() string {
	return fmt.Sprintf("%s %s at %s: %s", v.Severity, v.Rule, displayPath(v.Path), v.Message)
}

// displayPath shows the root pointer, which is the empty string, as (root):
// "at : message" would read like a formatting mistake.
func displayPath(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// Conforms reports whether vs holds no MUST-level violation. SHOULD-level
// findings do not count: they are advice, and a document carrying them is
// still one every client of the proposal can handle. Callers that want
// advice enforced too (a strict CI gate) check len(vs) == 0 instead.
func Conforms(vs []Violation) bool {
	return !slices.ContainsFunc(vs, func(v Violation) bool { return v.Severity == SeverityMust })
}

// Checker holds the settings of a check. The zero value is ready to use and
// is what the package-level functions use.
type Checker struct {
	// Now returns the instant the time-relative SHOULD rules
	// (retry-not-before-past, retry-not-before-far-future) measure from.
	// Nil means time.Now. Set it to check a captured document as of the
	// moment it was captured, or to make a test independent of the clock.
	Now func() time.Time
	// ProtocolVersion is the MCP protocol version the result was sent
	// under, when known. From 2026-07-28 on a result without resultType
	// breaks the schema's MUST; before it (and when the version is not
	// known) resultType is absent from every SDK's output, and clients read
	// its absence as "complete", so it is not reported.
	ProtocolVersion string
}

func (c *Checker) now() time.Time {
	if c == nil || c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// CheckToolFailure checks one toolFailure object with a zero Checker; see
// Checker.CheckToolFailure.
func CheckToolFailure(v any) []Violation {
	return new(Checker).CheckToolFailure(v)
}

// CheckResult checks a raw JSON document with a zero Checker; see
// Checker.CheckResult.
func CheckResult(doc []byte) ([]Violation, error) {
	return new(Checker).CheckResult(doc)
}

// CheckFile checks the JSON document in a file with a zero Checker; see
// Checker.CheckFile.
func CheckFile(path string) ([]Violation, error) {
	return new(Checker).CheckFile(path)
}

// CheckToolFailure checks one toolFailure object, given as decoded JSON: the
// value found at _meta[MetaKey]. Numbers may be json.Number (a decoder with
// UseNumber) or float64 (a plain decoder); other Go values are accepted as
// long as encoding/json can encode them, because the value is first
// normalised through a JSON round trip. Paths in the result are relative to
// the object, so the object itself is the empty pointer.
//
// The object is checked twice: by hand-written rules whose messages say what
// to fix, and by the JSON Schema that Schema returns. The two are kept in
// agreement by this package's tests; should they ever disagree, the schema's
// finding is reported under rule toolfailure-schema rather than dropped.
func (c *Checker) CheckToolFailure(v any) []Violation {
	norm, err := normalize(v)
	if err != nil {
		return []Violation{newViolation("", ruleToolFailureType,
			"the toolFailure value cannot be encoded as JSON (%v); it must be a JSON object", err)}
	}
	return sortViolations(c.checkToolFailure(norm, ""))
}

// CheckResult checks a raw JSON document: a CallToolResult, or a whole
// JSON-RPC 2.0 response whose result is one. It validates the result against
// the official MCP schema ($defs/CallToolResult of the 2026-07-28 schema,
// JSON Schema draft 2020-12), checks that the toolFailure key sits where the
// proposal puts it, and checks the toolFailure object as CheckToolFailure
// does.
//
// A JSON-RPC error response is reported as a violation, not as an error:
// under the proposal, protocol errors stay JSON-RPC errors and never carry a
// toolFailure object, so such a document is never a conforming tool result.
//
// The error is non-nil only when doc is not a single JSON value; every other
// problem is a Violation. Violations are sorted by path, MUST before SHOULD.
func (c *Checker) CheckResult(doc []byte) ([]Violation, error) {
	vs, err := c.check(doc)
	if err != nil {
		return nil, fmt.Errorf("conformance: not a JSON document: %w", err)
	}
	return vs, nil
}

// CheckFile reads the file at path and checks it as CheckResult does. The
// error is non-nil when the file cannot be read or is not JSON.
func (c *Checker) CheckFile(path string) ([]Violation, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	vs, err := c.check(doc)
	if err != nil {
		return nil, fmt.Errorf("conformance: %s: not a JSON document: %w", path, err)
	}
	return vs, nil
}

// check is CheckResult without the error wrapping, so that CheckFile can
// name the file in its error without saying "conformance" twice.
func (c *Checker) check(doc []byte) ([]Violation, error) {
	v, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	vs := duplicateKeys(doc)
	vs = append(vs, c.checkDocument(v)...)
	return sortViolations(vs), nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number
// so that the literal form of retryNotBefore (integer or not) survives.
func decodeJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the first JSON value")
	}
	return v, nil
}

// normalize turns any JSON-encodable Go value into the shapes the checks
// understand (map[string]any, []any, string, bool, nil, json.Number), so
// that callers may pass float64 trees, typed structs or maps alike.
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(b)
}

// sortViolations orders findings by where they are, then MUST before
// SHOULD, then by rule, and drops exact duplicates, so that output is stable
// from run to run (schema validators and Go maps have no fixed order).
func sortViolations(vs []Violation) []Violation {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			strings.Compare(a.Path, b.Path),
			cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			strings.Compare(a.Rule, b.Rule),
			strings.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(vs)
}

func severityRank(s Severity) int {
	if s == SeverityMust {
		return 0
	}
	return 1
}

// pointer appends one reference token to a JSON Pointer, escaping it as RFC
// 6901 requires (MetaKey contains a slash, hence the ~1 in every path below
// it).
func pointer(base, token string) string {
	token = strings.ReplaceAll(token, "~", "~0")
	token = strings.ReplaceAll(token, "/", "~1")
	return base + "/" + token
}
