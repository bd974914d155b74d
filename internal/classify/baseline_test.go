package classify_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

var now = time.Date(2025, 11, 30, 12, 0, 0, 0, time.UTC)

func i32(v int32) *int32 { return &v }

// errCase is a realistic tool error, not taken from the corpus, with the
// outcome a careful person would label it with. Tools are not declared
// idempotent, so Retryable checks the "never processed" judgement.
type errCase struct {
	name       string
	msg, typ   string
	http, grpc *int32
	jsonrpc    *int32
	retryAfter string
	details    string // JSON
	attrs      map[string]string
	idempotent bool

	class     classify.Class
	code      string
	retryable bool
	delay     float64 // expected seconds until RetryNotBefore; 0 = none
	rule      string  // expected RuleID, when the case exists to cover a rule
}

func (c errCase) input(t testing.TB) *classify.Input {
	t.Helper()
	in := &classify.Input{
		Tool: "some_tool",
		Error: classify.RawError{
			Message: c.msg, Type: c.typ, HTTPStatus: c.http, GRPCCode: c.grpc,
			JSONRPCCode: c.jsonrpc, RetryAfter: c.retryAfter, Attributes: c.attrs,
		},
	}
	if c.details != "" {
		if err := json.Unmarshal([]byte(c.details), &in.Error.Details); err != nil {
			t.Fatalf("%s: details: %v", c.name, err)
		}
	}
	if c.idempotent {
		yes := true
		in.Annotations.IdempotentHint = &yes
	}
	return in
}

const (
	cap  = classify.Capability
	rel  = classify.Reliability
	gov  = classify.Governance
	inv  = classify.CodeInvalidInput
	nf   = classify.CodeResourceNotFound
	uns  = classify.CodeCapabilityUnsupported
	tra  = classify.CodeRetryableTransient
	ierr = classify.CodeInternalError
	auth = classify.CodeAuthRequired
	perm = classify.CodePermissionDenied
	pol  = classify.CodePolicyBlocked
	act  = classify.CodeUserActionRequired
)

var cases = []errCase{
	// LLM providers.
	{name: "anthropic overloaded 529", http: i32(529), msg: "Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}", typ: "anthropic.InternalServerError",
		details: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, class: rel, code: tra, retryable: true, rule: "baseline/vendor-code"},
	{name: "anthropic rate limit with retry-after", http: i32(429), retryAfter: "12", typ: "anthropic.RateLimitError",
		msg:     "Error code: 429 - rate_limit_error: This request would exceed the rate limit for your organization of 50,000 input tokens per minute.",
		details: `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}}`,
		class:   rel, code: tra, retryable: true, delay: 12},
	{name: "anthropic prompt too long", http: i32(400), typ: "anthropic.BadRequestError", msg: "prompt is too long: 215000 tokens > 200000 maximum",
		details: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}`, class: cap, code: inv},
	{name: "anthropic bad key", http: i32(401), typ: "anthropic.AuthenticationError", msg: "invalid x-api-key",
		details: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, class: gov, code: auth},
	{name: "anthropic permission", http: i32(403), msg: "Your API key does not have permission to use the specified resource.",
		details: `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`, class: gov, code: perm},
	{name: "anthropic credit balance", http: i32(400), typ: "anthropic.BadRequestError",
		msg:     "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
		details: `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`,
		class:   gov, code: act, rule: "baseline/http-status-text"},
	{name: "openai invalid api key", http: i32(401), typ: "openai.AuthenticationError",
		msg:     "Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-abc***. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}",
		details: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, class: gov, code: auth},
	{name: "openai model not found", http: i32(404), typ: "openai.NotFoundError", msg: "The model `gpt-9` does not exist or you do not have access to it.",
		details: `{"error":{"message":"The model gpt-9 does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, class: cap, code: nf},
	{name: "openai unsupported parameter value", http: i32(400), typ: "openai.BadRequestError",
		msg:     "Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is supported.",
		details: `{"error":{"message":"Unsupported value: 'temperature' does not support 0.5 with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`, class: cap, code: inv},
	{name: "openai engine overloaded 503", http: i32(503), msg: "The engine is currently overloaded, please try again later", class: rel, code: tra, retryable: true},
	{name: "gemini quota with retry info", http: i32(429),
		msg:     "You exceeded your current quota, please check your plan and billing details.",
		details: `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`,
		class:   rel, code: tra, retryable: true, delay: 37},
	{name: "azure openai content filter", http: i32(400),
		msg:     "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
		details: `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400}}`, class: gov, code: pol},

	// Google APIs.
	{name: "google user rate limit 403", http: i32(403), msg: "User Rate Limit Exceeded",
		details: `{"error":{"errors":[{"domain":"usageLimits","reason":"userRateLimitExceeded","message":"User Rate Limit Exceeded"}],"code":403,"message":"User Rate Limit Exceeded"}}`, class: rel, code: tra, retryable: true},
	{name: "google service disabled", http: i32(403),
		msg:     "Cloud Translation API has not been used in project 123456 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/translate.googleapis.com/overview?project=123456 then retry.",
		details: `{"error":{"code":403,"message":"Cloud Translation API has not been used in project 123456 before or it is disabled.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com"}]}}`,
		class:   gov, code: act, rule: "baseline/vendor-code"},
	{name: "google unauthenticated", http: i32(401),
		msg:   "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
		class: gov, code: auth},
	{name: "google drive file not found", http: i32(404), msg: "File not found: 1AbCdEf.",
		details: `{"error":{"errors":[{"domain":"global","reason":"notFound","message":"File not found: 1AbCdEf.","locationType":"parameter","location":"fileId"}],"code":404,"message":"File not found: 1AbCdEf."}}`, class: cap, code: nf},
	{name: "google sheets per-minute quota", http: i32(429),
		msg:   "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:1234'.",
		class: rel, code: tra, retryable: true},
	{name: "google oauth invalid grant", http: i32(400), msg: "invalid_grant: Token has been expired or revoked.",
		details: `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`, class: gov, code: auth},

	// GitHub.
	{name: "github primary rate limit 403", http: i32(403), typ: "HttpError", msg: "API rate limit exceeded for installation ID 4242.",
		details: `{"message":"API rate limit exceeded for installation ID 4242.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`, class: rel, code: tra, retryable: true},
	{name: "github empty repository 409", http: i32(409), typ: "HttpError", msg: "Git Repository is empty.", class: cap, code: inv},
	{name: "github reference exists 422", http: i32(422), msg: "Reference already exists", class: cap, code: inv},
	{name: "github 502", http: i32(502), msg: "Server Error", class: rel, code: tra},

	// Stripe.
	{name: "stripe card declined", http: i32(402), typ: "stripe.error.CardError", msg: "Your card has insufficient funds.",
		details: `{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}`, class: gov, code: act},
	{name: "stripe missing param", http: i32(400), typ: "stripe.error.InvalidRequestError", msg: "Missing required param: amount.",
		details: `{"error":{"type":"invalid_request_error","code":"parameter_missing","param":"amount","message":"Missing required param: amount."}}`, class: cap, code: inv},
	{name: "stripe connection error", typ: "stripe.error.APIConnectionError", msg: "Unexpected error communicating with Stripe. If this problem persists, let us know at support@stripe.com.",
		class: rel, code: tra},

	// AWS.
	{name: "s3 no such key", http: i32(404), typ: "botocore.errorfactory.NoSuchKey", msg: "An error occurred (NoSuchKey) when calling the GetObject operation: The specified key does not exist.",
		details: `{"Error":{"Code":"NoSuchKey","Message":"The specified key does not exist.","Key":"reports/q3.pdf"}}`, class: cap, code: nf},
	{name: "s3 access denied", http: i32(403), typ: "botocore.exceptions.ClientError", msg: "An error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
		details: `{"Error":{"Code":"AccessDenied","Message":"Access Denied"}}`, class: gov, code: perm},
	{name: "s3 slow down", http: i32(503), msg: "An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 4): Please reduce your request rate.",
		details: `{"Error":{"Code":"SlowDown","Message":"Please reduce your request rate."}}`, class: rel, code: tra, retryable: true},
	{name: "dynamodb throughput exceeded", http: i32(400), typ: "ProvisionedThroughputExceededException",
		msg:   "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
		class: rel, code: tra, retryable: true},
	{name: "dynamodb conditional check", http: i32(400), typ: "ConditionalCheckFailedException", msg: "The conditional request failed", class: cap, code: inv},
	{name: "boto endpoint connection", typ: "botocore.exceptions.EndpointConnectionError", msg: `Could not connect to the endpoint URL: "https://dynamodb.eu-west-3.amazonaws.com/"`,
		class: rel, code: tra, retryable: true},
	{name: "boto no credentials", typ: "botocore.exceptions.NoCredentialsError", msg: "Unable to locate credentials", class: gov, code: auth},
	{name: "aws unrecognized client", http: i32(400), typ: "UnrecognizedClientException", msg: "The security token included in the request is invalid.", class: gov, code: auth},
	{name: "aws service quota", http: i32(402), typ: "ServiceQuotaExceededException", msg: "You have exceeded the quota for the number of concurrent builds.", class: gov, code: act},
	{name: "aws lambda too many requests", http: i32(429), typ: "TooManyRequestsException", msg: "Rate Exceeded.", class: rel, code: tra, retryable: true},

	// Azure and Kubernetes.
	{name: "azure authorization failed", http: i32(403),
		msg:     "The client 'a1b2' with object id 'a1b2' does not have authorization to perform action 'Microsoft.Compute/virtualMachines/read' over scope '/subscriptions/x' or the scope is invalid.",
		details: `{"error":{"code":"AuthorizationFailed","message":"The client does not have authorization to perform action."}}`, class: gov, code: perm},
	{name: "azure expired token", http: i32(401), msg: "The access token expiry UTC time '11/30/2025 11:00:00' is earlier than current UTC time '11/30/2025 12:00:00'.",
		details: `{"error":{"code":"ExpiredAuthenticationToken","message":"The access token expiry UTC time is earlier than current UTC time."}}`, class: gov, code: auth},
	{name: "azure resource group not found", http: i32(404), msg: "Resource group 'rg-prod' could not be found.",
		details: `{"error":{"code":"ResourceGroupNotFound","message":"Resource group 'rg-prod' could not be found."}}`, class: cap, code: nf},
	{name: "azure throttled with retry-after", http: i32(429), retryAfter: "10", msg: "Too many requests.",
		details: `{"error":{"code":"TooManyRequests","message":"Too many requests."}}`, class: rel, code: tra, retryable: true, delay: 10},
	{name: "k8s update conflict", http: i32(409),
		msg:     `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`,
		details: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`, class: rel, code: tra, retryable: true},
	{name: "k8s forbidden", http: i32(403),
		msg:     `pods is forbidden: User "system:serviceaccount:default:mcp" cannot list resource "pods" in API group "" in the namespace "prod"`,
		details: `{"kind":"Status","status":"Failure","reason":"Forbidden","code":403}`, class: gov, code: perm},
	{name: "k8s invalid", http: i32(422), msg: `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		details: `{"kind":"Status","status":"Failure","reason":"Invalid","code":422}`, class: cap, code: inv},
	{name: "k8s already exists", http: i32(409), msg: `namespaces "prod" already exists`,
		details: `{"kind":"Status","status":"Failure","reason":"AlreadyExists","code":409}`, class: cap, code: inv},

	// Databases.
	{name: "pg unique violation", typ: "*pgconn.PgError", msg: `ERROR: duplicate key value violates unique constraint "users_email_key" (SQLSTATE 23505)`, class: cap, code: inv, rule: "baseline/sqlstate"},
	{name: "pg bad password", msg: `FATAL: password authentication failed for user "app"`, attrs: map[string]string{"db.system.name": "postgresql", "db.response.status_code": "28P01"}, class: gov, code: auth},
	{name: "pg statement timeout", msg: "canceling statement due to statement timeout", attrs: map[string]string{"db.response.status_code": "57014"}, class: rel, code: tra},
	{name: "pg admin shutdown node-postgres", msg: "terminating connection due to administrator command",
		details: `{"severity":"FATAL","code":"57P01","routine":"ProcessInterrupts"}`, class: rel, code: tra, rule: "baseline/sqlstate"},
	{name: "mysql deadlock", typ: "*mysql.MySQLError", msg: "Error 1213 (40001): Deadlock found when trying to get lock; try restarting transaction", class: rel, code: tra, retryable: true},
	{name: "mysql access denied", msg: "Access denied for user 'app'@'10.0.0.5' (using password: YES)",
		attrs: map[string]string{"db.system.name": "mysql", "db.response.status_code": "1045"}, class: gov, code: auth, rule: "baseline/db-error-code"},
	{name: "mysql table missing tuple", typ: "pymysql.err.ProgrammingError", msg: `(1146, "Table 'shop.orderz' doesn't exist")`, class: cap, code: nf},
	{name: "sql server login failed", msg: "Login failed for user 'sa'.", attrs: map[string]string{"db.system.name": "mssql", "db.response.status_code": "18456"}, class: gov, code: auth},
	{name: "oracle table missing", msg: "ORA-00942: table or view does not exist", class: cap, code: nf, rule: "baseline/db-error-code"},
	{name: "redis noauth", msg: "NOAUTH Authentication required.", typ: "ReplyError", class: gov, code: auth, rule: "baseline/redis-error"},
	{name: "redis wrongtype", msg: "WRONGTYPE Operation against a key holding the wrong kind of value", class: cap, code: inv},
	{name: "redis loading", msg: "LOADING Redis is loading the dataset in memory", class: rel, code: tra},
	{name: "mongo duplicate key", typ: "MongoServerError", msg: "E11000 duplicate key error collection: shop.users index: email_1 dup key: { email: \"a@b.c\" }", class: cap, code: inv},
	{name: "mongo network", typ: "MongoNetworkError", msg: "connection 4 to 10.0.0.1:27017 closed", class: rel, code: tra},

	// Language runtimes.
	{name: "httpx read timeout", typ: "httpx.ReadTimeout", msg: "The read operation timed out", class: rel, code: tra, rule: "baseline/exception-type"},
	{name: "python dns failure", typ: "socket.gaierror", msg: "[Errno -3] Temporary failure in name resolution", class: rel, code: tra, retryable: true},
	// A bug in the tool's own code: internal_error, never retried.
	{name: "python key error", typ: "KeyError", msg: "'customer_id'", class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "python traceback zero division", msg: "Traceback (most recent call last):\n  File \"/app/tools/stats.py\", line 41, in mean\n    return total / count\nZeroDivisionError: division by zero", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "node undefined property", typ: "TypeError", msg: "Cannot read properties of undefined (reading 'city')", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "go nil pointer panic", msg: "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x4b7a2c]\n\ngoroutine 42 [running]:", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "rust unwrap none", msg: "thread 'tokio-runtime-worker' panicked at src/tools/geo.rs:88:41:\ncalled `Option::unwrap()` on a `None` value", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "nim index defect", msg: "/srv/tools/report.nim(41) report\n/usr/lib/nim/system/fatal.nim(54) sysFatal\nError: unhandled exception: index 7 not in 0 .. 3 [IndexDefect]", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "java npe", typ: "java.lang.NullPointerException", msg: "Cannot invoke \"String.length()\" because \"name\" is null", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "jsonrpc internal error with a stack", jsonrpc: i32(-32603), msg: "Internal error", details: `{"stack":"TypeError: Cannot read properties of null (reading 'id')\n    at getUser (/srv/tools/users.js:12:20)"}`, idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	// No evidence of a defect: a missing argument is the caller's, and a
	// bare -32603 or a bare remote 500 says only that something failed; a
	// 500 that names a defect is one.
	{name: "python missing argument", typ: "TypeError", msg: "create_event() missing 1 required positional argument: 'start'", class: cap, code: inv},
	{name: "bare jsonrpc internal error", jsonrpc: i32(-32603), msg: "Internal error", idempotent: true, class: rel, code: tra, retryable: true},
	{name: "bare remote 500", http: i32(500), msg: "500 Internal Server Error", idempotent: true, class: rel, code: tra, retryable: true},
	{name: "remote 500 naming a defect", http: i32(500), msg: "500 Internal Server Error: NullPointerException at com.acme.Billing.finalize", idempotent: true, class: cap, code: ierr, rule: "baseline/programming-error"},
	{name: "python not implemented", typ: "NotImplementedError", msg: "Export to PDF is not implemented yet", class: cap, code: uns},
	{name: "pydantic validation", typ: "pydantic_core._pydantic_core.ValidationError", msg: "1 validation error for CreateEvent\nstart\n  Field required [type=missing, input_value={'title': 'x'}, input_type=dict]", class: cap, code: inv},
	{name: "node fetch failed", typ: "TypeError", msg: "fetch failed", details: `{"cause":{"code":"ECONNREFUSED","errno":-111,"syscall":"connect","address":"10.0.0.9","port":443}}`, class: rel, code: tra, retryable: true},
	{name: "node abort", typ: "AbortError", msg: "This operation was aborted", class: rel, code: tra},
	{name: "axios timeout", typ: "AxiosError", msg: "timeout of 10000ms exceeded", details: `{"code":"ECONNABORTED"}`, class: rel, code: tra},
	{name: "node socket hang up", msg: "socket hang up", details: `{"code":"ECONNRESET"}`, class: rel, code: tra},
	// The operating system's word decides: "too many" in its text does not make it a request too large.
	{name: "emfile", msg: "EMFILE: too many open files, open '/app/uploads/tmp/part-9'", class: rel, code: tra, retryable: true, rule: "baseline/errno"},
	{name: "node enoent", typ: "Error", msg: "ENOENT: no such file or directory, open '/srv/app/config.yml'", details: `{"errno":-2,"code":"ENOENT","syscall":"open","path":"/srv/app/config.yml"}`, class: cap, code: nf, rule: "baseline/errno"},
	{name: "node eacces", msg: "EACCES: permission denied, open '/etc/ssl/private/key.pem'", class: gov, code: perm},
	{name: "java socket timeout", typ: "java.net.SocketTimeoutException", msg: "Read timed out", class: rel, code: tra},
	{name: "java unknown host", typ: "java.net.UnknownHostException", msg: "api.internal.example: Name or service not known", class: rel, code: tra, retryable: true},
	{name: "java illegal argument", typ: "java.lang.IllegalArgumentException", msg: "No enum constant com.acme.Priority.URGENTT", class: cap, code: inv},
	{name: "java unsupported operation", typ: "java.lang.UnsupportedOperationException", msg: "Bulk delete is not available for this store", class: cap, code: uns},
	{name: "spring access denied", typ: "org.springframework.security.access.AccessDeniedException", msg: "Access is denied", class: gov, code: perm},
	{name: "dotnet task canceled", typ: "System.Threading.Tasks.TaskCanceledException", msg: "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.", class: rel, code: tra},
	{name: "go path error missing", typ: "*fs.PathError", msg: "open /data/report.csv: no such file or directory", class: cap, code: nf},
	{name: "go path error permission", typ: "*fs.PathError", msg: "open /etc/shadow: permission denied", class: gov, code: perm},
	{name: "go dns failure", typ: "*net.OpError", msg: "dial tcp: lookup api.internal on 10.0.0.2:53: no such host", class: rel, code: tra, retryable: true},
	{name: "go reset by peer", typ: "*url.Error", msg: `Get "https://api.example.com/v1/items": read tcp 10.0.0.5:51234->10.0.0.9:443: read: connection reset by peer`, class: rel, code: tra},
	{name: "go tls handshake timeout", msg: "net/http: TLS handshake timeout", class: rel, code: tra},
	{name: "go unexpected eof generic type", typ: "*url.Error", msg: `Post "https://api.example.com/v1/run": EOF`, class: rel, code: tra},
	{name: "go certificate error generic type", typ: "*url.Error", msg: `Get "https://api.example.com/v1/items": x509: certificate signed by unknown authority`, class: rel, code: tra, rule: "baseline/exception-type-generic"},
	{name: "rust connection refused", msg: "error sending request for url (http://localhost:8080/): error trying to connect: tcp connect error: Connection refused (os error 111)", typ: "reqwest::Error", class: rel, code: tra, retryable: true},

	// gRPC.
	{name: "grpc already exists", grpc: i32(6), msg: "rpc error: code = AlreadyExists desc = topic \"events\" already exists", class: cap, code: inv, rule: "baseline/grpc-status"},
	{name: "grpc failed precondition", grpc: i32(9), msg: "rpc error: code = FailedPrecondition desc = bucket is not empty", class: cap, code: inv},
	{name: "grpc aborted", grpc: i32(10), msg: "rpc error: code = Aborted desc = transaction aborted due to write conflict", class: rel, code: tra, retryable: true},
	{name: "grpc message too large", grpc: i32(8), msg: "rpc error: code = ResourceExhausted desc = grpc: received message larger than max (8388608 vs. 4194304)", class: cap, code: inv, rule: "baseline/grpc-status-text"},
	{name: "grpc unknown permission text", grpc: i32(2), msg: "rpc error: code = Unknown desc = permission denied for user reports", class: gov, code: perm},
	{name: "grpc cancelled", grpc: i32(1), msg: "rpc error: code = Canceled desc = context canceled", class: rel, code: tra},
	{name: "grpc from message only", msg: `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.1:443: connect: connection refused"`,
		class: rel, code: tra, retryable: true, rule: "baseline/grpc-status"},
	{name: "grpc python not found from message", msg: "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.NOT_FOUND\n\tdetails = \"order 77 not found\"\n>", class: cap, code: nf},

	// JSON-RPC and MCP.
	{name: "jsonrpc invalid request", jsonrpc: i32(-32600), msg: "Invalid Request", class: cap, code: inv},
	{name: "mcp resource not found", jsonrpc: i32(-32002), msg: "Resource not found", details: `{"code":-32002,"message":"Resource not found","data":{"uri":"file:///data/missing.txt"}}`, class: cap, code: nf, rule: "baseline/jsonrpc-code"},
	{name: "mcp url elicitation required", jsonrpc: i32(-32042), msg: "This request requires more information.", class: gov, code: act},
	{name: "mcp request timeout", jsonrpc: i32(-32001), msg: "MCP error -32001: Request timed out", class: rel, code: tra},
	{name: "mcp connection closed from message", msg: "MCP error -32000: Connection closed", class: rel, code: tra, rule: "baseline/jsonrpc-text"},
	{name: "jsonrpc data code forbidden", jsonrpc: i32(-32003), msg: "Forbidden", details: `{"code":-32003,"message":"Forbidden","data":{"code":"insufficient_scope","scope":"files:write"}}`, class: gov, code: perm, rule: "baseline/jsonrpc-data-code"},

	// Slack.
	{name: "slack missing scope", http: i32(200), msg: "An API error occurred: missing_scope", details: `{"ok":false,"error":"missing_scope","needed":"chat:write","provided":"channels:read"}`, class: gov, code: perm, rule: "baseline/slack-error"},
	{name: "slack not authed", http: i32(200), msg: "An API error occurred: not_authed", details: `{"ok":false,"error":"not_authed"}`, class: gov, code: auth},
	{name: "slack message too long", http: i32(200), msg: "An API error occurred: msg_too_long", details: `{"ok":false,"error":"msg_too_long"}`, class: cap, code: inv},
	{name: "slack fatal error", http: i32(200), msg: "An API error occurred: fatal_error", details: `{"ok":false,"error":"fatal_error"}`, class: rel, code: tra},
	{name: "slack unknown code read by words", http: i32(200), msg: "An API error occurred: user_is_restricted_from_posting_denied", details: `{"ok":false,"error":"posting_to_channel_denied"}`, class: gov, code: perm},

	// Vendor shapes.
	{name: "structured approval pending", msg: "Refund of 4,200 EUR was not issued: manager approval is required.",
		details: `{"structuredContent":{"reason_code":"manager_approval_required","execution":{"status":"pending_approval"}}}`, class: gov, code: act, rule: "baseline/confirmation-pending"},
	{name: "structured reason rate limited", msg: "Too many sends for this account today.",
		details: `{"structuredContent":{"reason_code":"send_rate_limited","execution":{"status":"not_started"}}}`, class: rel, code: tra, retryable: true, rule: "baseline/reason-code"},
	{name: "structured reason recipient invalid", msg: "The recipient address is not valid.",
		details: `{"structuredContent":{"reason_code":"invalid_recipient","execution":{"status":"not_started"}}}`, class: cap, code: inv},

	// HTTP statuses and their refinements.
	{name: "400 token expired", http: i32(400), msg: "Bad request: the access token has expired", class: gov, code: auth, rule: "baseline/http-status-text"},
	{name: "403 with retry-after", http: i32(403), retryAfter: "120", msg: "Forbidden", class: rel, code: tra, retryable: true, delay: 120},
	{name: "403 org policy", http: i32(403), msg: "Although you appear to have the correct authorization credentials, the `acme` organization has an IP allow list enabled, and your IP address is not permitted to access this resource. This action is blocked by your organization's policy.", class: gov, code: pol},
	{name: "407 proxy auth", http: i32(407), msg: "Proxy Authentication Required", class: gov, code: auth},
	{name: "408 request timeout", http: i32(408), msg: "Request Timeout", class: rel, code: tra},
	{name: "410 gone", http: i32(410), msg: "Gone", class: cap, code: nf},
	{name: "415 media type", http: i32(415), msg: "Unsupported Media Type", class: cap, code: uns},
	{name: "423 locked", http: i32(423), msg: "The resource is locked.", class: rel, code: tra, retryable: true},
	{name: "425 too early", http: i32(425), msg: "Too Early", class: rel, code: tra, retryable: true},
	{name: "503 http-date retry-after", http: i32(503), retryAfter: now.Add(90 * time.Second).Format("Mon, 02 Jan 2006 15:04:05 GMT"), msg: "Service Unavailable", class: rel, code: tra, idempotent: true, retryable: true, delay: 90},
	{name: "status from axios message", typ: "AxiosError", msg: "Request failed with status code 404", class: cap, code: nf, rule: "baseline/http-status"},
	{name: "status from requests message", typ: "requests.exceptions.HTTPError", msg: "429 Client Error: Too Many Requests for url: https://api.example.com/v1/search", class: rel, code: tra, retryable: true},
	{name: "status from html body", details: `"<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>"`, class: rel, code: tra},
	{name: "status from attributes", msg: "upstream said no", attrs: map[string]string{"http.response.status_code": "401"}, class: gov, code: auth},

	// Message only.
	{name: "msg rate limit with delay", msg: "Rate limit exceeded. Please retry after 2.5 seconds.", class: rel, code: tra, retryable: true, delay: 2.5, rule: "baseline/message-text"},
	{name: "msg go duration delay", msg: "Too many requests, please try again in 1m30s", class: rel, code: tra, retryable: true, delay: 90},
	{name: "msg session expired", msg: "Your session has expired. Please sign in again.", class: gov, code: auth},
	{name: "msg org policy", msg: "This action is not allowed by your organization's policy.", class: gov, code: pol},
	{name: "msg moderation", msg: "The prompt was flagged by the moderation system.", class: gov, code: pol},
	{name: "msg repo not found", msg: "Repository 'acme/web' not found", class: cap, code: nf},
	{name: "msg must be between", msg: "Parameter 'limit' must be between 1 and 100", class: cap, code: inv},
	{name: "msg parameter required", msg: "The 'mode' parameter is required", class: cap, code: inv},
	{name: "msg temporarily unavailable", msg: "Service temporarily unavailable, please try again later", class: rel, code: tra},
	{name: "msg temporarily unavailable idempotent", msg: "Service temporarily unavailable, please try again later", idempotent: true, class: rel, code: tra, retryable: true},
	{name: "msg confirm transfer", msg: "This tool requires the user to confirm the transfer before it can proceed.", class: gov, code: act},
	{name: "msg deploy approval", msg: "Deployment to prod requires approval from a release manager", class: gov, code: act},
	{name: "msg missing scope", msg: "Missing required scope: repo", class: gov, code: perm},
	{name: "msg upstream timeout", msg: "upstream request timeout", class: rel, code: tra},
	{name: "msg something went wrong", msg: "Something went wrong", class: rel, code: tra},
	{name: "msg billing", msg: "Your account's billing is not enabled. Enable billing to use this feature.", class: gov, code: act},
	{name: "msg unsupported language", msg: "Language 'tlh' is not supported", class: cap, code: uns},
	{name: "msg host not found", msg: "Could not resolve host: api.example.com", class: rel, code: tra, retryable: true},
	{name: "msg unauthorized", msg: "Unauthorized", class: gov, code: auth},
	{name: "msg forbidden", msg: "Forbidden", class: gov, code: perm},
	{name: "msg already exists", msg: "A project named 'atlas' already exists", class: cap, code: inv},

	// Nothing to go on.
	{name: "empty error", class: rel, code: tra, rule: classify.DefaultRuleID},
	{name: "opaque text", msg: "x7 q9", class: rel, code: tra, rule: classify.DefaultRuleID},
	// Nothing shows an unrecognised error to be transient: not retryable,
	// even for an idempotent tool.
	{name: "opaque text idempotent", msg: "x7 q9", idempotent: true, class: rel, code: tra, retryable: false, rule: classify.DefaultRuleID},
}

func allCases() []errCase { return append(append([]errCase(nil), cases...), moreCases...) }

func TestBaselineCases(t *testing.T) {
	t.Parallel()
	for _, c := range allCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := rulesOnly.Classify(c.input(t), now)
			if o.Class != c.class || o.Code != c.code || o.Retryable != c.retryable {
				t.Errorf("got %s/%s retryable=%v (rule %s), want %s/%s retryable=%v",
					o.Class, o.Code, o.Retryable, o.RuleID, c.class, c.code, c.retryable)
			}
			if c.rule != "" && o.RuleID != c.rule {
				t.Errorf("decided by %s, want %s", o.RuleID, c.rule)
			}
			if err := o.Validate(); err != nil {
				t.Error(err)
			}
			got := 0.0
			if !o.RetryNotBefore.IsZero() {
				got = o.RetryNotBefore.Sub(now).Seconds()
			}
			if math.Abs(got-c.delay) > 0.5 {
				t.Errorf("retry delay %.1fs, want %.1fs", got, c.delay)
			}
			if o.AgentGuidance == "" || len(o.AgentGuidance) >= 300 {
				t.Errorf("guidance %q: want 1..299 bytes", o.AgentGuidance)
			}
			if c.msg != "" && len(c.msg) > 12 && strings.Contains(o.AgentGuidance, c.msg) {
				t.Errorf("guidance echoes the message: %q", o.AgentGuidance)
			}
		})
	}
}

// TestEveryRuleAndCodeCovered keeps the table above honest: every baseline
// rule decides at least one case and every baseline code is produced.
func TestEveryRuleAndCodeCovered(t *testing.T) {
	t.Parallel()
	rules := map[string]bool{}
	codes := map[string]bool{}
	for _, c := range allCases() {
		o := rulesOnly.Classify(c.input(t), now)
		rules[o.RuleID] = true
		codes[o.Code] = true
	}
	for _, r := range classify.BaselineRules() {
		if !rules[r.ID] {
			t.Errorf("rule %s decides no test case", r.ID)
		}
	}
	for code := range classify.BaselineCodes() {
		if !codes[code] {
			t.Errorf("code %s produced by no test case", code)
		}
	}
	if n := len(allCases()); n < 60 {
		t.Errorf("%d cases, want at least 60", n)
	}
}

// rulesOnly is the baseline without its text model: the tests of the
// generic rules check what each rule decides, whatever the model (which
// is scored by leave-system-out cross-validation in internal/corpus).
var rulesOnly = classify.NewEngine(nil, classify.DefaultModelThreshold)
