package peers

import "strings"

// AISDK is the Vercel AI SDK's retry rule (package ai 7.0.77, @ai-sdk/provider
// 4.0.7, @ai-sdk/provider-utils 5.0.29; github.com/vercel/ai at ed857f5):
// retryWithExponentialBackoffRespectingRetryHeaders retries an APICallError
// whose isRetryable is true, and nothing else
// (packages/ai/src/util/retry-with-exponential-backoff.ts). isRetryable
// defaults to a status of 408, 409, 429 or 500 and above
// (packages/provider/src/errors/api-call-error.ts,
// https://github.com/vercel/ai/blob/ed857f50f112e23930b0c2dd8d532cc8bebbc911/packages/provider/src/errors/api-call-error.ts),
// and is true for a failure to connect: a TypeError "fetch failed" or
// "failed to fetch" with a cause, or a Bun error whose code is one of
// ConnectionRefused, ConnectionClosed, FailedToOpenSocket, ECONNRESET,
// ECONNREFUSED, ETIMEDOUT, EPIPE (packages/provider-utils/src/handle-fetch-error.ts).
//
// What it sees: the status; without one, a network error, which in Node.js is
// the "fetch failed" TypeError around any system error of connectFailures (an
// errno name in the type or the body's code counts), or the TypeError's own
// message. A message-only error is none of these, and is not retried.
var AISDK = Peer{
	Name:    "Vercel AI SDK",
	Version: "ai 7.0.77",
	Rule:    "retries an APICallError with status 408, 409, 429 or 5xx, and a failure to connect",
	Source:  "https://github.com/vercel/ai/blob/ed857f50f112e23930b0c2dd8d532cc8bebbc911/packages/provider/src/errors/api-call-error.ts",
	Sees:    "the status; without one, a network error (an errno name, or fetch's TypeError); a message-only error is not retried",
	Decide:  retryOnly(aiSDKRetries),
}

var (
	aiSDKFetchFailed = []string{"fetch failed", "failed to fetch"}
	aiSDKBunCodes    = []string{"ConnectionRefused", "ConnectionClosed", "FailedToOpenSocket", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE"}
)

func aiSDKRetries(f Failure) bool {
	if s := f.HTTPStatus; s != 0 {
		return s == 408 || s == 409 || s == 429 || s >= 500
	}
	if f.Name() == "TypeError" && anyIn([]string{strings.ToLower(f.Message)}, aiSDKFetchFailed...) {
		return true
	}
	return anyIn(f.names(), aiSDKBunCodes...) || anyIn(f.names(), connectFailures...)
}
