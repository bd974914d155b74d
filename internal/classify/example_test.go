package classify_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

func ExampleBaseline() {
	status := int32(429)
	yes := true
	in := &classify.Input{
		Tool: "slack_post_message",
		Error: classify.RawError{
			Message:    "A rate-limit has been reached, you may retry this request in 30 seconds",
			HTTPStatus: &status,
			RetryAfter: "30",
			Details:    map[string]any{"ok": false, "error": "ratelimited"},
		},
		Annotations: classify.Annotations{IdempotentHint: &yes},
	}
	now := time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)
	o := classify.Baseline(in, now)
	fmt.Println(o.Class, o.Code, o.Retryable, o.RetryNotBefore.Sub(now), o.RuleID)

	meta, _ := json.Marshal(map[string]any{classify.MetaKey: o.Meta("tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV")})
	fmt.Println(string(meta))
	// Output:
	// reliability retryable_transient_error true 30s baseline/slack-error
	// {"io.modelcontextprotocol/toolFailure":{"agentGuidance":"The service is rate limiting requests. Wait 30 s, then retry the same call.","class":"reliability","code":"retryable_transient_error","correlationId":"tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV","retryNotBefore":1764504030000,"retryable":true}}
}

func ExampleExplain() {
	status := int32(403)
	in := &classify.Input{Error: classify.RawError{
		Message:    "You have exceeded a secondary rate limit.",
		HTTPStatus: &status,
	}}
	_, results := classify.Explain(in, time.Now())
	for _, r := range results {
		if r.Matched {
			fmt.Println(r.ID, r.Outcome.Class, r.Outcome.Code)
		}
	}
	// Output:
	// baseline/http-status-text reliability retryable_transient_error
	// baseline/http-status governance permission_denied
	// baseline/message-text reliability retryable_transient_error
}
