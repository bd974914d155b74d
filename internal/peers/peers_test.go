package peers_test

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/peers"
)

// example is one of a source's documented examples: a failure as the
// source's own test or documentation builds it, and what the rule decides.
type example struct {
	name  string
	f     peers.Failure
	retry bool
}

func status(s int) peers.Failure { return peers.Failure{HTTPStatus: s, GRPCCode: -1} }

func named(typ string) peers.Failure { return peers.Failure{Type: typ, GRPCCode: -1} }

func coded(typ string, codes ...string) peers.Failure {
	return peers.Failure{Type: typ, Codes: codes, GRPCCode: -1}
}

func check(t *testing.T, p peers.Peer, examples []example) {
	t.Helper()
	for _, e := range examples {
		if got := p.Decide(e.f).Retry; got != e.retry {
			t.Errorf("%s: %s: retry %v, want %v", p.Name, e.name, got, e.retry)
		}
	}
}

// The AI SDK: api-call-error.ts's default isRetryable, and the cases of
// handle-fetch-error.test.ts.
func TestAISDK(t *testing.T) {
	t.Parallel()
	check(t, peers.AISDK, []example{
		{"408 request timeout", status(408), true},
		{"409 conflict", status(409), true},
		{"429 too many requests", status(429), true},
		{"500 server error", status(500), true},
		{"503 service unavailable (api-call-error.test.ts)", status(503), true},
		{"400", status(400), false},
		{"401", status(401), false},
		{"404", status(404), false},
		{"422", status(422), false},
		{"node: TypeError fetch failed, cause ECONNREFUSED", peers.Failure{Type: "TypeError", Message: "fetch failed", Codes: []string{"ECONNREFUSED"}, GRPCCode: -1}, true},
		{"browser: TypeError Failed to fetch", peers.Failure{Type: "TypeError", Message: "Failed to fetch", GRPCCode: -1}, true},
		{"bun: ConnectionRefused", coded("Error", "ConnectionRefused"), true},
		{"bun: ConnectionClosed", coded("Error", "ConnectionClosed"), true},
		{"bun: FailedToOpenSocket", coded("Error", "FailedToOpenSocket"), true},
		{"bun: ECONNRESET", coded("Error", "ECONNRESET"), true},
		{"unknown errors are returned as they are", peers.Failure{Type: "Error", Message: "Something unexpected", GRPCCode: -1}, false},
		{"a message alone", peers.Failure{Message: "connection refused", GRPCCode: -1}, false},
	})
}

// The AWS SDK: the cases of service-error-classification.spec.ts, and
// StandardRetryStrategy retrying THROTTLING and TRANSIENT only.
func TestAWSStandard(t *testing.T) {
	t.Parallel()
	var examples []example
	for _, name := range []string{"BandwidthLimitExceeded", "EC2ThrottledException", "LimitExceededException",
		"PriorRequestNotComplete", "ProvisionedThroughputExceededException", "RequestLimitExceeded", "RequestThrottled",
		"RequestThrottledException", "SlowDown", "ThrottledException", "Throttling", "ThrottlingException",
		"TooManyRequestsException", "TransactionInProgressException"} {
		examples = append(examples, example{"throttling error " + name, named(name), true})
	}
	for _, name := range []string{"TimeoutError", "RequestTimeout", "RequestTimeoutException"} {
		examples = append(examples, example{"transient error " + name, named(name), true})
	}
	for _, s := range []int{500, 502, 503, 504} {
		examples = append(examples, example{"transient status", status(s), true})
	}
	for _, code := range []string{"ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"} {
		examples = append(examples, example{"node.js error code " + code, coded("Error", code), true})
	}
	examples = append(examples,
		example{"429 is a throttling error", status(429), true},
		// isServerError: 5xx outside the transient list is SERVER_ERROR, which the standard strategy does not retry.
		example{"server error 501", status(501), false},
		example{"server error 505", status(505), false},
		example{"server error 511", status(511), false},
		example{"a random name", named("k3j4h5g6"), false},
		example{"a random status", status(418), false},
		// Clock-skew codes are retried only after the SDK corrected its clock, which an error does not show.
		example{"SignatureDoesNotMatch", named("SignatureDoesNotMatch"), false},
		example{"browser: TypeError Failed to fetch", peers.Failure{Type: "TypeError", Message: "Failed to fetch", GRPCCode: -1}, true},
		example{"botocore: the code in the body", peers.See(&corpus.Error{Type: "botocore.exceptions.ClientError", HTTPStatus: i32(400),
			Details: map[string]any{"Error": map[string]any{"Code": "ThrottlingException"}}}), true},
		example{"JSON protocol: __type", peers.See(&corpus.Error{HTTPStatus: i32(400),
			Details: map[string]any{"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"}}), true},
		example{"a 400 with another code", peers.See(&corpus.Error{Type: "botocore.exceptions.ClientError", HTTPStatus: i32(400),
			Details: map[string]any{"Error": map[string]any{"Code": "ValidationException"}}}), false},
		example{"a message alone", peers.Failure{Message: "Rate exceeded", GRPCCode: -1}, false},
	)
	check(t, peers.AWSStandard, examples)
}

// Polly: the cases of HttpPolicyExtensionsSpecs.cs.
func TestPolly(t *testing.T) {
	t.Parallel()
	check(t, peers.Polly, []example{
		{"HttpRequestException", named("System.Net.Http.HttpRequestException"), true},
		{"408 RequestTimeout", status(408), true},
		{"500 InternalServerError", status(500), true},
		{"503", status(503), true},
		{"400 BadRequest", status(400), false},
		{"429 is not transient here", status(429), false},
		{"a socket error is an HttpRequestException", coded("", "ECONNREFUSED"), true},
		{"another exception", named("System.InvalidOperationException"), false},
		{"a message alone", peers.Failure{Message: "No connection could be made", GRPCCode: -1}, false},
	})
}

// LangGraph: the cases of tests/test_retry.py's
// test_should_retry_default_retry_on, and what a real requests Response
// changes.
func TestLangGraph(t *testing.T) {
	t.Parallel()
	excluded := []string{"ValueError", "TypeError", "ArithmeticError", "ImportError", "LookupError", "NameError",
		"SyntaxError", "RuntimeError", "ReferenceError", "StopIteration", "StopAsyncIteration", "OSError"}
	examples := []example{
		{"ConnectionError", named("ConnectionError"), true},
		{"httpx.HTTPStatusError 503", peers.Failure{Type: "httpx.HTTPStatusError", HTTPStatus: 503, GRPCCode: -1}, true},
		{"httpx.HTTPStatusError 404", peers.Failure{Type: "httpx.HTTPStatusError", HTTPStatus: 404, GRPCCode: -1}, false},
		{"requests.HTTPError 502", peers.Failure{Type: "requests.exceptions.HTTPError", HTTPStatus: 502, GRPCCode: -1}, true},
		// The upstream test gives the 4xx error a Mock() response, which is
		// truthy; raise_for_status gives a real Response, falsy for any status
		// of 400 or more, and `… if exc.response else True` retries it.
		{"requests.HTTPError 400 (a real response)", peers.Failure{Type: "requests.exceptions.HTTPError", HTTPStatus: 400, GRPCCode: -1}, true},
		{"requests.HTTPError with no response", named("requests.exceptions.HTTPError"), true},
		{"a custom exception", named("CustomException"), true},
		{"a subclass: FileNotFoundError", named("FileNotFoundError"), false},
		{"a subclass: KeyError", named("KeyError"), false},
		{"requests' ConnectionError is an IOError", named("requests.exceptions.ConnectionError"), false},
		{"ConnectionRefusedError", named("ConnectionRefusedError"), true},
		{"an errno: ECONNRESET is a ConnectionResetError", coded("", "ECONNRESET"), true},
		{"an errno: ENOENT is a FileNotFoundError", coded("", "ENOENT"), false},
		{"an errno: ETIMEDOUT is a TimeoutError, an OSError", coded("", "ETIMEDOUT"), false},
		{"a status alone is read as httpx's HTTPStatusError: 404", status(404), false},
		{"a status alone: 500", status(500), true},
		{"an unknown type with a 404", peers.Failure{Type: "AxiosError", HTTPStatus: 404, GRPCCode: -1}, true},
		{"a message alone is an Exception", peers.Failure{Message: "permission denied", GRPCCode: -1}, true},
	}
	for _, name := range excluded {
		examples = append(examples, example{name, named(name), false})
	}
	check(t, peers.LangGraph, examples)
}

// gRPC A6 / AIP-194: the retryable and non-retryable codes that AIP-194
// lists.
func TestGRPC(t *testing.T) {
	t.Parallel()
	code := func(c int) peers.Failure { return peers.Failure{GRPCCode: c} }
	check(t, peers.GRPC, []example{
		{"UNAVAILABLE", code(14), true},
		{"OK", code(0), false},
		{"CANCELLED", code(1), false},
		{"DEADLINE_EXCEEDED", code(4), false},
		{"INVALID_ARGUMENT", code(3), false},
		{"DATA_LOSS", code(15), false},
		{"RESOURCE_EXHAUSTED", code(8), false},
		{"INTERNAL", code(13), false},
		{"UNKNOWN", code(2), false},
		{"ABORTED", code(10), false},
		{"HTTP 503 is UNAVAILABLE", status(503), true},
		{"HTTP 500 is INTERNAL", status(500), false},
		{"HTTP 429 is RESOURCE_EXHAUSTED", status(429), false},
		{"a message alone", peers.Failure{Message: "unavailable", GRPCCode: -1}, false},
	})
}

// LiteLLM: the exception mapping table and _should_retry's docstring.
func TestLiteLLM(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status      int
		retry       bool
		class, code string
	}{
		{400, false, "capability", "invalid_input"},             // BadRequestError
		{401, false, "governance", "auth_required"},             // AuthenticationError
		{403, false, "governance", "permission_denied"},         // PermissionDeniedError
		{404, false, "capability", "resource_not_found"},        // NotFoundError
		{408, true, "reliability", "retryable_transient_error"}, // Timeout
		{409, true, "", ""},                                     // APIError; "Retry on lock timeouts"
		{422, false, "capability", "invalid_input"},             // UnprocessableEntityError
		{429, true, "reliability", "retryable_transient_error"}, // RateLimitError
		{500, true, "reliability", "retryable_transient_error"}, // InternalServerError
		{503, true, "reliability", "retryable_transient_error"}, // ServiceUnavailableError
		{402, false, "", ""},                                    // APIError
		{0, true, "reliability", "retryable_transient_error"},   // unmapped: APIConnectionError, 500
	} {
		d := peers.LiteLLM.Decide(status(c.status))
		if d.Retry != c.retry || d.Class != c.class || d.Code != c.code {
			t.Errorf("status %d: %+v, want retry %v %s/%s", c.status, d, c.retry, c.class, c.code)
		}
	}
}

// Every peer names its source, a version and what it sees, and only
// LiteLLM classifies.
func TestPeersAreDocumented(t *testing.T) {
	t.Parallel()
	for _, p := range peers.All() {
		if !strings.HasPrefix(p.Source, "https://") || p.Version == "" || p.Rule == "" || p.Sees == "" || p.Decide == nil {
			t.Errorf("%s: incomplete: %+v", p.Name, p)
		}
		if p.Classifies != (p.Name == peers.LiteLLM.Name) {
			t.Errorf("%s: Classifies = %v", p.Name, p.Classifies)
		}
	}
}

// See reads what the rules read, from where client libraries put it.
func TestSee(t *testing.T) {
	t.Parallel()
	f := peers.See(&corpus.Error{Message: "m", Type: "*smithy.OperationError", HTTPStatus: i32(503), GRPCCode: i32(14),
		Details: map[string]any{"code": "ETIMEDOUT", "Error": map[string]any{"Code": "SlowDown"}, "__type": "x#ThrottlingException:http://x",
			"cause": map[string]any{"code": "ECONNRESET"}, "name": 7.0}})
	if f.HTTPStatus != 503 || f.GRPCCode != 14 || f.Name() != "OperationError" || f.Message != "m" {
		t.Errorf("%+v", f)
	}
	if got := strings.Join(f.Codes, ","); got != "ETIMEDOUT,ThrottlingException,SlowDown,ECONNRESET" {
		t.Errorf("codes %s", got)
	}
	if none := peers.See(&corpus.Error{Message: "m"}); none.HTTPStatus != 0 || none.GRPCCode != -1 || len(none.Codes) != 0 {
		t.Errorf("%+v", none)
	}
}

func i32(v int32) *int32 { return &v }
