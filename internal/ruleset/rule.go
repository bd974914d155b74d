package ruleset

import (
	"fmt"
	"strings"

	"github.com/omcp/toolfailure/internal/classify"
)

// Mode says whether a matching rule decides the outcome.
type Mode string

const (
	// Enforce rules decide: the first one that matches is the outcome.
	Enforce Mode = "enforce"
	// Shadow rules are evaluated and reported (in Explain, in logs and on the
	// record) but never applied, so that a new rule can be watched against
	// real traffic before it is trusted.
	Shadow Mode = "shadow"
)

// Limits of one rule set. They are what the API promises (see the .proto
// file) and are checked here too, because a rules file can be tested offline
// without the API in front of it.
const (
	// MaxRules is the largest rule set one tenant may have. The matcher index
	// keeps classification fast at this size; see the package benchmark.
	MaxRules = 10_000

	maxNameLen       = 128
	maxToolGlobLen   = 256
	maxStatusItems   = 100
	maxGRPCItems     = 17
	maxRegexLen      = 1024
	maxWhenLen       = 4096
	maxCodeLen       = 128
	maxGuidanceRunes = 400
	maxRetryDelay    = 24 * 60 * 60 // seconds: a rule that says "retry tomorrow" means "do not retry"
)

// Rule is one tenant rule, as a rule author writes it (see docs/rules.md).
// The shortcuts (Tool, HTTPStatus, GRPCCode, JSONRPCCode, MessageMatches)
// and the CEL condition When are ANDed; at least one must be present.
type Rule struct {
	// Name is unique in the set. It is the rule's ID in records and in
	// Explain, and it breaks ties between rules of equal priority.
	Name string
	// Priority orders evaluation: higher first.
	Priority int32
	// Mode is Enforce or Shadow; empty means Enforce.
	Mode Mode

	// Tool is a glob on the tool name: * is any run of characters, ? is one
	// character, everything else matches itself.
	Tool string
	// HTTPStatus, GRPCCode and JSONRPCCode match when the error's code is in
	// the list (and never when the error has no such code).
	HTTPStatus, GRPCCode, JSONRPCCode []int32
	// MessageMatches is an RE2 regular expression searched in error.message.
	MessageMatches string
	// When is a CEL expression over the request; see the package
	// documentation for the variables.
	When string

	Then Outcome
}

// Outcome is what a matching rule decides.
type Outcome struct {
	Class classify.Class
	Code  string
	// Retryable is only allowed with class reliability; nil means false.
	Retryable *bool
	// RetryAfter is a duration ("30s", "2m") or "fromError" (the error's own
	// Retry-After value); only with Retryable.
	RetryAfter string
	// AgentGuidance is short advice for the calling model. It may reference
	// fields of the error as {{error.httpStatus}}; see docs/rules.md.
	AgentGuidance string
}

// RetryAfterFromError is the Outcome.RetryAfter value that takes the delay
// from the error's Retry-After.
const RetryAfterFromError = "fromError"

func (r *Rule) mode() Mode {
	if r.Mode == "" {
		return Enforce
	}
	return r.Mode
}

// RuleError is one problem with one rule, located as precisely as it can be:
// the rule's position in the input, the field, and for CEL conditions,
// regular expressions and guidance templates the line and column inside the
// field's text.
type RuleError struct {
	// Index is the rule's position in the input, from 0; -1 for a problem
	// with the set as a whole, or with a single rule checked on its own
	// (then Name names it).
	Index int
	Name  string
	// Field is the field's name in the rules file, e.g. "when" or
	// "then.retryable".
	Field string
	// Line and Column are 1-based positions inside the field's text; 0 when
	// the problem is the whole value.
	Line, Column int
	Msg          string
	// FileLine and FileColumn locate the problem in a rules file, when it
	// came from one (ParseFile, or File.Locate after Compile); 0 otherwise.
	// Error does not print them: a caller prefixes the file's name, as in
	// "rules.yaml:12:5: rules[3] …".
	FileLine, FileColumn int
}

func (e *RuleError) Error() string {
	var b strings.Builder
	if e.Index >= 0 {
		fmt.Fprintf(&b, "rules[%d]", e.Index)
		if e.Name != "" {
			fmt.Fprintf(&b, " %q", e.Name)
		}
	} else if e.Name != "" {
		fmt.Fprintf(&b, "rule %q", e.Name) // a single rule, as in CreateRule
	} else {
		b.WriteString("rules")
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ": %d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// InvalidError is returned by Compile when any rule is invalid. It lists
// every problem found (up to maxReported), in input order, so that an author
// can fix a file in one pass.
type InvalidError struct {
	Problems []*RuleError
	// Total counts every problem, including those beyond Problems.
	Total int
}

const maxReported = 50

func (e *InvalidError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		if p.FileLine > 0 {
			lines = append(lines, fmt.Sprintf("%d:%d: %s", p.FileLine, p.FileColumn, p.Error()))
			continue
		}
		lines = append(lines, p.Error())
	}
	if more := e.Total - len(e.Problems); more > 0 {
		lines = append(lines, fmt.Sprintf("… and %d more problems", more))
	}
	return strings.Join(lines, "\n")
}

func (e *InvalidError) add(p *RuleError) {
	e.Total++
	if len(e.Problems) < maxReported {
		e.Problems = append(e.Problems, p)
	}
}
