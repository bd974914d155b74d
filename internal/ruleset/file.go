package ruleset

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/omcp/toolfailure/internal/classify"
)

// File is a parsed rules file (the `rules apply -f` format, docs/rules.md).
// It remembers where each rule and field was, so that problems found later
// by Compile can be reported at a line of the file.
type File struct {
	Rules []Rule
	pos   []rulePos
}

type rulePos struct {
	line   int
	fields map[string]int // field name ("when", "then.code") → line
}

// Line returns the file line of a rule's field, or of the rule when the
// field is not in the file, or 0 when index is out of range.
func (f *File) Line(index int, field string) int {
	if f == nil || index < 0 || index >= len(f.pos) {
		return 0
	}
	p := f.pos[index]
	if l, ok := p.fields[field]; ok {
		return l
	}
	if i := strings.IndexByte(field, '.'); i > 0 {
		if l, ok := p.fields[field[:i]]; ok {
			return l
		}
	}
	return p.line
}

// Locate sets FileLine on every problem of an *InvalidError from Compile
// that has none: the line of the field in the file and, for a condition
// written as a block (when: |), the line inside it.
func (f *File) Locate(err error) {
	invalid, ok := err.(*InvalidError)
	if !ok {
		return
	}
	for _, e := range invalid.Problems {
		if e.FileLine > 0 {
			continue
		}
		l := f.Line(e.Index, e.Field)
		if l > 0 && e.Line > 0 && e.Field == "when" && f.pos[e.Index].fields["when.block"] == 1 {
			l += e.Line // a block scalar starts on the line after its key
		}
		e.FileLine = l
	}
}

var ruleFields = []string{"name", "priority", "mode", "tool", "httpStatus", "grpcCode", "jsonrpcCode", "messageMatches", "when", "then"}
var outcomeFields = []string{"class", "code", "retryable", "retryAfter", "agentGuidance"}

// ParseFile reads a rules file. It checks the file's shape (known fields,
// the type of every value) and reports every problem with its line; the
// rules themselves are checked by Compile. A file must have the rules key,
// even if empty (`rules: []`), so that an empty or truncated file can never
// replace a tenant's rules with nothing.
func ParseFile(data []byte) (*File, error) {
	invalid := &InvalidError{}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		invalid.add(&RuleError{Index: -1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")})
		return nil, invalid
	}
	if len(doc.Content) == 0 {
		invalid.add(&RuleError{Index: -1, Msg: "the file is empty; write `rules: []` to delete every rule"})
		return nil, invalid
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		invalid.add(&RuleError{Index: -1, FileLine: root.Line, FileColumn: root.Column, Msg: "want a mapping with the key rules"})
		return nil, invalid
	}
	var list *yaml.Node
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		if key.Value != "rules" {
			invalid.add(&RuleError{Index: -1, FileLine: key.Line, FileColumn: key.Column, Msg: fmt.Sprintf("unknown key %q; the file has one key, rules", key.Value)})
			continue
		}
		list = val
	}
	if list == nil && invalid.Total == 0 {
		invalid.add(&RuleError{Index: -1, Msg: "no rules key; write `rules: []` to delete every rule"})
	}
	if invalid.Total > 0 {
		return nil, invalid
	}
	f := &File{}
	switch {
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
	case list.Kind != yaml.SequenceNode:
		invalid.add(&RuleError{Index: -1, FileLine: list.Line, FileColumn: list.Column, Msg: "want a list of rules"})
		return nil, invalid
	}
	if len(list.Content) > MaxRules {
		invalid.add(&RuleError{Index: -1, FileLine: list.Line, FileColumn: list.Column, Msg: fmt.Sprintf("%d rules; at most %d are allowed per tenant", len(list.Content), MaxRules)})
		return nil, invalid
	}
	for i, item := range list.Content {
		r, pos := parseRule(i, item, invalid)
		f.Rules = append(f.Rules, r)
		f.pos = append(f.pos, pos)
	}
	if invalid.Total > 0 {
		return nil, invalid
	}
	return f, nil
}

func parseRule(i int, n *yaml.Node, invalid *InvalidError) (Rule, rulePos) {
	var r Rule
	pos := rulePos{line: n.Line, fields: map[string]int{}}
	if n.Kind != yaml.MappingNode {
		invalid.add(&RuleError{Index: i, FileLine: n.Line, FileColumn: n.Column, Msg: "want a mapping (name, priority, when, then, …)"})
		return r, pos
	}
	// The name first, so that every other problem can name the rule.
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == "name" && n.Content[k+1].Kind == yaml.ScalarNode {
			r.Name = n.Content[k+1].Value
		}
	}
	fail := func(field string, at *yaml.Node, format string, args ...any) {
		invalid.add(&RuleError{Index: i, Name: r.Name, Field: field, FileLine: at.Line, FileColumn: at.Column, Msg: fmt.Sprintf(format, args...)})
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		pos.fields[key.Value] = key.Line
		switch key.Value {
		case "name":
			r.Name, _ = str(key.Value, val, fail)
		case "priority":
			r.Priority, _ = int32Of(key.Value, val, fail)
		case "mode":
			s, _ := str(key.Value, val, fail)
			r.Mode = Mode(s)
		case "tool":
			r.Tool, _ = str(key.Value, val, fail)
		case "httpStatus":
			r.HTTPStatus = int32List(key.Value, val, fail)
		case "grpcCode":
			r.GRPCCode = int32List(key.Value, val, fail)
		case "jsonrpcCode":
			r.JSONRPCCode = int32List(key.Value, val, fail)
		case "messageMatches":
			r.MessageMatches, _ = str(key.Value, val, fail)
		case "when":
			r.When, _ = str(key.Value, val, fail)
			if val.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				pos.fields["when.block"] = 1
			}
		case "then":
			r.Then = parseOutcome(val, pos, fail)
		default:
			fail(key.Value, key, "unknown field; known: %s", strings.Join(ruleFields, ", "))
		}
	}
	return r, pos
}

func parseOutcome(n *yaml.Node, pos rulePos, fail func(string, *yaml.Node, string, ...any)) Outcome {
	var o Outcome
	if n.Kind != yaml.MappingNode {
		fail("then", n, "want a mapping (class, code, retryable, retryAfter, agentGuidance)")
		return o
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		field := "then." + key.Value
		pos.fields[field] = key.Line
		switch key.Value {
		case "class":
			s, _ := str(field, val, fail)
			o.Class = classify.Class(s)
		case "code":
			o.Code, _ = str(field, val, fail)
		case "retryable":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
				fail(field, val, "want true or false")
				continue
			}
			b := val.Value == "true" || val.Value == "True" || val.Value == "TRUE"
			o.Retryable = &b
		case "retryAfter":
			o.RetryAfter, _ = str(field, val, fail)
			if val.Tag == "!!int" {
				fail(field, val, "%s: a bare number is ambiguous; write a duration such as %ss", val.Value, val.Value)
			}
		case "agentGuidance":
			o.AgentGuidance, _ = str(field, val, fail)
		default:
			fail(field, key, "unknown field; known: %s", strings.Join(outcomeFields, ", "))
		}
	}
	return o
}

func str(field string, n *yaml.Node, fail func(string, *yaml.Node, string, ...any)) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		fail(field, n, "want a string")
		return "", false
	}
	switch n.Tag {
	case "!!str":
		return n.Value, true
	case "!!null":
		return "", true
	case "!!int", "!!float", "!!bool":
		if field == "then.retryAfter" && n.Tag == "!!int" {
			return "", false
		}
		fail(field, n, "want a string; quote %s", n.Value)
		return "", false
	}
	return n.Value, true
}

func int32Of(field string, n *yaml.Node, fail func(string, *yaml.Node, string, ...any)) (int32, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		fail(field, n, "want an integer")
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
		fail(field, n, "%s is not a 32-bit integer", n.Value)
		return 0, false
	}
	return int32(v), true
}

func int32List(field string, n *yaml.Node, fail func(string, *yaml.Node, string, ...any)) []int32 {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		fail(field, n, "want a list of integers, such as [409, 422]")
		return nil
	}
	out := make([]int32, 0, len(n.Content))
	for _, item := range n.Content {
		if v, ok := int32Of(field, item, fail); ok {
			out = append(out, v)
		}
	}
	return out
}

// FormatFile writes rules in the rules file format, in the order given,
// with the fields in a fixed order and empty ones left out, so that an
// export is stable and diffs well under version control.
func FormatFile(rules []Rule) ([]byte, error) {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range rules {
		m := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k string, v *yaml.Node) { m.Content = append(m.Content, scalar(k), v) }
		add("name", scalar(r.Name))
		add("priority", intNode(int64(r.Priority)))
		add("mode", scalar(string(r.mode())))
		if r.Tool != "" {
			add("tool", quoted(r.Tool))
		}
		for _, l := range []struct {
			k string
			v []int32
		}{{"httpStatus", r.HTTPStatus}, {"grpcCode", r.GRPCCode}, {"jsonrpcCode", r.JSONRPCCode}} {
			if len(l.v) > 0 {
				s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				for _, v := range l.v {
					s.Content = append(s.Content, intNode(int64(v)))
				}
				add(l.k, s)
			}
		}
		if r.MessageMatches != "" {
			add("messageMatches", quoted(r.MessageMatches))
		}
		if r.When != "" {
			w := quoted(r.When)
			if strings.Contains(r.When, "\n") {
				w.Style = yaml.LiteralStyle
			}
			add("when", w)
		}
		t := &yaml.Node{Kind: yaml.MappingNode}
		tadd := func(k string, v *yaml.Node) { t.Content = append(t.Content, scalar(k), v) }
		tadd("class", scalar(string(r.Then.Class)))
		tadd("code", scalar(r.Then.Code))
		if r.Then.Retryable != nil {
			tadd("retryable", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(*r.Then.Retryable)})
		}
		if r.Then.RetryAfter != "" {
			tadd("retryAfter", scalar(r.Then.RetryAfter))
		}
		if r.Then.AgentGuidance != "" {
			tadd("agentGuidance", quoted(r.Then.AgentGuidance))
		}
		add("then", t)
		seq.Content = append(seq.Content, m)
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("rules"), seq}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("format rules file: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("format rules file: %w", err)
	}
	return b.Bytes(), nil
}

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// quoted forces quotes on values that hold CEL, globs or prose, where a
// plain YAML scalar would too easily change meaning (a leading *, a colon).
func quoted(v string) *yaml.Node {
	n := scalar(v)
	n.Style = yaml.SingleQuotedStyle
	if strings.ContainsAny(v, "'\n") && !strings.Contains(v, "\"") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}
