package conformance

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The toolFailure object's keys. The set is closed: a client that meets an
// unknown key cannot tell an extension from a typo, so extensions go in a
// _meta key of their own instead.
const (
	keyClass          = "class"
	keyCode           = "code"
	keyRetryable      = "retryable"
	keyRetryNotBefore = "retryNotBefore"
	keyCorrelationID  = "correlationId"
	keyAgentGuidance  = "agentGuidance"
)

var knownKeys = []string{keyClass, keyCode, keyRetryable, keyRetryNotBefore, keyCorrelationID, keyAgentGuidance}

// The classes, a closed set: clients decide what they may do (retry or not,
// ask the user or not) from the class alone.
const (
	classCapability  = "capability"
	classReliability = "reliability"
	classGovernance  = "governance"
)

var classes = []string{classCapability, classReliability, classGovernance}

// baselineClass maps each code of the proposal's baseline vocabulary to its
// class. Servers may add codes; only these are known well enough to say that
// a code sits in the wrong class.
var baselineClass = map[string]string{
	"capability_unsupported":    classCapability,
	"resource_not_found":        classCapability,
	"invalid_input":             classCapability,
	"retryable_transient_error": classReliability,
	"auth_required":             classGovernance,
	"permission_denied":         classGovernance,
	"policy_blocked":            classGovernance,
	"user_action_required":      classGovernance,
}

const (
	// maxCorrelationIDLen and maxAgentGuidanceLen count Unicode code points,
	// as JSON Schema's maxLength does, so that the Go checks and the shipped
	// schema agree on every string.
	maxCorrelationIDLen = 64
	maxAgentGuidanceLen = 499 // "under 500 characters"

	// retryWindow bounds retryNotBefore on both sides of now. A retry time
	// a day or more in the past tells the client nothing (it may retry at
	// once anyway) and usually means seconds were sent for milliseconds or
	// a clock is wrong; one more than a day ahead is not a transient fault
	// any more, and a client would hold a call open, or a retry queued, for
	// longer than any user waits.
	retryWindow = 24 * time.Hour
)

// checkToolFailure runs the hand-written rules and, when they find no MUST
// violation, the shipped schema as a cross-check. at is the JSON Pointer of
// the object in the checked document.
func (c *Checker) checkToolFailure(v any, at string) []Violation {
	vs := c.toolFailureRules(v, at)
	if Conforms(vs) {
		if err := toolFailureSchema().Validate(v); err != nil {
			vs = append(vs, schemaViolations(err, v, at, ruleToolFailureSchema,
				"does not match the toolFailure JSON Schema")...)
		}
	}
	return vs
}

func (c *Checker) toolFailureRules(v any, at string) []Violation {
	obj, ok := v.(map[string]any)
	if !ok {
		return []Violation{newViolation(at, ruleToolFailureType,
			"the toolFailure value must be a JSON object, got %s", describe(v))}
	}
	var vs []Violation
	add := func(v Violation) { vs = append(vs, v) }

	var unknown []string
	for k := range obj {
		if !slices.Contains(knownKeys, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		add(newViolation(pointer(at, k), ruleUnknownKey,
			"unknown key %q: the toolFailure object allows only %s; carry other data in a _meta key of your own",
			k, strings.Join(knownKeys, ", ")))
	}

	// class decides everything else a client does, so it is read first and
	// the later rules only use it when it is one of the three.
	class := ""
	switch raw, present := obj[keyClass]; {
	case !present:
		add(newViolation(at, ruleClassMissing,
			"class is required: one of %s", strings.Join(classes, ", ")))
	default:
		s, isString := raw.(string)
		if isString && slices.Contains(classes, s) {
			class = s
			break
		}
		hint := ""
		if isString && slices.Contains(classes, strings.ToLower(s)) {
			hint = " (classes are lower case)"
		}
		add(newViolation(pointer(at, keyClass), ruleClassUnknown,
			"class must be one of %s, got %s%s; the set is closed, so put finer distinctions in code",
			strings.Join(classes, ", "), describe(raw), hint))
	}

	switch raw, present := obj[keyCode]; {
	case !present:
		add(newViolation(at, ruleCodeMissing,
			"code is required: a baseline code such as %s, or a code of the server's own", exampleCode(class)))
	default:
		s, isString := raw.(string)
		switch {
		case !isString:
			add(newViolation(pointer(at, keyCode), ruleCodeType, "code must be a string, got %s", describe(raw)))
		case s == "":
			add(newViolation(pointer(at, keyCode), ruleCodeEmpty,
				"code must not be empty: use a baseline code such as %s, or a code of the server's own", exampleCode(class)))
		case class != "":
			if want, baseline := baselineClass[s]; baseline && want != class {
				add(newViolation(pointer(at, keyCode), ruleCodeClassMismatch,
					"code %q belongs to class %s in the baseline vocabulary, but class is %s; clients act on class, so the two should agree",
					s, want, class))
			}
		}
	}

	retryable := false
	if raw, present := obj[keyRetryable]; present {
		b, isBool := raw.(bool)
		switch {
		case !isBool:
			add(newViolation(pointer(at, keyRetryable), ruleRetryableType,
				"retryable must be a boolean, got %s", describe(raw)))
		case b && class != "" && class != classReliability:
			add(newViolation(pointer(at, keyRetryable), ruleRetryableOnlyReliability,
				"retryable is true but class is %s: only reliability failures may be retried, and %s failures must never be retried automatically; omit retryable or set it to false",
				class, class))
		}
		retryable = isBool && b
	}

	if raw, present := obj[keyRetryNotBefore]; present {
		p := pointer(at, keyRetryNotBefore)
		if !retryable {
			state := "absent"
			if r, ok := obj[keyRetryable]; ok {
				state = describe(r)
			}
			add(newViolation(p, ruleRetryNotBeforeNeedsRetry,
				"retryNotBefore is present but retryable is %s: a retry time belongs only to a failure marked retryable: true", state))
		}
		vs = append(vs, c.checkRetryNotBefore(raw, p)...)
	}

	switch raw, present := obj[keyCorrelationID]; {
	case !present:
		add(newViolation(at, ruleCorrelationIDMissing,
			"correlationId is required: the ID a user quotes and an operator looks up, starting with tf_"))
	default:
		vs = append(vs, checkCorrelationID(raw, pointer(at, keyCorrelationID))...)
	}

	if raw, present := obj[keyAgentGuidance]; present {
		vs = append(vs, checkAgentGuidance(raw, pointer(at, keyAgentGuidance))...)
	}
	return vs
}

func exampleCode(class string) string {
	switch class {
	case classReliability:
		return "retryable_transient_error"
	case classGovernance:
		return "permission_denied"
	default:
		return "invalid_input"
	}
}

func (c *Checker) checkRetryNotBefore(raw any, p string) []Violation {
	switch raw.(type) {
	case json.Number, float64:
	default:
		hint := ""
		if s, ok := raw.(string); ok {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				hint = "; write the number without quotes"
			} else if _, err := time.Parse(time.RFC3339, s); err == nil {
				hint = "; convert the time to Unix epoch milliseconds"
			}
		}
		return []Violation{newViolation(p, ruleRetryNotBeforeType,
			"retryNotBefore must be a JSON integer of Unix epoch milliseconds, got %s%s", describe(raw), hint)}
	}

	// fmt.Sprint and big.Rat are exactly how the schema validator decides
	// "integer", so the two checks agree on every literal, 1.0 and 1e12
	// included.
	text := fmt.Sprint(raw)
	r, ok := new(big.Rat).SetString(text)
	if !ok || !r.IsInt() {
		return []Violation{newViolation(p, ruleRetryNotBeforeInteger,
			"retryNotBefore must be a whole number of Unix epoch milliseconds, got %s", text)}
	}
	var vs []Violation
	if n, isNumber := raw.(json.Number); isNumber && strings.ContainsAny(n.String(), ".eE") {
		vs = append(vs, newViolation(p, ruleRetryNotBeforeLiteral,
			"retryNotBefore is written %s; write it as the integer %s, since decoders in several languages read a fraction or exponent as a float",
			n, r.Num()))
	}

	now := c.now()
	lo := big.NewInt(now.Add(-retryWindow).UnixMilli())
	hi := big.NewInt(now.Add(retryWindow).UnixMilli())
	ms := r.Num()
	switch {
	case ms.Cmp(lo) < 0:
		hint := ""
		// Anything below 10^11 ms is before March 1973 as milliseconds but
		// a date between 1973 and 5138 as seconds: almost certainly seconds.
		if ms.Sign() > 0 && ms.Cmp(big.NewInt(100_000_000_000)) < 0 {
			hint = fmt.Sprintf(" (%s if it were seconds: it must be milliseconds)", time.Unix(ms.Int64(), 0).UTC().Format(time.RFC3339))
		}
		vs = append(vs, newViolation(p, ruleRetryNotBeforePast,
			"retryNotBefore %s is %s, more than 24 h before now%s; send the earliest retry time computed when the failure happened",
			ms, formatMillis(ms), hint))
	case ms.Cmp(hi) > 0:
		vs = append(vs, newViolation(p, ruleRetryNotBeforeFarFuture,
			"retryNotBefore %s is %s, more than 24 h after now; a failure that long is not transient: report it without retryable, or as governance if a person must act",
			ms, formatMillis(ms)))
	}
	return vs
}

// formatMillis renders epoch milliseconds as a UTC time for messages, or
// says the value is out of range rather than print a nonsense year.
func formatMillis(ms *big.Int) string {
	const maxMillis = 253402300799999 // 9999-12-31T23:59:59.999Z
	if !ms.IsInt64() || ms.Int64() < 0 || ms.Int64() > maxMillis {
		return "outside the years 1970-9999"
	}
	return time.UnixMilli(ms.Int64()).UTC().Format("2006-01-02T15:04:05.000Z")
}

// isSafeIDChar reports whether r may appear in a correlation ID without
// being mangled on its way from an error message to a support ticket: the
// URL-unreserved characters (RFC 3986) plus *, $ and =, which IDs with a
// Crockford mod-37 check symbol (*~$=U) can end with: the proposal makes
// IDs opaque, so the checker accepts them, though this project's own IDs
// keep to letters and digits.
// Spaces, quotes, slashes, %, <, >, &, # and non-ASCII letters are all
// things that logs, URLs, shells or chat clients rewrite.
func isSafeIDChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("-._~*$=", r)
}

func checkCorrelationID(raw any, p string) []Violation {
	s, ok := raw.(string)
	if !ok {
		return []Violation{newViolation(p, ruleCorrelationIDType,
			"correlationId must be a string starting with tf_, got %s", describe(raw))}
	}
	var vs []Violation
	if !strings.HasPrefix(s, "tf_") {
		hint := ""
		if strings.HasPrefix(strings.ToLower(s), "tf_") {
			hint = " (the prefix is lower case)"
		}
		vs = append(vs, newViolation(p, ruleCorrelationIDPrefix,
			"correlationId must start with tf_, got %s%s", describe(s), hint))
	}
	if n := utf8.RuneCountInString(s); n > maxCorrelationIDLen {
		vs = append(vs, newViolation(p, ruleCorrelationIDLength,
			"correlationId is %d characters; it must be at most %d", n, maxCorrelationIDLen))
	}
	var bad []string
	for _, r := range s {
		if q := strconv.QuoteRune(r); !isSafeIDChar(r) && !slices.Contains(bad, q) {
			bad = append(bad, q)
		}
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], "…")
		}
		vs = append(vs, newViolation(p, ruleCorrelationIDCharset,
			"correlationId contains %s; keep to letters, digits and - . _ ~ * $ = so that it survives being copied from a chat, a URL or a log line unchanged",
			strings.Join(bad, ", ")))
	}
	return vs
}

// heuristic is a named pattern; the names go into messages, the matched
// text never does.
type heuristic struct {
	name string
	re   *regexp.Regexp
}

// heuristics is a set of patterns with a combined regexp that answers "does
// any of them match" in one pass over the text, which is the common case
// worth making fast; the single patterns only run to name a match.
type heuristics struct {
	any      *regexp.Regexp
	patterns []heuristic
}

func newHeuristics(patterns ...heuristic) heuristics {
	alts := make([]string, len(patterns))
	for i, p := range patterns {
		alts[i] = "(?:" + p.re.String() + ")"
	}
	return heuristics{any: regexp.MustCompile(strings.Join(alts, "|")), patterns: patterns}
}

// match returns the name of the first pattern that matches s, or "".
func (h heuristics) match(s string) string {
	if !h.any.MatchString(s) {
		return ""
	}
	for _, p := range h.patterns {
		if p.re.MatchString(s) {
			return p.name
		}
	}
	return ""
}

// secretPatterns recognise the credential shapes that end up in error text
// most often. agentGuidance is shown to the calling model, stored in
// transcripts and often echoed to the user, so anything secret in it has
// leaked. Case-insensitive parts use (?i:...) groups, because the patterns
// are also joined into one regexp where a leading (?i) would spread.
var secretPatterns = newHeuristics(
	heuristic{"a private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	heuristic{"a bearer token", regexp.MustCompile(`\b(?i:bearer)\s+[A-Za-z0-9._~+/=-]{16,}`)},
	heuristic{"a JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	heuristic{"an AWS access key ID", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	heuristic{"a GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	heuristic{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	heuristic{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	heuristic{"an API secret key", regexp.MustCompile(`\b(?:sk|rk)[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{20,}`)},
	heuristic{"a URL with a password", regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`)},
	heuristic{"a password or key assignment", regexp.MustCompile(`\b(?i:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[:=]\s*\S{4,}`)},
)

// injectionPatterns recognise guidance that addresses the model's
// instructions instead of the failed call. The proposal gives
// agentGuidance one job, telling the calling model what to do next about
// this failure; text from a server (possibly an untrusted one) that tries
// to replace the agent's instructions, or to keep something from the user,
// is prompt injection whatever the server meant by it.
var injectionPatterns = newHeuristics(
	heuristic{"tells the model to ignore its instructions", regexp.MustCompile(`(?i:\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|any|your|system|developer)\b[^.!?\n]{0,20}\b(?:instructions?|prompts?|rules|directions|guidelines|messages|context)\b)`)},
	heuristic{"tries to give the model a new role", regexp.MustCompile(`(?i:\b(?:you are now (?:an?|the|my)\s|from now on,? you\b))`)},
	heuristic{"mentions the system prompt", regexp.MustCompile(`(?i:\b(?:system|developer) (?:prompt|message|instructions)\b)`)},
	heuristic{"announces new instructions", regexp.MustCompile(`(?i:\bnew instructions?\s*:)`)},
	heuristic{"contains chat-template markup", regexp.MustCompile(`(?i:<\|?\s*/?\s*(?:system|assistant|im_start|im_end)\b|\[/?INST\])`)},
	heuristic{"asks the model to keep something from the user", regexp.MustCompile(`(?i:\b(?:do not|don't|never)\s+(?:tell|inform|notify|alert|show)\s+(?:this\s+to\s+)?the\s+user\b)`)},
)

func checkAgentGuidance(raw any, p string) []Violation {
	s, ok := raw.(string)
	if !ok {
		return []Violation{newViolation(p, ruleAgentGuidanceType, "agentGuidance must be a string, got %s", describe(raw))}
	}
	var vs []Violation
	if n := utf8.RuneCountInString(s); n > maxAgentGuidanceLen {
		vs = append(vs, newViolation(p, ruleAgentGuidanceLength,
			"agentGuidance is %d characters; it must be under 500, because the calling model reads it on every failure: keep it to a sentence or two about what to do next",
			n))
	}
	if name := secretPatterns.match(s); name != "" {
		vs = append(vs, newViolation(p, ruleAgentGuidanceSecret,
			"agentGuidance appears to contain %s; the model, the transcript and often the user see this text, so treat the credential as leaked and remove it",
			name))
	}
	if name := injectionPatterns.match(s); name != "" {
		vs = append(vs, newViolation(p, ruleAgentGuidanceInstructions,
			"agentGuidance %s; it should only say what to do next about this failure, and clients should treat such text as untrusted",
			name))
	}
	return vs
}

// describe names a decoded JSON value for a message: its type, and its
// value when that is short and harmless to echo.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("the boolean %t", x)
	case string:
		if utf8.RuneCountInString(x) > 40 {
			x = string([]rune(x)[:40]) + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	default:
		return fmt.Sprintf("a Go %T", v)
	}
}
