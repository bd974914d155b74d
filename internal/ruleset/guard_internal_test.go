package ruleset

import (
	"math/rand/v2"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"

	"github.com/omcp/toolfailure/internal/classify"
)

// A message guard evaluated natively, through the needle index, has the
// value its CEL program has: for every pack rule with one and for tenant
// rules of each shape, on messages that hold the guard's needles and the
// rule's own, and on others.
func TestGuardsAgreeWithCEL(t *testing.T) {
	t.Parallel()
	tenant, err := Compile(1, []Rule{
		{Name: "not", HTTPStatus: []int32{403}, When: `!error.message.matches(r"(?i)(log ?in|sign ?in|token[^.]{0,20}expired)")`, Then: Outcome{Class: classify.Governance, Code: "permission_denied"}},
		{Name: "or", MessageMatches: "(?i)quota", When: `!error.message.matches("(?i)per (second|minute)") || error.message.matches("(?i)monthly|per month")`, Then: Outcome{Class: classify.Governance, Code: "policy_blocked"}},
		{Name: "and", When: `error.message.matches("(?i)disk") && !matches(error.message, "(?i)quota|\\bcapacity\\b")`, Then: Outcome{Class: classify.Capability, Code: "invalid_input"}},
		{Name: "open", When: `!error.message.matches("[0-9]+ bytes")`, Then: Outcome{Class: classify.Capability, Code: "invalid_input"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	common := []string{"", "Login failed for user 'app'", "quota exceeded: 10 requests per minute", "monthly quota exceeded",
		"disk quota exceeded", "disk full", "no space left on device, 4096 bytes", "Your token has expired", strings.Repeat("é", 60)}
	checked := 0
	for _, set := range []*Set{tenant, packs().set} {
		for i, r := range set.rules {
			if r.guard == nil {
				continue
			}
			checked++
			msgs := append([]string(nil), common...)
			matchers := r.guardLeaves
			if r.msg != nil {
				matchers = append(matchers, r.msg)
			}
			for _, m := range matchers {
				for _, b := range m.branches {
					for _, n := range b.needles[:min(2, len(b.needles))] {
						msgs = append(msgs, mutateCase(rng, "error: "+strings.ToLower(n)+" (code 7)"))
					}
				}
			}
			for _, m := range msgs {
				a := newActivation(&classify.Input{Error: classify.RawError{Message: m}})
				v, _, err := r.parts[r.guardPart].prog.Eval(a)
				if err != nil {
					t.Fatalf("%s on %q: %v", r.Name, m, err)
				}
				if got, want := a.guardHolds(set, int32(i)), v == types.True; got != want {
					t.Errorf("%s on %q: native %v, CEL %v", r.Name, m, got, want)
				}
			}
		}
	}
	if checked < 4+10 {
		t.Fatalf("only %d rules have a native guard", checked)
	}
}

// Only a `when` made entirely of message patterns is a guard; anything else
// stays with CEL.
func TestGuardOnlyForMessagePatterns(t *testing.T) {
	t.Parallel()
	for _, when := range []string{
		`has(error.details.code) && !error.message.matches("x")`,
		`!error.type.matches("x")`,
		`error.message.contains("x")`,
		`!(error.message.matches("x") || error.httpStatus == 403)`,
	} {
		set, err := Compile(1, []Rule{{Name: "r", When: when, Then: Outcome{Class: classify.Capability, Code: "invalid_input"}}})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if set.rules[0].guard != nil {
			t.Errorf("%s: compiled as a message guard", when)
		}
	}
}

// A rule that requires a details key is skipped only where its condition
// cannot be true: checked on the packs' rules and tenant rules against CEL,
// with details absent, of other shapes, and with and without the key.
func TestDetailKeySkipsOnlyWhatCannotMatch(t *testing.T) {
	t.Parallel()
	tenant, err := Compile(1, []Rule{
		{Name: "nested", When: `error.httpStatus == 400 && (has(error.details.code) && error.details.code == "E1")`, Then: Outcome{Class: classify.Capability, Code: "invalid_input"}},
		{Name: "or", When: `has(error.details.code) || error.httpStatus == 400`, Then: Outcome{Class: classify.Capability, Code: "invalid_input"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if k := tenant.rules[0].detailKey; k != "code" {
		t.Errorf("nested: detail key %q, want code", k)
	}
	if k := tenant.rules[1].detailKey; k != "" {
		t.Errorf("or: detail key %q, want none", k)
	}
	details := []any{nil, "text", []any{map[string]any{"errors": 1}}, map[string]any{}, map[string]any{"code": "E1"},
		map[string]any{"errors": []any{map[string]any{"extensions": map[string]any{"code": "UNAUTHENTICATED"}}}}}
	with := 0
	for _, set := range []*Set{tenant, packs().set} {
		for _, r := range set.rules {
			if r.detailKey == "" {
				continue
			}
			with++
			for _, d := range details {
				a := newActivation(&classify.Input{Error: classify.RawError{Message: "unauthenticated", HTTPStatus: ptr(int32(400)), Details: d}})
				if !lacksDetail(d, r.detailKey) {
					continue
				}
				if ok, _, _ := r.match(a, false); ok {
					t.Errorf("%s matches details %v, which lack %q", r.Name, d, r.detailKey)
				}
			}
		}
	}
	if with < 2 {
		t.Fatalf("only %d rules require a details key", with)
	}
}

func ptr[T any](v T) *T { return &v }
