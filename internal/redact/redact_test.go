package redact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/redact"
)

// Fake credentials, shaped like real ones. Some are assembled at run time
// so that secret scanners do not flag this file.
var (
	ghToken     = "ghp_" + "R4nd0mL00k1ngT0k3nF0rT3st1ngOnly0123"
	slackToken  = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
	stripeKey   = "sk_" + "live_51HqLyjWDarjtT1zdp7dcXoz0Yy9xR"
	awsKeyID    = "AKIA" + "IOSFODNN7EXAMPLE"
	awsSecret   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	openaiKey   = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
	anthropic   = "sk-ant-" + "api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f"
	googleKey   = "AIza" + "SyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"
	jwt         = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	webhookPath = "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"
	pemKey      = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END RSA PRIVATE KEY-----"
)

func mark(kind string) string { return redact.Marker(kind) }

func TestString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		// authorization
		{"auth header bearer", "request headers: Authorization: Bearer abc.def-123", "request headers: Authorization: Bearer " + mark("authorization")},
		{"auth header basic", `{"authorization": "Basic dXNlcjpodW50ZXIy"}`, `{"authorization": "Basic ` + mark("authorization") + `"}`},
		{"auth header word only", "the Authorization header format is described in RFC 6750", "the Authorization header format is described in RFC 6750"},
		// cookie
		{"cookie header", "Cookie: sid=31d4d96e407aad42; theme=dark\nHost: x", "Cookie: " + mark("cookie") + "\nHost: x"},
		{"set-cookie header", "Set-Cookie: session=abc123; HttpOnly", "Set-Cookie: " + mark("cookie")},
		{"cookie prose", "cookies are disabled in this browser", "cookies are disabled in this browser"},
		// bearer
		{"bare bearer", "sent bearer " + "a1b2c3d4e5f6g7h8 to upstream", "sent bearer " + mark("bearer_token") + " to upstream"},
		{"bearer prose", "Bearer authentication failed for realm api", "Bearer authentication failed for realm api"},
		// jwt
		{"jwt", "token " + jwt + " rejected", "token " + mark("jwt") + " rejected"},
		{"jwt-like prose", "eyJ is how base64 JSON starts", "eyJ is how base64 JSON starts"},
		// github
		{"github pat classic", "git clone https://x:" + ghToken + "@github.com/a/b", "git clone https://x:" + mark("github_token") + "@github.com/a/b"},
		{"github fine-grained", "GITHUB_TOKEN is github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GITHUB_TOKEN is " + mark("github_token")},
		{"github short", "see ghp_ prefix docs", "see ghp_ prefix docs"},
		// slack
		{"slack token", "invalid_auth for " + slackToken, "invalid_auth for " + mark("slack_token")},
		{"slack app token", "xapp-1-A0123456789-1234567890123-abcdef0123456789", mark("slack_token")},
		{"slack word", "xoxb tokens start with xoxb", "xoxb tokens start with xoxb"},
		{"slack webhook", "POST https://hooks.slack.com/services/" + webhookPath + " failed", "POST https://hooks.slack.com/services/" + mark("slack_webhook") + " failed"},
		{"slack host only", "hooks.slack.com is unreachable", "hooks.slack.com is unreachable"},
		// stripe
		{"stripe live", "Invalid API Key provided: " + stripeKey, "Invalid API Key provided: " + mark("stripe_key")},
		{"stripe webhook secret", "signing secret whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "signing secret " + mark("stripe_key")},
		{"stripe masked", "Invalid API Key provided: sk_live_********************3kQz", "Invalid API Key provided: sk_live_********************3kQz"},
		// aws
		{"aws key id", "The AWS Access Key Id " + awsKeyID + " does not exist", "The AWS Access Key Id " + mark("aws_access_key_id") + " does not exist"},
		{"aws key id short", "AKIA is the prefix of long-term keys", "AKIA is the prefix of long-term keys"},
		{"aws secret", "aws_secret_access_key = " + awsSecret, "aws_secret_access_key = " + mark("aws_secret_access_key")},
		{"aws secret json", `{"SecretAccessKey": "` + awsSecret + `"}`, `{"SecretAccessKey": "` + mark("aws_secret_access_key") + `"}`},
		{"aws secret prose", "set aws_secret_access_key in the profile", "set aws_secret_access_key in the profile"},
		// openai / anthropic
		{"openai key", "Incorrect API key provided: " + openaiKey + ".", "Incorrect API key provided: " + mark("openai_api_key") + "."},
		{"anthropic key", "x-api-key " + anthropic, "x-api-key " + mark("anthropic_api_key")},
		{"sk- prose", "the task-runner uses sk-learn", "the task-runner uses sk-learn"},
		// google
		{"google key", "API key not valid: " + googleKey, "API key not valid: " + mark("google_api_key")},
		{"google word", "AIza is the prefix", "AIza is the prefix"},
		// url password
		{"postgres url", "dial postgres://app:s3cr%40t@db.internal:5432/app failed", "dial postgres://app:" + mark("url_password") + "@db.internal:5432/app failed"},
		{"redis url no user", "redis://:hunter2@cache:6379/0", "redis://:" + mark("url_password") + "@cache:6379/0"},
		{"url with port", "GET https://api.example.com:8443/v1/items failed", "GET https://api.example.com:8443/v1/items failed"},
		{"email in url", "mailto:someone@example.com", "mailto:someone@example.com"},
		// pem
		{"pem", "bad key:\n" + pemKey + "\ndone", "bad key:\n" + mark("private_key") + "\ndone"},
		{"pem truncated", "key -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "key " + mark("private_key")},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----"},
		// key=value fields
		{"password=", "login failed: user=bob password=hunter2 host=db", "login failed: user=bob password=" + mark("secret_field") + " host=db"},
		{"json password", `{"user": "bob", "password": "correct horse"}`, `{"user": "bob", "password": "` + mark("secret_field") + `"}`},
		{"python repr api_key", `{'api_key': 'abc', 'model': 'x'}`, `{'api_key': '` + mark("secret_field") + `', 'model': 'x'}`},
		{"query token", "GET /cb?state=1&access_token=ya29.a0AfH6SMB&x=2", "GET /cb?state=1&access_token=" + mark("secret_field") + "&x=2"},
		{"client_secret", "client_secret: 9f8e7d6c5b4a", "client_secret: " + mark("secret_field")},
		{"x-api-key header", "X-Api-Key: test", "X-Api-Key: " + mark("secret_field")},
		{"max_tokens kept", "max_tokens=4096 exceeds the limit; token_count: 5000", "max_tokens=4096 exceeds the limit; token_count: 5000"},
		{"json usage kept", `{"prompt_tokens": 12, "tokens_used": 30, "token_type": "bearer"}`, `{"prompt_tokens": 12, "tokens_used": 30, "token_type": "bearer"}`},
		{"prose token colon", "Invalid token: expired", "Invalid token: expired"},
		{"prose token colon secret", "Invalid token: 9d8f7a6b5c4e3d2f", "Invalid token: " + mark("secret_field")},
		{"empty password kept", `password=""`, `password=""`},
		{"key word kept", "Missing the key id in the item", "Missing the key id in the item"},
		{"ruby hash", `{:password => "pw1"}`, `{:password => "` + mark("secret_field") + `"}`},
		{"escaped json", `{\"password\": \"hunter2\", \"user\": \"bob\"}`, `{\"password\": \"` + mark("secret_field") + `\", \"user\": \"bob\"}`},
		{"escaped auth header", `{\"Authorization\":\"Bearer abc123def\"}`, `{\"Authorization\":\"Bearer ` + mark("authorization") + `\"}`},
		// nothing to do
		{"plain", "rpc error: code = Unavailable desc = connection refused", "rpc error: code = Unavailable desc = connection refused"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := redact.String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if again := redact.String(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestEveryPatternHasCases(t *testing.T) {
	t.Parallel()
	// Every kind must be listed, described and prefiltered; each one is
	// exercised positively and negatively in TestString.
	want := map[string]bool{
		"private_key": true, "authorization": true, "cookie": true, "bearer_token": true, "jwt": true,
		"github_token": true, "slack_token": true, "slack_webhook": true, "stripe_key": true,
		"aws_access_key_id": true, "aws_secret_access_key": true, "anthropic_api_key": true,
		"openai_api_key": true, "google_api_key": true, "url_password": true, "secret_field": true,
	}
	for _, p := range redact.Patterns() {
		if !want[p.Kind] {
			t.Errorf("pattern %q has no test cases", p.Kind)
		}
		delete(want, p.Kind)
		if p.Description == "" || p.Regexp == "" || len(p.Prefilters) == 0 {
			t.Errorf("pattern %q lacks a description, regexp or prefilter", p.Kind)
		}
		if p.FoldCase {
			for _, f := range p.Prefilters {
				if f != strings.ToLower(f) {
					t.Errorf("pattern %q: fold-case prefilter %q must be lower case", p.Kind, f)
				}
			}
		}
	}
	for k := range want {
		t.Errorf("kind %q expected but not in Patterns()", k)
	}
}

func TestPatternsReturnsCopy(t *testing.T) {
	t.Parallel()
	ps := redact.Patterns()
	ps[0].Kind = "changed"
	ps[0].Prefilters[0] = "changed"
	if redact.Patterns()[0].Kind == "changed" || redact.Patterns()[0].Prefilters[0] == "changed" {
		t.Fatal("Patterns() exposes the package table")
	}
}

func TestSensitiveKey(t *testing.T) {
	t.Parallel()
	yes := []string{
		"password", "Password", "PASSWD", "db_password", "new-password", "passphrase", "pwd",
		"secret", "client_secret", "clientSecret", "token", "access_token", "refreshToken",
		"id_token", "api_key", "apiKey", "API-KEY", "x-api-key", "apikey", "access_key",
		"accessKeyId", "private_key", "privateKey", "authorization", "Proxy-Authorization",
		"cookie", "Set-Cookie", "session", "sessionId", "session_token", "credentials",
		"credential", "auth", "basic_auth", "Ocp-Apim-Subscription-Key", "AccountKey",
		"signature", "sig", "x-csrf-token", "jwt", "http.request.header.authorization",
	}
	no := []string{
		"", "max_tokens", "maxTokens", "max_output_tokens", "token_count", "tokens_used",
		"prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "tokenCount",
		"token_type", "token_limit", "next_page_token", "pageToken", "tokenizer",
		"secret_name", "SecretId", "password_policy", "session_timeout", "expires_in",
		"author", "authority", "key", "id", "name", "message", "signature_version",
		"token_url", "db.response.status_code", "passport", "bypass", "keyboard",
	}
	for _, k := range yes {
		if !redact.SensitiveKey(k) {
			t.Errorf("SensitiveKey(%q) = false, want true", k)
		}
	}
	for _, k := range no {
		if redact.SensitiveKey(k) {
			t.Errorf("SensitiveKey(%q) = true, want false", k)
		}
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func TestValueNested(t *testing.T) {
	t.Parallel()
	in := decode(t, `{
		"error": {"message": "Incorrect API key provided: `+openaiKey+`", "code": "invalid_api_key"},
		"request": {
			"headers": {"Authorization": "Bearer abc", "X-Api-Key": "k", "Accept": "application/json"},
			"body": {"model": "gpt-4o", "max_tokens": 4096, "password": 1234, "credentials": {"user": "u", "pass": "p"}},
			"url": "https://u:pw@example.com/x"
		},
		"usage": {"prompt_tokens": 10, "total_tokens": 20},
		"items": ["plain", "token=abcdef123456", {"client_secret": "s"}],
		"api_key": "",
		"session": null,
		"password_set": true,
		"retry": true,
		"count": 3.5
	}`)
	want := decode(t, `{
		"error": {"message": "Incorrect API key provided: [REDACTED:openai_api_key]", "code": "invalid_api_key"},
		"request": {
			"headers": {"Authorization": "[REDACTED:secret_field]", "X-Api-Key": "[REDACTED:secret_field]", "Accept": "application/json"},
			"body": {"model": "gpt-4o", "max_tokens": 4096, "password": "[REDACTED:secret_field]", "credentials": "[REDACTED:secret_field]"},
			"url": "https://u:[REDACTED:url_password]@example.com/x"
		},
		"usage": {"prompt_tokens": 10, "total_tokens": 20},
		"items": ["plain", "token=[REDACTED:secret_field]", {"client_secret": "[REDACTED:secret_field]"}],
		"api_key": "",
		"session": null,
		"password_set": true,
		"retry": true,
		"count": 3.5
	}`)
	got := redact.Value(in)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Fatalf("Value mismatch:\n%s", g)
	}
	if again := redact.Value(got); !reflect.DeepEqual(again, got) {
		t.Fatal("Value is not idempotent")
	}
}

func TestValueDoesNotMutate(t *testing.T) {
	t.Parallel()
	const src = `{"password": "x", "nested": [{"token": "abcdefgh12345678"}, "Authorization: Bearer q"], "s": "sk_live_` + `abcdefghijklmnop"}`
	in := decode(t, src)
	before := decode(t, src)
	_ = redact.Value(in)
	if !reflect.DeepEqual(in, before) {
		t.Fatal("Value modified its input")
	}
	m := map[string]string{"Authorization": "Bearer x", "note": "password=x"}
	_ = redact.Map(m)
	if m["Authorization"] != "Bearer x" || m["note"] != "password=x" {
		t.Fatal("Map modified its input")
	}
}

func TestValueScalarsAndOtherTypes(t *testing.T) {
	t.Parallel()
	if got := redact.Value(nil); got != nil {
		t.Errorf("Value(nil) = %v", got)
	}
	if got := redact.Value(2.5); got != 2.5 {
		t.Errorf("Value(2.5) = %v", got)
	}
	if got := redact.Value(true); got != true {
		t.Errorf("Value(true) = %v", got)
	}
	if got := redact.Value(json.Number("42")); got != json.Number("42") {
		t.Errorf("Value(json.Number) = %v", got)
	}
	if got := redact.Value("password=x"); got != "password="+mark("secret_field") {
		t.Errorf("Value(string) = %v", got)
	}
	got := redact.Value([]string{"ok", "token=abcdefgh1234"})
	if !reflect.DeepEqual(got, []string{"ok", "token=" + mark("secret_field")}) {
		t.Errorf("Value([]string) = %v", got)
	}
}

func TestMap(t *testing.T) {
	t.Parallel()
	in := map[string]string{
		"db.response.status_code":           "40001",
		"db.system.name":                    "postgresql",
		"http.request.header.authorization": "Bearer abc",
		"db.connection_string":              "postgres://app:pw@db/app",
		"api_key":                           "",
		"gen_ai.usage.input_tokens":         "1200",
	}
	want := map[string]string{
		"db.response.status_code":           "40001",
		"db.system.name":                    "postgresql",
		"http.request.header.authorization": mark("secret_field"),
		"db.connection_string":              "postgres://app:" + mark("url_password") + "@db/app",
		"api_key":                           "",
		"gen_ai.usage.input_tokens":         "1200",
	}
	if got := redact.Map(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Map = %v, want %v", got, want)
	}
	if redact.Map(nil) != nil {
		t.Error("Map(nil) != nil")
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"Authorization: Bearer abc", "password=hunter2", `{"token": "x"}`, jwt, pemKey,
		"postgres://a:b@c/d", "https://hooks.slack.com/services/" + webhookPath, "sk-" + "abcdefghijklmnopqrstuvwx",
		"Cookie: a=b", "bearer " + "abcdefgh12345678", "token: [REDACTED:jwt]", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := redact.String(s)
		if twice := redact.String(once); twice != once {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
		}
	})
}

// A typical tool error of about 200 bytes with nothing to redact: the cost
// every reported failure pays.
const plainMessage = "POST https://api.example.com/v2/orders/ORD-88123/fulfil: 503 Service Unavailable: upstream connect error or disconnect/reset before headers. reset reason: connection termination (retry later)"

func BenchmarkStringNoSecret(b *testing.B) {
	b.SetBytes(int64(len(plainMessage)))
	for b.Loop() {
		_ = redact.String(plainMessage)
	}
}

func BenchmarkStringWithSecret(b *testing.B) {
	msg := "request to https://api.example.com failed: Authorization: Bearer " + jwt + " rejected (password=hunter2)"
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		_ = redact.String(msg)
	}
}

func BenchmarkValue(b *testing.B) {
	var v any
	_ = json.Unmarshal([]byte(`{"error": {"message": "Rate limit reached for gpt-4o", "type": "tokens", "code": "rate_limit_exceeded"}, "usage": {"prompt_tokens": 10}}`), &v)
	for b.Loop() {
		_ = redact.Value(v)
	}
}
