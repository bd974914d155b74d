package classify

import (
	"fmt"
	"time"
)

// kind is what a rule concludes: a class and code plus the flavour that
// picks the guidance and tells whether the request can have had an effect.
type kind uint8

const (
	kNone kind = iota

	// Reliability.
	kUnknown     // nothing matched
	kRateLimit   // rejected before processing
	kOverloaded  // rejected before processing
	kTimeout     // may or may not have taken effect
	kRefused     // connection never established: not processed
	kDNS         // host name did not resolve: not processed
	kNetwork     // connection broke mid-way: unknown effect
	kServer      // the service failed: unknown effect
	kUnavailable // service down or starting: unknown effect
	kContention  // lock, deadlock, serialization failure: rolled back

	// Capability.
	kInvalid
	kTooLarge
	kExists
	kNotFound
	kUnsupported

	// Governance.
	kAuth
	kPermission
	kPolicy
	kConfirm
	kBilling
	kSetup
	kStorageFull

	// Reliability, after the others so that adding it kept their numbers.
	kDeferred // a mail server's transient reply (SMTP 4xx): not accepted, try later

	// Capability, last for the same reason.
	kDefect // an unhandled programming error in the tool's own code

	// Governance, last for the same reason.
	kChallenge // a bot check (CAPTCHA, browser challenge) only a person can pass

	kindCount
)

type kindInfo struct {
	class Class
	code  string
	// notProcessed: the error shows the request had no effect, so it is
	// safe to repeat even for a tool that is not idempotent.
	notProcessed bool
	advice       string
}

var kindTable = [kindCount]kindInfo{
	kUnknown:     {Reliability, CodeRetryableTransient, false, "The tool failed for an unrecognised reason."},
	kRateLimit:   {Reliability, CodeRetryableTransient, true, "The service is rate limiting requests."},
	kOverloaded:  {Reliability, CodeRetryableTransient, true, "The service is overloaded and turned the request away."},
	kTimeout:     {Reliability, CodeRetryableTransient, false, "The request timed out."},
	kRefused:     {Reliability, CodeRetryableTransient, true, "The service could not be reached."},
	kDNS:         {Reliability, CodeRetryableTransient, true, "The service's host name could not be resolved."},
	kNetwork:     {Reliability, CodeRetryableTransient, false, "The connection to the service broke."},
	kServer:      {Reliability, CodeRetryableTransient, false, "The service had an internal error."},
	kUnavailable: {Reliability, CodeRetryableTransient, false, "The service is temporarily unavailable."},
	kContention:  {Reliability, CodeRetryableTransient, true, "The request lost a race with a concurrent change and was rolled back."},

	kInvalid:     {Capability, CodeInvalidInput, false, "The arguments were rejected. Correct them using the tool's input schema and the error, then call again."},
	kTooLarge:    {Capability, CodeInvalidInput, false, "The request is too large. Send less data, for example by splitting or shortening the input, then call again."},
	kExists:      {Capability, CodeInvalidInput, false, "The request conflicts with something that already exists. Use a different name or update the existing item instead."},
	kNotFound:    {Capability, CodeResourceNotFound, false, "The requested item does not exist or is not visible to these credentials. Check the identifier, or search for the right one, before calling again."},
	kUnsupported: {Capability, CodeCapabilityUnsupported, false, "The tool or service does not support this operation. Do not retry it; use another tool or approach."},

	kAuth:        {Governance, CodeAuthRequired, false, "The tool's credentials are missing, invalid or expired. Ask the user to sign in again or update the credentials, then retry."},
	kPermission:  {Governance, CodePermissionDenied, false, "The credentials are valid but lack permission for this action or resource. Ask the user to grant access, or choose something they can access; do not retry as is."},
	kPolicy:      {Governance, CodePolicyBlocked, false, "A policy blocked this request. Do not retry or rephrase it to get around the block; tell the user it was refused."},
	kConfirm:     {Governance, CodeUserActionRequired, false, "This action needs explicit confirmation or approval from the user. Ask them, and call again only once they have agreed."},
	kBilling:     {Governance, CodeUserActionRequired, false, "The account's quota, plan or billing does not allow this call. Ask the user to check their plan or billing; retrying will not help."},
	kSetup:       {Governance, CodeUserActionRequired, false, "The account or service needs setting up by the user before this can work. Tell the user what is needed, then call again once it is done."},
	kStorageFull: {Governance, CodeUserActionRequired, false, "The storage is full or over quota. Ask the user to free space or raise the quota, then call again."},

	kDeferred: {Reliability, CodeRetryableTransient, true, "The receiving server deferred the request for now and asked for it to be sent again later."},

	kDefect: {Capability, CodeInternalError, false, "The tool failed because of a defect in its own code. Do not retry the same call; tell the user, and report the correlation ID."},

	kChallenge: {Governance, CodeUserActionRequired, false, "The site answered with a bot check (a CAPTCHA or browser challenge) that only a person can pass. Do not retry automatically; tell the user, who can open the page in a browser or use the site's API instead."},
}

// guidance writes the agent guidance for a kind. It never includes text from
// the error itself.
func guidance(k kind, retryable bool, wait time.Duration) string {
	info := kindTable[k]
	if info.class != Reliability {
		return info.advice
	}
	if retryable && wait > 0 {
		return info.advice + " Wait " + formatWait(wait) + ", then retry the same call."
	}
	return fixedGuidance[k][b2i(retryable)]
}

// fixedGuidance holds, for each reliability kind, the guidance when not
// retryable and when retryable without a known wait, built once instead of
// on every call.
var fixedGuidance = func() (g [kindCount][2]string) {
	for k := range g {
		info := kindTable[k]
		g[k][0] = info.advice + " The call may have taken effect: check its result before retrying, and report the correlation ID if it keeps failing."
		if kind(k) == kRateLimit || kind(k) == kOverloaded {
			g[k][1] = info.advice + " Wait a few seconds, then retry the same call with backoff."
		} else {
			g[k][1] = info.advice + " Retry the same call after a short backoff; if it keeps failing, report the correlation ID."
		}
	}
	return g
}()

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// formatWait renders a delay for people and models: "30 s", "2 min",
// "1 h 5 min".
func formatWait(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second) // round up: never invite an early retry
	switch {
	case s < 120:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		m := (s + 59) / 60
		return fmt.Sprintf("%d min", m)
	default:
		h, m := s/3600, (s%3600+59)/60
		if m == 60 {
			h, m = h+1, 0
		}
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
}
