package peers

import "github.com/omcp/toolfailure/internal/classify"

// LiteLLM is LiteLLM's exception mapping and its retry decision: a status
// becomes an OpenAI-style exception class (the table of
// https://docs.litellm.ai/docs/exception_mapping, as of 2026-10: 400
// BadRequestError, 401 AuthenticationError, 403 PermissionDeniedError, 404
// NotFoundError, 408 Timeout, 422 UnprocessableEntityError, 429
// RateLimitError, 503 ServiceUnavailableError, 500 and above
// InternalServerError, another status APIError, and "if any unmapped error is
// returned" APIConnectionError with status 500), and whether to retry is
// litellm._should_retry(status_code): 408, 409, 429 or 500 and above
// (litellm/utils.py, https://github.com/BerriAI/litellm/blob/main/litellm/utils.py,
// the check the page's "Should you retry exception?" shows). Written from the
// page and the function as published; the message-based subclasses of
// BadRequestError (ContextWindowExceededError, ContentPolicyViolationError)
// read provider-specific wording and are left out (they are 400s: not
// retried either way).
//
// Its classes name the proposal's: BadRequestError and
// UnprocessableEntityError are capability/invalid_input, NotFoundError
// capability/resource_not_found, AuthenticationError governance/auth_required,
// PermissionDeniedError governance/permission_denied, Timeout, RateLimitError,
// the 5xx classes and APIConnectionError reliability; a generic APIError names
// none.
//
// What it sees: the status. An error without one (message-only, or an
// exception or network error alone) is the unmapped case, an
// APIConnectionError of status 500: reliability, retried.
var LiteLLM = Peer{
	Name:       "LiteLLM exception mapping",
	Version:    "docs as of 2026-10",
	Rule:       "maps a status to an exception class; retries 408, 409, 429, 5xx and unmapped errors (APIConnectionError, 500)",
	Source:     "https://docs.litellm.ai/docs/exception_mapping",
	Sees:       "the status; an error without one is an APIConnectionError (500): reliability, retried",
	Classifies: true,
	Decide:     liteLLMDecide,
}

func liteLLMDecide(f Failure) Decision {
	status := f.HTTPStatus
	if status == 0 {
		status = 500 // APIConnectionError
	}
	d := Decision{Retry: status == 408 || status == 409 || status == 429 || status >= 500}
	set := func(class classify.Class, code string) { d.Class, d.Code = string(class), code }
	switch {
	case status == 400 || status == 422:
		set(classify.Capability, classify.CodeInvalidInput)
	case status == 401:
		set(classify.Governance, classify.CodeAuthRequired)
	case status == 403:
		set(classify.Governance, classify.CodePermissionDenied)
	case status == 404:
		set(classify.Capability, classify.CodeResourceNotFound)
	case status == 408 || status == 429 || status >= 500:
		set(classify.Reliability, classify.CodeRetryableTransient)
	}
	return d
}
