package conformance

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
)

// resultTypeVersion is the first protocol version whose results must carry
// resultType.
const resultTypeVersion = "2026-07-28"

// metaPointer is where the toolFailure object sits in a CallToolResult.
var metaPointer = pointer("/_meta", MetaKey)

// checkDocument decides what the document is (a CallToolResult, a JSON-RPC
// response around one, or something that is neither) and checks it as that.
func (c *Checker) checkDocument(v any) []Violation {
	obj, ok := v.(map[string]any)
	if !ok {
		hint := ""
		if _, isArray := v.([]any); isArray {
			hint = " (JSON-RPC batches are not part of MCP; check one response per file)"
		}
		return []Violation{newViolation("", ruleDocumentNotObject,
			"the document must be a JSON object, a CallToolResult or a JSON-RPC response holding one, got %s%s", describe(v), hint)}
	}
	if !isEnvelope(obj) {
		return c.checkCallToolResult(obj, "")
	}
	return c.checkEnvelope(obj)
}

// isEnvelope tells a JSON-RPC message from a bare result. A CallToolResult
// never has a jsonrpc member, and one without content but with result or
// error is far likelier an envelope with jsonrpc forgotten than a result.
func isEnvelope(obj map[string]any) bool {
	if _, ok := obj["jsonrpc"]; ok {
		return true
	}
	_, hasContent := obj["content"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	return !hasContent && (hasResult || hasError)
}

func (c *Checker) checkEnvelope(obj map[string]any) []Violation {
	result, hasResult := obj["result"]
	errObj, hasError := obj["error"]
	_, hasMethod := obj["method"]
	switch {
	case hasError && !hasResult:
		// Protocol errors (unknown tool, invalid params, bad JSON-RPC) stay
		// JSON-RPC errors under the proposal; only failures of the tool
		// itself become a CallToolResult with isError: true.
		vs := []Violation{newViolation("", ruleJSONRPCErrorResponse,
			"this is a JSON-RPC error response, a protocol error, not a CallToolResult: the proposal leaves protocol errors (unknown tool, invalid request) as JSON-RPC errors without a toolFailure object, and reports failures of the tool itself as a result with isError: true")}
		return append(vs, keyOnProtocolError(errObj)...)
	case hasMethod && !hasResult:
		return []Violation{newViolation("", ruleJSONRPCNotResponse,
			"this is a JSON-RPC request or notification (it has a method), not a response holding a CallToolResult")}
	case !hasResult:
		return []Violation{newViolation("", ruleJSONRPCEnvelope,
			"this JSON-RPC message has neither result nor error; a response to tools/call has a result holding the CallToolResult")}
	}

	var vs []Violation
	if hasError {
		vs = append(vs, newViolation("/error", ruleJSONRPCEnvelope,
			"a JSON-RPC response has either result or error, never both; a failed tool call is a result with isError: true"))
	}
	// The envelope is validated with a placeholder result: the real result
	// is checked against CallToolResult below, and validating it twice would
	// report every problem in it twice.
	envelope := maps.Clone(obj)
	envelope["result"] = map[string]any{"resultType": "complete"}
	if err := mcpSchemas().envelope.Validate(envelope); err != nil {
		vs = append(vs, schemaViolations(err, envelope, "", ruleJSONRPCEnvelope,
			"does not match the MCP "+MCPSchemaVersion+" schema ($defs/JSONRPCResultResponse)")...)
	}
	resultObj, ok := result.(map[string]any)
	if !ok {
		return append(vs, newViolation("/result", ruleDocumentNotObject,
			"result must be a CallToolResult object, got %s", describe(result)))
	}
	return append(vs, c.checkCallToolResult(resultObj, "/result")...)
}

// keyOnProtocolError looks for the toolFailure object where people put it
// when they try to classify a protocol error: in the error's data, directly
// or under a _meta of its own.
func keyOnProtocolError(errObj any) []Violation {
	e, _ := errObj.(map[string]any)
	data, _ := e["data"].(map[string]any)
	if data == nil {
		return nil
	}
	p := ""
	if _, ok := data[MetaKey]; ok {
		p = pointer("/error/data", MetaKey)
	} else if meta, _ := data["_meta"].(map[string]any); meta != nil {
		if _, ok := meta[MetaKey]; ok {
			p = pointer("/error/data/_meta", MetaKey)
		}
	}
	if p == "" {
		return nil
	}
	return []Violation{newViolation(p, ruleKeyOnProtocolError,
		"a toolFailure object inside a JSON-RPC error is invisible to clients of the proposal; if the tool itself failed, return a CallToolResult with isError: true and put the object in its _meta")}
}

func (c *Checker) checkCallToolResult(obj map[string]any, at string) []Violation {
	var vs []Violation

	// A result without resultType is what every server before MCP
	// 2026-07-28 sends, and clients must read it as "complete". It breaks
	// the schema only for a result sent under 2026-07-28 or later; the rest
	// of the schema is checked as if the field were there, so that the
	// omission does not hide or drown every other finding.
	validated := obj
	if _, ok := obj["resultType"]; !ok {
		if c != nil && c.ProtocolVersion >= resultTypeVersion {
			vs = append(vs, newViolation(at, ruleResultTypeMissing,
				`resultType is missing: MCP %s requires it ("complete" for a tool result) of every result sent under protocol version %s`,
				resultTypeVersion, c.ProtocolVersion))
		}
		validated = maps.Clone(obj)
		validated["resultType"] = "complete"
	}
	if err := mcpSchemas().callToolResult.Validate(validated); err != nil {
		vs = append(vs, schemaViolations(err, validated, at, ruleMCPSchema,
			"does not match the MCP "+MCPSchemaVersion+" schema ($defs/CallToolResult)")...)
	}

	isError := obj["isError"] == true
	meta, _ := obj["_meta"].(map[string]any)
	tf, hasKey := meta[MetaKey]
	keyPath := at + metaPointer

	vs = append(vs, misplacedKeys(obj, meta, at)...)
	switch {
	case hasKey && !isError:
		state := "absent"
		if v, ok := obj["isError"]; ok {
			state = describe(v)
		}
		vs = append(vs, newViolation(keyPath, ruleKeyOnNonError,
			"the toolFailure key is present but isError is %s: the key describes a failed call and appears only on results with isError: true", state))
	case !hasKey && isError:
		vs = append(vs, newViolation(keyPath, ruleKeyMissingOnError,
			"isError is true but there is no toolFailure object: without it a client must parse the text to decide whether to retry, ask the user, or give up"))
	}
	if isError {
		vs = append(vs, errorContentText(obj, at)...)
	}
	if hasKey {
		vs = append(vs, c.checkToolFailure(tf, keyPath)...)
	}
	return vs
}

// misplacedKeys finds the toolFailure object under a name or in a place
// where clients will not look for it: beside _meta instead of inside it, or
// in _meta under a misspelt or unprefixed key.
func misplacedKeys(obj, meta map[string]any, at string) []Violation {
	var vs []Violation
	if _, ok := obj[MetaKey]; ok {
		vs = append(vs, newViolation(pointer(at, MetaKey), ruleKeyMisplaced,
			"the toolFailure object is a member of the result itself; it belongs inside _meta, at %s", at+metaPointer))
	}
	for k := range meta {
		if k == MetaKey {
			continue
		}
		norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(k))
		// A vendor's own com.example/toolFailure is its business; only
		// unprefixed and MCP-prefixed lookalikes are mistakes.
		if norm == "toolfailure" || strings.HasPrefix(norm, "io.modelcontextprotocol") && strings.HasSuffix(norm, "/toolfailure") {
			vs = append(vs, newViolation(pointer(at+"/_meta", k), ruleKeyMisplaced,
				"_meta key %q looks like the toolFailure object under the wrong name; the key is exactly %q", k, MetaKey))
		}
	}
	return vs
}

// errorContentText checks that an error result still explains itself in
// text. The proposal is additive: a client that does not know the key sees
// exactly what it saw before, so the text content must carry the failure.
func errorContentText(obj map[string]any, at string) []Violation {
	content, ok := obj["content"].([]any)
	if !ok {
		return nil // the schema has reported it
	}
	for _, item := range content {
		block, _ := item.(map[string]any)
		if text, _ := block["text"].(string); block["type"] == "text" && strings.TrimSpace(text) != "" {
			return nil
		}
	}
	return []Violation{newViolation(at+"/content", ruleErrorContentText,
		"isError is true but no text content explains the failure; clients that do not know the toolFailure key, and the model, only have the text to go on")}
}

// maxDuplicateReports caps duplicate-key findings: a generated document
// with a systematic duplicate would otherwise produce one line per object.
const maxDuplicateReports = 20

// duplicateKeys reports object members that appear more than once.
// encoding/json keeps the last one and other parsers keep the first, so a
// duplicated class or retryable can make a relay and a client act on
// different failures. doc is known to be valid JSON when this runs.
func duplicateKeys(doc []byte) []Violation {
	type frame struct {
		object  bool
		segment string          // this container's token in its parent
		keys    map[string]bool // member names seen, for objects
		key     string          // the current member name, for objects
		wantKey bool            // the next string token is a member name
		index   int             // the current element index, for arrays
	}
	var (
		stack []*frame
		vs    []Violation
	)
	path := func() string {
		var b strings.Builder
		for _, f := range stack[1:] {
			b.WriteString(pointer("", f.segment))
		}
		return b.String()
	}
	// valueDone advances the parent past a value that has just ended.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return vs
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
			if top.keys[s] && len(vs) < maxDuplicateReports {
				vs = append(vs, newViolation(pointer(path(), s), ruleDuplicateKey,
					"member %q appears more than once in this object; parsers disagree on which value wins, so a client and a relay may read different values", s))
			}
			top.keys[s] = true
			top.key = s
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			f := &frame{object: tok == json.Delim('{'), wantKey: true, keys: map[string]bool{}}
			if top != nil {
				if top.object {
					f.segment = top.key
				} else {
					f.segment = strconv.Itoa(top.index)
				}
			}
			stack = append(stack, f)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
