package classify

import (
	"regexp"
	"strings"
)

// The baseline rule pack. Rules are tried in order and the first match
// wins, so the order encodes which signal to trust when signals disagree:
//
//  1. Explicit vendor shapes: a body that says in its own words what
//     happened (awaiting confirmation, a reason code, JSON-RPC error data,
//     Slack's ok:false).
//  2. Specific vendor error codes, which overrule a status code: AWS
//     throttles with HTTP 400, and OpenAI reports an exhausted billing
//     quota as HTTP 429. Then an SMTP reply, whose first digit is the mail
//     server's own verdict on retrying.
//  3. Protocol status codes (HTTP, gRPC, JSON-RPC). Ambiguous statuses are
//     first refined by what the message says: a 403 whose message says
//     "rate limit" is a rate limit, a 400 whose message says "token
//     expired" is an authentication failure.
//  4. Database codes (SQLSTATE, MySQL, SQL Server, Oracle, Redis).
//  5. errno names and exception types.
//  6. The message alone.
//  7. Generic transport exception types, which only say "some I/O failed".
//
// Nothing here names a particular tool, server or message: the rules must
// hold for errors never seen before.

type rule struct {
	id, description string
	match           func(s *signals) (kind, bool)
}

var baselineRules = []rule{
	{"baseline/confirmation-pending", "details say the action is paused for human confirmation or approval (execution.status awaiting_confirmation and similar)", ruleConfirmation},
	{"baseline/reason-code", "structuredContent.reason_code (or a top-level reason_code) names why the tool refused", ruleReasonCode},
	{"baseline/jsonrpc-data-code", "a server-defined JSON-RPC error (-32000 to -32099) whose data carries a code", ruleJSONRPCData},
	{"baseline/slack-error", "a Slack Web API body: ok:false with an error code, sent with HTTP 200", ruleSlack},
	{"baseline/programming-error", "an unhandled programming error in the tool's own code: a runtime's defect type (ZeroDivisionError, NullPointerException, …), a panic or a stack trace naming one, with no remote status", ruleDefect},
	{"baseline/firewall", "a web application firewall's block page, a bot check (CAPTCHA, browser challenge) or a virus scanner's verdict, by the product's headers or the page's wording, whatever the status code", ruleFirewall},
	{"baseline/vendor-code", "a specific error code in the body or type (ThrottlingException, insufficient_quota, content_policy_violation, …)", ruleVendorCode},
	{"baseline/smtp-reply", "an SMTP reply code (4xx transient, 5xx permanent) and its enhanced status code (RFC 3463: 4.7.1, 5.1.1, …) in the message", ruleSMTP},
	{"baseline/http-status-text", "an ambiguous HTTP status (400, 403, 409, 422, 429, 500, 2xx) refined by what the message says", ruleHTTPText},
	{"baseline/http-status", "the HTTP status code", ruleHTTP},
	{"baseline/grpc-status-text", "an ambiguous gRPC status (UNKNOWN, INVALID_ARGUMENT, PERMISSION_DENIED, RESOURCE_EXHAUSTED, INTERNAL, …) refined by the message", ruleGRPCText},
	{"baseline/grpc-status", "the gRPC status code", ruleGRPC},
	{"baseline/jsonrpc-text", "a JSON-RPC error code that leaves the cause open, refined by the message", ruleJSONRPCText},
	{"baseline/jsonrpc-code", "the JSON-RPC error code (standard codes and MCP's)", ruleJSONRPC},
	{"baseline/sqlstate", "a SQLSTATE from db.response.status_code, the error body or the message", ruleSQLState},
	{"baseline/db-error-code", "a MySQL, SQL Server or Oracle error number", ruleDBVendor},
	{"baseline/redis-error", "a Redis error reply prefix (LOADING, NOAUTH, WRONGTYPE, …)", ruleRedis},
	{"baseline/errno", "an errno or Node.js error code (ECONNRESET, ENOTFOUND, EACCES, …) in the type, body or message", ruleErrno},
	{"baseline/exception-type", "a language or library exception type (TimeoutError, FileNotFoundError, IllegalArgumentException, …)", ruleExceptionType},
	{"baseline/message-text", "phrases in the message and the body's messages and codes", ruleMessage},
	{"baseline/exception-type-generic", "a generic transport or I/O error type (*url.Error, IOException, OperationalError, …)", ruleGenericType},
}

// confirmationStates are execution states meaning "waiting for a person".
var confirmationStates = map[string]bool{
	"awaitingconfirmation": true, "pendingconfirmation": true, "requiresconfirmation": true,
	"confirmationrequired": true, "needsconfirmation": true, "awaitingapproval": true,
	"pendingapproval": true, "requiresapproval": true, "approvalrequired": true, "needsapproval": true,
	"awaitinguser": true, "awaitinginput": true, "awaitinguserinput": true, "requiresaction": true,
	"pendinguseraction": true, "inputrequired": true, "awaitingconsent": true, "pendingreview": true,
}

func ruleConfirmation(s *signals) (kind, bool) {
	d, _ := s.in.Error.Details.(map[string]any)
	sc := mapField(d, "structuredContent")
	for _, m := range []map[string]any{mapField(sc, "execution"), mapField(d, "execution"), sc, mapField(sc, "result")} {
		for _, key := range []string{"status", "state"} {
			if v, ok := stringField(m, key); ok && confirmationStates[alnumLower(v)] {
				return kConfirm, true
			}
		}
	}
	if v, ok := stringField(d, "status"); ok && confirmationStates[alnumLower(v)] {
		return kConfirm, true
	}
	return kNone, false
}

func ruleReasonCode(s *signals) (kind, bool) {
	d, _ := s.in.Error.Details.(map[string]any)
	sc := mapField(d, "structuredContent")
	code := firstCode(sc, "reason_code", "reasonCode", "reason")
	if code == "" {
		code = firstCode(d, "reason_code", "reasonCode")
	}
	if code == "" {
		// No reason code, but an execution status more telling than
		// "failed" ("blocked_by_policy", "quota_exceeded") serves as one.
		if v, ok := stringField(mapField(sc, "execution"), "status"); ok && !plainStates[alnumLower(v)] {
			code = v
		}
	}
	if code == "" {
		return kNone, false
	}
	if k, ok := lookupVendor(normalizeCode(code), false); ok {
		return k, true
	}
	// Read the code's words, except the weak "unavailable"/"internal"
	// readings: a tool that took the trouble to give a reason refused on
	// purpose, and "sender_profile_unavailable" means someone must set up a
	// profile, not that a server is down.
	if k, ok := wordsKind(code, allSets&^mask(tUnavailable, tServer)); ok {
		return k, true
	}
	if k, ok := wordsKind(strings.ReplaceAll(strings.ToLower(code), "unavailable", ""), mask(tUnavailable, tServer)); ok {
		return k, true // "temporarily_unavailable", "maintenance_window"
	}
	// An unrecognised deliberate refusal: a person has to look at it.
	return kSetup, true
}

// plainStates are execution states that say nothing about why.
var plainStates = map[string]bool{
	"failed": true, "failure": true, "error": true, "errored": true, "notstarted": true,
	"cancelled": true, "canceled": true, "completed": true, "succeeded": true, "success": true,
	"running": true, "pending": true, "unknown": true, "aborted": true, "rejected": true, "skipped": true,
}

func ruleJSONRPCData(s *signals) (kind, bool) {
	if !s.hasJSONRPC || s.jsonrpc > -32000 || s.jsonrpc < -32099 {
		return kNone, false
	}
	d, _ := s.in.Error.Details.(map[string]any)
	data := mapField(d, "data")
	code := firstCode(data, "code", "reason", "type", "error")
	if code == "" {
		code = firstCode(d, "code", "reason")
	}
	if code == "" {
		return kNone, false
	}
	if k, ok := lookupVendor(normalizeCode(code), false); ok {
		return k, true
	}
	return wordsKind(code, allSets)
}

func ruleSlack(s *signals) (kind, bool) {
	d, _ := s.in.Error.Details.(map[string]any)
	if ok, isBool := d["ok"].(bool); !isBool || ok {
		return kNone, false
	}
	code, ok := stringField(d, "error")
	if !ok || !looksLikeCode(code) {
		return kNone, false
	}
	if k, ok := lookupVendor(normalizeCode(code), false); ok {
		return k, true
	}
	if k, ok := wordsKind(code, allSets); ok {
		return k, true
	}
	// Slack answers ok:false only for application errors (transport
	// failures never get that far), nearly all about the request itself.
	return kInvalid, true
}

func ruleVendorCode(s *signals) (kind, bool) {
	for _, c := range s.codes {
		if k, ok := lookupVendor(c, true); ok {
			if c == "quotaexceeded" && (s.hasRetryTime() || quotaWindow.MatchString(s.in.Error.Message)) {
				continue // a window that resets by itself: the rate-limit reading
			}
			return k, true
		}
	}
	if k, ok := lookupVendor(s.typeLast, true); ok {
		return k, true
	}
	// A message that is nothing but a code (HTTP 200 bodies of public-data
	// APIs answer "SERVICE_KEY_IS_NOT_REGISTERED_ERROR") is one.
	if m := strings.TrimSpace(s.in.Error.Message); len(m) <= 80 && codeShaped(m) {
		return lookupVendor(normalizeCode(m), true)
	}
	return kNone, false
}

// quotaWindow finds the window of a quota that resets by itself ("per
// minute", "daily"): a QUOTA_EXCEEDED code that names none is a quota a
// person raises (docs/classification.md, "Rate limits and quotas").
var quotaWindow = regexp.MustCompile(`(?i)\b(?:per|a|each|every) (?:second|minute|hour|day)\b|\b(?:seconds?|minutes?|hours?|daily|hourly)\b`)

// codeShaped reports whether s is a single upper-snake-case identifier
// with at least one underscore, as error codes are written.
func codeShaped(s string) bool {
	if len(s) < 4 || strings.IndexByte(s, '_') < 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Which message readings may refine an ambiguous status.
var (
	clientErrorRefinements = governanceSets | reliabilitySets | mask(tPermission, tUnsupportedStrong, tNotFound, tTooLarge, tExists)
	forbiddenRefinements   = governanceSets | reliabilitySets
	serverErrorRefinements = governanceSets | reliabilitySets | mask(tPermission, tUnsupportedStrong, tNotFound, tExists)
	quotaRefinements       = mask(tConfirm, tSetup, tBilling, tQuotaCount, tStorage, tQuotaPerson)
)

func ruleHTTPText(s *signals) (kind, bool) {
	if !s.hasHTTP {
		return kNone, false
	}
	var allowed setMask
	switch c := s.http; {
	case c == 400 || c == 422:
		allowed = clientErrorRefinements
	case c == 403:
		if s.in.Error.RetryAfter != "" {
			return kRateLimit, true // a 403 that says when to come back is a rate limit
		}
		allowed = forbiddenRefinements
	case c == 404 || c == 410:
		allowed = mask(tUnsupportedStrong) // "unknown tool", "issues are disabled for this repo"
	case c == 409:
		// APIs use 409 for update races ("modified, try again"), for names
		// already taken, and (Dropbox) for every endpoint-specific error.
		allowed = governanceSets | reliabilitySets | mask(tUnavailable, tNotFound)
	case c == 423:
		// Locked: a lock another holder releases, unless the words say an
		// owner's rule, a step for a person or a bill keeps it shut.
		allowed = governanceSets
	case c == 429:
		if s.hasRetryTime() {
			return kRateLimit, true // a quota that says when it refills is a rate limit
		}
		allowed = quotaRefinements
	case c == 500:
		allowed = serverErrorRefinements
	case c == 502 || c == 503 || c == 504:
		allowed = reliabilitySets // "overloaded" or "rate limit" tells the request was turned away
	case c < 400:
		allowed = allSets // 2xx/3xx carrying an error: the status says nothing
	}
	return s.textKind(allowed)
}

func ruleHTTP(s *signals) (kind, bool) {
	if !s.hasHTTP {
		return kNone, false
	}
	switch c := s.http; c {
	case 400, 411, 414, 416, 417, 418, 422, 428, 431:
		return kInvalid, true
	case 421: // misdirected request: a connection reused for the wrong host
		return kNetwork, true
	case 401, 407, 511:
		return kAuth, true
	case 402:
		return kBilling, true
	case 403:
		return kPermission, true
	case 404, 410:
		return kNotFound, true
	case 405, 406, 415, 426, 501, 505, 510:
		return kUnsupported, true
	case 408, 504, 522, 524, 598, 599:
		return kTimeout, true
	case 409:
		return kExists, true
	case 412:
		return kInvalid, true
	case 413:
		return kTooLarge, true
	case 423, 425:
		return kContention, true
	case 424:
		return kServer, true
	case 429:
		return kRateLimit, true
	case 451:
		return kPolicy, true
	case 499:
		return kNetwork, true
	case 500, 502:
		return kServer, true
	case 503:
		return kUnavailable, true
	case 507:
		return kStorageFull, true
	case 509:
		return kRateLimit, true
	case 520, 521, 523, 525, 530:
		return kNetwork, true
	case 526:
		// Cloudflare's "Invalid SSL certificate": the origin's certificate
		// does not verify, which a person fixes (docs/classification.md,
		// Certificates); retrying never heals it.
		return kSetup, true
	case 529:
		return kOverloaded, true
	}
	switch {
	case s.http >= 400 && s.http < 500:
		return kInvalid, true
	case s.http >= 500 && s.http < 600:
		return kServer, true
	}
	return kNone, false
}

func ruleGRPCText(s *signals) (kind, bool) {
	if !s.hasGRPC {
		return kNone, false
	}
	var allowed setMask
	switch s.grpc {
	case 0, 2: // OK with an error, or UNKNOWN: the code says nothing
		allowed = allSets
	case 3, 9, 11:
		allowed = clientErrorRefinements
	case 7:
		allowed = forbiddenRefinements
	case 8:
		if s.hasRetryTime() {
			return kRateLimit, true
		}
		allowed = quotaRefinements | mask(tTooLarge)
	case 13:
		allowed = serverErrorRefinements
	}
	return s.textKind(allowed)
}

// grpcKinds maps gRPC status codes 1..16.
var grpcKinds = [17]kind{
	1: kNetwork, 2: kServer, 3: kInvalid, 4: kTimeout, 5: kNotFound, 6: kExists, 7: kPermission,
	8: kRateLimit, 9: kInvalid, 10: kContention, 11: kInvalid, 12: kUnsupported, 13: kServer,
	14: kUnavailable, 15: kServer, 16: kAuth,
}

func ruleGRPC(s *signals) (kind, bool) {
	if !s.hasGRPC || s.grpc < 1 || s.grpc > 16 {
		return kNone, false
	}
	return grpcKinds[s.grpc], true
}

func ruleJSONRPCText(s *signals) (kind, bool) {
	if !s.hasJSONRPC {
		return kNone, false
	}
	switch c := s.jsonrpc; {
	case c == -32700 || c == -32600 || c == -32602:
		return s.textKind(clientErrorRefinements)
	case c == -32603:
		return s.textKind(serverErrorRefinements)
	case c == -32601 || c == -32002 || c == -32042:
		return kNone, false
	default: // server-defined and application codes: the message decides
		return s.textKind(allSets)
	}
}

func ruleJSONRPC(s *signals) (kind, bool) {
	if !s.hasJSONRPC {
		return kNone, false
	}
	switch c := s.jsonrpc; {
	case c == -32700, c == -32600, c == -32602:
		return kInvalid, true
	case c == -32601:
		return kUnsupported, true
	case c == -32603:
		return kServer, true
	case c == -32002: // MCP: resource not found
		return kNotFound, true
	case c == -32042: // MCP: URL elicitation required, the user must act
		return kConfirm, true
	case c == -32001: // MCP SDKs: request timeout
		return kTimeout, true
	case c == -32000: // MCP SDKs: connection closed
		return kNetwork, true
	case c < -32000 && c >= -32099: // other server-defined errors
		return kServer, true
	}
	return kNone, false
}

func ruleSQLState(s *signals) (kind, bool) {
	if code := s.sqlstateOf(); code != "" {
		return sqlstateKind(code)
	}
	return kNone, false
}

func ruleDBVendor(s *signals) (kind, bool) { return s.vendorDBKind() }

func ruleRedis(s *signals) (kind, bool) { return redisKind(s.in.Error.Message) }

func ruleErrno(s *signals) (kind, bool) { return s.errnoKind() }

func ruleExceptionType(s *signals) (kind, bool) {
	if k, ok := exceptionTypes[s.typeLast]; ok {
		return k, true
	}
	k, ok := exceptionTypes[s.typeFull]
	return k, ok
}

func ruleMessage(s *signals) (kind, bool) { return s.textKind(allSets) }

func ruleGenericType(s *signals) (kind, bool) {
	for _, n := range []string{s.typeFull, s.typeLast, normalizeCode(s.typeFull)} {
		if k, ok := genericTypes[n]; ok && k != kNone {
			return k, true
		}
	}
	return kNone, false
}

// hasRetryTime reports whether the error says when to retry.
func (s *signals) hasRetryTime() bool {
	_, ok := s.retryTime()
	return ok
}

func mapField(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	v, _ := m[key].(map[string]any)
	return v
}

func stringField(m map[string]any, key string) (string, bool) {
	if m == nil {
		return "", false
	}
	v, ok := m[key].(string)
	return v, ok && v != ""
}

// firstCode returns the first of the keys whose value looks like a code.
func firstCode(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := stringField(m, k); ok && looksLikeCode(v) {
			return v
		}
	}
	return ""
}
