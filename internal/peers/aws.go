package peers

import "slices"

// AWSStandard is the AWS SDKs' standard retry mode as the AWS SDK for
// JavaScript v3 implements it (@smithy/core 3.33.3, its retry submodule:
// service-error-classification and util-retry's StandardRetryStrategy;
// https://github.com/smithy-lang/smithy-typescript/blob/6815d3e96f3abc32e238bf6d806523aab81c6a8e/packages/core/src/submodules/retry/service-error-classification/service-error-classification.ts).
// StandardRetryStrategy retries the error types THROTTLING and TRANSIENT
// only. Throttling: status 429, or an error name in THROTTLING_ERROR_CODES.
// Transient: an error name in TRANSIENT_ERROR_CODES, a Node.js system error
// code in NODEJS_TIMEOUT_ERROR_CODES or NODEJS_NETWORK_ERROR_CODES, status
// 500, 502, 503 or 504, or a browser's fetch TypeError with one of five
// fixed messages. The modeled $retryable trait and clock-skew correction
// are not visible in an error as reported, and are left out. (botocore's
// standard mode has the same lists, without 429 as a status.)
//
// What it sees: the status, the error's name (the type's last part, or a
// code in the body: Error.Code, __type, code) and a system error's code. A
// message-only error has none of them, and is not retried.
var AWSStandard = Peer{
	Name:    "AWS SDK standard retry mode",
	Version: "@smithy/core 3.33.3 (AWS SDK for JavaScript v3)",
	Rule:    "retries 429, 500, 502, 503, 504, the throttling and transient error codes, and Node.js network errors",
	Source:  "https://github.com/smithy-lang/smithy-typescript/blob/6815d3e96f3abc32e238bf6d806523aab81c6a8e/packages/core/src/submodules/retry/service-error-classification/constants.ts",
	Sees:    "the status, the error's name or code (type or body), a system error's code; a message-only error is not retried",
	Decide:  retryOnly(awsRetries),
}

var (
	awsThrottlingCodes = []string{"BandwidthLimitExceeded", "EC2ThrottledException", "LimitExceededException",
		"PriorRequestNotComplete", "ProvisionedThroughputExceededException", "RequestLimitExceeded", "RequestThrottled",
		"RequestThrottledException", "SlowDown", "ThrottledException", "Throttling", "ThrottlingException",
		"TooManyRequestsException", "TransactionInProgressException"}
	awsTransientCodes       = []string{"TimeoutError", "RequestTimeout", "RequestTimeoutException"}
	awsTransientStatuses    = []int{500, 502, 503, 504}
	awsNodeTimeoutCodes     = []string{"ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT"}
	awsNodeNetworkCodes     = []string{"EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"}
	awsBrowserNetworkErrors = []string{"Failed to fetch", "NetworkError when attempting to fetch resource",
		"The Internet connection appears to be offline", "Load failed", "Network request failed"}
)

func awsRetries(f Failure) bool {
	names := f.names()
	throttling := f.HTTPStatus == 429 || anyIn(names, awsThrottlingCodes...)
	transient := anyIn(names, awsTransientCodes...) || anyIn(names, awsNodeTimeoutCodes...) ||
		anyIn(names, awsNodeNetworkCodes...) || slices.Contains(awsTransientStatuses, f.HTTPStatus) ||
		(f.Name() == "TypeError" && slices.Contains(awsBrowserNetworkErrors, f.Message))
	return throttling || transient
}
