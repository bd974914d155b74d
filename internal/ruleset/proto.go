package ruleset

import (
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classify"
)

// FromProto converts a rule from its API form. It does not validate;
// Compile does.
func FromProto(p *v1.Rule) Rule {
	r := Rule{
		Name:           p.GetName(),
		Priority:       p.GetPriority(),
		Mode:           Mode(p.GetMode()),
		Tool:           p.GetTool(),
		HTTPStatus:     p.GetHttpStatus(),
		GRPCCode:       p.GetGrpcCode(),
		JSONRPCCode:    p.GetJsonrpcCode(),
		MessageMatches: p.GetMessageMatches(),
		When:           p.GetWhen(),
	}
	if t := p.GetThen(); t != nil {
		r.Then = Outcome{
			Class:         classify.Class(t.GetClass()),
			Code:          t.GetCode(),
			Retryable:     t.Retryable,
			RetryAfter:    t.GetRetryAfter(),
			AgentGuidance: t.GetAgentGuidance(),
		}
	}
	return r
}

// ToProto converts a rule to its API form, without the output-only fields
// (version, updateTime). An empty mode is written as "enforce", so that the
// stored and exported form says what the rule does.
func ToProto(r Rule) *v1.Rule {
	return &v1.Rule{
		Name:           r.Name,
		Priority:       r.Priority,
		Mode:           string(r.mode()),
		Tool:           r.Tool,
		HttpStatus:     r.HTTPStatus,
		GrpcCode:       r.GRPCCode,
		JsonrpcCode:    r.JSONRPCCode,
		MessageMatches: r.MessageMatches,
		When:           r.When,
		Then: &v1.RuleOutcome{
			Class:         string(r.Then.Class),
			Code:          r.Then.Code,
			Retryable:     r.Then.Retryable,
			RetryAfter:    r.Then.RetryAfter,
			AgentGuidance: r.Then.AgentGuidance,
		},
	}
}
